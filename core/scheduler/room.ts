// Room for a placement: what a waiting job may take on one cluster now, or once mandatory shrinks have reclaimed the
// malleable extras there — the figure every placement policy is asked to place within.
import { componentRequest } from '../model/job.js';
import type { ReadonlyClusterState } from './cluster-state.js';
import type { ReadonlyJobRecord } from './job-record.js';

/** What a placement of `job` may take on a cluster now, or with mandatory shrinks of malleable extras there. */
export function roomFor(job: ReadonlyJobRecord, state: ReadonlyClusterState, withShrink: boolean): number {
  if (!job.evolving) {
    const free = state.availableFor(job.id) + (withShrink ? state.shrinkableForPlacement : 0);
    // Decision: a malleable job whose minimum fits may start above it into what growth could take (unused
    // pre-allocated processors included): what it has above its minimum is preemptible, as grown processors are.
    if (job.malleable && free >= job.min && !withShrink) return Math.max(free, state.availableForGrowth());
    return free;
  }
  const initial = componentRequest(job.spec, 0).initial;
  return state.availableForPreallocation(job.id, initial, job.max, withShrink ? state.shrinkable : 0);
}
