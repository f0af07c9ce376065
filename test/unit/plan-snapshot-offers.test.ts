// Pending grow offers in the plan snapshot: the processors an offer sets aside are in the cluster's capacity and held
// from now until the end the queue policies' plans hold them to (the latest estimated end of its malleable jobs), as
// the job offered them; never drawn as free. By hand, and through a scheduler whose application has not answered yet.
import { describe, expect, it } from 'vitest';
import { planSnapshot, type PlanJob } from '../../core/plan/plan-snapshot.js';
import { grid, harness, malleable, rigid } from '../support/harness.js';

/** m: a malleable job holding 4 of 10 processors since 0, estimated to end at 100 (its walltime). */
const m: PlanJob = {
  id: 'm',
  kind: 'malleable',
  spec: { walltime: 100 },
  components: [{ cluster: 'a', processors: 4 }],
  startTime: 0,
  held: 4,
  size: 4,
  evolving: false,
  malleable: true,
  preallocation: 0,
  need: 2,
  backfilled: false,
  plannedStart: undefined,
  sizeHistory: [{ t: 0, v: 4 }],
};

/** w: waiting for 8, promised a start at `start` (a planning queue policy's reservation). */
const w = (start: number): PlanJob => ({
  ...m,
  id: 'w',
  kind: 'rigid',
  spec: { walltime: 50 },
  components: [],
  startTime: Number.NaN,
  held: 0,
  size: 0,
  malleable: false,
  need: 8,
  sizeHistory: [],
  plannedStart: { cluster: 0, start },
});

describe('plan snapshot with a pending grow offer', () => {
  // 3 offered to m: available now is 10 - 4 (m) - 3 (offered) = 3.
  const snapshot = (waiting: PlanJob[] = []) =>
    planSnapshot({
      now: 10,
      queuePolicy: 'cbf',
      clusters: [{ name: 'a', processors: 10, availableNow: 3, offersHeld: { n: 3, end: 100, jobId: 'm' } }],
      clusterIndex: (n) => (n === 'a' ? 0 : undefined),
      placed: [m],
      waiting,
    }).clusters[0]!;

  it('counts the offered processors in the capacity and holds them, as the job offered them, until its end', () => {
    const c = snapshot();
    // Capacity: 3 available + 4 held + 3 offered = 10 (without the offer, 7: three processors vanish from the plan).
    expect(c.capacity).toEqual([{ t: 10, v: 10 }]);
    // Free: 10 - 4 - 3 = 3 until m's estimated end, then all 10.
    expect(c.free).toEqual([
      { t: 10, v: 3 },
      { t: 100, v: 10 },
    ]);
    expect(c.offers).toEqual({ processors: 3, start: 10, end: 100, jobId: 'm' });
  });

  it('a reservation made after the offer starts once the offered processors come back, at m’s end', () => {
    // w (8) promised at 60: over [60, 100) only 3 are free, so the snapshot draws it from 100, where all 10 are
    // (without the offer in the capacity, 7 at most: never room, drawn overbooked at 60).
    const c = snapshot([w(60)]);
    expect(c.reservations.map((r) => [r.id, r.start, r.end])).toEqual([['w', 100, 150]]);
  });

  it('lists no offers where none is pending', () => {
    const c = planSnapshot({
      now: 10,
      queuePolicy: 'cbf',
      clusters: [{ name: 'a', processors: 10, availableNow: 6 }],
      clusterIndex: () => 0,
      placed: [m],
      waiting: [],
    }).clusters[0]!;
    expect(c.offers).toBeUndefined();
    expect(c.capacity).toEqual([{ t: 10, v: 10 }]);
  });
});

describe('plan snapshot of a scheduler with a grow offer unanswered', () => {
  it('holds the 4 processors offered to g from now until g’s estimated end, then frees them', () => {
    // g (2..6, walltime 1000) runs at 2 on 8 processors beside r (2, walltime 100); local users free the cluster at 1
    // and g is offered the 4 left; its application has not answered.
    const h = harness(grid({ a: 8 }), { policy: 'fpsma', queue: 'cbf' });
    h.submit(malleable('g', 2, 6, { walltime: 1000 }));
    h.submit(rigid('r', 2, { walltime: 100 }));
    h.pass();
    h.startAll();
    h.at(1).freed('a', 0);
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'g', processors: 4 }]);
    const [c] = h.scheduler.planSnapshot(1).clusters;
    expect(c!.capacity).toEqual([{ t: 1, v: 8 }]);
    expect(c!.offers).toEqual({ processors: 4, start: 1, end: 1000, jobId: 'g' });
    // 8 - g's 2 - r's 2 - 4 offered: none free until r's end at 100, then r's 2 until g's at 1000.
    expect(c!.free).toEqual([
      { t: 1, v: 0 },
      { t: 100, v: 2 },
      { t: 1000, v: 8 },
    ]);
    // Answered (all 4 taken): the offer is g's holding now, and none is listed.
    h.answerGrow(h.apps.growOffers[0]!, 4);
    expect(h.scheduler.planSnapshot(1).clusters[0]!.offers).toBeUndefined();
  });
});
