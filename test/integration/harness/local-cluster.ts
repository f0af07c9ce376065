// This machine as a live cluster (`local`: no daemon needed), as the live tests declare it, and the end of a test
// file's live run: what it left running cancelled, the world stopped, its folder removed.
import { rmSync } from 'node:fs';
import { FINAL_STATES } from '../../../core/model/job.js';
import type { LiveWorld } from '../../../runners/live/types.js';

/** Cluster `here`: 4 slots of this machine, its work under `workRoot`, polled every second; `extra` overrides. */
export function localCluster(workRoot: string, extra: Record<string, unknown> = {}) {
  return { name: 'here', login: { via: 'local' }, system: 'local', slots: 4, workRoot, pollIntervalS: 1, ...extra };
}

/** Cancels every job of `world` not ended yet, stops it and removes `dir` (either may be missing: a setup failed). */
export async function endLiveRun(world: LiveWorld | undefined, dir: string | undefined): Promise<void> {
  if (world) {
    for (const job of [...world.scheduler.jobs()])
      if (!FINAL_STATES.has(job.state)) world.act((s, now) => s.cancel(job.id, now));
    await world.stop();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}
