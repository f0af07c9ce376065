// The main scheduling pass (appendix A, Algorithm 4): conservative backfilling of pre-allocations, non-preemptible
// requests inside them (or wrapped in implicit ones of their size), then equi-partitioning of what is preemptible.
import type { StepFunction } from '../time/step-function.js';
import { eqSchedule } from './eq-schedule.js';
import { fit } from './fit.js';
import { toView } from './to-view.js';
import { addRect, constantView, difference, emptyView, profile, pushRect, sum, viewOfRects } from './views.js';
import { endOf, started as isStarted, type ClusterSpec, type CoormRequest, type View } from './types.js';

/** One application's live requests, per type, in submission order. */
export interface AppRequests {
  pa: readonly CoormRequest[];
  np: readonly CoormRequest[];
  p: readonly CoormRequest[];
}

export interface PassResult {
  /** Per application (same order as the input): its non-preemptive and preemptive views. */
  nonPreemptive: View[];
  preemptive: View[];
  /** Non-preemptible resources left after every pre-allocation (explicit or implicit). */
  freeNonPreemptive: View;
  /** Resources left for preemptible requests (all minus non-preemptible allocations). */
  preemptible: View;
}

type MutableView = Map<string, StepFunction>;

function subtractInPlace(target: MutableView, v: View): void {
  for (const [cid, f] of v) target.set(cid, profile(target, cid).minus(f));
}

function startedRects(requests: readonly CoormRequest[], now: number): View {
  const rects = new Map<string, number[]>();
  for (const r of requests) if (isStarted(r)) pushRect(rects, r.cid, r.startedAt, r.startedAt + r.duration, r.n, now);
  return viewOfRects(rects);
}

/** Computes every application's views and every request's scheduledAt/nAlloc at `now` (starts nothing). */
export function schedulePass(clusters: readonly ClusterSpec[], apps: readonly AppRequests[], now: number): PassResult {
  const freeNP = new Map(constantView(clusters)) as MutableView;
  const freeP = new Map(constantView(clusters)) as MutableView;
  // Non-preemptible requests outside any pre-allocation join the pre-allocation set as their own implicit one.
  const paSets = apps.map((a) => {
    const wrapped = a.np.filter((r) => !r.insidePA);
    return wrapped.length === 0 ? a.pa : [...a.pa, ...wrapped];
  });
  const insideSets = apps.map((a) => (a.np.every((r) => !r.insidePA) ? [] : a.np.filter((r) => r.insidePA)));

  // Started requests first, for every application: they hold their resources whatever else happens.
  // (Rectangles of all applications are summed in one sweep, then subtracted once: O(R log R + B), not O(A x B).)
  const started = new Map<string, number[]>();
  for (const set of paSets) for (const r of set) if (isStarted(r)) pushRect(started, r.cid, r.startedAt, r.startedAt + r.duration, r.n, now);
  subtractInPlace(freeNP, viewOfRects(started));

  // Then requests fixed by a constraint to a started one. Decision: such a request that no longer fits (e.g. a
  // NEXT successor larger than what is free) is not fixed but left to fit(), so no state is ever unservable.
  // Algorithm 4 lines 4-5 as printed subtract toView(R_PA) twice: the evident intent is PA from the
  // non-preemptible resources and non-preemptible requests from the preemptible ones.
  const fixedPA: View[] = [];
  const fixedInside: View[] = [];
  const nonPreemptibleRects = new Map<string, number[]>();
  // `room` is what the current application's fixed pre-allocations leave to its fixed NP requests inside them.
  let room: MutableView = new Map();
  const fitsInto = (target: MutableView) => (r: CoormRequest) => {
    const f = profile(target, r.cid);
    const end = endOf(r);
    if (end > r.scheduledAt && f.minOver(r.scheduledAt, end) < r.n) return false;
    target.set(r.cid, addRect(f, r.scheduledAt, end, -r.n, now));
    return true;
  };
  const paOptions = { accept: fitsInto(freeNP) };
  const insideOptions = { accept: (r: CoormRequest) => fitsInto(room)(r) };
  for (let i = 0; i < apps.length; i++) {
    fixedPA.push(toView(paSets[i]!, now, paOptions));
    const inside = insideSets[i]!;
    if (inside.length > 0) {
      room = new Map(difference(fixedPA[i]!, startedRects(inside, now))) as MutableView;
      fixedInside.push(toView(inside, now, insideOptions));
      for (const r of inside) if (r.fixed) pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.n, now);
    } else {
      fixedInside.push(emptyView);
    }
    for (const r of paSets[i]!) if (r.type === 'NP' && r.fixed) pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.n, now);
  }

  // Not-fixed pre-allocations by conservative backfilling in connection order, and non-preemptible requests inside.
  const nonPreemptive: View[] = [];
  // freeNP is mutated below: views get an immutable copy, shared until the next change.
  let freeSnapshot: View | undefined;
  for (let i = 0; i < apps.length; i++) {
    nonPreemptive.push(sum(fixedPA[i]!, (freeSnapshot ??= new Map(freeNP))));
    // Decision: a new pre-allocation fits into free resources only (the paper offers the application's own too),
    // so an application's overlapping pre-allocations add up instead of sharing nodes.
    const pas = paSets[i]!;
    if (pas.length > 0 && !pas.every((r) => r.fixed)) {
      subtractInPlace(freeNP, fit(pas, freeNP, now));
      freeSnapshot = undefined;
      for (const r of pas) if (r.type === 'NP' && !r.fixed) pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
    }
    const inside = insideSets[i]!;
    if (inside.length > 0 && !inside.every((r) => r.fixed)) {
      const occPA = new Map<string, number[]>();
      for (const r of pas) if (r.type === 'PA' && !r.fixed) pushRect(occPA, r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
      const paView = sum(fixedPA[i]!, viewOfRects(occPA));
      fit(inside, difference(paView, fixedInside[i]!), now);
      for (const r of inside) if (!r.fixed) pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
    }
  }
  subtractInPlace(freeP, viewOfRects(nonPreemptibleRects));

  const preemptive = eqSchedule(
    apps.map((a) => a.p),
    freeP,
    now,
  );
  return { nonPreemptive, preemptive, freeNonPreemptive: freeNP, preemptible: freeP };
}
