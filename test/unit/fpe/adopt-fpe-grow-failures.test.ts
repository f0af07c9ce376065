// A profiled job's failed step grows survive a restart (core/scheduler/adoption.ts, fpe-jobs.ts): the live state
// keeps their count and the retry time with its step (runners/live/live-world.ts), and the adopted job goes on from
// them. Before, an adopted job started afresh with every attempt, and asked for its grow again at once, so a grow that
// could never come was tried again after each restart.
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
const storedJob = (step: unknown) => ({
  spec: profiled,
  submitTime: 0,
  launched: true,
  cluster: 'a',
  processors: 2,
  startTime: 0,
  step,
});

/**
 * Its grow of 4 for step 2 fails at 100 and again at 160 (asked again a minute after each): 2 of its 3 attempts, the
 * next due at 220. Returns the run and what it reports of the job at 200, when Concertina restarts.
 */
function failedTwice() {
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
  return { before, stored: before.at(200).scheduler.fpeSchedule('e')! };
}

/** A new scheduler at 200 that adopts the job with `step` as stored, and its first advance. */
function adoptedAt200(step: unknown) {
  const after = harness(grid({ a: 16 }));
  after.at(200);
  const parsed = livePersistentJobSchema.parse(storedJob(step));
  const adopted = { cluster: 'a', processors: 2, submitTime: 0, startTime: 0, step: parsed.step };
  expect(after.scheduler.adopt(profiled, adopted, 200).ok).toBe(true);
  after.scheduler.advance(200);
  return after;
}

/** The attempt that fails at `t` (the job's last) as the adopted run sees it. */
function lastAttemptFails(after: ReturnType<typeof harness>, t: number): void {
  after.at(t).scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'e', processors: 4, reason }, t);
  after.scheduler.advance(t);
  expect(after.ofType('fpe.growFailed').map((e) => [e.t, e.attempt, e.attempts])).toEqual([[t, 3, 3]]);
  expect(after.scheduler.job('e')!.state).toBe('failed');
}

describe("an adopted profiled job's failed grows", () => {
  // Adopted with the stored count but no retry time (a state written before it was kept), its next grow comes at
  // once (step 1 is long over) and is its last attempt: failed at 210, the job ends. Without the count it would have
  // had 3 attempts again.
  it('go on from the count the earlier run stored: the attempts left, not a fresh set', () => {
    const { before, stored } = failedTwice();
    expect(before.ofType('fpe.growFailed').map((e) => [e.t, e.attempt, e.attempts, e.retryAt])).toEqual([
      [100, 1, 3, 160],
      [160, 2, 3, 220],
    ]);
    expect(stored).toMatchObject({ step: 0, stepStart: 0, growFailures: 2 });
    const after = adoptedAt200({
      index: stored.step,
      start: stored.stepStart,
      planned: stored.planned.map((s) => ({ durationS: s.duration, processors: s.nodes })),
      growFailures: stored.growFailures,
    });
    expect(after.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
    lastAttemptFails(after, 210);
    expect(after.apps.refusals).toEqual([{ jobId: 'e', reason: `step 2 grow failed: ${reason} (3 attempts)` }]);
  });

  // Adopted at 200 with the stored retry time, it asks again at 220, not at 200: its last attempt, failed at 230,
  // ends the job.
  it('wait until the retry time the earlier run stored, then ask again', () => {
    const { stored } = failedTwice();
    expect(stored).toMatchObject({ step: 0, stepStart: 0, growFailures: 2, retryAt: 220 });
    const after = adoptedAt200({
      index: stored.step,
      start: stored.stepStart,
      planned: stored.planned.map((s) => ({ durationS: s.duration, processors: s.nodes })),
      growFailures: stored.growFailures,
      retryAt: stored.retryAt,
    });
    after.at(219).scheduler.advance(219);
    expect(after.manager('a').grows).toEqual([]);
    after.at(220).scheduler.advance(220);
    expect(after.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
    lastAttemptFails(after, 230);
  });

  it('counts are checked as a whole number, 0 or more, in the adopted state and in the stored live state', () => {
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
      livePersistentJobSchema.safeParse(storedJob({ index: 0, start: 0, growFailures })).success;
    expect([stored(2), stored(undefined), stored(-1), stored(0.5)]).toEqual([true, true, false, false]);
  });

  it('retry times are checked as a time in the adopted state and in the stored live state, the error naming the field', () => {
    const h = harness(grid({ a: 16 }));
    const adopt = (retryAt: number) => {
      const step = { index: 0, start: -120, growFailures: 1, retryAt };
      const r = h.scheduler.adopt(
        profiled,
        { cluster: 'a', processors: 2, submitTime: -130, startTime: -120, step },
        0,
      );
      return r.ok ? [] : r.errors;
    };
    expect(adopt(Number.NaN)).toEqual([{ path: 'step.retryAt', message: 'must be a time (got NaN)' }]);
    expect(adopt(Number.POSITIVE_INFINITY)).toEqual([
      { path: 'step.retryAt', message: 'must be a time (got Infinity)' },
    ]);
    const stored = (retryAt: unknown) => {
      const r = livePersistentJobSchema.safeParse(storedJob({ index: 0, start: 0, growFailures: 1, retryAt }));
      return r.success ? 'ok' : r.error.issues.map((i) => i.path.join('.'));
    };
    expect([stored(220), stored(undefined), stored('soon'), stored(Number.NaN), stored(null)]).toEqual([
      'ok',
      'ok',
      ['step.retryAt'],
      ['step.retryAt'],
      ['step.retryAt'],
    ]);
  });
});
