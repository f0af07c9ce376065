// The main scheduling pass (appendix A, Algorithm 4): conservative backfilling of pre-allocations, non-preemptible
// requests inside them (or wrapped in implicit ones of their size), then equi-partitioning of what is preemptible.
import { fitsAt } from '../time/profile.js';
import { StepFunction } from '../time/step-function.js';
import { eqSchedule } from './eq-schedule.js';
import { fit } from './fit.js';
import { toView } from './to-view.js';
import { addRect, constantView, difference, emptyView, profile, pushRect, sum, viewOfRects } from './views.js';
import {
  endOf,
  started as isStarted,
  type CoormCluster,
  type CoormRequest,
  type PreemptibleSharing,
  type View,
} from './types.js';

/** One application's live requests, per type, in submission order. */
export interface AppRequests {
  pa: readonly CoormRequest[];
  np: readonly CoormRequest[];
  p: readonly CoormRequest[];
}

export interface PassOptions {
  /** Default 'fill'. */
  sharing?: PreemptibleSharing;
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

const ZERO = StepFunction.constant(0);

function subtractInPlace(target: MutableView, v: View): void {
  for (const [cid, f] of v) target.set(cid, profile(target, cid).minus(f));
}

function startedView(requests: readonly CoormRequest[], now: number): View {
  const rects = new Map<string, number[]>();
  for (const r of requests) if (isStarted(r)) pushRect(rects, r.cid, r.startedAt, r.startedAt + r.duration, r.n, now);
  return viewOfRects(rects);
}

/** End of a started request's allocation, from its actual start as startedView counts it. */
const startedEnd = (r: CoormRequest): number => r.startedAt + r.duration;

/**
 * Cheap test before excessOf: whether requests running inside pre-allocations may somewhere hold more than the
 * started pre-allocations that outlast them all (false: they certainly do not). It reads the same started spans as
 * excessOf, from startedAt: scheduledAt is this pass's output, refreshed only later in it, and a request started later
 * than scheduled would seem to end inside a pre-allocation it in fact outlives.
 */
function mayOutgrow(inside: readonly CoormRequest[], pa: readonly CoormRequest[], now: number): boolean {
  const held = new Map<string, { n: number; end: number }>();
  for (const r of inside) {
    if (!isStarted(r) || !(startedEnd(r) > now)) continue;
    const h = held.get(r.cid);
    if (h === undefined) held.set(r.cid, { n: r.n, end: startedEnd(r) });
    else {
      h.n += r.n;
      h.end = Math.max(h.end, startedEnd(r));
    }
  }
  for (const [cid, h] of held) {
    let cover = 0;
    for (const r of pa) if (r.cid === cid && isStarted(r) && startedEnd(r) >= h.end) cover += r.n;
    if (h.n > cover) return true;
  }
  return false;
}

/** Where `a` exceeds `b`, by how much (clusters where it never does are left out). */
function excessOf(a: View, b: View): MutableView | undefined {
  let out: MutableView | undefined;
  for (const [cid, f] of a) {
    const over = f.minus(profile(b, cid)).map((v) => (v > 0 ? v : 0));
    if (over.breakpoints === 0 && over.initial === 0) continue;
    (out ??= new Map()).set(cid, over);
  }
  return out;
}

/**
 * Groups an application's not-fixed requests of one set into constraint trees (a request goes with its parent when
 * both are in the set), in submission order of their newest member.
 */
function trees(set: readonly CoormRequest[]): CoormRequest[][] {
  const open = set.filter((r) => !r.fixed);
  if (open.length <= 1 || open.every((r) => r.parent === undefined)) return open.map((r) => [r]);
  const members = new Set(open);
  const rootOf = (r: CoormRequest): CoormRequest => {
    let x = r;
    while (x.relatedHow !== 'FREE' && x.parent !== undefined && members.has(x.parent)) x = x.parent;
    return x;
  };
  const byRoot = new Map<CoormRequest, CoormRequest[]>();
  for (const r of open) {
    const root = rootOf(r);
    const group = byRoot.get(root);
    if (group === undefined) byRoot.set(root, [r]);
    else group.push(r);
  }
  return [...byRoot.values()];
}

/** Computes every application's views and every request's scheduledAt/nAlloc at `now` (starts nothing). */
export function schedulePass(
  clusters: readonly CoormCluster[],
  apps: readonly AppRequests[],
  now: number,
  options: PassOptions = {},
): PassResult {
  const freeNP = new Map(constantView(clusters)) as MutableView;
  const freeP = new Map(constantView(clusters)) as MutableView;
  // Non-preemptible requests outside any pre-allocation join the pre-allocation set as their own implicit one.
  const paSets = apps.map((a) => {
    const wrapped = a.np.filter((r) => !r.insidePA);
    return wrapped.length === 0 ? a.pa : [...a.pa, ...wrapped];
  });
  const insideSets = apps.map((a) => (a.np.every((r) => !r.insidePA) ? [] : a.np.filter((r) => r.insidePA)));
  const nonPreemptibleRects = new Map<string, number[]>();
  /** Per application: what it occupies of the non-preemptible resources (its footprint), as rectangles. */
  const footprint: Array<Map<string, number[]> | undefined> = apps.map(() => undefined);
  const own = (i: number) => (footprint[i] ??= new Map());

  // 1. What started requests hold, for every application (Algorithm 4 lines 3-5). Algorithm 4 lines 4-5 as printed
  // subtract toView(R_PA) twice: the evident intent is PA from the non-preemptible resources and non-preemptible
  // requests from the preemptible ones. Rectangles of all applications are summed in one sweep, then subtracted once.
  const startedRects = new Map<string, number[]>();
  const excess: Array<MutableView | undefined> = apps.map(() => undefined);
  for (let i = 0; i < apps.length; i++) {
    for (const r of paSets[i]!) {
      if (!isStarted(r)) continue;
      pushRect(startedRects, r.cid, r.startedAt, r.startedAt + r.duration, r.n, now);
      pushRect(own(i), r.cid, r.startedAt, r.startedAt + r.duration, r.n, now);
    }
    const inside = insideSets[i]!;
    if (mayOutgrow(inside, apps[i]!.pa, now)) {
      // Decision: a running request inside a pre-allocation keeps its nodes whatever becomes of the pre-allocation
      // (ended, or replaced by one not started yet): what it holds beyond the application's started pre-allocations
      // is the application's own occupation, so nobody else is promised those nodes.
      const over = excessOf(startedView(inside, now), startedView(apps[i]!.pa, now));
      if (over !== undefined) {
        excess[i] = over;
        subtractInPlace(freeNP, over);
      }
    }
  }
  subtractInPlace(freeNP, viewOfRects(startedRects));

  // 2. Requests of the pre-allocation set fixed by a constraint to a started one, in submission order. Decision: one
  // that no longer fits (e.g. a NEXT successor larger than what is free) is not fixed but left to backfilling, so no
  // state is ever unservable; a pre-allocation first uses the nodes its application's running requests already hold.
  const candidates: Array<{ r: CoormRequest; app: number }> = [];
  for (let i = 0; i < apps.length; i++) {
    const set = paSets[i]!;
    if (set.length === 0) continue;
    toView(set, now);
    for (const r of set) if (r.fixed && !isStarted(r)) candidates.push({ r, app: i });
  }
  candidates.sort((a, b) => a.r.id - b.r.id);
  for (const { r, app } of candidates) {
    const p = r.parent;
    // Ids grow with submission, so a parent is decided before its children: a refused parent takes them along.
    if (p !== undefined && p.type === r.type && !isStarted(p) && !p.fixed) {
      r.fixed = false;
      continue;
    }
    const f = profile(freeNP, r.cid);
    const end = endOf(r);
    const held = r.type === 'PA' ? excess[app]?.get(r.cid) : undefined;
    if (held === undefined) {
      if (!fitsAt(f, r.scheduledAt, r.duration, r.n)) {
        r.fixed = false;
        continue;
      }
      freeNP.set(r.cid, addRect(f, r.scheduledAt, end, -r.n, now));
    } else {
      const rect = addRect(ZERO, r.scheduledAt, end, r.n, now);
      const reused = rect.pointwiseMin(held);
      const left = f.minus(rect).plus(reused);
      if (!fitsAt(left, r.scheduledAt, r.duration, 0)) {
        r.fixed = false;
        continue;
      }
      freeNP.set(r.cid, left);
      excess[app]!.set(r.cid, held.minus(reused));
    }
    pushRect(own(app), r.cid, r.scheduledAt, end, r.n, now);
  }
  for (let i = 0; i < apps.length; i++) {
    for (const r of paSets[i]!)
      if (r.type === 'NP' && r.fixed) pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.n, now);
  }

