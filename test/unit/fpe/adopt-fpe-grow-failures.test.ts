// A profiled job's failed step grows survive a restart (core/scheduler/adoption.ts, fpe-jobs.ts): the live state
// keeps their count with its step (runners/live/live-world.ts), and the adopted job goes on from it. Before, an
// adopted job started afresh with every attempt, so a grow that could never come was tried again after each restart.
import { describe, expect, it } from 'vitest';
import { livePersistentJobSchema } from '../../../runners/live/types.js';
import { grid, harness } from '../../support/harness.js';
import { profiledJob } from '../../support/workload-specs.js';

// 2 processors for 100 s, 6 for 100 s, 3 for 100 s.
const profiled = profiledJob('e', 0, [
  { duration_s: 100, processors: 2 },
  { duration_s: 100, processors: 6 },
  { duration_s: 100, processors: 3 },
]);
const reason = 'member 1 (17) failed: local state failed (exit status 3)';

describe("an adopted profiled job's failed grows", () => {
  // Its grow of 4 for step 2 fails at 100 and again at 160 (asked again a minute after each): 2 of its 3 attempts.
  // Concertina restarts at 200; adopted with the stored count, its next grow (at once: step 1 is long over) is its
  // last attempt: failed at 210, the job ends. Without the count it would have had 3 attempts again.
  it('go on from the count the earlier run stored: the attempts left, not a fresh set', () => {
    const before = harness(grid({ a: 16 }));
    before.submit(profiled);
    before.scheduler.advance(0);
    before.startAll();
    const fail = (t: number) => {
      before.at(t).scheduler.advance(t);
      expect(before.manager('a').grows.at(-1)).toEqual({ jobId: 'e', processors: 4 });
      before.scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'e', processors: 4, reason }, t);
      before.scheduler.advance(t);
    };
    fail(100);
    fail(160);
    expect(before.ofType('fpe.growFailed').map((e) => [e.t, e.attempt, e.attempts, e.retryAt])).toEqual([
      [100, 1, 3, 160],
      [160, 2, 3, 220],
    ]);
    const stored = before.at(200).scheduler.fpeSchedule('e')!;
    expect(stored).toMatchObject({ step: 0, stepStart: 0, growFailures: 2 });

    const after = harness(grid({ a: 16 }));
    after.at(200);
    const step = {
      index: stored.step,
      start: stored.stepStart,
      planned: stored.planned.map((s) => ({ durationS: s.duration, processors: s.nodes })),
      growFailures: stored.growFailures,
    };
    const adopted = { cluster: 'a', processors: 2, submitTime: 0, startTime: 0, step };
    expect(after.scheduler.adopt(profiled, adopted, 200).ok).toBe(true);
    after.scheduler.advance(200);
    expect(after.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
    after.at(210).scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'e', processors: 4, reason }, 210);
    after.scheduler.advance(210);
    expect(after.ofType('fpe.growFailed').map((e) => [e.t, e.attempt, e.attempts])).toEqual([[210, 3, 3]]);
    expect(after.scheduler.job('e')!.state).toBe('failed');
    expect(after.apps.refusals).toEqual([{ jobId: 'e', reason: `step 2 grow failed: ${reason} (3 attempts)` }]);
  });

  it('are checked as a whole number, 0 or more, in the adopted state and in the stored live state', () => {
    const h = harness(grid({ a: 16 }));
    const adopt = (growFailures: number) => {
      const step = { index: 1, start: -20, growFailures };
      const r = h.scheduler.adopt(
        profiled,
        { cluster: 'a', processors: 6, submitTime: -130, startTime: -120, step },
        0,
      );
      return r.ok ? [] : r.errors;
    };
    expect(adopt(1.5)).toEqual([{ path: 'step.growFailures', message: 'must be a whole number, 0 or more (got 1.5)' }]);
    expect(adopt(-1)).toEqual([{ path: 'step.growFailures', message: 'must be a whole number, 0 or more (got -1)' }]);
    const stored = (growFailures: unknown) =>
      livePersistentJobSchema.safeParse({
        spec: profiled,
        submitTime: 0,
        launched: true,
        cluster: 'a',
        processors: 2,
        startTime: 0,
        step: { index: 0, start: 0, growFailures },
      }).success;
    expect([stored(2), stored(undefined), stored(-1), stored(0.5)]).toEqual([true, true, false, false]);
  });
});
