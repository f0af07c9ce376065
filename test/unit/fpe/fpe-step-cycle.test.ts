// Two running profiled jobs on one cluster that end up each stalled, waiting for processors the other holds, with
// nothing else there (fpe-jobs.ts, fpe-mutual-wait.ts): the later job's steps ran late (a koala queue job took what
// its step needed), so the earlier one's grow, planned after the later one's end, met the later one still running.
// On older code neither ever ended; then the wait was broken in the instant it formed (ending or stepping one job); now
// the later job runs to its end first where what is free lets it (fpe-jobs.ts takesFromEarlier, yieldsToLater), and no
// wait forms.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../../support/workload-specs.js';

const options = {
  seed: 0,
  pollIntervalS: 60,
  scheduler: { fpeVariant: 'infX', policy: 'fpsma', queue: 'koala' },
} as const;

describe('profiled jobs stalled on each other', () => {
  it("the later job, whose processors the earlier one's grow cannot fit beside, runs to its end first and both end", () => {
    // 10 processors. a: 1 for 40 s, then 6 for 10 s. b at 1: 1, 5, 9 for 9, 10, 10 s (planned end 30, before a's grow).
    // r (4, at 12 until 32) takes what b's third step needs at 20: b stalls holding 5. At 32 b's 4 more are free; a
    // grows by 5 at 40, inside b's step, but yielding, b's 5 would hold up a's 6 as much: the 4 free run b to its end,
    // so it takes its step (takesFromEarlier) and no mutual wait forms; a grows at b's end, 42. (Before, b yielded at
    // 32 and the wait that formed at 40 was broken by b's step.)
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
    expect(of('fpe.mutualWait')).toEqual([]);
    expect(of('fpe.step', 'b').map((e) => [e.t, e.processors])).toEqual([
      [1, 1],
      [10, 5],
      [32, 9],
    ]);
    expect(of('fpe.step', 'a').map((e) => [e.t, e.processors])).toEqual([
      [0, 1],
      [42, 6],
    ]);
    expect(of('job.ended').map((e) => [e.jobId, e.state, e.t])).toEqual([
      ['r', 'completed', 32],
      ['b', 'completed', 42],
      ['a', 'completed', 52],
    ]);
    expect(world.finished).toBe(true);
  });

  it("the earlier job's step waits for a stalled later one it cannot grow beside, which runs to its end first", () => {
    // 10 processors. a: 1, 3, 8 for 40, 10, 10 s. b at 1: 1, 3, 8 for 9, 10, 10 s (planned end 30, before a's grows).
    // r (6, at 12 until 45) takes what b's third step needs at 20: b stalls holding 3. At 40 a stalls too (0 free). At
    // 45, 6 free: a's 8 cannot fit beside b's 3, which only b's end frees, and the 6 run b to its end: a's step waits
    // (yieldsToLater), b takes its 8 and ends at 55, a goes on then. (Before, a took its 3 at 45, b could not go on,
    // and the mutual wait at 55 was broken by ending b.)
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
    expect(of('fpe.mutualWait')).toEqual([]);
    expect(of('fpe.step', 'b').map((e) => [e.t, e.processors])).toEqual([
      [1, 1],
      [10, 3],
      [45, 8],
    ]);
    expect(of('fpe.step', 'a').map((e) => [e.t, e.processors])).toEqual([
      [0, 1],
      [55, 3],
      [65, 8],
    ]);
    expect(of('job.ended').map((e) => [e.jobId, e.state, e.t])).toEqual([
      ['r', 'completed', 45],
      ['b', 'completed', 55],
      ['a', 'completed', 75],
    ]);
    expect(world.finished).toBe(true);
  });
});
