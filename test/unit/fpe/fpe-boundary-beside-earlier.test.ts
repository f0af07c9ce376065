// A later profiled job's step at a boundary waits while one of its coming steps cannot fit beside what an earlier
// running profiled job holds then (fpe-jobs.ts takesFromEarlier): arrival order decides, as for the earlier job's
// grows. On the old code the later job took its step, stalled at its next one holding more, and the earlier job's
// grow could not fit beside it: the mutual wait was broken by ending the later job, its work lost.
// Where waiting would hold up the earlier job as much (its later grow cannot fit beside what the later one holds), the
// later job goes on when what is free runs it to its end. (fpe-online property at 1500 draws, seed 128356155, shrunk.)
import { describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../../core/model/schemas.js';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../../support/workload-specs.js';

/** A profiled job submitted at 0: its steps' durations and processors, pair by pair. */
const profiled = (id: string, durations: number[], processors: number[]) =>
  profiledJob(
    id,
    0,
    durations.map((d, k) => ({ duration_s: d, processors: processors[k]! })),
  );

/** `jobs` on 12 processors under infX (koala queue, fpsma) run to their end, none of them in a mutual wait. */
function runOn12(jobs: JobSpecInput[]) {
  const { world, of } = simWorld(gridOf([12]), jobs, {
    seed: 0,
    pollIntervalS: 60,
    adaptS: 0,
    scheduler: { fpeVariant: 'infX', policy: 'fpsma', queue: 'koala' },
  });
  // Bounded: virtual time goes on with polls after the last job.
  world.runUntil(10_000);
  expect(world.finished).toBe(true);
  expect(of('fpe.mutualWait')).toEqual([]);
  return {
    steps: (jobId: string) => of('fpe.step', jobId).map((e) => [e.t, e.processors]),
    ended: () => of('job.ended').map((e) => [e.jobId, e.state, e.t]),
  };
}

describe('a later profiled job at a step boundary beside an earlier delayed one', () => {
  it('waits while its coming steps cannot fit beside the earlier one, and both complete', () => {
    // 12 processors, infX. j0 (1, 4, 11, 1) and j1 (1, 2, 9, 1) fitted at 0 one after the other; e, a non-profiled
    // evolving job (8 pre-allocated at 7 until 40), delays j0's second step from 10 to 40, so j0 holds 4 over
    // [40, 60) and 11 over [60, 70). At 40 j1's second step (2) fits, but its third (9 at 50) does not beside j0's 4.
    // Old code: j1 took 2, stalled at 50 holding 2, j0's 11 at 60 did not fit beside it: j1 was ended at 60. Now j1's
    // step waits (holding 1) until j0's 11 is over, at 70, and both complete.
    const { steps, ended } = runOn12([
      profiled('j0', [10, 20, 10, 10], [1, 4, 11, 1]),
      profiled('j1', [30, 10, 10, 10], [1, 2, 9, 1]),
      {
        id: 'e',
        submitTime: 7,
        kind: 'evolving',
        app: { model: 'evolving', phases: 3, phaseS: 11 },
        components: [{ min: 1, max: 8, program: 'e' }],
      },
      profiledJob('j3', 7, [{ duration_s: 10, processors: 1 }]),
    ]);
    expect(steps('j0')).toEqual([
      [0, 1],
      [40, 4],
      [60, 11],
      [70, 1],
    ]);
    expect(steps('j1')).toEqual([
      [10, 1],
      [70, 2],
      [80, 9],
      [90, 1],
    ]);
    expect(ended()).toEqual([
      ['j3', 'completed', 17],
      ['e', 'completed', 40],
      ['j0', 'completed', 80],
      ['j1', 'completed', 100],
    ]);
  });

  it('goes on when waiting would hold up the earlier one as much, and what is free runs it to its end', () => {
    // 12 processors, infX. j0 (1 for 30, 4, 11, 1) and j1 (1, 2, 9, 1 for 10 each) both start at 0. r (3, 11 to 21)
    // takes what j1's third step needs at 20: j1 stalls holding 2, which j0's 11 at 40 cannot fit beside. At 21 9 are
    // free: j1's 9 over [21, 31) does not fit beside j0's 4 from 30, but waiting, its 2 would hold up j0's 11 until
    // only ending it frees them. Old code: j1 yielded, and was ended at 40. Now j1 runs to its end from what is free,
    // j0's second step waits 1 s for it, and both complete.
    const { steps, ended } = runOn12([
      profiled('j0', [30, 10, 10, 10], [1, 4, 11, 1]),
      profiled('j1', [10, 10, 10, 10], [1, 2, 9, 1]),
      rigidJob('r', 11, 3, 10),
    ]);
    expect(steps('j1')).toEqual([
      [0, 1],
      [10, 2],
      [21, 9],
      [31, 1],
    ]);
    expect(steps('j0')).toEqual([
      [0, 1],
      [31, 4],
      [41, 11],
      [51, 1],
    ]);
    expect(ended()).toEqual([
      ['r', 'completed', 21],
      ['j1', 'completed', 41],
      ['j0', 'completed', 61],
    ]);
  });

  it("the earlier one's step waits for the later one stalled beside it, which runs to its end first", () => {
    // 12 processors, infX. j0: 1 for 164 s, then 4, 11, 1; j1: 1 for 107 s, 2 for 47 s, then 9, 1 (10 s each). r (3,
    // 153 to 164) takes what j1's third step needs at 154: j1 stalls holding 2, which j0's 11 cannot fit beside. At
    // 164 r ends as j0's second step is due. Old code: j0 took its 4, j1 could not go on, and was ended at 174. Now
    // j0's step waits for j1, which runs to its end from the 9 free (174), and j0 goes on then.
    const { steps, ended } = runOn12([
      profiled('j0', [164, 10, 10, 10], [1, 4, 11, 1]),
      profiled('j1', [107, 47, 10, 10], [1, 2, 9, 1]),
      rigidJob('r', 153, 3, 11),
    ]);
    expect(steps('j1')).toEqual([
      [0, 1],
      [107, 2],
      [164, 9],
      [174, 1],
    ]);
    expect(steps('j0')).toEqual([
      [0, 1],
      [174, 4],
      [184, 11],
      [194, 1],
    ]);
    expect(ended()).toEqual([
      ['r', 'completed', 164],
      ['j1', 'completed', 184],
      ['j0', 'completed', 204],
    ]);
  });
});
