// DBES inside the scheduler: each pass builds every cluster's plain model (model.ts) from the scheduler's records,
// runs one iteration on it (iteration.ts) and carries its decisions out through the scheduler — starts as placements,
// shrinks and expansions as one malleability operation per cluster, each step with its reason (so the events say for
// which waiting job an expansion was made). It keeps, per job, which of its processors were given for whom.
import type { IterationHost, SchedulingIteration } from '../malleability/iteration.js';
import type { PolicyProcedure } from '../malleability/policy.js';
import type { Reservation } from '../plan/availability.js';
import type { ProfiledHold } from '../queue/planned-pass.js';
import { heldProcessors, holdingEnd } from '../plan/holding.js';
import type { ClusterState } from '../scheduler/cluster-state.js';
import type { JobRecord } from '../scheduler/job-record.js';
import { dbesIteration } from './iteration.js';
import { deadline } from '../malleability/deadline.js';
import {
  DEFAULT_FAIRNESS,
  emptyFairnessAccount,
  type DbesAction,
  type DbesCluster,
  type DbesOutcome,
  type DbesRunningJob,
  type DbesWaitingJob,
  type Expansion,
  type FairnessBudget,
} from './model.js';
import { runningPlan } from './plan.js';

/** Decision: without a reservation depth set for the run, DBES keeps 5, the depth of the paper's experiments. */
export const DBES_DEFAULT_DEPTH = 5;

export class DbesScheduling implements SchedulingIteration {
  /** Each running malleable job's expansions, oldest first. */
  private readonly expansions = new Map<string, Expansion[]>();
  private readonly account = emptyFairnessAccount();
  /** Each waiting job's model, kept while it waits (see `assign`). */
  private readonly waitingModels = new WeakMap<JobRecord, DbesWaitingJob>();
  /** What each cluster's last iteration started from (see `pass`). */
  private readonly lastInputs: Array<IterationInputs | undefined> = [];
  /** The last outcome per cluster (for tests and the console). */
  readonly outcomes: Array<DbesOutcome | undefined> = [];
  /** Evolving jobs' requests not yet decided, in the order they came (by job id: a later request replaces one). */
  private readonly requests = new Map<string, { readonly job: JobRecord; readonly processors: number }>();
  private noSteps: ReadonlyArray<readonly Reservation[]> = [];
  /** Decision: under DBES evolving jobs hold no pre-allocation; each grow is a request under the fairness budget. */
  readonly preallocates = false;

  /** `iterate`: one iteration on a cluster's model (DBES's, or a baseline's: standard.ts). */
  constructor(
    private readonly host: IterationHost,
    private readonly iterate: (state: DbesCluster) => DbesOutcome = dbesIteration,
    private readonly fairness: FairnessBudget = DEFAULT_FAIRNESS,
  ) {}

  /** No profiled steps on any cluster: one array, kept while the number of clusters stays (most runs have none). */
  private noStepsOn(clusterCount: number): ReadonlyArray<readonly Reservation[]> {
    if (this.noSteps.length !== clusterCount)
      this.noSteps = new Array<readonly Reservation[]>(clusterCount).fill(NO_STEPS);
    return this.noSteps;
  }

  /** Expansions a job holds now, as DBES recorded them. */
  expansionsOf(jobId: string): readonly Expansion[] {
    return this.expansions.get(jobId) ?? [];
  }

  request(job: JobRecord, processors: number, _now: number): void {
    this.requests.delete(job.id);
    this.requests.set(job.id, { job, processors });
  }

