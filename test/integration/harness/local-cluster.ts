// This machine as a live cluster (`local`: no daemon needed), as the live tests declare it, and the end of a test
// file's live run: what it left running cancelled, the world stopped, its folder removed.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FINAL_STATES } from '../../../core/model/job.js';
import { repositoryAssetsDir } from '../../../runners/live/live-world.js';
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

/**
 * A copy of the repository's assets in `dir`/assets whose slot stub fails before it holds anything (exit 3), as on a
 * node that cannot run it: every processor a grow adds then fails at the batch system. Returns the copy's folder.
 */
export function assetsWithFailingSlots(dir: string): string {
  const assets = path.join(dir, 'assets');
  cpSync(repositoryAssetsDir(), assets, { recursive: true });
  writeFileSync(
    path.join(assets, 'apps', 'slot-stub.sh'),
    '#!/bin/sh\necho "slot-stub: this node cannot hold a slot" >&2\nexit 3\n',
  );
  return assets;
}
