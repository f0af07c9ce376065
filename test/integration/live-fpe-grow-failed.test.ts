// A fully-predictably evolving job in live mode whose step grow fails at the batch system (a `local` cluster, no
// daemons needed): the holder of each processor a grow adds is a slot stub that fails here, as on a node that cannot
// run it. The grow is given up, the application hears why (a refused update), and the job ends, failed, with the
// reason, instead of waiting at the step boundary forever. Every wait is on a condition.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from './harness/common.js';
import { liveRun } from './harness/live-run.js';
import { assetsWithFailingSlots, localCluster } from './harness/local-cluster.js';

describe("a profiled job's step grow that fails on a local cluster", () => {
  const run = liveRun('live-fpe-growfail', (dir) => ({
    clusters: [localCluster(path.join(dir, 'work'))],
    assetsSource: assetsWithFailingSlots(dir),
    // One attempt: the first failed grow ends the job (the unit tests cover the retries, a minute apart).
    scheduler: { fpeGrowAttempts: 1 },
    idleWatchIntervalMs: 500,
    log: () => {},
  }));
  const { of, toApp, fromApp } = run;

  it('ends the job, failed, with the reason, and tells its application first', async () => {
    const staged = run.world.assetsDir!('here')!;
    const submitted = run.world.act((s, now) =>
      s.submit(
        {
          id: 'f',
          kind: 'evolving',
          profile: {
            steps: [
              { duration_s: 1, processors: 1 },
              { duration_s: 2, processors: 3 },
            ],
          },
          components: [{ program: process.execPath, args: [path.join(staged, 'apps', 'fpe-demo.mjs'), '1:1,2:3'] }],
        },
        now,
      ),
    );
    expect(submitted.ok).toBe(true);
    await waitFor('the job to end', () => of('job.ended', 'f').length > 0, 60_000, 100);
    const failed = of('fpe.growFailed', 'f');
    expect(failed).toMatchObject([
      { cluster: 'here', step: 2, attempt: 1, attempts: 1, reason: expect.stringContaining('exit status 3') },
    ]);
    expect(failed[0]!.retryAt).toBeUndefined();
    const ended = of('job.ended', 'f')[0]!;
    expect(ended).toMatchObject({ state: 'failed', reason: `step 2 grow failed: ${failed[0]!.reason}` });
    // The step never began with its processors: no resources beyond its first step's size reached the application.
    await waitFor('the refusal in to-app.jsonl', () => toApp('f').some((m) => m.type === 'refused'), 10_000, 100);
    expect(toApp('f').find((m) => m.type === 'refused')).toMatchObject({ reason: ended.reason });
    expect(toApp('f').filter((m) => m.type === 'resources' && m.size > 1)).toEqual([]);
    expect(fromApp('f').filter((m) => m.type === 'update')).toMatchObject([{ processors: 3 }]);
    expect(run.world.scheduler.clusters[0]!.availableFor()).toBe(4);
  }, 90_000);
});
