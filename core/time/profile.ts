// Profiles, holes and fits on the core's StepFunction: the one implementation that CooRMv2's views (core/coorm/) and
// the scheduler's availability plan (core/plan/) both stand on. A profile is a StepFunction of processors over time;
// a request of n processors for d seconds occupies the half-open window [start, start + d).
import { adoptNormalised, StepFunction } from './step-function.js';

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
  // The events (a rectangle's start +v, its end -v) go into scratch arrays of numbers, in rectangle order.
  const cap = 2 * k;
  if (scratchTimes.length < cap) growScratch(cap);
  const eventTimes = scratchTimes;
  const eventDeltas = scratchDeltas;
  let initial = 0;
  let e = 0;
  for (let i = 0; i < rects.length; i += 3) {
    const v = rects[i + 2]!;
    if (v === 0) continue;
    const t0 = rects[i]!;
    const t1 = rects[i + 1]!;
    if (t0 === -Infinity) initial += v;
    else {
      if (!Number.isFinite(t0))
        throw new RangeError(`profileOfRects: rectangle ${i / 3}: t0 must be finite or -Infinity, got ${t0}`);
      eventTimes[e] = t0;
      eventDeltas[e++] = v;
    }
    if (t1 !== Infinity) {
      if (!Number.isFinite(t1))
        throw new RangeError(`profileOfRects: rectangle ${i / 3}: t1 must be finite or Infinity, got ${t1}`);
      eventTimes[e] = t1;
      eventDeltas[e++] = -v;
    }
  }
  // Event indices in time order; equal times keep rectangle order, so that within one instant the deltas are added
  // in the order (and so with the floating-point sums) of the stable sort of event objects this replaced.
  const order = sortByTime(eventTimes, e);
  const times: number[] = [];
  const values: number[] = [];
  if (initial !== initial) throw new RangeError('profileOfRects: the rectangles from the start sum to NaN');
  const init = initial === 0 ? 0 : initial;
  let level = initial;
  let last = init;
  for (let i = 0; i < e;) {
    // The first event of an instant gives its time: -0 and 0 are one instant, and the earlier rectangle's is kept.
    const t = eventTimes[order[i]!]!;
    for (; i < e && eventTimes[order[i]!] === t; i++) level += eventDeltas[order[i]!]!;
    const v = level === 0 ? 0 : level;
    if (v !== last) {
      if (v !== v) throw new RangeError(`profileOfRects: the rectangles sum to NaN at t=${t}`);
      times.push(t);
      values.push(v);
      last = v;
    }
  }
  return adoptNormalised(init, times, values);
}

// Scratch buffers of profileOfRects, grown to the largest call and reused: the function calls nothing that could
// re-enter it before it has read them out, and JavaScript runs one call at a time, so sharing them is safe.
let scratchTimes = new Float64Array(64);
let scratchDeltas = new Float64Array(64);
let scratchOrder = new Uint32Array(64);
let scratchMerge = new Uint32Array(64);

function growScratch(cap: number): void {
  const size = Math.max(cap, 2 * scratchTimes.length);
  scratchTimes = new Float64Array(size);
  scratchDeltas = new Float64Array(size);
  scratchOrder = new Uint32Array(size);
  scratchMerge = new Uint32Array(size);
}

// Runs this short are sorted by insertion before the merges.
const RUN = 16;

/**
 * The indices 0..e-1 sorted by times[index], stably: a bottom-up merge sort over index arrays with the comparison
 * inline, which costs a fraction of a sort calling a comparator on objects. Returns one of the two scratch arrays.
 */
function sortByTime(times: Float64Array, e: number): Uint32Array {
  let src = scratchOrder;
  let dst = scratchMerge;
  for (let lo = 0; lo < e; lo += RUN) {
    const hi = Math.min(lo + RUN, e);
    src[lo] = lo;
    for (let i = lo + 1; i < hi; i++) {
      const t = times[i]!;
      let j = i - 1;
      for (; j >= lo && times[src[j]!]! > t; j--) src[j + 1] = src[j]!;
      src[j + 1] = i;
    }
  }
  for (let width = RUN; width < e; width *= 2) {
    for (let lo = 0; lo < e; lo += 2 * width) {
      const mid = Math.min(lo + width, e);
      const hi = Math.min(lo + 2 * width, e);
      let i = lo;
      let j = mid;
      let k = lo;
      // Ties take from the left run, which holds the earlier events: that is what keeps the sort stable.
      while (i < mid && j < hi) dst[k++] = times[src[j]!]! < times[src[i]!]! ? src[j++]! : src[i++]!;
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    const swap = src;
    src = dst;
    dst = swap;
  }
  return src;
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
  return f.addBefore(t1, v);
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
