// The plan's holding rule (core/plan/holding.ts) on hand-computed cases, and through a simulated run: a malleable
// job's estimated end follows its size.
import { describe, expect, it } from 'vitest';
import { placedHolding, sharedPreallocationHolds, type HoldingJob } from '../../core/plan/holding.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';

function job(extra: Partial<HoldingJob>): HoldingJob {
  return {
    id: 'j',
    spec: { walltime: 100 },
    startTime: 0,
    held: 2,
    size: 2,
    evolving: false,
    malleable: false,
    preallocation: 0,
    sizeHistory: [{ t: 0, v: 2 }],
    ...extra,
  };
}

describe('placedHolding', () => {
  it('estimates the same end bit for bit at every later now while the size holds (a reservation at it still meets it)', () => {
    const grown = job({
      malleable: true,
      spec: { walltime: 3600 },
      held: 3,
      size: 3,
      sizeHistory: [
        { t: 0, v: 2 },
        { t: 4.3, v: 3 },
      ],
    });
    const at = placedHolding(grown, 3, 4.3).end;
    for (const now of [5.1, 8.7, 33.3, 1000.7]) expect(placedHolding(grown, 3, now).end, `at ${now}`).toBe(at);
  });

  it('counts the walltime at the size the job started at, even when a grow in that instant replaced its first step', () => {
    // Started at 7 and grown to 12 at once: its history says 12 from 0; the walltime 120 is its run time at 7.
    const grown = job({ malleable: true, spec: { walltime: 120 }, held: 12, size: 12, startSize: 7 });
    expect(placedHolding({ ...grown, sizeHistory: [{ t: 0, v: 12 }] }, 12, 0).end).toBeCloseTo(70, 9);
  });

  it('a rigid job holds its processors until start plus walltime; placed but not started, from now; without a walltime, for ever', () => {
    expect(placedHolding(job({}), 2, 30)).toEqual({ n: 2, start: 0, end: 100 });
    expect(placedHolding(job({ startTime: Number.NaN, sizeHistory: [] }), 2, 30)).toEqual({
      n: 2,
      start: 30,
      end: 130,
    });
    expect(placedHolding(job({ spec: {} }), 2, 30).end).toBe(Number.POSITIVE_INFINITY);
    expect(placedHolding(job({ evolving: true, preallocation: 6 }), 2, 30).n).toBe(6);
  });

  // Walltime 100 at the first size 2; grown to 4 at 20: a fifth done by then, the rest at half the run time.
  const grown = job({
    malleable: true,
    held: 4,
    size: 4,
    sizeHistory: [
      { t: 0, v: 2 },
      { t: 20, v: 4 },
    ],
  });

  it('a grown malleable job ends earlier: its walltime scaled by the size ratio when its application declares nothing', () => {
    // done at 30: 20/100 + 10/50 = 0.4; the rest 0.6 of 50 s.
    expect(placedHolding(grown, 4, 30)).toEqual({ n: 4, start: 0, end: 60 });
  });

  it('a shrunk one ends later, never after the kill at start plus walltime', () => {
    const shrunk = job({
      malleable: true,
      held: 1,
      size: 1,
      sizeHistory: [
        { t: 0, v: 2 },
        { t: 20, v: 4 },
        { t: 30, v: 1 },
      ],
    });
    // done at 30: 0.4; the rest at size 1 takes 0.6 of 200 s: 150, after the kill at 100.
    expect(placedHolding(shrunk, 1, 30).end).toBe(100);
    const briefly = job({
      malleable: true,
      held: 3,
      size: 3,
      sizeHistory: [
        { t: 0, v: 2 },
        { t: 10, v: 3 },
      ],
    });
    // done at 10: 0.1; the rest 0.9 of 66.67 s.
    expect(placedHolding(briefly, 3, 10).end).toBeCloseTo(10 + 0.9 * (200 / 3), 9);
  });

  it("follows the application's declared run time when it has one (its speed-up, scaled to the walltime)", () => {
    // Declared: 10 + 90/n s, so 55 s at 2 and 32.5 s at 4; the walltime 100 at 2 makes it 59.09 s at 4.
    const declared = (_id: string, n: number) => 10 + 90 / n;
    const at4 = (100 * 32.5) / 55;
    expect(placedHolding(grown, 4, 30, declared).end).toBeCloseTo(30 + (1 - 0.2 - 10 / at4) * at4, 9);
    // A port that declares nothing for this job: the size ratio.
    expect(placedHolding(grown, 4, 30, () => undefined).end).toBe(60);
  });
});

