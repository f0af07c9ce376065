// Jobs as the scheduler tracks them: the validated spec, a state machine with timed reasons, and its allocation.
import { jobSpecSchema, type JobSpec } from './schemas.js';
import { fail, ok, parseWith, type FieldError, type Result } from './result.js';
import type { Grid } from './grid.js';

export type JobKind = JobSpec['kind'];
export type JobState = 'submitted' | 'queued' | 'claiming' | 'running' | 'completed' | 'failed' | 'cancelled';
export const FINAL_STATES: ReadonlySet<JobState> = new Set(['completed', 'failed', 'cancelled']);

export interface Transition {
  readonly state: JobState;
  readonly time: number;
  readonly reason: string;
}

/** Why a job past its walltime ended: the batch system killed it (the simulator's, or a cluster's own). */
export function walltimeReason(walltimeS: number): string {
  return `killed by the batch system: walltime of ${walltimeS} s exceeded`;
}

/** The processors a job asks for, folded over its components. */
export interface SizeRequest {
  readonly min: number;
  readonly max: number;
  /** Malleable: size asked for at start, before growth. Evolving: its size at start, inside its pre-allocation (max). */
  readonly initial: number;
}

export function componentRequest(job: JobSpec, i: number): SizeRequest {
  const c = job.components[i]!;
  // An interactive job's driver: one processor (its worker nodes are apart, see interactivePartitionSchema).
  if (job.kind === 'interactive') return { min: 1, max: 1, initial: 1 };
  // A fully-predictably evolving job: from its smallest step to its largest, starting with its first.
  if (job.profile !== undefined) {
    let min = Infinity;
    let max = 0;
    for (const s of job.profile.steps) {
      min = Math.min(min, s.processors);
      max = Math.max(max, s.processors);
    }
    return { min, max, initial: job.profile.steps[0]!.processors };
  }
  if (job.kind === 'rigid') return { min: c.processors!, max: c.processors!, initial: c.processors! };
  const min = c.min!;
  const max = c.max!;
  return { min, max, initial: job.kind === 'moldable' ? max : (c.initial ?? min) };
}

/**
 * Checks a job against the grid it is submitted to: clusters, files, and sizes that can never fit. Every job a replay
 * submits comes through here (Scheduler.submitSpec), so a job that passes costs its empty list and one request per
 * component: no closure per component, and a field's path worded only for an error.
 */
export function checkJobAgainstGrid(job: JobSpec, grid: Grid): FieldError[] {
  const errors: FieldError[] = [];
  for (let i = 0; i < job.components.length; i++) {
    const c = job.components[i]!;
    const request = componentRequest(job, i);
    // An evolving job's whole pre-allocation (its max) must fit on one cluster.
    const need = job.kind === 'evolving' ? request.max : request.min;
    if (job.kind === 'interactive') {
      const partitioned = grid.clusters.filter((k) => k.spec.interactive !== undefined);
      if (c.cluster !== undefined && grid.cluster(c.cluster) && !grid.cluster(c.cluster)!.spec.interactive) {
        errors.push({
          path: componentPath(i, 'cluster'),
          message: `cluster ${c.cluster} has no interactive worker nodes${partitioned.length ? ` (${partitioned.map((k) => k.name).join(', ')} have)` : ''}`,
        });
      } else if (c.cluster === undefined && partitioned.length === 0) {
        errors.push({ path: 'kind', message: 'no cluster of this grid has interactive worker nodes' });
      }
    }
    const field = job.kind === 'rigid' ? 'processors' : job.kind === 'evolving' ? 'max' : 'min';
    if (c.cluster !== undefined) {
      const cluster = grid.cluster(c.cluster);
      if (!cluster) errors.push({ path: componentPath(i, 'cluster'), message: `names unknown cluster "${c.cluster}"` });
      else if (need > cluster.threshold) {
        errors.push({
          path: sizePath(job, i, field, request.max),
          message: `is larger than cluster ${cluster.name} allows (${need} > ${cluster.threshold})`,
        });
      }
    } else if (job.placement === 'fcm' && job.kind === 'rigid') {
      // Flexible cluster minimization may split the component over every cluster.
      if (need > grid.totalThreshold)
        errors.push({
          path: componentPath(i, field),
          message: `is larger than the whole grid (${need} > ${grid.totalThreshold})`,
        });
    } else if (need > grid.largestThreshold) {
      errors.push({
        path: sizePath(job, i, field, request.max),
        message: `is larger than every cluster (${need} > ${grid.largestThreshold})`,
      });
    }
    for (let j = 0; j < c.inputFiles.length; j++) {
      const f = c.inputFiles[j]!;
      if (!grid.hasFile(f))
        errors.push({ path: componentPath(i, `inputFiles[${j}]`), message: `names unknown file "${f}"` });
    }
  }
  return errors;
}

/** The path of a component's field in a job spec. */
function componentPath(i: number, field: string): string {
  return `components[${i}].${field}`;
}

/**
 * Where a size that cannot fit is shown: a profiled job's largest step (the one that must fit, `peak` processors), or
 * else the component's size field.
 */
function sizePath(job: JobSpec, i: number, field: string, peak: number): string {
  const peakStep = job.profile ? job.profile.steps.findIndex((s) => s.processors === peak) : -1;
  return peakStep >= 0 ? `profile.steps[${peakStep}].processors` : componentPath(i, field);
}

/** Validates a job spec, and against the grid when one is given. */
export function parseJob(input: unknown, grid?: Grid): Result<JobSpec> {
  const parsed = parseWith(jobSpecSchema, input);
  if (!parsed.ok || !grid) return parsed;
  const errors = checkJobAgainstGrid(parsed.value, grid);
  return errors.length ? fail(errors) : ok(parsed.value);
}
