// How the plan snapshot (plan-snapshot.ts) puts profiled (FPE) jobs' steps into a cluster's plan, one after the other:
// each where the plan has room for it, the step before holding its processors while a larger one waits (the
// scheduler's stalled step, fpe-jobs.ts), so that the plan an operator reads never holds more than the capacity.
import type { AvailabilityProfile, Reservation } from './availability.js';
import type { Step } from '../time/step-function.js';

/** A profiled job's steps as the snapshot puts them into its cluster's plan, one after the other. */
export interface StepsInPlan {
  /** Each step's reservation id, processors and length. */
  readonly steps: ReadonlyArray<{ readonly id: string; readonly n: number; readonly duration: number }>;
  /** The steps in the plan so far, the time the next one may start, and what the job holds until then. */
  placed: number;
  at: number;
  holding: number;
  /** Where each step placed so far starts. */
  readonly starts: number[];
}

/** What a placed job holds while its next step is not in the plan yet. */
const keptId = (job: StepsInPlan): string => `${job.steps[job.placed]!.id} kept`;

/**
 * A placed profiled job's next steps that need no more than it holds, on time: those processors are its own. What it
 * holds at the first that needs more stays its own without end until placeRest puts the rest in: whatever goes into
 * the plan before them never takes it (the scheduler never gives a running job's processors to another).
 */
export function placeOwnSteps(plan: AvailabilityProfile, job: StepsInPlan): void {
  for (; job.placed < job.steps.length; job.placed++) {
    const step = job.steps[job.placed]!;
    if (step.n > job.holding) break;
    if (step.duration > 0 && step.n > 0)
      plan.reserve({ id: step.id, n: step.n, start: job.at, duration: step.duration });
    job.starts.push(job.at);
    job.at += step.duration;
    job.holding = step.n;
  }
  if (job.placed < job.steps.length && job.holding > 0)
    plan.reserve({ id: keptId(job), n: job.holding, start: job.at, duration: Number.POSITIVE_INFINITY });
}

/**
 * Puts a job's steps from its next one on into `plan`: step by step, each where the plan has room for it, the job
 * holding what it holds until then; else, where one step's wait cannot hold those (an earlier reservation took them),
 * all of them back to back from the earliest time the plan has room for the whole rest. False, with nothing put in,
 * where the plan never has (processors held without end: what a job put in later keeps), unless `last`: then on
 * time, overbooked.
 */
export function placeRest(plan: AvailabilityProfile, job: StepsInPlan, last: boolean): boolean {
  if (job.placed >= job.steps.length) return true;
  const kept = plan.reservation(keptId(job));
  if (kept !== undefined) plan.unreserve(kept.id);
  const from = { placed: job.placed, at: job.at, holding: job.holding, starts: job.starts.length };
  const made: string[] = [];
  const reserve = (r: Reservation): void => {
    if (r.duration > 0 && r.n > 0) {
      plan.reserve(r);
      made.push(r.id);
    }
  };
  const undo = (): void => {
    for (const id of made) plan.unreserve(id);
    made.length = 0;
    job.placed = from.placed;
    job.at = from.at;
    job.holding = from.holding;
    job.starts.length = from.starts;
  };
  if (stepByStep(plan, job, reserve)) return true;
  undo();
  const start = wholeRestStart(plan, job);
  if (start === undefined && !last) {
    if (kept !== undefined) plan.reserve(kept);
    return false;
  }
  // Decision: where the plan never has room for the rest, it is drawn on time, overbooked (the free processors say so).
  putFrom(job, start ?? job.at, reserve);
  return true;
}

/** Each step at the earliest start where it has room, the job holding its processors until then; false where none. */
function stepByStep(plan: AvailabilityProfile, job: StepsInPlan, reserve: (r: Reservation) => void): boolean {
  for (; job.placed < job.steps.length; job.placed++) {
    const step = job.steps[job.placed]!;
    const start = earliestStep(plan, step.n, step.duration, job.at, job.holding);
    if (start === undefined) return false;
    if (start > job.at)
      reserve({ id: `${step.id} waits`, n: job.holding, start: job.at, duration: until(job.at, start) });
    reserve({ id: step.id, n: step.n, start, duration: step.duration });
    job.starts.push(start);
    job.at = start + step.duration;
    job.holding = step.n;
  }
  return true;
}

