// Two running profiled jobs on one cluster that end up each stalled, waiting for processors the other holds, with
// nothing else there (fpe-jobs.ts, fpe-mutual-wait.ts): the later job's steps ran late (a koala queue job took what
// its step needed), so the earlier one's grow, planned after the later one's end, met the later one still running.
// On the old code neither ever ended; now the wait is broken in the instant it forms.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../../support/workload-specs.js';

const options = {
  seed: 0,
  pollIntervalS: 60,
  scheduler: { fpeVariant: 'infX', policy: 'fpsma', queue: 'koala' },
} as const;

describe('profiled jobs stalled on each other', () => {
  it('the later job, yielding only to the stuck earlier one, takes its step and both end', () => {
    // 10 processors. a: 1 for 40 s, then 6 for 10 s. b at 1: 1, 5, 9 for 9, 10, 10 s (planned end 30, before a's grow).
    // r (4, at 12 until 32) takes what b's third step needs at 20: b stalls holding 5. At 32 b's 4 more are free, but
    // it yields them (a grows by 5 at 40, inside b's step). At 40 a needs 5 more of the 4 free: each waits for the other.
    // Broken at 40: b can run to its end from the 4 free (9 - 5), so it takes its step; a grows at b's end, 50.
    const { world, of } = simWorld(
      gridOf([10]),
      [
        profiledJob('a', 0, [
          { duration_s: 40, processors: 1 },
          { duration_s: 10, processors: 6 },
        ]),
        profiledJob('b', 1, [
          { duration_s: 9, processors: 1 },
          { duration_s: 10, processors: 5 },
          { duration_s: 10, processors: 9 },
        ]),
        rigidJob('r', 12, 4, 20),
      ],
      options,
    );
    // Bounded: on the old code the run never finishes (virtual time goes on, polls only).
    world.runUntil(10_000);
    expect(of('fpe.mutualWait')).toEqual([
      {
        type: 'fpe.mutualWait',
        t: 40,
        jobId: 'b',
        cluster: 'c0',
        jobs: ['a', 'b'],
        step: 3,
        free: 4,
        action: 'stepTaken',
      },
    ]);
    expect(of('fpe.step', 'b').map((e) => [e.t, e.processors])).toEqual([
      [1, 1],
      [10, 5],
      [40, 9],
    ]);
    expect(of('fpe.step', 'a').map((e) => [e.t, e.processors])).toEqual([
      [0, 1],
      [50, 6],
    ]);
    expect(of('job.ended').map((e) => [e.jobId, e.state, e.t])).toEqual([
      ['r', 'completed', 32],
      ['b', 'completed', 50],
      ['a', 'completed', 60],
    ]);
    expect(world.finished).toBe(true);
  });

  it('when neither can go on, the later job ends with the reason and the earlier one goes on at once', () => {
    // 10 processors. a: 1, 3, 8 for 40, 10, 10 s. b at 1: 1, 3, 8 for 9, 10, 10 s (planned end 30, before a's grows).
    // r (6, at 12 until 45) takes what b's third step needs at 20: b stalls holding 3. At 40 a stalls too (0 free); at
    // 45 a takes its second step (3), b does not (5 more, 4 free). At 55 a needs 5 more of the 4 free, as b does: a
    // mutual wait no step can break (each needs the other's 3). b, the later, ends; a grows into its processors.
    const { world, of } = simWorld(
      gridOf([10]),
      [
        profiledJob('a', 0, [
          { duration_s: 40, processors: 1 },
          { duration_s: 10, processors: 3 },
          { duration_s: 10, processors: 8 },
        ]),
        profiledJob('b', 1, [
          { duration_s: 9, processors: 1 },
          { duration_s: 10, processors: 3 },
          { duration_s: 10, processors: 8 },
        ]),
        rigidJob('r', 12, 6, 33),
      ],
      options,
    );
    world.runUntil(10_000);
    expect(of('fpe.mutualWait').map((e) => [e.t, e.jobId, e.jobs, e.step, e.free, e.action])).toEqual([
      [55, 'b', ['a', 'b'], 3, 4, 'ended'],
    ]);
    expect(of('fpe.step', 'a').map((e) => [e.t, e.processors])).toEqual([
      [0, 1],
      [45, 3],
      [55, 8],
    ]);
    expect(of('job.ended').map((e) => [e.jobId, e.state, e.t, e.reason])).toEqual([
      ['r', 'completed', 45, 'application finished'],
      ['b', 'failed', 55, 'evolution deadlock: step 3 waited on c0 for processors held by a, stalled as well'],
      ['a', 'completed', 65, 'application finished'],
    ]);
    expect(world.finished).toBe(true);
  });
});
