// A profiled job's step grow that never brings its processors (core/scheduler/fpe-jobs.ts): its holders stay queued
// at the batch system, or fail there before they run. Without a way out the job waited at that step boundary forever;
// now the grow is withdrawn (cancelGrow) after the timeout, or given up once its holders failed, and asked again later
// with the step delayed, or the job ends, failed, after its last attempt.
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../core/scheduler/scheduler.js';
import { FakeApplications, FakeManager, grid, harness } from '../../support/harness.js';

// e runs 1 processor for 100 s, 3 for 50 s, then 1 for 80 s, alone on 10 processors: its grow of 2 is asked at 100.
function profiled(options: Parameters<typeof harness>[1] = {}, beforeGrow?: (h: ReturnType<typeof harness>) => void) {
  const h = harness(grid({ a: 10 }), options);
  const told: number[] = [];
  h.apps.resized = (_jobId, size) => void told.push(size);
  h.submit({
    id: 'e',
    kind: 'evolving',
    profile: {
      steps: [
        { duration_s: 100, processors: 1 },
        { duration_s: 50, processors: 3 },
        { duration_s: 80, processors: 1 },
      ],
    },
    components: [{ program: 'fpe-app' }],
  });
  h.scheduler.advance(0);
  h.startAll();
  beforeGrow?.(h);
  h.at(100).scheduler.advance(100);
  expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 2 }]);
  /** The batch system says `processors` of the grow will not come. */
  const growFailed = (processors: number, reason: string) => {
    h.scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'e', processors, reason }, h.now);
    h.scheduler.advance(h.now);
  };
  return { h, told, job: h.scheduler.job('e')!, growFailed };
}

