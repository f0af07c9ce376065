// A waiting profiled job's start due at the instant an earlier profiled job's step shrinks (core/scheduler/fpe-jobs.ts):
// it starts then, with the processors the step frees, not at the next pass.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, stepsLasting } from '../../support/workload-specs.js';

describe("a profiled job's start due at another's step change", () => {
  it('starts when its fit says, the step that frees its processors ending in the same instant (noX, koala)', () => {
    // 12 processors. a runs 1, 7 then 1 processors (10 s each) from 0; b (6 for 10 s, at 1) fits only once a's
    // 7-processor step ends at 20: 12 - 7 = 5 < 6 before, 12 - 1 = 11 from then.
    const { world, of } = simWorld(
      gridOf([12]),
      [profiledJob('a', 0, stepsLasting(10, [1, 7, 1])), profiledJob('b', 1, stepsLasting(10, [6]))],
      { pollIntervalS: 60, scheduler: { fpeVariant: 'noX', policy: 'fpsma', queue: 'koala' } },
    );
    world.run();
    // b's start timer may fire before a's step timer at 20 (5 free): b is fitted again to 20 in that instant's pass.
    expect(new Set(of('fpe.scheduled', 'b').map((e) => e.start))).toEqual(new Set([20]));
    expect(of('fpe.step', 'a').map((e) => e.t)).toEqual([0, 10, 20]);
    expect(of('job.started', 'b').map((e) => e.t)).toEqual([20]);
    expect(of('job.ended', 'b').map((e) => e.t)).toEqual([30]);
  });
});
