// This machine as a live cluster (`local`: no daemon needed), as the live tests declare it, and what a test leaves
// running cancelled before its world stops.
import { FINAL_STATES } from '../../../core/model/job.js';
import type { LiveWorld } from '../../../runners/live/types.js';

/** Cluster `here`: 4 slots of this machine, its work under `workRoot`, polled every second; `extra` overrides. */
export function localCluster(workRoot: string, extra: Record<string, unknown> = {}) {
  return { name: 'here', login: { via: 'local' }, system: 'local', slots: 4, workRoot, pollIntervalS: 1, ...extra };
}

/** Cancels every job of `world` not ended yet. */
export function cancelUnfinished(world: LiveWorld): void {
  for (const job of [...world.scheduler.jobs()])
    if (!FINAL_STATES.has(job.state)) world.act((s, now) => s.cancel(job.id, now));
}
