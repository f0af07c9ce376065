// Under dbes, a job expanded and shrunk back in one instant ends, in DBES's plan, where the plan snapshot draws its
// holding: a StartLater job reserved at its end never starts a rounding error before it (plan-layout property,
// seed -1527891733).
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, malleableJob, rigidJob } from '../../support/workload-specs.js';

// The property's jobs under dbes (workload-specs.ts): a malleable job's walltime is its run time at its minimum.
const malleable = (id: string, submitTime: number, size: number, runtime: number) =>
  malleableJob(id, submitTime, { min: size, max: size + 1, runtime, walltime: runtime });
const rigid = (id: string, submitTime: number, size: number) => rigidJob(id, submitTime, size, 10);

describe('dbes reservations in the plan snapshot', () => {
  it('never plan more than the capacity after a resize and its undoing in one instant', () => {
    const { world } = simWorld(
      gridOf([13]),
      [malleable('j0', 0, 3, 145), malleable('j1', 1, 9, 113), rigid('j2', 1, 2), rigid('j3', 108, 3)],
      { seed: 0, scheduler: { policy: 'dbes', queue: 'koala', reservationDepth: 3 } },
    );
    let reserved = false;
    world.run(() => {
      const now = world.engine.now;
      if (world.engine.nextTime() === now) return;
      for (const c of world.scheduler.planSnapshot(now).clusters) {
        for (const s of c.free) expect(s.v, `free at ${s.t} (now ${now})`).toBeGreaterThanOrEqual(0);
        // j3 waits for j1's end, where the snapshot holds j1 to.
        const j3 = c.reservations.find((r) => r.id === 'j3');
        const j1 = c.running.find((r) => r.id === 'j1');
        if (j3 && j1 && j1.processors === 9) {
          reserved = true;
          expect(j3.start).toBe(j1.end);
        }
      }
    });
    expect(reserved).toBe(true);
  });
});
