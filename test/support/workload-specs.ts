// Grids and job specs built from drawn numbers, for the property tests of simulated runs: clusters c0, c1, ... and
// jobs j0, j1, ... of each kind, in the shapes those tests share. No Node API: the renderer's tests use it too.
import {
  gridSpecSchema,
  jobSpecSchema,
  type GridSpec,
  type JobSpec,
  type JobSpecInput,
} from '../../core/model/schemas.js';

/** Clusters c0, c1, ... with these processor counts. */
export function gridOf(processors: readonly number[]): GridSpec {
  return gridSpecSchema.parse({ clusters: processors.map((n, i) => ({ name: `c${i}`, processors: n })) });
}

/** A rigid job that runs exactly its walltime. */
export function rigidJob(id: string, submitTime: number, processors: number, runtime: number): JobSpecInput {
  return {
    id,
    submitTime,
    kind: 'rigid',
    walltime: runtime,
    app: { model: 'fixed', runtime },
    components: [{ processors, program: 'r' }],
  };
}

/**
 * A malleable job of Amdahl's model: its parallel part runs `runtime` at its minimum, after its `serial` seconds
 * (none unless given: linear speed-up).
 */
export function malleableJob(
  id: string,
  submitTime: number,
  size: { min: number; max: number; runtime: number; walltime: number; serial?: number },
): JobSpecInput {
  return {
    id,
    submitTime,
    kind: 'malleable',
    walltime: size.walltime,
    app: { model: 'amdahl', serial: size.serial ?? 0, parallel: size.runtime * size.min },
    components: [{ min: size.min, max: size.max, program: 'm' }],
  };
}

/**
 * A non-predictably evolving job: three phases over about `runtime` (CooRMv2's model), from `initial` processors with
 * `max` as its pre-allocation, its walltime four times its run time.
 */
export function evolvingJob(
  id: string,
  submitTime: number,
  size: { initial: number; max: number; runtime: number },
): JobSpecInput {
  return {
    id,
    submitTime,
    kind: 'evolving',
    walltime: 4 * size.runtime,
    app: { model: 'evolving', phases: 3, phaseS: Math.max(1, Math.floor(size.runtime / 3)) },
    components: [{ min: 1, max: size.max, initial: size.initial, program: 'e' }],
  };
}

/** A fully-predictably evolving job, sized by its evolution profile, running `component` (its program and arguments). */
export function profiledJob(
  id: string,
  submitTime: number,
  steps: ReadonlyArray<{ duration_s: number; processors: number }>,
  component: { program: string; args?: string[] } = { program: 'fpe' },
): JobSpecInput {
  return { id, submitTime, kind: 'evolving', profile: { steps: [...steps] }, components: [component] };
}

/** Evolution-profile steps of `durationS` seconds each, of these processor counts in turn (for profiledJob). */
export function stepsLasting(
  durationS: number,
  processors: readonly number[],
): Array<{ duration_s: number; processors: number }> {
  return processors.map((n) => ({ duration_s: durationS, processors: n }));
}

/** A drawn rigid job: pinned to a cluster by index (modulo the grid's size), or free when `pin` is undefined. */
export interface DrawnRigidJob {
  readonly processors: number;
  readonly runtime: number;
  readonly submit: number;
  readonly pin?: number | undefined;
}

/**
 * Rigid jobs j0, j1, ... on a grid of `clusters` (gridOf): each pinned or free, never larger than the largest cluster
 * it may use, with the walltime `walltime` gives it (none when undefined).
 */
export function rigidJobsOn<J extends DrawnRigidJob>(
  clusters: readonly number[],
  jobs: readonly J[],
  walltime: (job: J) => number | undefined,
): JobSpec[] {
  return jobs.map((j, i) => {
    const pinned = j.pin === undefined ? undefined : j.pin % clusters.length;
    const most = pinned === undefined ? Math.max(...clusters) : clusters[pinned]!;
    const w = walltime(j);
    return jobSpecSchema.parse({
      id: `j${i}`,
      kind: 'rigid',
      submitTime: j.submit,
      app: { model: 'fixed', runtime: j.runtime },
      components: [
        {
          processors: Math.min(j.processors, most),
          program: 'x',
          ...(pinned === undefined ? {} : { cluster: `c${pinned}` }),
        },
      ],
      ...(w === undefined ? {} : { walltime: w }),
    });
  });
}
