// Protocol violations: an application holding more preemptible nodes than its pushed preemptive view allows.
import { profile } from './views.js';
import type { CoormRequest, View } from './types.js';

export interface Violation {
  cid: string;
  held: number;
  allowed: number;
}

/** Preemptible node IDs held per cluster by these (preemptible) requests. */
export function heldPreemptible(requests: readonly CoormRequest[]): Map<string, number> {
  const held = new Map<string, number>();
  for (const r of requests) if (r.nodeIds.length > 0) held.set(r.cid, (held.get(r.cid) ?? 0) + r.nodeIds.length);
  return held;
}

/** The first cluster where the holdings exceed the view at `now`. */
export function findViolation(
  requests: readonly CoormRequest[],
  view: View | undefined,
  now: number,
): Violation | undefined {
  if (requests.length === 0 || view === undefined) return undefined;
  for (const [cid, held] of heldPreemptible(requests)) {
    const allowed = profile(view, cid).valueAt(now);
    if (held > allowed) return { cid, held, allowed };
  }
  return undefined;
}

/** Earliest time from `now` on when the view drops below the holdings (Infinity: never). */
export function nextViewDrop(requests: readonly CoormRequest[], view: View | undefined, now: number): number {
  if (requests.length === 0 || view === undefined) return Infinity;
  let next = Infinity;
  for (const [cid, held] of heldPreemptible(requests))
    next = Math.min(next, profile(view, cid).firstTimeBelow(now, held));
  return next;
}