  pass(now: number): void {
    const host = this.host;
    const clusters = host.clusters;
    const placed: JobRecord[][] = clusters.map(() => []);
    for (const job of host.placedJobs()) {
      if (!job.ended && job.clusterIndex >= 0) placed[job.clusterIndex]!.push(job);
      else if (job.ended) this.expansions.delete(job.id);
    }
    const running = placed.map((jobs) => jobs.map((job) => this.model(job, now)));
    const capacity = clusters.map((state, c) => state.availableFor() + running[c]!.reduce((s, j) => s + j.size, 0));
    const holds = host.profiledHolds?.(now);
    const profiledSteps =
      holds === undefined || holds.length === 0
        ? this.noStepsOn(clusters.length)
        : stepsAhead(holds, clusters.length, now);
    const waiting = this.assign(byPriority(host.waitingJobs(now)), running, capacity, profiledSteps, now);
    const requests = clusters.map((): Array<{ job: JobRecord; processors: number }> => []);
    for (const [id, r] of this.requests) {
      if (r.job.ended || r.job.state !== 'running') this.requests.delete(id);
      else requests[r.job.clusterIndex]!.push(r);
    }
    const depth = host.reservationDepth() ?? DBES_DEFAULT_DEPTH;
    for (let c = 0; c < clusters.length; c++) {
      const state = clusters[c]!;
      // Decision: a cluster where an operation runs is left alone until it ends (its jobs' sizes are in flux); its end
      // asks for the next pass.
      if (host.busy(state)) continue;
      // Decision: an iteration whose inputs (capacity, running jobs' sizes and ends, the waiting jobs) are those the
      // last one on this cluster started from is skipped: its decisions were carried out already (this is where
      // dependencies are recomputed only when the state changed).
      const inputs: IterationInputs = {
        capacity: capacity[c]!,
        running: running[c]!,
        waiting: waiting[c]!,
        requests: requests[c]!,
        profiledSteps: profiledSteps[c]!,
      };
      if (sameInputs(inputs, this.lastInputs[c])) continue;
      this.lastInputs[c] = inputs;
      const outcome = this.iterate({
        now,
        capacity: capacity[c]!,
        running: running[c]!,
        waiting: waiting[c]!.models,
        // Decision: the paper's users are not in the model; each evolving job is its own user for the per-user budget.
        requests: requests[c]!.map((r) => ({ jobId: r.job.id, processors: r.processors, user: r.job.id })),
        reservationDepth: depth,
        fairness: host.fairness() ?? this.fairness,
        account: this.account,
        runtime: host.runtimeAt,
        profiledSteps: profiledSteps[c]!,
      });
      this.outcomes[c] = outcome;
      this.apply(state, outcome, placed[c]!, waiting[c]!.jobs, now);
    }
  }

  /**
   * A placed job as the iteration sees it. Only a running malleable job in no resize is malleable there (a job being
   * claimed, growing or releasing keeps its size this pass). Decision: processors above the minimum that DBES did
   * not give (an operator's grow) count as expanded for no job; expansions beyond what the job holds (it released
   * more than asked) are dropped, the latest first.
   */
  private model(job: JobRecord, now: number): DbesRunningJob {
    const n = heldProcessors(job, job.components[0]?.processors ?? 0);
    const end = holdingEnd(job, now, this.host.runtimeAt);
    const resizable =
      job.malleable && job.state === 'running' && job.releasing === 0 && job.pendingGrow === 0 && job.claimed === 0;
    const started = Number.isFinite(job.startTime) ? job.startTime : now;
    if (!resizable)
      return {
        id: job.id,
        size: n,
        min: n,
        max: n,
        malleable: false,
        end,
        started,
        deadline: deadline(job),
        expansions: [],
      };
    const extra = Math.max(0, n - job.min);
    let list = this.expansions.get(job.id);
    let sum = 0;
    if (list !== undefined) for (const e of list) sum += e.processors;
    // The recorded expansions, shared with the model while they sum to what the job holds above its minimum (the
    // iteration works on its own copy); otherwise made to.
    if (list === undefined || sum !== extra) {
      list = (list ?? []).map((e) => ({ ...e }));
      while (sum > extra && list.length > 0) {
        const last = list[list.length - 1]!;
        const k = Math.min(last.processors, sum - extra);
        last.processors -= k;
        sum -= k;
        if (last.processors === 0) list.pop();
      }
      if (sum < extra) list.unshift({ processors: extra - sum, step: 2, forJob: undefined });
      this.expansions.set(job.id, list);
    }
    return {
      id: job.id,
      size: n,
      min: job.min,
      max: Math.max(n, job.cap),
      malleable: true,
      end,
      // The plan's holding rule with the resize as a size step now: the end the plan snapshot draws once it is done.
      endAt: (size) =>
        holdingEnd(
          {
            id: job.id,
            spec: job.spec,
            startTime: job.startTime,
            held: size,
            size,
            evolving: false,
            malleable: true,
            preallocation: job.preallocation,
            sizeHistory: [...job.sizeHistory, { t: now, v: size }],
            ...(job.startSize !== undefined && { startSize: job.startSize }),
          },
          now,
          this.host.runtimeAt,
        ),
      started,
      deadline: deadline(job),
      expansions: list,
    };
  }

