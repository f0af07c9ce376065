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

/** Checks a job against the grid it is submitted to: clusters, files, and sizes that can never fit. */
export function checkJobAgainstGrid(job: JobSpec, grid: Grid): FieldError[] {
  const errors: FieldError[] = [];
  job.components.forEach((c, i) => {
    const at = (f: string) => `components[${i}].${f}`;
    // An evolving job's whole pre-allocation (its max) must fit on one cluster.
    const need = job.kind === 'evolving' ? componentRequest(job, i).max : componentRequest(job, i).min;
    if (job.kind === 'interactive') {
      const partitioned = grid.clusters.filter((k) => k.spec.interactive !== undefined);
      if (c.cluster !== undefined && grid.cluster(c.cluster) && !grid.cluster(c.cluster)!.spec.interactive) {
        errors.push({
          path: at('cluster'),
          message: `cluster ${c.cluster} has no interactive worker nodes${partitioned.length ? ` (${partitioned.map((k) => k.name).join(', ')} have)` : ''}`,
        });
      } else if (c.cluster === undefined && partitioned.length === 0) {
        errors.push({ path: 'kind', message: 'no cluster of this grid has interactive worker nodes' });
      }
    }
    // A profiled job's largest step is the one that must fit: the error is shown at that step.
    const peakStep = job.profile
      ? job.profile.steps.findIndex((s) => s.processors === componentRequest(job, i).max)
      : -1;
    const fieldPath = peakStep >= 0 ? `profile.steps[${peakStep}].processors` : undefined;
    const field = job.kind === 'rigid' ? 'processors' : job.kind === 'evolving' ? 'max' : 'min';
    const sizeAt = (f: string) => fieldPath ?? at(f);
    if (c.cluster !== undefined) {
      const cluster = grid.cluster(c.cluster);
      if (!cluster) errors.push({ path: at('cluster'), message: `names unknown cluster "${c.cluster}"` });
      else if (need > cluster.threshold) {
        errors.push({
          path: sizeAt(field),
          message: `is larger than cluster ${cluster.name} allows (${need} > ${cluster.threshold})`,
        });
      }
    } else if (job.placement === 'fcm' && job.kind === 'rigid') {
      // Flexible cluster minimization may split the component over every cluster.
      if (need > grid.totalThreshold)
        errors.push({ path: at(field), message: `is larger than the whole grid (${need} > ${grid.totalThreshold})` });
    } else if (need > grid.largestThreshold) {
      errors.push({
        path: sizeAt(field),
        message: `is larger than every cluster (${need} > ${grid.largestThreshold})`,
      });
    }
    c.inputFiles.forEach((f, j) => {
      if (!grid.hasFile(f))
        errors.push({ path: `components[${i}].inputFiles[${j}]`, message: `names unknown file "${f}"` });
    });
  });
  return errors;
}

/** Validates a job spec, and against the grid when one is given. */
export function parseJob(input: unknown, grid?: Grid): Result<JobSpec> {
  const parsed = parseWith(jobSpecSchema, input);
  if (!parsed.ok || !grid) return parsed;
  const errors = checkJobAgainstGrid(parsed.value, grid);
  return errors.length ? fail(errors) : ok(parsed.value);
}
