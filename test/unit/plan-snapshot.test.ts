// The plan snapshot on hand-computed plans: running jobs with their estimated ends, reservations with the running jobs
// they wait for, backfilled jobs marked, the payload bounded; and the same through a scheduler running EASY.
import { describe, expect, it } from 'vitest';
import { planSnapshot, reservedViews, type PlanCluster, type PlanJob } from '../../core/plan/plan-snapshot.js';
import { gridSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import type { SchedulerOptions } from '../../core/scheduler/scheduler.js';
import type { SimWorld } from '../../core/sim/world.js';
import { simWorld } from '../support/sim-world.js';
import { profiledJob, rigidJob } from '../support/workload-specs.js';

function running(
  id: string,
  processors: number,
  start: number,
  walltime: number | undefined,
  extra: Partial<PlanJob> = {},
): PlanJob {
  return {
    id,
    kind: 'rigid',
    spec: walltime === undefined ? {} : { walltime },
    components: [{ cluster: 'a', processors }],
    startTime: start,
    held: processors,
    size: processors,
    evolving: false,
    malleable: false,
    preallocation: 0,
    need: processors,
    backfilled: false,
    plannedStart: undefined,
    sizeHistory: [{ t: start, v: processors }],
    ...extra,
  };
}

function waiting(
  id: string,
  need: number,
  walltime: number | undefined,
  plannedStart?: { cluster: number; start: number },
): PlanJob {
  return {
    id,
    kind: 'rigid',
    spec: walltime === undefined ? {} : { walltime },
    components: [],
    startTime: Number.NaN,
    held: 0,
    size: 0,
    evolving: false,
    malleable: false,
    preallocation: 0,
    need,
    backfilled: false,
    plannedStart,
    sizeHistory: [],
  };
}

function snapshot(capacity: number, placed: PlanJob[], queue: PlanJob[], now = 10, limit?: number) {
  let held = 0;
  for (const j of placed) held += j.components[0]!.processors;
  const clusters: PlanCluster[] = [{ name: 'a', processors: capacity, availableNow: capacity - held }];
  return planSnapshot({
    now,
    queuePolicy: 'easy',
    clusters,
    clusterIndex: (n) => (n === 'a' ? 0 : undefined),
    placed,
    waiting: queue,
    ...(limit === undefined ? {} : { limit }),
  });
}

describe('plan snapshot', () => {
  // 10 processors; r1 holds 4 until 100 (started at 0, walltime 100), r2 holds 4 until 200. Free now: 2.
  const r1 = running('r1', 4, 0, 100);
  const r2 = running('r2', 4, 20, 180);

  it('EASY head reserved behind two running jobs waits for exactly the one whose end frees enough', () => {
    // h needs 6 for 50 s: at 100 r1 frees 4 (2 + 4 = 6): start 100, waiting for r1 only, not r2 (ends at 200).
    const plan = snapshot(10, [r1, r2], [waiting('h', 6, 50, { cluster: 0, start: 100 })]);
    const c = plan.clusters[0]!;
    expect(c.running.map((r) => [r.id, r.processors, r.start, r.end])).toEqual([
      ['r1', 4, 0, 100],
      ['r2', 4, 20, 200],
    ]);
    expect(c.reservations).toEqual([{ id: 'h', processors: 6, start: 100, end: 150, waitsFor: ['r1'] }]);
    expect(c.capacity).toEqual([{ t: 10, v: 10 }]);
    // Free: 2 until 100, 0 while h holds 6 of the 6 then free, 4 from 150 (r2 still holds 4), 10 from 200.
    expect(c.free).toEqual([
      { t: 10, v: 2 },
      { t: 100, v: 0 },
      { t: 150, v: 6 },
      { t: 200, v: 10 },
    ]);
    expect(c.runningTotal).toBe(2);
    expect(c.reservationsTotal).toBe(1);
  });

  it('a reservation that needs both ends names both; one that needs only the first names only it', () => {
    const all = snapshot(10, [r1, r2], [waiting('h', 10, 50, { cluster: 0, start: 200 })]).clusters[0]!;
    expect(all.reservations[0]!.waitsFor).toEqual(['r1', 'r2']);
    // h of 7 at 200: r1's 4 would leave 6 < 7 at 100, so it needs r2's end at 200; with both ended there are 10 free,
    // 3 of slack: r1 (4) is not excused (4 > 3), so both are named.
    expect(
      snapshot(10, [r1, r2], [waiting('h', 7, 50, { cluster: 0, start: 200 })]).clusters[0]!.reservations[0]!.waitsFor,
    ).toEqual(['r1', 'r2']);
    // h of 4 at 100 with 2 of slack after r1 (2 free + 4 - 4): r1 is named (its 4 > 2 of slack).
    expect(
      snapshot(10, [r1, r2], [waiting('h', 4, 50, { cluster: 0, start: 100 })]).clusters[0]!.reservations[0]!.waitsFor,
    ).toEqual(['r1']);
  });

  it('a later reservation is planned with the earlier ones in the plan, in queue order', () => {
    // h (6, 100..150) then k (6, 150..200)? At 150 free is 6 (h ended, r2 holds 4): k waits for r1 (h is no running job).
    const c = snapshot(
      10,
      [r1, r2],
      [
        waiting('h', 6, 50, { cluster: 0, start: 100 }),
        waiting('w', 1, 5),
        waiting('k', 6, 50, { cluster: 0, start: 150 }),
      ],
    ).clusters[0]!;
    expect(c.reservations.map((r) => [r.id, r.start, r.waitsFor])).toEqual([
      ['h', 100, ['r1']],
      ['k', 150, ['r1']],
    ]);
    // w has no reservation (EASY reserves only the head; a job without plannedStart is not in the plan).
    expect(c.reservationsTotal).toBe(2);
  });

  it('a running job without a walltime is open-ended; a malleable job holds its current size; backfilled jobs are marked', () => {
    const open = running('o', 2, 0, undefined);
    const m = running('m', 3, 5, 60, {
      kind: 'malleable',
      malleable: true,
      held: 3,
      size: 3,
      sizeHistory: [
        { t: 5, v: 1 },
        { t: 8, v: 3 },
      ],
    });
    const b = running('b', 1, 9, 20, { backfilled: true });
    const c = snapshot(10, [open, m, b], []).clusters[0]!;
    expect(c.running).toEqual([
      {
        id: 'o',
        kind: 'rigid',
        processors: 2,
        size: 2,
        start: 0,
        end: null,
        backfilled: false,
        sizes: [{ t: 0, v: 2 }],
      },
      // Its walltime 60 s at size 1: at 10, 3/60 + 2/20 of its work done, the rest 0.85 of 20 s at size 3 (holding.ts).
      {
        id: 'm',
        kind: 'malleable',
        processors: 3,
        size: 3,
        start: 5,
        end: 27,
        backfilled: false,
        sizes: [
          { t: 5, v: 1 },
          { t: 8, v: 3 },
        ],
      },
      { id: 'b', kind: 'rigid', processors: 1, size: 1, start: 9, end: 29, backfilled: true, sizes: [{ t: 9, v: 1 }] },
    ]);
    expect(c.free).toEqual([
      { t: 10, v: 4 },
      { t: 27, v: 7 },
      { t: 29, v: 8 },
    ]);
  });

  it('is bounded: at most `limit` reservations and running jobs per cluster, with their totals', () => {
    const placed = Array.from({ length: 5 }, (_, i) => running(`r${i}`, 1, 0, 100 + i));
    const queue = Array.from({ length: 7 }, (_, i) => waiting(`w${i}`, 1, 10, { cluster: 0, start: 100 + 10 * i }));
    const plan = snapshot(10, placed, queue, 10, 3);
    const c = plan.clusters[0]!;
    expect(plan.limit).toBe(3);
    expect(c.running.map((r) => r.id)).toEqual(['r0', 'r1', 'r2']);
    expect(c.runningTotal).toBe(5);
    expect(c.reservations.map((r) => r.id)).toEqual(['w0', 'w1', 'w2']);
    expect(c.reservationsTotal).toBe(7);
  });

  it("a reserved waiting job's views: nothing guaranteed before its start, its processors until its planned end", () => {
    expect(reservedViews(waiting('h', 6, 50, { cluster: 0, start: 100 }), 10)).toEqual({
      nonPreemptive: [
        { t: 10, v: 0 },
        { t: 100, v: 6 },
        { t: 150, v: 0 },
      ],
      preemptive: [{ t: 10, v: 0 }],
    });
    expect(reservedViews(waiting('w', 6, 50), 10)).toBeUndefined();
  });
});

/** `jobs` simulated on one cluster of `processors` (no background load) until `t`. */
function simulatedUntil(
  t: number,
  processors: number,
  jobs: JobSpecInput[],
  scheduler: Partial<SchedulerOptions> = {},
): SimWorld {
  const { world } = simWorld(gridSpecSchema.parse({ clusters: [{ name: 'a', processors }] }), jobs, { scheduler });
  world.runUntil(t);
  return world;
}

describe('plan snapshot of a scheduler running EASY', () => {
  const rigid = (
    id: string,
    processors: number,
    runtime: number,
    walltime: number,
    submitTime: number,
  ): JobSpecInput => ({
    id,
    kind: 'rigid',
    submitTime,
    app: { model: 'fixed', runtime },
    components: [{ processors, program: 'x' }],
    walltime,
  });

  function world(queue: 'easy' | 'koala', policy?: 'dbes') {
    // 12 processors: a (4, until 100) and b (4, until 200) run; h (6) is the head at 1 (4 free: reserved at 100, when
    // a's end leaves 8); c (2, 50 s) backfills at 2. At 100 the plan has 8 free for h's 6: c's 2 (ended at 52) are
    // slack, a's 4 are needed: h waits for a alone.
    const jobs = [
      rigid('a', 4, 100, 100, 0),
      rigid('b', 4, 200, 200, 0),
      rigid('h', 6, 50, 50, 1),
      rigid('c', 2, 50, 50, 2),
    ];
    return simulatedUntil(5, 12, jobs, { queue, ...(policy ? { policy } : {}) });
  }

  it("shows the head reserved at 100 waiting for a, c running beside it (it ends at 52, before), and the head's views from its reservation", () => {
    const w = world('easy');
    const plan = w.scheduler.planSnapshot(5);
    const c = plan.clusters[0]!;
    expect(plan.queuePolicy).toBe('easy');
    expect(plan.planner).toBe('easy');
    // c started while h, submitted before it, waited: it is marked backfilled; a and b are not.
    expect(c.running.map((r) => [r.id, r.backfilled])).toEqual([
      ['a', false],
      ['b', false],
      ['c', true],
    ]);
    expect(c.running.map((r) => [r.id, r.processors, r.start, r.end])).toEqual([
      ['a', 4, 0, 100],
      ['b', 4, 0, 200],
      ['c', 2, 2, 52],
    ]);
    expect(c.reservations).toEqual([{ id: 'h', processors: 6, start: 100, end: 150, waitsFor: ['a'] }]);
    expect(w.scheduler.views('h', 5)!.nonPreemptive).toEqual([
      { t: 5, v: 0 },
      { t: 100, v: 6 },
      { t: 150, v: 0 },
    ]);
  });

  it('under koala no reservation is planned', () => {
    const plan = world('koala').scheduler.planSnapshot(5);
    expect(plan.queuePolicy).toBe('koala');
    expect(plan.clusters[0]!.reservations).toEqual([]);
  });

  it("under dbes the reservations are DBES's, and the snapshot says dbes planned them (the queue policy koala plans none)", () => {
    const koala = world('koala').scheduler.planSnapshot(5);
    expect(koala.planner).toBe('koala');
    const plan = world('koala', 'dbes').scheduler.planSnapshot(5);
    expect(plan.queuePolicy).toBe('koala');
    expect(plan.planner).toBe('dbes');
    // DBES backfills c beside a and b, h reserved at a's end.
    expect(plan.clusters[0]!.reservations).toEqual([{ id: 'h', processors: 6, start: 100, end: 150, waitsFor: ['a'] }]);
  });
});

describe('plan snapshot of a waiting profiled (FPE) job', () => {
  it('lists its scheduled steps as its reservation: sizes over time, its peak, and what its start waits for', () => {
    // 10 processors: r (8, until 100) runs; x asks 4 then 2 for 50 s each: 2 are free before 100, so its fit starts at 100.
    const jobs = [
      rigidJob('r', 0, 8, 100),
      profiledJob('x', 1, [
        { duration_s: 50, processors: 4 },
        { duration_s: 50, processors: 2 },
      ]),
    ];
    const w = simulatedUntil(5, 10, jobs);
    expect(w.scheduler.job('x')?.state).toBe('queued');
    const c = w.scheduler.planSnapshot(5).clusters[0]!;
    expect(c.reservations).toEqual([
      {
        id: 'x',
        processors: 4,
        start: 100,
        end: 200,
        waitsFor: ['r'],
        steps: [
          { t: 100, v: 4 },
          { t: 150, v: 2 },
          { t: 200, v: 0 },
        ],
      },
    ]);
    expect(c.reservationsTotal).toBe(1);
    // The plan holds its steps: 2 free before 100 (r's 8 held), 6 while its first step runs, 8 during its second.
    expect(c.free).toEqual([
      { t: 5, v: 2 },
      { t: 100, v: 6 },
      { t: 150, v: 8 },
      { t: 200, v: 10 },
    ]);
  });
});

describe('plan snapshot of a started profiled (FPE) job', () => {
  it('lists its steps ahead on its running entry and holds them in the plan, not its current size to no end', () => {
    // 10 processors; e asks 2 for 100 s, 6 for 50 s, 3 for 80 s, and starts at 0 (no walltime). At 120 it runs its
    // second step (6, 100..150); its third (3, 150..230) is planned after it.
    const w = simulatedUntil(120, 10, [
      profiledJob('e', 0, [
        { duration_s: 100, processors: 2 },
        { duration_s: 50, processors: 6 },
        { duration_s: 80, processors: 3 },
      ]),
    ]);
    expect(w.scheduler.job('e')?.state).toBe('running');
    const c = w.scheduler.planSnapshot(120).clusters[0]!;
    expect(c.running).toMatchObject([
      {
        id: 'e',
        processors: 6,
        start: 0,
        end: 230,
        step: 2,
        stepCount: 3,
        steps: [
          { t: 100, v: 6 },
          { t: 150, v: 3 },
          { t: 230, v: 0 },
        ],
      },
    ]);
    expect(c.reservations).toEqual([]);
    expect(c.free).toEqual([
      { t: 120, v: 4 },
      { t: 150, v: 7 },
      { t: 230, v: 10 },
    ]);
  });
});