  /**
   * Which cluster each waiting job is scheduled on. Decision: its pinned cluster, else the one where its earliest
   * start among the running jobs alone is earliest (the first at a tie); a job no cluster can ever hold counts a
   * failed try and waits.
   */
  private assign(
    queue: readonly JobRecord[],
    running: DbesRunningJob[][],
    capacity: number[],
    profiledSteps: ReadonlyArray<readonly Reservation[]>,
    now: number,
  ): WaitingOn[] {
    const clusters = this.host.clusters;
    const out = clusters.map((): WaitingOn => ({ jobs: [], models: [] }));
    // Each cluster's plan of its running jobs and profiled steps, built when a job has more than one cluster to
    // choose from.
    const plans: Array<ReturnType<typeof runningPlan> | undefined> = [];
    const planOf = (c: number) =>
      (plans[c] ??= runningPlan({ now, capacity: capacity[c]!, profiledSteps: profiledSteps[c]! }, running[c]!));
    // The cluster where n processors are free earliest, the first at a tie; -1 when no cluster has n.
    const earliest = (n: number, walltime: number): number => {
      // One cluster: no plan to read.
      if (clusters.length === 1) return n <= clusters[0]!.cluster.processors ? 0 : -1;
      let best = -1;
      let bestStart = Number.POSITIVE_INFINITY;
      for (let c = 0; c < clusters.length; c++) {
        if (n > clusters[c]!.cluster.processors) continue;
        const start = planOf(c).earliestStart(n, walltime, now, bestStart);
        if (best < 0 || start < bestStart) {
          best = c;
          bestStart = start;
        }
      }
      return best;
    };
    // The cluster of an unpinned job, by its need. Without profiled steps these plans hold only running jobs under a
    // constant capacity, so what is free never falls from now on: the earliest start of n processors is the first
    // time n are free, whatever the walltime, and every unpinned job of one need goes to the same cluster. Steps
    // ahead make it fall: each job is then placed by its own search.
    const oneClusterPerNeed = profiledSteps.every((steps) => steps.length === 0);
    let byNeed: Map<number, number> | undefined;
    for (const job of queue) {
      if (job.state !== 'queued') continue;
      // Without a pre-allocation an evolving job needs only its initial size to start.
      if (job.evolving) job.preallocating = false;
      // Decision: DBES (one Maui cluster in the paper) places single-component jobs; a co-allocated job is refused.
      if (job.spec.components.length > 1) {
        this.host.failedTry(
          job,
          `a job of ${job.spec.components.length} components cannot run under DBES or its baselines: one component only`,
          now,
        );
        continue;
      }
      const walltime = job.spec.walltime ?? Number.POSITIVE_INFINITY;
      const need = job.need;
      const max = job.malleable ? job.max : need;
      // A job waits through many passes: its model is made again only when what it reads changed.
      let model = this.waitingModels.get(job);
      if (
        model === undefined ||
        model.need !== need ||
        model.walltime !== walltime ||
        model.malleable !== job.malleable ||
        model.max !== max
      ) {
        model = { id: job.id, need, walltime, malleable: job.malleable, max };
        this.waitingModels.set(job, model);
      }
      const pinned = job.spec.components[0]!.cluster;
      let best: number;
      if (pinned !== undefined) {
        // Its one cluster: no plan to read.
        const c = this.host.grid.cluster(pinned)?.index ?? -1;
        best = c >= 0 && need <= clusters[c]!.cluster.processors ? c : -1;
      } else if (!oneClusterPerNeed) best = earliest(need, walltime);
      else {
        byNeed ??= new Map();
        best = byNeed.get(need) ?? earliest(need, walltime);
        byNeed.set(need, best);
      }
      if (best < 0) {
        this.host.failedTry(job, `no cluster has ${job.need} processors (dbes)`, now);
        continue;
      }
      out[best]!.jobs.push(job);
      out[best]!.models.push(model);
    }
    return out;
  }

