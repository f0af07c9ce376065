// Under dbes, a promise made at a running job's estimated end, read after that end while the job still runs, is
// drawn from the snapshot's time, never from the promise: the plan-layout property's counterexample with a profiled
// job (its axis at 19 on 16 processors at 34.41), replayed.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, malleableJob, profiledJob, rigidJob, stepsLasting } from '../../support/workload-specs.js';

describe('dbes promises in the plan snapshot', () => {
  it('a reservation read after its promised start, the job it waits for running late, starts at the snapshot', () => {
    // 16 processors. m (7..15, walltime 70 at 7) grows; p (4 then 6, 10 s each) arrives at 1; r5 (5) arrives at 25
    // and is promised m's estimated end once m has shrunk for p, r1 (1) starts. m's application runs past that
    // estimate: read after it, r5 was drawn from its promise, over m's box, past the cluster. (The property found it
    // with m 7..13 for 59 s and r5 at 26; since a profiled job starts in the instant it is fitted, these reach it.)
    const { world } = simWorld(
      gridOf([16]),
      [
        malleableJob('m', 0, { min: 7, max: 15, runtime: 70, walltime: 70 }),
        profiledJob('p', 1, stepsLasting(10, [4, 6])),
        rigidJob('r5', 25, 5, 10),
        rigidJob('r1', 26, 1, 10),
      ],
      { seed: 0, scheduler: { policy: 'dbes', queue: 'koala', reservationDepth: 3 } },
    );
    let late = false;
    world.run(() => {
      const now = world.engine.now;
      const next = world.engine.nextTime();
      // Not an over-allocation: the simulated cluster runs at most its 16 processors.
      expect(world.clusters[0]!.concertina, `run at ${now}`).toBeLessThanOrEqual(16);
      if (next === now) return;
      for (const at of Number.isFinite(next) ? [now, (now + next) / 2] : [now]) {
        const plan = world.scheduler.planSnapshot(at).clusters[0]!;
        const m = plan.running.find((r) => r.id === 'm');
        for (const r of plan.reservations) {
          expect(r.start, `${r.id} at ${at}`).toBeGreaterThanOrEqual(at);
          if (r.id === 'r5' && m !== undefined && world.scheduler.plannedStart('r5')!.start < at) late = true;
        }
        // A reservation begun by `at` is drawn beside the running boxes that go on past `at`, within the cluster.
        const begun = plan.reservations.filter((r) => r.start <= at);
        if (begun.length === 0) continue;
        let drawn = 0;
        for (const r of plan.running) if (r.end === null || r.end > at) drawn += r.processors;
        for (const r of begun) drawn += r.processors;
        expect(drawn, `drawn at ${at}`).toBeLessThanOrEqual(plan.processors);
      }
    });
    expect(late, 'r5 read after its promised start while m still ran').toBe(true);
  });
});
