// A profiled job's wait after a failed step grow survives a restart (core/scheduler/adoption.ts, fpe-jobs.ts): the
// live state keeps its retry time with its step (runners/live/live-world.ts), and the adopted job waits until then.
// Before, an adopted job asked for its grow again at once, however little of the minute had gone by.
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

describe("an adopted profiled job's retry of a failed grow", () => {
  // Its grow of 4 for step 2 fails at 100 and again at 160, asked again from 220. Concertina restarts at 200; adopted
  // with the stored step (read back through the live state's schema), it asks again at 220, not at 200: its last
  // attempt, failed at 230, ends the job.
  it('waits until the time the earlier run stored, then asks again', () => {
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
    const stored = before.at(200).scheduler.fpeSchedule('e')!;
    expect(stored).toMatchObject({ step: 0, stepStart: 0, growFailures: 2, retryAt: 220 });
    const parsed = livePersistentJobSchema.parse(
      storedJob({
        index: stored.step,
        start: stored.stepStart,
        planned: stored.planned.map((s) => ({ durationS: s.duration, processors: s.nodes })),
        growFailures: stored.growFailures,
        retryAt: stored.retryAt,
      }),
    );

    const after = harness(grid({ a: 16 }));
    after.at(200);
    const adopted = { cluster: 'a', processors: 2, submitTime: 0, startTime: 0, step: parsed.step };
    expect(after.scheduler.adopt(profiled, adopted, 200).ok).toBe(true);
    after.scheduler.advance(200);
    after.at(219).scheduler.advance(219);
    expect(after.manager('a').grows).toEqual([]);
    after.at(220).scheduler.advance(220);
    expect(after.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
    after.at(230).scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'e', processors: 4, reason }, 230);
    after.scheduler.advance(230);
    expect(after.ofType('fpe.growFailed').map((e) => [e.t, e.attempt, e.attempts])).toEqual([[230, 3, 3]]);
    expect(after.scheduler.job('e')!.state).toBe('failed');
  });

  it('is checked as a time in the adopted state and in the stored live state, the error naming the field', () => {
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
