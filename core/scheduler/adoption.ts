// Adoption after a restart (live mode): a job an earlier run of Concertina launched, found again on its cluster, is
// checked against the grid and counted in the capacity model as it stands there (a malleable job's processors above
// its minimum as preemptible), without being submitted again: its local manager, which has recovered it by its tag,
// answers for it from now on. A job that ended meanwhile is only recorded, with its end state.
// Decision: the earlier run already emitted its submitted, placed and started events (a host stores them), so
// adoption emits exactly one event: `job.adopted` (cluster, size, state), or `job.ended` for a job that ended.
import type { SchedulerEventBody } from '../events.js';
import type { Cluster, Grid } from '../model/grid.js';
import { checkJobAgainstGrid, componentRequest } from '../model/job.js';
import { fail, ok, parseWith, type Result } from '../model/result.js';
import { storedJobSpecSchema, type JobSpec } from '../model/schemas.js';
import type { ClusterState } from './cluster-state.js';
import type { JobRecord } from './job-record.js';
import type { CapacityLedger } from './ledger.js';

/**
 * A job an earlier run of Concertina launched, found again on its cluster after a restart (live mode): it runs
 * there with `processors` since `startTime`, or waits for its local jobs to start (`startTime` undefined), or has
 * ended meanwhile (`ended`).
 */
export interface AdoptedJob {
  readonly cluster: string;
  readonly processors: number;
  /**
   * A running resizable job's processors of a grow under way: launched on the cluster, not started yet. They are told
   * as grown when they start, and meanwhile held (another grow for them would launch them twice).
   */
  readonly growing?: number;
  /** When it was submitted, in the scheduler's time. */
  readonly submitTime: number;
  readonly startTime?: number;
  readonly ended?: { readonly state: 'completed' | 'failed' | 'cancelled'; readonly reason: string };
  /** A malleable job's cap, when an operator's shrink set it below its max (it sticks across a restart). */
  readonly cap?: number;
  /** A profiled (FPE) job's step (0-based) and when that step began, as the earlier run had them. */
  readonly step?: AdoptedStep;
}

export interface AdoptedStep {
  readonly index: number;
  readonly start: number;
  /**
   * This step and the ones after it as the earlier run planned them (its scheduled EP): how long each lasts, an
   * expanded one longer than requested, and the processors it holds in each. Without it, the requested steps.
   */
  readonly planned?: readonly PlannedStep[];
  /**
   * Failed grows of the step its grows are for (the next one, or this one while its grow is under way), as the earlier
   * run counted them: the attempts left go on from there, not afresh. Without it, none.
   */
  readonly growFailures?: number;
  /**
   * After a failed grow, when the earlier run was to ask for it again (the scheduler's time): the adopted job waits
   * until then, as it would have. Without it (a state stored before it was), no wait.
   */
  readonly retryAt?: number;
}

export interface PlannedStep {
  readonly durationS: number;
  readonly processors: number;
}

/** Reads a stored job spec to adopt and checks it, and what was found of the job, against the grid. */
export function checkAdoption(
  input: unknown,
  adopted: AdoptedJob,
  grid: Grid,
  known: (id: string) => boolean,
): Result<{ spec: JobSpec; id: string; cluster: Cluster }> {
  // A job of an earlier session: read as it was stored.
  const parsed = parseWith(storedJobSpecSchema, input);
  if (!parsed.ok) return parsed;
  const spec = parsed.value;
  const errors = checkJobAgainstGrid(spec, grid);
  const id = spec.id;
  if (id === undefined) errors.push({ path: 'id', message: 'is required to adopt a job' });
  else if (known(id)) errors.push({ path: 'id', message: `duplicates job "${id}"` });
  // Decision: only single-cluster jobs are adopted; a co-allocated rigid job split over clusters is not resumed.
  if (spec.components.length !== 1)
    errors.push({
      path: 'components',
      message: `only a single-component job can be adopted (got ${spec.components.length})`,
    });
  const cluster = grid.cluster(adopted.cluster);
  if (!cluster) errors.push({ path: 'cluster', message: `names no cluster ("${adopted.cluster}")` });
  if (!adopted.ended && spec.components.length === 1) {
    const request = componentRequest(spec, 0);
    const n = adopted.processors;
    if (!Number.isInteger(n) || n < request.min || n > request.max) {
      errors.push({
        path: 'processors',
        message: `must be a whole number within ${request.min}..${request.max} (got ${n})`,
      });
    }
    const growing = adopted.growing;
    if (
      growing !== undefined &&
      (adopted.startTime === undefined || !(spec.kind === 'malleable' || spec.kind === 'evolving'))
    )
      errors.push({ path: 'growing', message: 'is only for a running malleable or evolving job' });
    else if (growing !== undefined && (!Number.isInteger(growing) || growing < 0 || n + growing > request.max))
      errors.push({
        path: 'growing',
        message: `must be a whole number within 0..${Math.max(0, request.max - n)} (got ${growing})`,
      });
  }
  const steps = spec.profile?.steps;
  if (adopted.step !== undefined) {
    const { index, start, planned } = adopted.step;
    if (steps === undefined) errors.push({ path: 'step', message: 'is only for a job with a profile' });
    else if (!Number.isInteger(index) || index < 0 || index >= steps.length)
      errors.push({
        path: 'step.index',
        message: `must be a step of its profile, 0..${steps.length - 1} (got ${index})`,
      });
    else if (planned !== undefined) errors.push(...checkPlanned(planned, steps.slice(index)));
    if (!Number.isFinite(start)) errors.push({ path: 'step.start', message: `must be a time (got ${start})` });
    const failures = adopted.step.growFailures;
    if (failures !== undefined && !(Number.isInteger(failures) && failures >= 0))
      errors.push({ path: 'step.growFailures', message: `must be a whole number, 0 or more (got ${failures})` });
    const retryAt = adopted.step.retryAt;
    if (retryAt !== undefined && !Number.isFinite(retryAt))
      errors.push({ path: 'step.retryAt', message: `must be a time (got ${retryAt})` });
  }
  if (adopted.cap !== undefined && !Number.isInteger(adopted.cap))
    errors.push({ path: 'cap', message: `must be a whole number (got ${adopted.cap})` });
  if (errors.length || id === undefined || !cluster) return fail(errors);
  return ok({ spec, id, cluster });
}

