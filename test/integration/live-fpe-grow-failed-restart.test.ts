// A profiled job's failed step grows survive a restart of Concertina (a `local` cluster whose slot stubs fail, as in
// live-fpe-grow-failed.test.ts): the live state keeps their count and the retry time with the job's step, and the
// adopted job goes on with the attempts it had left, not with a fresh set, from that time. Every wait is on a
// condition.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LiveWorldOptions } from '../../runners/live/live-world.js';
import type { LivePersistentState } from '../../runners/live/types.js';
import { waitFor } from './harness/common.js';
import { eventsOf } from '../support/scheduler-events.js';
import { profiledJob } from '../support/workload-specs.js';
import { liveRun } from './harness/live-run.js';
import { assetsWithFailingSlots, localCluster } from './harness/local-cluster.js';

let options: LiveWorldOptions;
const run = liveRun(
  'live-fpe-growfail-restart',
  (dir) =>
    (options = {
      clusters: [localCluster(path.join(dir, 'work'))],
      assetsSource: assetsWithFailingSlots(dir),
      // Two attempts: the first fails before the restart, the second (the last) after it.
      scheduler: { fpeGrowAttempts: 2 },
      idleWatchIntervalMs: 500,
      log: () => {},
    }),
);
const { of } = run;

describe("a profiled job's failed step grows across a restart", () => {
  it('are stored with its step, and the adopted job has only the attempts it had left', async () => {
    const staged = run.world.assetsDir!('here')!;
    const submitted = run.world.act((s, now) =>
      s.submit(
        profiledJob(
          'f',
          0,
          [
            { duration_s: 1, processors: 1 },
            { duration_s: 2, processors: 3 },
          ],
          { program: process.execPath, args: [path.join(staged, 'apps', 'fpe-demo.mjs'), '1:1,2:3'] },
        ),
        now,
      ),
    );
    expect(submitted.ok).toBe(true);
    await waitFor('the first failed grow', () => of('fpe.growFailed', 'f').length > 0, 60_000, 50);
    // Asked again a minute later: the restart comes first.
    expect(of('fpe.growFailed', 'f')).toMatchObject([
      { step: 2, attempt: 1, attempts: 2, retryAt: expect.any(Number) },
    ]);
    const state = JSON.parse(JSON.stringify(run.world.persistentState())) as LivePersistentState;
    const step = state.jobs.find((j) => j.spec.id === 'f')!.step!;
    expect(step).toMatchObject({ index: 0, growFailures: 1, retryAt: of('fpe.growFailed', 'f')[0]!.retryAt });
    // The minute's wait is shortened to 3 s from now in the stored state, so that the test does not wait it out.
    const retryAt = run.world.act((_, now) => now) + 3;
    step.retryAt = retryAt;
    await run.world.stop();

    const before = run.events.length;
    await run.start({ ...options, restore: state });
    expect(run.world.recovered().find((r) => r.jobId === 'f')).toMatchObject({ outcome: 'adopted' });
    await waitFor('the job to end', () => of('job.ended', 'f').length > 0, 60_000, 50);
    const after = run.events.slice(before);
    expect(eventsOf(after, 'fpe.growFailed', 'f')).toMatchObject([{ step: 2, attempt: 2, attempts: 2 }]);
    // Asked again no sooner than the stored retry time (not at once on adoption).
    expect(eventsOf(after, 'fpe.growFailed', 'f')[0]!.t).toBeGreaterThanOrEqual(retryAt);
    expect(of('job.ended', 'f')[0]).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^step 2 grow failed: .* \(2 attempts\)$/),
    });
  }, 120_000);
});