  /**
   * Carries an outcome out. Starts that need no shrink are placed at once. Decision: when the iteration shrinks jobs
   * on a cluster, the shrinks go ahead in this pass as one mandatory operation, followed by the expansions steals
   * were made for; a job the shrink phase starts and the other expansions are left to the pass after the releases,
   * which plans again from the new state (the job is then a StartNow job, and the freed processors idle for the
   * expansion steps).
   */
  private apply(
    state: ClusterState,
    outcome: DbesOutcome,
    placed: readonly JobRecord[],
    waiting: readonly JobRecord[],
    now: number,
  ): void {
    const host = this.host;
    // The jobs the actions name: placed ones, and the waiting ones started (a queue may hold thousands).
    const jobs = new Map<string, JobRecord>();
    const starting = new Set<string>();
    if (outcome.actions.length > 0) {
      for (const job of placed) jobs.set(job.id, job);
      for (const a of outcome.actions) if (a.kind === 'start') starting.add(a.jobId);
    }
    const reserved = new Map(outcome.startLater.map((s) => [s.id, s]));
    for (const job of waiting) {
      if (starting.has(job.id)) {
        // Decision: a job starting now waits no more: its reservation note (the only "failure" dbes writes) is cleared.
        jobs.set(job.id, job);
        job.plannedStart = undefined;
        job.lastFailure = '';
        continue;
      }
      const s = reserved.get(job.id);
      if (s !== undefined) {
        job.plannedStart = { cluster: state.cluster.index, start: s.start };
        job.lastFailure = `reserved to start at ${s.start}${s.dependsOn.length > 0 ? ` after ${s.dependsOn.join(', ')}` : ''} (dbes)`;
      } else {
        job.plannedStart = undefined;
        job.lastFailure = 'waiting: no reservation, and backfilling it would delay a reserved job (dbes)';
      }
    }
    const shrinks = outcome.actions.filter((a): a is Extract<DbesAction, { kind: 'shrink' }> => a.kind === 'shrink');
    // Evolving requests first (lines 9-24 come before any start). Decision: a grant that needs shrinks waits for the
    // pass after their releases, which decides it again; a refusal is told at once (the application may ask again).
    for (const a of outcome.actions) {
      if (a.kind !== 'grant' && a.kind !== 'reject') continue;
      const job = jobs.get(a.jobId)!;
      if (a.kind === 'reject') {
        this.requests.delete(job.id);
        host.refuseEvolving(job, a.reason, now);
      } else if (!shrinks.some((s) => s.phase === 'evolving' && s.forJob === job.id)) {
        this.requests.delete(job.id);
        host.grantEvolving(job, a.processors, now);
      }
    }
    for (const a of outcome.actions) {
      if (a.kind !== 'start' || a.how === 'shrinkPhase') continue;
      const job = jobs.get(a.jobId)!;
      job.plannedStart = undefined;
      host.place(job, [{ cluster: state.cluster.name, processors: a.processors }], `dbes ${a.how}`, now);
    }
    const expansions = outcome.actions.filter((a): a is Extract<DbesAction, { kind: 'expand' }> => a.kind === 'expand');
    if (shrinks.length > 0) {
      // The first-step expansions a steal was made for follow the releases in the same operation (what is then free
      // for growth is earmarked for them, so an offer never exceeds what the releases freed). Decision: the other
      // expansions still wait for the next pass, which plans them with the jobs the shrink phase starts placed.
      const stolenFor = new Set(shrinks.filter((s) => s.phase === 'steal').map((s) => s.forJob));
      const served = expansions.filter((a) => a.step === 1 && a.forJob !== undefined && stolenFor.has(a.forJob));
      host.run(state, this.shrinkProcedure(shrinks, served, jobs), { mandatory: true, earmark: 0 }, now);
      return;
    }
    if (expansions.length === 0) return;
    const total = expansions.reduce((s, a) => s + a.processors, 0);
    host.run(
      state,
      this.growProcedure(expansions, jobs),
      { mandatory: false, earmark: Math.max(0, Math.min(total, state.availableForGrowth())) },
      now,
    );
  }