/**
 * The length of [from, to) such that from + length is never past `to`: the wait before a step ends where the step
 * begins, not a rounding error after it (1442.4444444444448 for a step at 1442.4444444444446: both held there).
 */
function until(from: number, to: number): number {
  let length = to - from;
  while (from + length > to) length -= Math.max(Number.EPSILON * Math.abs(to), Number.MIN_VALUE);
  return length;
}

/** The rest back to back from `start`, the job holding what it holds until then. */
function putFrom(job: StepsInPlan, start: number, reserve: (r: Reservation) => void): void {
  if (start > job.at)
    reserve({
      id: `${job.steps[job.placed]!.id} waits`,
      n: job.holding,
      start: job.at,
      duration: until(job.at, start),
    });
  let t = start;
  for (; job.placed < job.steps.length; job.placed++) {
    const step = job.steps[job.placed]!;
    reserve({ id: step.id, n: step.n, start: t, duration: step.duration });
    job.starts.push(t);
    t += step.duration;
    job.holding = step.n;
  }
  job.at = t;
}

/**
 * The earliest start at or after `from` where n processors are free for `duration`, with `holding` free over [from,
 * start) (what the job holds until then); undefined where there is none.
 */
function earliestStep(
  plan: AvailabilityProfile,
  n: number,
  duration: number,
  from: number,
  holding: number,
): number | undefined {
  const fitsAt = (t: number) =>
    (t === from || plan.freeBetween(from, t) >= holding) && plan.freeBetween(t, t + duration) >= n;
  if (fitsAt(from)) return from;
  for (const t of plan.free.times) {
    if (t <= from) continue;
    if (holding > 0 && plan.freeBetween(from, t) < holding) return undefined;
    if (fitsAt(t)) return t;
  }
  return undefined;
}

/**
 * The earliest start at or after the job's next step's time where its remaining steps all have room back to back,
 * with what it holds free until then; undefined where there is none. Tried at that time and where a step would begin
 * at one of the plan's changes.
 */
function wholeRestStart(plan: AvailabilityProfile, job: StepsInPlan): number | undefined {
  const offsets: number[] = [];
  let length = 0;
  for (let k = job.placed; k < job.steps.length; k++) {
    offsets.push(length);
    length += job.steps[k]!.duration;
  }
  const fits = (t: number): boolean => {
    for (let k = job.placed; k < job.steps.length; k++) {
      const s = job.steps[k]!;
      const begin = t + offsets[k - job.placed]!;
      if (s.n > 0 && plan.freeBetween(begin, begin + s.duration) < s.n) return false;
    }
    return true;
  };
  const candidates = [job.at];
  for (const b of plan.free.times) for (const o of offsets) if (b - o > job.at) candidates.push(b - o);
  candidates.sort((a, b) => a - b);
  for (const t of candidates) {
    // What it holds over [at, t) only shrinks as t grows: once short, it is short for every later start.
    if (t > job.at && job.holding > 0 && plan.freeBetween(job.at, t) < job.holding) return undefined;
    if (fits(t)) return t;
  }
  return undefined;
}

/** Its sizes from its first step's start (`steps`, `starts` as placed): a step each, the last 0 at its end. */
export function sizesOf(job: StepsInPlan, first?: Step): Step[] {
  const sizes: Step[] = first ? [first] : [];
  job.steps.forEach((s, k) => sizes.push({ t: job.starts[k]!, v: s.n }));
  const last = job.steps.length - 1;
  sizes.push({ t: last < 0 ? first!.t : job.starts[last]! + job.steps[last]!.duration, v: 0 });
  return sizes;
}
