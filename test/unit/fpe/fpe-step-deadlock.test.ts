// Two running profiled jobs on one cluster, each waiting for processors the other holds (fpe-jobs.ts): an earlier job
// whose steps slipped (a koala queue job took its grow) and a later one whose step, planned after the earlier job's
// end, grew at its time into what the earlier job's next step needs. Neither ever ended; the later one now waits.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../../support/workload-specs.js';

describe('profiled steps that would wait on each other', () => {
  it('the later job waits for the earlier one, and both end', () => {
    // 10 processors. a: 2, 4, 2, 3 processors for 10, 10, 15, 5 s from 0 (planned end 40). b at 1: 1 for 39 s, then 8
    // and 9 for 10 s each, fitted to grow at 40. r (6, at 2 until 16) leaves a's second step 1 free at 10: it waits to
    // 16, so a runs 2 over [26, 41) and 3 over [41, 46). At 40 b's 7 more are free (10 - 2 - 1), but taking them
    // leaves a's step at 41 short of 1 (8 + 3 > 10) and b's step at 50 short of 1 (9 + 2 > 10).
    const { world, of } = simWorld(
      gridOf([10]),
      [
        profiledJob('a', 0, [
          { duration_s: 10, processors: 2 },
          { duration_s: 10, processors: 4 },
          { duration_s: 15, processors: 2 },
          { duration_s: 5, processors: 3 },
        ]),
        profiledJob('b', 1, [
          { duration_s: 39, processors: 1 },
          { duration_s: 10, processors: 8 },
          { duration_s: 10, processors: 9 },
        ]),
        rigidJob('r', 2, 6, 14),
      ],
      { seed: 0, pollIntervalS: 60, scheduler: { fpeVariant: 'infX', policy: 'fpsma', queue: 'koala' } },
    );
    // Bounded: on the old code the run never finishes (virtual time goes on, polls only).
    world.runUntil(10_000);
    expect(of('fpe.step', 'a').map((e) => e.t)).toEqual([0, 16, 26, 41]);
    expect(of('fpe.step', 'b').map((e) => [e.t, e.processors])).toEqual([
      [1, 1],
      [46, 8],
      [56, 9],
    ]);
    expect(of('job.ended').map((e) => [e.jobId, e.state, e.t])).toEqual([
      ['r', 'completed', 16],
      ['a', 'completed', 46],
      ['b', 'completed', 66],
    ]);
    expect(world.finished).toBe(true);
  });
});