  /** The shrinks, then (once released) the expansions `then` they were made for. */
  private *shrinkProcedure(
    shrinks: ReadonlyArray<Extract<DbesAction, { kind: 'shrink' }>>,
    then: ReadonlyArray<Extract<DbesAction, { kind: 'expand' }>>,
    jobs: ReadonlyMap<string, JobRecord>,
  ): PolicyProcedure<JobRecord> {
    const asked: JobRecord[] = [];
    for (const a of shrinks) {
      const job = jobs.get(a.jobId)!;
      const why =
        a.fromFor === undefined
          ? { phase: a.phase, forJob: a.forJob, fromStep: a.fromStep }
          : { phase: a.phase, forJob: a.forJob, fromStep: a.fromStep, fromFor: a.fromFor };
      const agreed = yield { kind: 'requestShrink', job, processors: a.processors, why };
      if (agreed <= 0) continue;
      this.takeBack(job.id, agreed, a.fromStep, a.fromFor);
      if (!asked.includes(job)) asked.push(job);
    }
    if (asked.length > 0) yield { kind: 'awaitRelease', jobs: asked };
    if (then.length === 0) return;
    yield { kind: 'earmark', processors: then.reduce((s, a) => s + a.processors, 0) };
    yield* this.growProcedure(then, jobs);
  }

  private *growProcedure(
    expansions: ReadonlyArray<Extract<DbesAction, { kind: 'expand' }>>,
    jobs: ReadonlyMap<string, JobRecord>,
  ): PolicyProcedure<JobRecord> {
    for (const a of expansions) {
      const job = jobs.get(a.jobId)!;
      const why = a.forJob === undefined ? { step: a.step } : { step: a.step, forJob: a.forJob };
      const accepted = yield { kind: 'offerGrow', job, processors: a.processors, why };
      if (accepted <= 0) continue;
      const list = this.expansions.get(job.id) ?? [];
      const last = list[list.length - 1];
      if (last !== undefined && last.step === a.step && last.forJob === a.forJob) last.processors += accepted;
      else list.push({ processors: accepted, step: a.step, forJob: a.forJob });
      this.expansions.set(job.id, list);
    }
  }

  /** Removes `n` processors from a job's expansions of that step and reason (the latest first), then from any. */
  private takeBack(jobId: string, n: number, step: 1 | 2, forJob: string | undefined): void {
    const list = this.expansions.get(jobId);
    if (list === undefined) return;
    let left = n;
    for (const match of [(e: Expansion) => e.step === step && e.forJob === forJob, () => true]) {
      for (let i = list.length - 1; i >= 0 && left > 0; i--) {
        const e = list[i]!;
        if (!match(e)) continue;
        const k = Math.min(left, e.processors);
        e.processors -= k;
        left -= k;
      }
    }
    this.expansions.set(
      jobId,
      list.filter((e) => e.processors > 0),
    );
  }
}

