// fit (appendix A, Algorithm 2): schedules a set's non-fixed requests into the available resources, honouring
// COALLOC and NEXT by delaying parents when a child cannot be placed where its constraint wants it.
import type { StepFunction } from '../time/step-function.js';
import { children } from './requests.js';
import type { RequestSet } from './requests.js';
import { addRect, emptyView, profile, profileAlloc, profileHole, pushRect, viewOfRects } from './views.js';
import { endOf, started, type CoormRequest, type View } from './types.js';

const NONE: ReadonlySet<CoormRequest> = new Set();

/**
 * Sets scheduledAt and nAlloc of the set's non-fixed requests (never before t0) and returns the view they occupy.
 * toView must have marked the fixed ones first.
 */
export function fit(set: RequestSet, available: View, t0: number): View {
  const queue: CoormRequest[] = [];
  let open = 0;
  let family = false;
  for (const r of set) {
    if (r.parent !== undefined) family = true;
    if (r.fixed) continue;
    open++;
    r.earliestScheduleAt = t0;
    // In case of error the request never starts.
    r.scheduledAt = Infinity;
  }
  if (open === 0) return emptyView;
  // Membership only matters to follow constraints inside the set.
  const members: ReadonlySet<CoormRequest> = family ? new Set(set) : NONE;
  for (const r of set) {
    const p = r.parent;
    if (r.relatedHow === 'FREE' || p === undefined || !members.has(p)) queue.push(r);
  }
  // Decision: requests of the set are placed into what the others already placed leave (the paper's A.6 lets
  // overlapping requests of one set see the same resources); `work` is available minus placed non-fixed requests.
  const work = new Map<string, StepFunction>();
  const placed = new Set<CoormRequest>();
  const get = (cid: string) => work.get(cid) ?? profile(available, cid);
  const unplace = (r: CoormRequest) => {
    if (placed.delete(r)) work.set(r.cid, addRect(get(r.cid), r.scheduledAt, endOf(r), r.nAlloc));
  };
  const place = (r: CoormRequest) => {
    placed.add(r);
    work.set(r.cid, addRect(get(r.cid), r.scheduledAt, endOf(r), -r.nAlloc));
  };
  // Decision: a safety cap on re-queueing; parents only ever move later, so real inputs converge far below it.
  let budget = 64 * set.length + 64;
  for (let head = 0; head < queue.length && budget > 0; head++, budget--) {
    const r = queue[head]!;
    if (r.fixed) {
      if (family) for (const c of children(r, members)) queue.push(c);
      continue;
    }
    unplace(r);
    const p = r.parent;
    const f = get(r.cid);
    r.nAlloc = r.n;
    const before = r.scheduledAt;
    const sameSetParent = p !== undefined && members.has(p) && !p.fixed;
    // Decision: a request constrained to one withdrawn before it started is placed as if it were FREE.
    if (r.relatedHow === 'FREE' || p === undefined || (p.removed && !started(p))) {
      // Algorithm 2 line 15 searches from 0: earliestScheduleAt (>= t0) is the bound that matters.
      r.scheduledAt = profileHole(f, r.n, r.duration, r.earliestScheduleAt);
    } else if (r.relatedHow === 'COALLOC') {
      if (r.type === 'P' && p.type !== 'P') {
        // Decision: a parent that started before t0 means "now": a not-started request is never placed in the past.
        r.scheduledAt = Math.max(p.scheduledAt, t0);
        r.nAlloc = profileAlloc(f, r, t0);
      } else {
        r.scheduledAt = profileHole(f, r.n, r.duration, Math.max(p.scheduledAt, r.earliestScheduleAt));
        if (r.scheduledAt !== p.scheduledAt && sameSetParent) {
          p.earliestScheduleAt = r.scheduledAt;
          queue.push(p);
        }
      }
    } else {
      const parentEnd = endOf(p);
      if (r.type === 'P') {
        r.scheduledAt = Math.max(parentEnd, t0);
        r.nAlloc = profileAlloc(f, r, t0);
      } else {
        r.scheduledAt = profileHole(f, r.n, r.duration, Math.max(parentEnd, r.earliestScheduleAt));
        if (r.scheduledAt !== parentEnd && sameSetParent) {
          p.earliestScheduleAt = r.scheduledAt - p.duration;
          queue.push(p);
        }
      }
    }
    place(r);
    if (family && before !== r.scheduledAt) for (const c of children(r, members)) queue.push(c);
  }
  const rects = new Map<string, number[]>();
  for (const r of placed) pushRect(rects, r.cid, r.scheduledAt, endOf(r), r.nAlloc, t0);
  return viewOfRects(rects);
}
