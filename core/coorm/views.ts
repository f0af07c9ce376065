// View algebra of appendix A.3 on the core's StepFunction: cap, union, sum, difference, alloc, findHole. The profile
// operations under it (holes, fits, rectangles) are core/time/profile.ts, shared with the scheduler's plan.
import { StepFunction } from '../time/step-function.js';
import {
  profileAlloc,
  profileHole,
  profileOfRects,
  pushSpan,
  type Placed as PlacedOnProfile,
} from '../time/profile.js';
import type { View } from './types.js';

const ZERO = StepFunction.constant(0);

export const emptyView: View = new Map();

/** The profile of `cid` in `view`; a cluster the view does not name has nothing available. */
export function profile(view: View, cid: string): StepFunction {
  return view.get(cid) ?? ZERO;
}

/**
 * A view from the paper's notation: per cluster, consecutive (duration, nodes) pairs starting at `t0` (default 0);
 * nothing is available before t0 or after the last pair.
 */
export function viewOf(spec: Record<string, ReadonlyArray<readonly [number, number]>>, t0 = 0): View {
  const out = new Map<string, StepFunction>();
  for (const cid of Object.keys(spec).sort()) {
    const steps: Array<{ t: number; v: number }> = [];
    let t = t0;
    for (const [duration, nodes] of spec[cid]!) {
      if (!(duration > 0)) throw new RangeError(`viewOf: ${cid}: durations must be > 0, got ${duration}`);
      steps.push({ t, v: nodes });
      t += duration;
      if (t === Infinity) break;
    }
    if (t !== Infinity) steps.push({ t, v: 0 });
    out.set(cid, StepFunction.fromSteps(0, steps));
  }
  return out;
}

/** A view with `nodes` available forever on each cluster. */
export function constantView(clusters: ReadonlyArray<{ cid: string; nodes: number }>): View {
  return new Map(clusters.map((c) => [c.cid, StepFunction.constant(c.nodes)]));
}

/** V[cid](t): nodes available on cid at t. */
export function cap(view: View, cid: string, t: number): number {
  return profile(view, cid).valueAt(t);
}

function combineViews(a: View, b: View, op: (x: StepFunction, y: StepFunction) => StepFunction): View {
  if (b.size === 0) return a.size === 0 ? emptyView : new Map([...a].map(([cid, f]) => [cid, op(f, ZERO)]));
  const out = new Map<string, StepFunction>();
  for (const [cid, f] of a) out.set(cid, op(f, b.get(cid) ?? ZERO));
  for (const [cid, g] of b) if (!a.has(cid)) out.set(cid, op(ZERO, g));
  return out;
}

/** Pointwise maximum per cluster. */
export function union(a: View, b: View): View {
  return combineViews(a, b, (x, y) => x.pointwiseMax(y));
}

/** Pointwise sum per cluster. */
export function sum(a: View, b: View): View {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  // Copy the larger view, then patch the clusters of the smaller one (views share most profiles).
  const [big, small] = a.size >= b.size ? [a, b] : [b, a];
  const out = new Map(big);
  for (const [cid, g] of small) {
    const f = big.get(cid);
    out.set(cid, f === undefined ? g : f.plus(g));
  }
  return out;
}

/** Pointwise difference per cluster (may go negative; callers decide what that means). */
export function difference(a: View, b: View): View {
  if (b.size === 0) return a;
  const out = new Map(a);
  for (const [cid, g] of b) out.set(cid, (a.get(cid) ?? ZERO).minus(g));
  return out;
}

export { addRect, profileAlloc, profileHole, profileOfRects } from '../time/profile.js';

export interface Placed extends PlacedOnProfile {
  cid: string;
}

/**
 * Nodes `r` can get without moving its start: min(n, least availability during [scheduledAt, scheduledAt + duration)),
 * never below 0. `from` clips the window's start (the past no longer matters for a started request).
 */
export function alloc(view: View, r: Placed, from = -Infinity): number {
  return profileAlloc(profile(view, r.cid), r, from);
}

export interface Holeable {
  cid: string;
  n: number;
  duration: number;
  earliestScheduleAt: number;
}

/** First t >= max(t0, earliestScheduleAt) with at least n nodes throughout [t, t + duration); Infinity if none. */
export function findHole(view: View, r: Holeable, t0: number): number {
  return profileHole(profile(view, r.cid), r.n, r.duration, Math.max(t0, r.earliestScheduleAt));
}

/** A view from per-cluster rectangle lists (see profileOfRects). */
export function viewOfRects(rects: ReadonlyMap<string, number[]>): View {
  if (rects.size === 0) return emptyView;
  const out = new Map<string, StepFunction>();
  for (const [cid, list] of rects) if (list.length > 0) out.set(cid, profileOfRects(list));
  return out;
}

/** Appends one rectangle to a per-cluster rectangle list (see pushSpan: clipped at `from`, empty ones dropped). */
export function pushRect(
  rects: Map<string, number[]>,
  cid: string,
  t0: number,
  t1: number,
  v: number,
  from = -Infinity,
): void {
  if (v === 0 || t0 === Infinity || !(t1 > t0) || !(t1 > from)) return;
  let list = rects.get(cid);
  if (list === undefined) rects.set(cid, (list = []));
  pushSpan(list, t0, t1, v, from);
}