describe("a profiled job's step grow that fails", () => {
  // Its holders sit queued: at 100 + 300 (the default timeout) the grow is withdrawn; the manager answers growFailed
  // for both; the job is back in step 1 (delayed, 1 processor) and asks again at 400 + 60. That grow comes: step 2
  // runs from 460 (step 1 expanded by 360 s), and step 3 follows 50 s later.
  it('withdraws a grow still not running after the timeout, and asks again a minute later', () => {
    const { h, told, job, growFailed } = profiled();
    h.at(399).scheduler.advance(399);
    expect(h.manager('a').grownCancelled).toEqual([]);
    h.at(400).scheduler.advance(400);
    expect(h.manager('a').grownCancelled).toEqual(['e']);
    growFailed(2, 'withdrawn by Concertina before their local jobs ran');
    expect([job.state, job.size, job.pendingGrow]).toEqual(['running', 1, 0]);
    expect(
      h.ofType('fpe.growFailed').map(({ t, step, missing, attempt, attempts, retryAt, reason }) => ({
        t,
        step,
        missing,
        attempt,
        attempts,
        retryAt,
        reason,
      })),
    ).toEqual([
      {
        t: 400,
        step: 2,
        missing: 2,
        attempt: 1,
        attempts: 3,
        retryAt: 460,
        reason: 'not all running 300 s after they were asked for',
      },
    ]);
    expect(h.scheduler.fpeSchedule('e')).toMatchObject({ step: 0, stepStart: 0 });
    // Nothing asked again before its time, even at a pass.
    h.at(459).pass();
    expect(h.manager('a').grows).toHaveLength(1);
    h.at(460).scheduler.advance(460);
    expect(h.manager('a').grows).toEqual([
      { jobId: 'e', processors: 2 },
      { jobId: 'e', processors: 2 },
    ]);
    h.growAll();
    expect(told).toEqual([3]);
    h.at(510).scheduler.advance(510);
    expect(h.manager('a').shrinks).toEqual([{ jobId: 'e', processors: 2 }]);
    expect(told).toEqual([3, 1]);
    expect(h.ofType('fpe.step').map((x) => [x.t, x.step, x.processors, x.expandedS])).toEqual([
      [0, 1, 1, 0],
      [100, 2, 3, 0],
      [460, 2, 3, 360],
      [510, 3, 1, 0],
    ]);
    expect(h.apps.refusals).toEqual([]);
  });

  // Its holders fail at the batch system each time: at 120, at 190 and at 260. The third failure ends the job,
  // failed, with the reason; the application hears it first as a refused update, and its local jobs are cancelled.
  it('ends the job, failed, with the reason after its third failed grow', () => {
    const { h, job, growFailed } = profiled();
    const reason = 'member 1 (4711) failed: local state failed (exit status 3)';
    h.at(120);
    growFailed(2, reason);
    h.at(180).scheduler.advance(180);
    expect(h.manager('a').grows).toHaveLength(2);
    h.at(190);
    growFailed(2, reason);
    h.at(250).scheduler.advance(250);
    expect(h.manager('a').grows).toHaveLength(3);
    h.at(260);
    growFailed(2, reason);
    expect(h.ofType('fpe.growFailed').map((e) => [e.t, e.attempt, e.retryAt])).toEqual([
      [120, 1, 180],
      [190, 2, 250],
      [260, 3, undefined],
    ]);
    const why = `step 2 grow failed: ${reason} (3 attempts)`;
    expect(job.state).toBe('failed');
    expect(h.ofType('job.ended')).toMatchObject([{ t: 260, jobId: 'e', state: 'failed', reason: why }]);
    expect(h.apps.refusals).toEqual([{ jobId: 'e', reason: why }]);
    expect(h.manager('a').cancelled).toEqual(['e']);
    expect(h.scheduler.clusters[0]!.availableFor()).toBe(10);
  });

  // Of a grow of 2, one holder fails and the other runs: 2 processors held, the step needs 3. The step did not begin:
  // the job waits in step 1 with both, and asks for the missing one only. The first grow's timeout (100 + 120) then
  // finds nothing to withdraw: the grow it watched is over.
  it('keeps the processors that came and asks again only for the missing ones', () => {
    const { h, told, job, growFailed } = profiled({ fpeGrowTimeoutS: 120 });
    h.at(110);
    growFailed(1, 'member 2 (4712) failed: local state failed (exit status 1)');
    expect(h.ofType('fpe.growFailed')).toEqual([]);
    h.scheduler.receive({ type: 'grown', cluster: 'a', jobId: 'e', processors: 1 }, h.now);
    h.scheduler.advance(h.now);
    expect([job.size, job.pendingGrow]).toEqual([2, 0]);
    expect(told).toEqual([]);
    expect(h.ofType('fpe.growFailed')).toMatchObject([{ t: 110, step: 2, missing: 1, attempt: 1, retryAt: 170 }]);
    h.at(170).scheduler.advance(170);
    expect(h.manager('a').grows.at(-1)).toEqual({ jobId: 'e', processors: 1 });
    h.growAll();
    expect(told).toEqual([3]);
    expect(h.ofType('fpe.step').at(-1)).toMatchObject({ t: 170, step: 2, processors: 3, expandedS: 70 });
    h.at(220).scheduler.advance(220);
    expect(h.manager('a').grownCancelled).toEqual([]);
  });

  // Adopted after a restart in step 2 (since -20, 2 for 100 s then 6 for 100 s) with 4 of its 6 still waiting to start
  // on the cluster: the grow the earlier run asked for is watched too. Withdrawn at 300, the job is back in step 1
  // (begun at -120) and asks for the 4 again at 360.
  it('watches the grow of a job adopted while its step grow was under way', () => {
    const h = harness(grid({ a: 16 }));
    const spec = {
      id: 'e',
      kind: 'evolving' as const,
      profile: {
        steps: [
          { duration_s: 100, processors: 2 },
          { duration_s: 100, processors: 6 },
        ],
      },
      components: [{ program: 'fpe-app' }],
    };
    const adopted = { cluster: 'a', processors: 2, growing: 4, submitTime: -130, startTime: -120 };
    expect(h.scheduler.adopt(spec, { ...adopted, step: { index: 1, start: -20 } }, 0).ok).toBe(true);
    h.at(300).scheduler.advance(300);
    expect(h.manager('a').grownCancelled).toEqual(['e']);
    h.scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'e', processors: 4, reason: 'withdrawn' }, 300);
    h.scheduler.advance(300);
    expect(h.scheduler.fpeSchedule('e')).toMatchObject({ step: 0, stepStart: -120 });
    expect(h.ofType('fpe.growFailed')).toMatchObject([{ t: 300, step: 2, missing: 4, retryAt: 360 }]);
    h.at(360).scheduler.advance(360);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
  });

  // Settings changes them on the running scheduler (at 50, before the grow of 100): withdrawn at 100 + 120, and with
  // one attempt allowed the job ends at that first failure.
  it('takes a timeout and a number of attempts changed while it runs', () => {
    const { h, job, growFailed } = profiled({}, (h) => {
      h.at(50);
      expect(h.scheduler.setFpeGrowTimeoutS(120)).toEqual({ ok: true, value: undefined });
      expect(h.scheduler.setFpeGrowAttempts(1)).toEqual({ ok: true, value: undefined });
    });
    expect([h.scheduler.fpeGrowTimeoutS, h.scheduler.fpeGrowAttempts]).toEqual([120, 1]);
    h.at(219).scheduler.advance(219);
    expect(h.manager('a').grownCancelled).toEqual([]);
    h.at(220).scheduler.advance(220);
    expect(h.manager('a').grownCancelled).toEqual(['e']);
    growFailed(2, 'withdrawn by Concertina before their local jobs ran');
    expect(h.ofType('fpe.growFailed')).toMatchObject([{ t: 220, attempt: 1, attempts: 1 }]);
    expect(h.ofType('fpe.growFailed')[0]).not.toHaveProperty('retryAt');
    expect(job.state).toBe('failed');
  });

  it('refuses a changed timeout or number of attempts that cannot be, naming the option, and keeps its own', () => {
    const h = harness(grid({ a: 10 }));
    expect(h.scheduler.setFpeGrowTimeoutS(-5)).toEqual({
      ok: false,
      errors: [{ path: 'fpeGrowTimeoutS', message: 'must be a number of seconds > 0 (got -5)' }],
    });
    expect(h.scheduler.setFpeGrowAttempts(0)).toEqual({
      ok: false,
      errors: [{ path: 'fpeGrowAttempts', message: 'must be a whole number >= 1 (got 0)' }],
    });
    expect([h.scheduler.fpeGrowTimeoutS, h.scheduler.fpeGrowAttempts]).toEqual([300, 3]);
  });

  it('refuses a grow timeout or a number of attempts that cannot be, naming the option', () => {
    const g = grid({ a: 10 });
    const make = (options: object) => () => new Scheduler(g, [new FakeManager('a')], new FakeApplications(), options);
    expect(make({ fpeGrowTimeoutS: 0 })).toThrow(/^fpeGrowTimeoutS: must be a number of seconds > 0 \(got 0\)/);
    expect(make({ fpeGrowAttempts: 1.5 })).toThrow(/^fpeGrowAttempts: must be a whole number >= 1 \(got 1\.5\)/);
  });
});