/** The waiting jobs assigned to a cluster, in priority order, and their models (the same order). */
interface WaitingOn {
  readonly jobs: JobRecord[];
  readonly models: DbesWaitingJob[];
}

/** What an iteration on a cluster starts from. */
interface IterationInputs {
  readonly capacity: number;
  readonly running: readonly DbesRunningJob[];
  readonly waiting: WaitingOn;
  readonly requests: ReadonlyArray<{ readonly job: JobRecord; readonly processors: number }>;
  readonly profiledSteps: readonly Reservation[];
}

const NO_STEPS: readonly Reservation[] = Object.freeze([]);

/**
 * Each cluster's profiled steps ahead (core/scheduler/fpe-jobs.ts profiledHolds), one span per step not over by now
 * and holding processors, named `<job>#step<k>` as the queue's plans name them.
 */
function stepsAhead(
  holds: readonly ProfiledHold[],
  clusterCount: number,
  now: number,
): ReadonlyArray<readonly Reservation[]> {
  const lists: Array<Reservation[] | undefined> = [];
  for (const h of holds) {
    if (h.cluster < 0 || h.cluster >= clusterCount) continue;
    let t = h.start;
    for (let k = 0; k < h.steps.length; k++) {
      const s = h.steps[k]!;
      if (s.nodes > 0 && t + s.duration > now)
        (lists[h.cluster] ??= []).push({ id: `${h.id}#step${k + 1}`, n: s.nodes, start: t, duration: s.duration });
      t += s.duration;
    }
  }
  const out: Array<readonly Reservation[]> = [];
  for (let c = 0; c < clusterCount; c++) out.push(lists[c] ?? NO_STEPS);
  return out;
}

/**
 * Whether two iterations start from the same state: the capacity, the running jobs (size, whether resizable, end to
 * the second), the waiting jobs, the evolving requests and the profiled steps ahead (processors, length, start to the
 * second), in order. Compared field by field: a pass compares every cluster, most of them unchanged.
 */
function sameInputs(a: IterationInputs, b: IterationInputs | undefined): boolean {
  if (b === undefined || a.capacity !== b.capacity) return false;
  const waiting = a.waiting.models;
  const lastWaiting = b.waiting.models;
  if (a.running.length !== b.running.length || waiting.length !== lastWaiting.length) return false;
  if (a.requests.length !== b.requests.length) return false;
  if (a.profiledSteps.length !== b.profiledSteps.length) return false;
  for (let i = 0; i < a.profiledSteps.length; i++) {
    const x = a.profiledSteps[i]!;
    const y = b.profiledSteps[i]!;
    if (x.id !== y.id || x.n !== y.n || x.duration !== y.duration) return false;
    if (Math.round(x.start) !== Math.round(y.start)) return false;
  }
  for (let i = 0; i < a.running.length; i++) {
    const x = a.running[i]!;
    const y = b.running[i]!;
    if (x.id !== y.id || x.size !== y.size || x.malleable !== y.malleable) return false;
    if (Math.round(x.end) !== Math.round(y.end)) return false;
  }
  for (let i = 0; i < waiting.length; i++) if (waiting[i]!.id !== lastWaiting[i]!.id) return false;
  for (let i = 0; i < a.requests.length; i++) {
    const x = a.requests[i]!;
    const y = b.requests[i]!;
    if (x.job.id !== y.job.id || x.processors !== y.processors) return false;
  }
  return true;
}

/**
 * The waiting jobs with those of higher priority (their spec's `priority`) first, the queue's order kept among equals.
 * Decision: a priority overrides the queue's order entirely (ESP's Z jobs go ahead of every job waiting, however long).
 */
export function byPriority(queue: readonly JobRecord[]): readonly JobRecord[] {
  if (!queue.some((j) => (j.spec.priority ?? 0) !== 0)) return queue;
  return queue
    .map((job, i) => ({ job, i, p: job.spec.priority ?? 0 }))
    .sort((a, b) => b.p - a.p || a.i - b.i)
    .map((x) => x.job);
}