describe('a malleable job in a simulated run under easy', () => {
  it('the plan predicts its end as its size changes: with a walltime equal to its run time at its first size, exactly when it completes', () => {
    // 16 processors; m (malleable 2..16, Amdahl 20 + 1,600/n s: 820 s at 2) grows into the idle ones; h needs all 16.
    const jobs = [
      {
        id: 'm',
        kind: 'malleable',
        submitTime: 0,
        app: { model: 'amdahl', serial: 20, parallel: 1600 },
        components: [{ min: 2, max: 16, program: 'x' }],
        walltime: 820,
      },
      {
        id: 'h',
        kind: 'rigid',
        submitTime: 1,
        app: { model: 'fixed', runtime: 10 },
        components: [{ processors: 16, program: 'x' }],
        walltime: 10,
      },
    ];
    const w = new SimWorld({
      grid: gridSpecSchema.parse({ clusters: [{ name: 'x', processors: 16 }] }),
      jobs: jobs.map((j) => jobSpecSchema.parse(j)),
      seed: 1,
      background: false,
      scheduler: { queue: 'easy' },
    });
    const ends: number[] = [];
    const reserved: number[] = [];
    const sizes = new Set<number>();
    for (let t = 5; t < 2000; t += 5) {
      w.runUntil(t);
      const m = w.scheduler.job('m')!;
      if (m.ended) break;
      const plan = w.scheduler.planSnapshot(t).clusters[0]!;
      const running = plan.running.find((r) => r.id === 'm');
      if (running && m.size > 0) {
        ends.push(running.end!);
        sizes.add(m.size);
        const h = plan.reservations.find((r) => r.id === 'h');
        if (h) reserved.push(h.start);
      }
    }
    const m = w.scheduler.job('m')!;
    expect(m.state).toBe('completed');
    const completed = m.transitions[m.transitions.length - 1]!.time;
    expect(sizes.size).toBeGreaterThan(1);
    // Once it has its final size, the estimate is its end; before, never later than the kill at start + walltime.
    expect(ends[ends.length - 1]).toBeCloseTo(completed, 6);
    expect(Math.max(...ends)).toBeLessThanOrEqual(m.startTime + 820);
    expect(completed).toBeLessThan(m.startTime + 820 - 100);
    // The head waiting for all 16 is reserved at m's estimated end throughout, and starts when m completes.
    expect(reserved.map((t, i) => [t, ends[i]]).filter(([a, b]) => Math.abs(a! - b!) > 1e-6)).toEqual([]);
    expect(w.scheduler.job('h')!.startTime).toBeCloseTo(completed, 6);
  });
});

describe('shared pre-allocated processors', () => {
  // E pre-allocates 4 and uses 1 (3 unused); A's 1 extra and B's 2 fill the 3 unused ones.
  const sharing = {
    unused: 3,
    extras: 3,
    byJob: [
      { id: 'E', unused: 3, extras: 0 },
      { id: 'A', unused: 0, extras: 1 },
      { id: 'B', unused: 0, extras: 2 },
    ],
  };
  /** A plan's free processors with its holdings only: `initial` from now, then `steps` at their times. */
  const freeOf = (initial: number, steps: ReadonlyArray<readonly [number, number]>) => ({
    times: steps.map(([t]) => t),
    values: steps.map(([, v]) => v),
    valueAt: (t: number) => steps.filter(([at]) => at <= t).at(-1)?.[1] ?? initial,
  });

  it('sets them all aside from now when as many are free now (E may take its pre-allocation at any time)', () => {
    const holds = sharedPreallocationHolds(
      sharing,
      freeOf(5, [
        [50, 6],
        [70, 8],
      ]),
      0,
    );
    expect(holds.map((r) => [r.start, r.n, r.duration])).toEqual([[0, 3, Infinity]]);
  });

  it('sets aside no more than is free at each time: the extras can move only to free processors', () => {
    // 1 free now, 2 from 50, 5 from 70: min(3, free) set aside is 1, then 2, then 3.
    const holds = sharedPreallocationHolds(
      sharing,
      freeOf(1, [
        [50, 2],
        [70, 5],
        [100, 9],
      ]),
      0,
    );
    expect(holds.map((r) => [r.start, r.n])).toEqual([
      [0, 1],
      [50, 1],
      [70, 1],
    ]);
  });

  it('sets nothing aside when nothing is shared or nothing is free', () => {
    expect(sharedPreallocationHolds({ ...sharing, extras: 0 }, freeOf(5, []), 0)).toEqual([]);
    expect(sharedPreallocationHolds(sharing, freeOf(0, []), 0)).toEqual([]);
  });
});