  // 3. Fixed non-preemptible requests inside each application's fixed pre-allocations (its own only: the implicit
  // ones of its wrapped requests are taken by those requests).
  const fixedPA: Array<View | undefined> = apps.map(() => undefined);
  const fixedPAOf = (i: number): View => {
    let v = fixedPA[i];
    if (v === undefined) {
      const rects = new Map<string, number[]>();
      for (const r of apps[i]!.pa) if (r.fixed) pushRect(rects, r.cid, r.scheduledAt, endOf(r), r.n, now);
      fixedPA[i] = v = viewOfRects(rects);
    }
    return v;
  };
  const fixedInside: View[] = [];
  // What the current application's fixed pre-allocations leave to its requests inside, made when first asked.
  let app = -1;
  let room: MutableView | undefined;
  const insideOptions = {
    accept: (r: CoormRequest) => {
      room ??= new Map(difference(fixedPAOf(app), startedView(insideSets[app]!, now))) as MutableView;
      const f = profile(room, r.cid);
      const end = endOf(r);
      if (!fitsAt(f, r.scheduledAt, r.duration, r.n)) return false;
      room.set(r.cid, addRect(f, r.scheduledAt, end, -r.n, now));
      return true;
    },
  };
  for (let i = 0; i < apps.length; i++) {
    const inside = insideSets[i]!;
    if (inside.length === 0) {
      fixedInside.push(emptyView);
      continue;
    }
    app = i;
    room = undefined;
    fixedInside.push(toView(inside, now, insideOptions));
    for (const r of inside) if (r.fixed) pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.n, now);
  }

  // 4. Conservative backfilling of the rest of the pre-allocation sets. Decision: in submission order, not the paper's
  // connection order, under which a new request of an early application pushed back reservations already granted.
  // Decision: a constraint tree goes at the place of its newest request: adding to it is submitting it again.
  const queue: Array<{ tree: CoormRequest[]; app: number; rank: number }> = [];
  for (let i = 0; i < apps.length; i++) {
    const set = paSets[i]!;
    if (set.length === 0 || set.every((r) => r.fixed)) continue;
    for (const tree of trees(set)) queue.push({ tree, app: i, rank: tree.reduce((m, r) => Math.max(m, r.id), 0) });
  }
  queue.sort((a, b) => a.rank - b.rank);
  const placedPA: Array<Map<string, number[]> | undefined> = apps.map(() => undefined);
  for (const { tree, app } of queue) {
    const over = excess[app];
    if (over === undefined) {
      subtractInPlace(freeNP, fit(tree, freeNP, now));
    } else {
      // As in step 2, a pre-allocation first covers what its application's running requests hold beyond its others
      // (wrapped requests are never on a cluster with such an excess: there the application pre-allocates).
      const placed = fit(tree, sum(freeNP, over), now);
      for (const [cid, f] of placed) {
        const reused = f.pointwiseMin(profile(over, cid));
        freeNP.set(cid, profile(freeNP, cid).minus(f).plus(reused));
        over.set(cid, profile(over, cid).minus(reused));
      }
    }
    for (const r of tree) {
      pushRect(own(app), r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
      if (r.type === 'NP') pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
      else pushRect((placedPA[app] ??= new Map()), r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
    }
  }

  // 5. Not-fixed non-preemptible requests inside each application's pre-allocations, wherever they are placed.
  for (let i = 0; i < apps.length; i++) {
    const inside = insideSets[i]!;
    if (inside.length === 0 || inside.every((r) => r.fixed)) continue;
    const placed = placedPA[i];
    const paView = placed === undefined ? fixedPAOf(i) : sum(fixedPAOf(i), viewOfRects(placed));
    fit(inside, difference(paView, fixedInside[i]!), now);
    for (const r of inside) if (!r.fixed) pushRect(nonPreemptibleRects, r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
  }
  subtractInPlace(freeP, viewOfRects(nonPreemptibleRects));

  // Decision: an application's non-preemptive view is what is free after every request (a new one would queue last)
  // plus what it occupies itself (where it may re-plan), as Algorithm 4 line 7 adds toView(R_PA) to what is left.
  const freeView: View = new Map(freeNP);
  const nonPreemptive = apps.map((_, i) => {
    const mine = footprint[i];
    const over = excess[i];
    if (mine === undefined && over === undefined) return freeView;
    const occupied = mine === undefined ? emptyView : viewOfRects(mine);
    return sum(sum(freeView, occupied), over ?? emptyView);
  });

  const preemptive = eqSchedule(
    apps.map((a) => a.p),
    freeP,
    now,
    options.sharing,
  );
  return { nonPreemptive, preemptive, freeNonPreemptive: freeView, preemptible: freeP };
}
