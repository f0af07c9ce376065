// How long a placed job holds what in the plan: the one rule the queue policies' plans and the plan an operator reads
// (plan-snapshot.ts) both follow.
import type { Reservation } from './availability.js';
import type { Step } from '../time/step-function.js';

/** What the rule reads of a placed job (the scheduler's records satisfy it). */
export interface HoldingJob {
  readonly id: string;
  readonly spec: { readonly walltime?: number | undefined };
  /** NaN until its local jobs start. */
  readonly startTime: number;
  readonly held: number;
  readonly size: number;
  readonly evolving: boolean;
  readonly malleable: boolean;
  readonly preallocation: number;
  /** Its size over time (the last step holds until now). */
  readonly sizeHistory: readonly Step[];
  /** The size it started at, when known (a grow in its start's instant replaces the first step of sizeHistory). */
  readonly startSize?: number;
  /**
   * A profiled (FPE) job's current step: when it began (NaN before its local job starts) and its scheduled length;
   * undefined for other jobs.
   */
  readonly profiledStep?: { readonly start: number; readonly duration: number } | undefined;
}

/**
 * Seconds a whole run of a job takes at a size, as its application declares it (a simulated application knows its
 * model); undefined when it does not say.
 */
export type RuntimeAt = (jobId: string, size: number) => number | undefined;

export interface PlanHolding {
  /** Processors held: an evolving job its pre-allocation, a malleable one what it holds now, a rigid one its own. */
  readonly n: number;
  /** When it started; now for a placed job whose local jobs have not started yet. */
  readonly start: number;
  /** Its estimated end; Infinity for a job without a walltime (it holds its processors with no end). */
  readonly end: number;
}

/**
 * Decision: a job holds its processors until its start plus its walltime (the batch system kills it there), counted
 * from now while it has not started. A malleable job's estimated end follows its size: its walltime is its run time
 * at its starting size, its run time at another size scales as its application's declared run time does (in
 * simulation, its model's speed-up), or inversely with the size (the walltime scaled by the size ratio, in live mode,
 * where applications declare none); the work done so far is counted size step by size step, and the end is never
 * later than the kill at start plus walltime.
 */
export function placedHolding(job: HoldingJob, processors: number, now: number, runtimeAt?: RuntimeAt): PlanHolding {
  const start = Number.isFinite(job.startTime) ? job.startTime : now;
  return { n: heldProcessors(job, processors), start, end: holdingEnd(job, now, runtimeAt) };
}

/**
 * Decision: a placed profiled (FPE) job holds its current step's processors until that step's scheduled end, now at
 * the earliest (a step waiting for the next one's processors holds its own meanwhile); its later steps follow from
 * there, one after the other. The plan an operator reads and the queue policies' plans both hold it so.
 */
export function currentStepEnd(stepStart: number, duration: number, now: number): number {
  return Math.max(now, stepStart + duration);
}

/** Whether holdingEnd(job, now) moves with now (a job not started, a malleable one): kept holdings make it again. */
export function holdingEndMovesWithNow(job: HoldingJob): boolean {
  if (job.profiledStep !== undefined) return !Number.isFinite(job.profiledStep.start);
  return (
    job.spec.walltime !== undefined &&
    (!Number.isFinite(job.startTime) || (job.malleable && job.sizeHistory.length > 0))
  );
}

/** placedHolding's n, without the object (a pass asks it for every placed job). */
export function heldProcessors(job: HoldingJob, processors: number): number {
  return job.evolving ? job.preallocation : job.malleable ? job.held : processors;
}

/**
 * placedHolding's end, without the object. Decision: a profiled job's holding ends with its current step, walltime or
 * not: its evolution profile gives its length, and its later steps are held after it (fpe-jobs.ts profiledHolds).
 */
export function holdingEnd(job: HoldingJob, now: number, runtimeAt?: RuntimeAt): number {
  const step = job.profiledStep;
  if (step !== undefined) return currentStepEnd(Number.isFinite(step.start) ? step.start : now, step.duration, now);
  const walltime = job.spec.walltime;
  if (walltime === undefined) return Number.POSITIVE_INFINITY;
  const started = Number.isFinite(job.startTime);
  const killedAt = (started ? job.startTime : now) + walltime;
  if (!job.malleable || job.sizeHistory.length === 0 || !started) return killedAt;
  return Math.min(killedAt, malleableEnd(job, walltime, now, runtimeAt));
}