/**
 * The planned steps of an adopted profiled job against its requested ones from its current step on: as many, each as
 * long at least (a scheduled EP only expands steps) and holding at least the step's processors and at most its peak
 * (the rigid baseline holds its peak throughout).
 */
function checkPlanned(
  planned: readonly PlannedStep[],
  requested: ReadonlyArray<{ duration_s: number; processors: number }>,
): Array<{ path: string; message: string }> {
  if (planned.length !== requested.length)
    return [
      {
        path: 'step.planned',
        message: `must hold its current step and the ones after it, ${requested.length} (got ${planned.length})`,
      },
    ];
  let peak = 0;
  for (const s of requested) peak = Math.max(peak, s.processors);
  const errors: Array<{ path: string; message: string }> = [];
  planned.forEach((p, i) => {
    const want = requested[i]!;
    // Decision: a microsecond short is rounding (a fit's expanded length is a difference of times), not shortening.
    if (!Number.isFinite(p.durationS) || p.durationS < want.duration_s - 1e-6)
      errors.push({
        path: `step.planned[${i}].durationS`,
        message: `must be at least its requested ${want.duration_s} s (got ${p.durationS})`,
      });
    if (!Number.isInteger(p.processors) || p.processors < want.processors || p.processors > peak)
      errors.push({
        path: `step.planned[${i}].processors`,
        message: `must be a whole number within ${want.processors}..${peak} (got ${p.processors})`,
      });
  });
  return errors;
}

/**
 * Records an adopted job on its cluster's state (`state`): ended, it takes its end state; otherwise it is counted as
 * it stands there (launched and waiting for its local jobs, or running). Returns the one event adoption emits.
 */
export function resumeAdopted(
  job: JobRecord,
  adopted: AdoptedJob,
  state: ClusterState,
  ledger: CapacityLedger,
  now: number,
): SchedulerEventBody {
  const id = job.id;
  const cluster = state.cluster;
  // Decision: a stored cap outside min..max (the spec changed meaning) is brought inside it, never refused.
  if (job.malleable && adopted.cap !== undefined) job.cap = Math.max(job.min, Math.min(job.max, adopted.cap));
  if (adopted.ended) {
    job.transition(adopted.ended.state, now, adopted.ended.reason);
    return { type: 'job.ended', jobId: id, state: adopted.ended.state, reason: adopted.ended.reason, tries: 0 };
  }
  // A profiled job holds its current step only, never a pre-allocation (fpe-jobs.ts).
  if (job.spec.profile) job.preallocating = false;
  const components = [{ cluster: cluster.name, processors: adopted.processors }];
  job.components = components;
  job.clusterIndex = cluster.index;
  job.launched = true;
  if (adopted.startTime === undefined) {
    // Launched, its local jobs not all running yet: held as a placed job until the manager answers `started`.
    if (job.evolving) ledger.holdPreallocation(job);
    if (job.malleable || job.evolving) ledger.account(job, () => (job.claimed = adopted.processors));
    else ledger.holdRigid(state, adopted.processors);
    job.transition(
      'claiming',
      now,
      `adopted after a restart: launched on ${cluster.name}, waiting for its local jobs to start`,
    );
    return { type: 'job.adopted', jobId: id, cluster: cluster.name, size: adopted.processors, state: 'claiming' };
  }
  const growing = adopted.growing ?? 0;
  if (job.malleable) {
    ledger.account(job, () => {
      job.size = adopted.processors;
      job.pendingGrow = growing;
    });
    state.addMalleable(job);
  } else if (job.evolving) {
    ledger.holdPreallocation(job);
    ledger.account(job, () => {
      job.size = adopted.processors;
      job.pendingGrow = growing;
    });
  } else {
    ledger.holdRigid(state, adopted.processors);
    job.size = adopted.processors;
  }
  job.recordSize(adopted.startTime);
  job.startedComponents = 1;
  job.startTime = adopted.startTime;
  job.transition(
    'running',
    now,
    `adopted after a restart: running on ${cluster.name} with ${adopted.processors} processors`,
  );
  return { type: 'job.adopted', jobId: id, cluster: cluster.name, size: job.size, state: 'running' };
}
