// Profiles, holes and fits on the core's StepFunction: the one implementation that CooRMv2's views (core/coorm/) and
// the scheduler's availability plan (core/plan/) both stand on. A profile is a StepFunction of processors over time;
// a request of n processors for d seconds occupies the half-open window [start, start + d).
import { StepFunction, StepRecorder } from './step-function.js';

const ZERO = StepFunction.constant(0);

/** A request placed on a profile: n processors from scheduledAt for duration seconds. */
export interface Placed {
  n: number;
  duration: number;
  scheduledAt: number;
}

/**
 * Sum of rectangles [t0, t1) x v, built by one sort and sweep (O(k log k)) rather than k insertions.
 * `rects` holds flat triples t0, t1, v; t1 > t0, t0 may be -Infinity (counts from the start), t1 Infinity.
 */
export function profileOfRects(rects: readonly number[]): StepFunction {
  const k = rects.length / 3;
  if (k === 0) return ZERO;
  if (k === 1) {
    const [t0, t1, v] = rects as [number, number, number];
    if (t0 !== -Infinity) return StepFunction.interval(t0, t1, v);
    return t1 === Infinity ? StepFunction.constant(v) : StepFunction.fromSteps(v, [{ t: t1, v: 0 }]);
  }
  let initial = 0;
  const events: Array<{ t: number; d: number }> = [];
  for (let i = 0; i < rects.length; i += 3) {
    const v = rects[i + 2]!;
    if (v === 0) continue;
    if (rects[i]! === -Infinity) initial += v;
    else events.push({ t: rects[i]!, d: v });
    if (rects[i + 1]! !== Infinity) events.push({ t: rects[i + 1]!, d: -v });
  }
  events.sort((a, b) => a.t - b.t);
  // Appended in time order: the recorder keeps it normalised without another sort.
  const out = new StepRecorder(initial);
  let level = initial;
  for (let i = 0; i < events.length;) {
    const t = events[i]!.t;
    for (; i < events.length && events[i]!.t === t; i++) level += events[i]!.d;
    out.set(t, level);
  }
  return out.toStepFunction();
}

/**
 * Appends one rectangle to a flat rectangle list (see profileOfRects). Rectangles at Infinity or of zero width add
 * nothing. The part before `from` is dropped and a rectangle already under way at `from` counts from the start, so
 * profiles built from "now" have no breakpoint at or before now.
 */
export function pushSpan(list: number[], t0: number, t1: number, v: number, from = -Infinity): void {
  if (v === 0 || t0 === Infinity || !(t1 > t0) || !(t1 > from)) return;
  list.push(t0 <= from ? -Infinity : t0, t1, v);
}

/** Profile with `v` added on [t0, t1), tolerating empty and infinite intervals; clipped at `from` as pushSpan. */
export function addRect(f: StepFunction, t0: number, t1: number, v: number, from = -Infinity): StepFunction {
  if (v === 0 || t0 === Infinity || !(t1 > t0) || !(t1 > from)) return f;
  if (t0 > from) return f.addInterval(t0, t1, v);
  const shifted = f.map((x) => x + v);
  return t1 === Infinity ? shifted : shifted.addInterval(t1, Infinity, -v);
}

/**
 * Earliest t >= from at which n fit for `duration` (see fitsAt), or Infinity if they never do. One forward scan.
 */
export function earliestStart(f: StepFunction, from: number, duration: number, n: number): number {
  // Decision: a zero-length request still needs its n processors at its start instant (a trace's job that ran 0 s
  // started somewhere), rather than fitting anywhere in an empty window.
  return duration === 0 ? f.firstTimeAtLeast(from, n) : f.earliestFit(from, duration, n);
}

/**
 * First t >= from with at least n throughout [t, t + duration); Infinity if none (and when `from` is Infinity or
 * NaN). A `from` of -Infinity searches from the profile's first breakpoint (or 0, whichever is earlier).
 */
export function profileHole(f: StepFunction, n: number, duration: number, from: number): number {
  if (from === Infinity || from !== from) return Infinity;
  if (from === -Infinity) from = f.times.length > 0 ? Math.min(f.times[0]!, 0) : 0;
  return earliestStart(f, from, duration, n);
}

/**
 * Whether n fit throughout [start, start + duration): the window is half-open, so a request may start at the
 * instant a step rises and end at the instant it falls. A zero-length request needs its n at `start` itself; a
 * window that never begins (start at Infinity) always fits.
 */
export function fitsAt(f: StepFunction, start: number, duration: number, n: number): boolean {
  if (duration === 0 && start !== Infinity) return f.valueAt(start) >= n;
  const end = start + duration;
  return !(end > start) || f.minOver(start, end) >= n;
}

/**
 * What `r` can get without moving its start: min(n, least value during [scheduledAt, scheduledAt + duration)),
 * never below 0. `from` clips the window's start (the past no longer matters for a started request).
 */
export function profileAlloc(f: StepFunction, r: Placed, from = -Infinity): number {
  const t0 = Math.max(r.scheduledAt, from);
  const t1 = r.scheduledAt + r.duration;
  if (t0 === Infinity || !(t1 > t0)) return r.n;
  const least = f.minOver(t0, t1);
  return Math.max(0, Math.min(r.n, least));
}
