// A malleable job's extra processor filling an evolving job's unused pre-allocation is counted by both holdings but
// held once: the plans never count it as freed at the first of their ends (the plan layout property's counterexample,
// seed 241243915, replayed).
import { expect, it } from 'vitest';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { simWorld } from '../support/sim-world.js';
import { evolvingJob, gridOf, malleableJob, rigidJob } from '../support/workload-specs.js';

// The property's jobs (workload-specs.ts), each rigid one running 10 s.
const rigid = (id: string, submitTime: number, processors: number) => rigidJob(id, submitTime, processors, 10);

it('easy: a reservation never counts an extra in a pre-allocation as freed at the extra’s end', () => {
  const jobs: JobSpecInput[] = [
    rigid('j0', 0, 1),
    rigid('j1', 0, 1),
    rigid('j2', 0, 1),
    // Pre-allocates 4, shrinks to 2 at 72 and grows back to 4 at 144.
    evolvingJob('j3', 0, { initial: 3, max: 4, runtime: 216 }),
    rigid('j4', 0, 10),
    // Grows by one at 143, into j3's unused pre-allocation.
    malleableJob('j5', 133, { min: 1, max: 2, runtime: 13, walltime: 52 }),
    rigid('j6', 133, 1),
  ];
  const { world } = simWorld(gridOf([13]), jobs, { seed: 0, scheduler: { policy: 'equipartition', queue: 'easy' } });
  let shared = false;
  world.run(() => {
    const now = world.engine.now;
    if (world.engine.nextTime() === now) return;
    const state = world.scheduler.clusters[0]!;
    if (Math.min(state.preallocatedUnused, state.preemptible) > 0) shared = true;
    const [c0] = world.scheduler.planSnapshot(now).clusters;
    for (const s of c0!.free) expect(s.v, `at ${now}: free at ${s.t}`).toBeGreaterThanOrEqual(0);
    // j4 (10) fits beside j3's pre-allocation (4) only once nothing else runs: 13 - 4 < 10 until j3 ends.
    const j4 = c0!.reservations.find((r) => r.id === 'j4');
    if (j4 !== undefined) expect(j4.start, `at ${now}: j4's reservation`).toBeGreaterThanOrEqual(864);
  });
  expect(shared, 'the extra filled the pre-allocation').toBe(true);
});
