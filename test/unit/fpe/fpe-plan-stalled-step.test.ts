// A profiled job's step the plan has no room for at its scheduled time (core/plan/plan-snapshot.ts): under koala,
// which plans nothing ahead, rigid jobs start into the processors of a running profiled job's next step; the step
// then waits for them (fpe-jobs.ts), and the plan snapshot draws it when it can start, never over them.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob, stepsLasting } from '../../support/workload-specs.js';

describe('a stalled profiled step in the plan snapshot', () => {
  it('under koala, is drawn once the jobs started into its processors end (the plan-layout property)', () => {
    // 10 processors: p runs 1, 6, 1 processors for 10 s each from 0; r3 (3) and r2 (2), submitted at 1, take what p's
    // second step needs at 10 until 11: 1 + 3 + 2 = 6 held, so 6 more would leave -1 free at 10.
    const { world, of } = simWorld(
      gridOf([10]),
      [profiledJob('p', 0, stepsLasting(10, [1, 6, 1])), rigidJob('r3', 1, 3, 10), rigidJob('r2', 1, 2, 10)],
      { seed: 0, scheduler: { policy: 'fpsma', queue: 'koala' } },
    );
    world.runUntil(5);
    const plan = world.scheduler.planSnapshot(5).clusters[0]!;
    for (const s of plan.free) expect(s.v, `free at ${s.t}`).toBeGreaterThanOrEqual(0);
    // Its first step holds its processor until 11, its second runs 11 to 21, its third 21 to 31.
    expect(plan.running.find((r) => r.id === 'p')).toMatchObject({
      end: 31,
      steps: [
        { t: 0, v: 1 },
        { t: 11, v: 6 },
        { t: 21, v: 1 },
        { t: 31, v: 0 },
      ],
    });
    world.run();
    expect(of('fpe.step', 'p').map((e) => e.t)).toEqual([0, 11, 21]);
  });
});
