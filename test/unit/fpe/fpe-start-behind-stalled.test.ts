// A later profiled job's start yields to an earlier running profiled job stalled at a step boundary (fpe-jobs.ts
// startDue, stalledBefore), as a later job's step does at its boundary: arrival order decides between profiled jobs.
// On the old code the later job started into the processors the earlier one's step waited for: the earlier one ran
// late, or the two ended in a mutual wait that was broken by ending the later one, its work lost.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../../support/workload-specs.js';
import type { FpeVariantName } from '../../../core/fpe/registry.js';
import type { JobSpecInput } from '../../../core/model/schemas.js';

function run(processors: number, variant: FpeVariantName, specs: JobSpecInput[]) {
  const { world, of } = simWorld(gridOf([processors]), specs, {
    seed: 0,
    pollIntervalS: 60,
    scheduler: { fpeVariant: variant, policy: 'fpsma', queue: 'koala' },
  });
  // Bounded: virtual time goes on with polls after the last job.
  world.runUntil(10_000);
  expect(world.finished).toBe(true);
  return of;
}

describe('a later profiled job starting beside an earlier stalled one', () => {
  it('waits while the earlier stalled step needs the processors it would start with', () => {
    // 10 processors. a: 1 for 20 s, then 8 for 10 s. r (koala, 4 at 5 until 35) takes what a's second step needs:
    // at 20 a stalls holding 1 (7 more, 5 free). p at 21 (3 for 30 s) is fitted at 31, after a's step as the plan
    // holds it (from its fit's instant). At 31 a still waits for 7 of the 5 free. Old code: p started with 3 of them,
    // so at 35 (r's end) a found 10 - 1 - 3 = 6 free and waited for p's end, 61. Now p's start waits: a takes its
    // step at 35 (9 free), ends at 45, and p starts then.
    const of = run(10, 'infX', [
      profiledJob('a', 0, [
        { duration_s: 20, processors: 1 },
        { duration_s: 10, processors: 8 },
      ]),
      rigidJob('r', 5, 4, 30),
      profiledJob('p', 21, [{ duration_s: 30, processors: 3 }]),
    ]);
    expect(of('fpe.mutualWait')).toEqual([]);
    expect(of('fpe.step', 'a').map((e) => [e.t, e.processors])).toEqual([
      [0, 1],
      [35, 8],
    ]);
    expect(of('job.ended').map((e) => [e.jobId, e.state, e.t])).toEqual([
      ['r', 'completed', 35],
      ['a', 'completed', 45],
      ['p', 'completed', 75],
    ]);
  });

  it('so no mutual wait forms and no job is ended for it (fpe-mutual-wait property, shrunk by hand)', () => {
    // 4 processors. a at 8: 1 for 40 s, then 3 for 19 s. r1 (2, 12 to 30); b at 27 (3, 4, 1, 2 processors) is fitted
    // at 67, after a's planned end; r2 (koala, 2 at 36 until 97) takes what a's second step needs: a stalls at 48
    // (2 more, 1 free), b is fitted again at 97. At 97 r2 ends. Old code: b's start came first and took 3 of the 3
    // free, a's step waited on b's and b's second step (4) on a's processor: the wait was broken at 131 by ending b,
    // 34 s of its work lost. Now b's start waits for a's step (97 to 116), and both complete.
    const of = run(4, '2X+c', [
      profiledJob('a', 8, [
        { duration_s: 40, processors: 1 },
        { duration_s: 19, processors: 3 },
      ]),
      rigidJob('r1', 12, 2, 18),
      profiledJob('b', 27, [
        { duration_s: 34, processors: 3 },
        { duration_s: 19, processors: 4 },
        { duration_s: 26, processors: 1 },
        { duration_s: 35, processors: 2 },
      ]),
      rigidJob('r2', 36, 2, 61),
    ]);
    expect(of('fpe.mutualWait')).toEqual([]);
    expect(of('fpe.step', 'a').map((e) => [e.t, e.processors])).toEqual([
      [8, 1],
      [97, 3],
    ]);
    expect(of('fpe.step', 'b').map((e) => [e.t, e.processors])).toEqual([
      [116, 3],
      [150, 4],
      [169, 1],
      [195, 2],
    ]);
    expect(of('job.ended').map((e) => [e.jobId, e.state])).toEqual([
      ['r1', 'completed'],
      ['r2', 'completed'],
      ['a', 'completed'],
      ['b', 'completed'],
    ]);
  });
});
