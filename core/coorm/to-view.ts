// toView (appendix A, Algorithm 1): the view occupied by a set's fixed requests, i.e. the started ones and those
// constrained to a fixed one, whose start the RMS can no longer choose.
import type { StepFunction } from '../time/step-function.js';
import { children } from './requests.js';
import type { RequestSet } from './requests.js';
import { addRect, emptyView, profileAlloc, profile, pushRect, viewOfRects } from './views.js';
import { endOf, started, type CoormRequest, type View } from './types.js';

export interface ToViewOptions {
  /**
   * Available resources: the generated view then uses at most these (sets nAlloc), and overlapping requests of the
   * set share them instead of each seeing all of them.
   */
  available?: View;
  /**
   * Asked before fixing a request that has not started (a NEXT/COALLOC descendant of a fixed one); false leaves it,
   * and its descendants, to fit(). Not asked for started requests.
   */
  accept?: (r: CoormRequest) => boolean;
}

/** Marks fixed requests, sets their scheduledAt and nAlloc, and returns the view they occupy. */
export function toView(set: RequestSet, now: number, options: ToViewOptions = {}): View {
  if (set.length === 0) return emptyView;
  const { available, accept } = options;
  const queue: CoormRequest[] = [];
  let family = false;
  for (const r of set) {
    r.fixed = false;
    if (started(r)) queue.push(r);
    if (r.children.length > 0) family = true;
  }
  if (queue.length === 0) return emptyView;
  // Membership only matters to follow constraints; most sets have none.
  const members = family ? new Set(set) : undefined;
  // Decision: with `available`, each fixed request's nAlloc is taken from what earlier fixed ones left (overlaps add up).
  const work = available === undefined ? undefined : new Map<string, StepFunction>();
  const rects = new Map<string, number[]>();
  for (let head = 0; head < queue.length; head++) {
    const r = queue[head]!;
    if (r.fixed) continue;
    const p = r.parent;
    if (started(r)) {
      // Decision: a started request is fixed at its actual start, whatever its constraint said.
      r.scheduledAt = r.startedAt;
    } else if (p !== undefined && r.relatedHow === 'NEXT') {
      r.scheduledAt = endOf(p);
    } else if (p !== undefined && r.relatedHow === 'COALLOC') {
      // Decision: a COALLOC partner that started in the past means "now" (a start cannot be put in the past).
      r.scheduledAt = Math.max(p.scheduledAt, now);
    } else {
      continue;
    }
    if (work !== undefined) {
      const f = work.get(r.cid) ?? profile(available!, r.cid);
      r.nAlloc = profileAlloc(f, r, now);
      work.set(r.cid, addRect(f, r.scheduledAt, endOf(r), -r.nAlloc));
    } else {
      r.nAlloc = r.n;
    }
    if (!started(r) && accept !== undefined && !accept(r)) continue;
    r.fixed = true;
    pushRect(rects, r.cid, r.scheduledAt, endOf(r), r.nAlloc, now);
    // Algorithm 1 line 23 enqueues r again: the evident intent is each child r_c.
    if (members !== undefined) for (const c of children(r, members)) if (!c.fixed) queue.push(c);
  }
  return viewOfRects(rects);
}
