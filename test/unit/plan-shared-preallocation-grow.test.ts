// Malleable extras filling an evolving job's unused pre-allocation move to free processors when the evolving job grows
// into it: cbf never reserves a waiting job onto processors they may move to, so the plan's free processors never go
// below zero (the plan layout property's cbf counterexample, free -1 at 123, replayed).
import { expect, it } from 'vitest';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { simWorld } from '../support/sim-world.js';
import { evolvingJob, gridOf, malleableJob, rigidJob } from '../support/workload-specs.js';

it('cbf: a reservation never counts on pre-allocated processors that malleable extras fill', () => {
  // The property's jobs (workload-specs.ts), with its gaps between submissions.
  const jobs: JobSpecInput[] = [
    rigidJob('j0', 0, 1, 123),
    // Pre-allocates 2, starts with 1, grows to 2 at 122.
    evolvingJob('j1', 0, { initial: 1, max: 2, runtime: 366 }),
    // Grows to 9 at 120, one of its extras in j1's unused pre-allocated processor; estimated to end at 157.33.
    malleableJob('j2', 108, { min: 7, max: 9, runtime: 15, walltime: 60 }),
    rigidJob('j3', 121, 5, 10),
    rigidJob('j4', 121, 1, 10),
  ];
  const { world } = simWorld(gridOf([15]), jobs, { seed: 0, scheduler: { policy: 'fpsma', queue: 'cbf' } });
  let shared = false;
  world.run(() => {
    const now = world.engine.now;
    const next = world.engine.nextTime();
    if (next === now) return;
    const state = world.scheduler.clusters[0]!;
    if (Math.min(state.preallocatedUnused, state.preemptible) > 0) shared = true;
    for (const at of Number.isFinite(next) ? [now, (now + next) / 2] : [now]) {
      const [c0] = world.scheduler.planSnapshot(at).clusters;
      for (const s of c0!.free) expect(s.v, `at ${at}: free at ${s.t}`).toBeGreaterThanOrEqual(0);
      // 15 - j1's 2 - j2's 9 leaves j3 (5) only 4 until j2's end once j1 has grown.
      const j3 = c0!.reservations.find((r) => r.id === 'j3');
      if (j3 !== undefined && at < 122.3) expect(j3.start, `at ${at}: j3's reservation`).toBeGreaterThanOrEqual(157.33);
    }
  });
  expect(shared, 'the extra filled the pre-allocation').toBe(true);
});