/** Now plus the work left at the job's current size, its walltime being the whole run at its first size. */
function malleableEnd(job: HoldingJob, walltime: number, now: number, runtimeAt: RuntimeAt | undefined): number {
  const steps = job.sizeHistory;
  const first = Math.max(1, job.startSize || steps[0]!.v);
  const declaredFirst = runtimeAt?.(job.id, first);
  const declared = declaredFirst !== undefined && declaredFirst > 0 && Number.isFinite(declaredFirst);
  // Seconds a whole run takes at `size`, scaled so that it takes the walltime at the first size.
  const runtime = (size: number): number => {
    const s = Math.max(1, size);
    if (!declared) return (walltime * first) / s;
    const r = runtimeAt!(job.id, s);
    return r !== undefined && r > 0 && Number.isFinite(r) ? (walltime * r) / declaredFirst! : (walltime * first) / s;
  };
  let done = 0;
  for (let i = 0; i + 1 < steps.length; i++) {
    const from = steps[i]!.t;
    const to = steps[i + 1]!.t;
    if (to > from && steps[i]!.v > 0) done += (to - from) / runtime(steps[i]!.v);
  }
  const last = steps[steps.length - 1]!;
  const current = job.size > 0 ? job.size : last.v;
  // At its last size since that step's start, the end is counted from there, not from now: the same estimate at
  // every later now, bit for bit, so that a reservation a pass made at a running job's end still meets it later.
  if (current === last.v && last.v > 0 && now >= last.t)
    return Math.max(now, last.t + Math.max(0, 1 - done) * runtime(current));
  if (now > last.t && last.v > 0) done += (now - last.t) / runtime(last.v);
  return now + Math.max(0, 1 - done) * runtime(current);
}

/**
 * On a cluster where malleable extras fill unused pre-allocated processors: how many are unused, how many extras
 * (with processors offered for growth), and each placed job's part of either.
 */
export interface PreallocationSharing {
  readonly unused: number;
  readonly extras: number;
  readonly byJob: ReadonlyArray<{ readonly id: string; readonly unused: number; readonly extras: number }>;
}

/**
 * What a plan sets aside so that it never counts shared pre-allocated processors as free: its holdings count them
 * twice (in the evolving job's pre-allocation and in the malleable job's extras), what is available now once. An
 * evolving job may take its pre-allocation at any time, and its extras then move to free processors that no
 * reservation needs (evolving.ts shrinks them when the cluster is overcommitted or when they would land on processors
 * reserved for a waiting job): from then on they are held twice in fact, and after the holdings end the capacity is
 * counted once again. So at each time t from now the plan sets aside the shared processors, as many of them as it
 * has free from t on (`free`: capacity less holdings, and less the reservations already in).
 * Decision: the shared processors are held twice from now on, so a reservation made after them never counts on them
 * (the plan layout property's cbf counterexample); a job that could start on them now waits too (it would be safe, an
 * overcommit shrinking the extras, but the plan has one answer for starting now and for a reservation). Reservations
 * already in (cbf's kept promises) keep their processors: displaced extras never move onto them.
 */
export function sharedPreallocationHolds(
  sharing: PreallocationSharing,
  /**
   * The plan's free processors: with what placed jobs hold only (their holdings, and in the plan snapshot profiled
   * jobs' later steps drawn first) they never fall from now on; with reservations in (cbf's kept promises), they may.
   */
  free: { readonly times: readonly number[]; readonly values: readonly number[]; valueAt(t: number): number },
  now: number,
): Reservation[] {
  const shared = Math.min(sharing.unused, sharing.extras);
  if (shared <= 0) return [];
  const { times, values } = free;
  // The least free from each breakpoint on (what a hold lasting for ever may take there): never falls.
  const leastFrom = new Array<number>(values.length + 1);
  leastFrom[values.length] = Number.POSITIVE_INFINITY;
  for (let i = values.length - 1; i >= 0; i--) leastFrom[i] = Math.min(values[i]!, leastFrom[i + 1]!);
  let first = 0;
  while (first < times.length && times[first]! <= now) first++;
  const out: Reservation[] = [];
  let setAside = 0;
  const setAsideFrom = (t: number, freeOn: number): void => {
    const n = Math.min(shared, Math.max(0, freeOn));
    if (n > setAside)
      out.push({ id: `shared pre-allocation ${out.length + 1}`, n: n - setAside, start: t, duration: Infinity });
    setAside = Math.max(setAside, n);
  };
  setAsideFrom(now, Math.min(free.valueAt(now), leastFrom[first]!));
  for (let i = first; i < times.length && setAside < shared; i++) setAsideFrom(times[i]!, leastFrom[i]!);
  return out;
}
