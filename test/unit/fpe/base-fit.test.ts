// Algorithm 2 (the base fit), the compacting pass, the delay-only fit and Algorithm 1 on cases computed by hand: a
// step that must be expanded, an application that must be delayed, the expand limit reached and exceeded, and where
// each of the three failures makes the search jump. Cluster of 10 nodes throughout.
import { describe, expect, it } from 'vitest';
import { baseFit, type BaseFitJump } from '../../../core/fpe/base-fit.js';
import { compact, compactingFitWith } from '../../../core/fpe/compact.js';
import { delayFit } from '../../../core/fpe/delay-fit.js';
import {
  epFunction,
  evolutionProfile,
  satisfiesC1,
  wasteArea,
  type EvolutionProfile,
} from '../../../core/fpe/evolution-profile.js';
import { listSchedule } from '../../../core/fpe/list-schedule.js';
import { FPE_VARIANTS, fpeVariant, fpeVariants } from '../../../core/fpe/registry.js';
import { rigidProfile } from '../../../core/fpe/variants.js';
import { StepFunction } from '../../../core/time/step-function.js';
import { earliestStart } from '../../../core/time/profile.js';

const N = 10;
/** 6 nodes busy on [a, b), nothing else. */
const busy = (a: number, b: number) => StepFunction.interval(a, b, 6);
const ep = (...pairs: Array<[number, number]>) => evolutionProfile(pairs);

function fitTraced(req: EvolutionProfile, res: StepFunction, l: number, t0 = 0) {
  const jumps: BaseFitJump[] = [];
  const r = baseFit(req, res, N, t0, { expandLimit: l, onJump: (j) => jumps.push(j) });
  return { ...r, jumps };
}

describe('base fit (Algorithm 2)', () => {
  it('places an EP that fits at once where it may start, unchanged', () => {
    const r = fitTraced(ep([10, 2], [10, 3]), StepFunction.constant(0), 2, 5);
    expect(r).toEqual({ start: 5, steps: ep([10, 2], [10, 3]), jumps: [] });
  });

  it('expands a step to wait for the next one, up to the expand limit exactly (2X)', () => {
    // Steps 2 nodes × 10 s, 3 × 10 s, 8 × 5 s; 6 busy on [20, 30). Step 3 cannot run before 30 (6 + 8 > 10): the
    // placement fails at 20 (jump to 25, the end of the window's peak), at 25 (to 30), then fits at 30. Step 2, begun
    // at 10, must then last 20 s: twice its 10 s, which limit 2 allows, and 3 + 6 <= 10 on [20, 30).
    const r = fitTraced(ep([10, 2], [10, 3], [5, 8]), busy(20, 30), 2);
    expect(r.start).toBe(0);
    expect(r.steps).toEqual(ep([10, 2], [20, 3], [5, 8]));
    expect(r.jumps).toEqual([
      { step: 3, failure: 'placement', from: 20, to: 25 },
      { step: 3, failure: 'placement', from: 25, to: 30 },
    ]);
    expect(wasteArea(r.steps, ep([10, 2], [10, 3], [5, 8]))).toBe(10 * 3);
  });

  it('beyond the expand limit, fails back to the previous step with the earliest start that keeps it within the limit', () => {
    // Busy until 31: step 3 fits at 31, which would make step 2 last 21 s > 2 × 10. The limit failure returns
    // teas = 31 - 2 × 10 = 11 to step 2, which starts there; step 3 then fits at 31 again (after jumps at 21 and 26),
    // step 2 lasts 20 s, and step 1 is delayed to end at 11 (start 1) rather than expanded.
    const r = fitTraced(ep([10, 2], [10, 3], [5, 8]), busy(20, 31), 2);
    expect(r.start).toBe(1);
    expect(r.steps).toEqual(ep([10, 2], [20, 3], [5, 8]));
    expect(r.jumps).toEqual([
      { step: 3, failure: 'placement', from: 20, to: 25 },
      { step: 3, failure: 'placement', from: 25, to: 30 },
      { step: 3, failure: 'placement', from: 30, to: 31 },
      { step: 3, failure: 'limit', from: 31, to: 11 },
      { step: 3, failure: 'placement', from: 21, to: 26 },
      { step: 3, failure: 'placement', from: 26, to: 31 },
    ]);
  });

  it('noX (limit 1) never expands: the whole EP moves until every step follows the previous one at once', () => {
    const r = fitTraced(ep([10, 2], [10, 3], [5, 8]), busy(20, 31), 1);
    expect(r.start).toBe(11);
    expect(r.steps).toEqual(ep([10, 2], [10, 3], [5, 8]));
    // Step 3 at 31 would expand step 2 (limit: back to 21); step 2 at 21 would expand step 1 (limit: back to 11).
    expect(r.jumps.filter((j) => j.failure === 'limit')).toEqual([
      { step: 3, failure: 'limit', from: 31, to: 21 },
      { step: 2, failure: 'limit', from: 21, to: 11 },
    ]);
  });

  it('infX expands as long as it takes', () => {
    const r = fitTraced(ep([10, 2], [10, 3], [5, 8]), busy(20, 31), Infinity);
    expect(r).toMatchObject({ start: 0, steps: ep([10, 2], [21, 3], [5, 8]) });
  });

  it('delays the application when the previous step cannot be expanded for want of nodes', () => {
    // Steps 1 × 10 s, 5 × 10 s, 8 × 5 s; 6 busy on [20, 30). Step 3 fits at 30, but step 2's 5 nodes are not free on
    // [20, 30) (6 + 5 > 10): the resources failure returns loc = 30, the end of the peak, to step 2, which starts
    // there unexpanded; step 1 (1 + 6 <= 10) is delayed to [20, 30).
    const r = fitTraced(ep([10, 1], [10, 5], [5, 8]), busy(20, 30), Infinity);
    expect(r.start).toBe(20);
    expect(r.steps).toEqual(ep([10, 1], [10, 5], [5, 8]));
    expect(r.jumps).toContainEqual({ step: 3, failure: 'resources', from: 30, to: 30 });
  });

  it('on a one-step EP finds the earliest start where it fits: the CBF reservation of the core profile', () => {
    const res = epFunction(ep([100, 4], [50, 9], [20, 2]), 10); // busy 4 on [10,110), 9 on [110,160), 2 on [160,180)
    for (const [d, n] of [
      [30, 6],
      [200, 1],
      [60, 8],
      [5, 10],
    ] as const) {
      const r = baseFit(ep([d, n]), res, N, 0, { expandLimit: 1 });
      const free = res.map((v) => N - v);
      expect(r.start, `${d} s × ${n}`).toBe(earliestStart(free, 0, d, n));
    }
  });

  it('refuses a step larger than the cluster and an expand limit below 1', () => {
    expect(() => baseFit(ep([10, 11]), StepFunction.constant(0), N, 0, { expandLimit: 2 })).toThrow(/11 nodes/);
    expect(() => baseFit(ep([10, 1]), StepFunction.constant(0), N, 0, { expandLimit: 0 })).toThrow(/expand limit/);
  });
});

describe('compacting', () => {
  it('moves an expanded application to the latest start that keeps its completion time, undoing the expansion', () => {
    // Steps 1 × 10, 1 × 10, 8 × 10; 6 busy on [20, 30). The base fit runs step 1 at 0, expands step 2 over [10, 30)
    // (1 + 6 <= 10) and step 3 at 30. Compacting places step 3 at [30, 40), step 2 at [20, 30), step 1 at [10, 20):
    // same completion, nothing expanded.
    const req = ep([10, 1], [10, 1], [10, 8]);
    const found = baseFit(req, busy(20, 30), N, 0, { expandLimit: Infinity });
    expect(found).toEqual({ start: 0, steps: ep([10, 1], [20, 1], [10, 8]) });
    expect(compact(found, req, busy(20, 30), N, 0, Infinity)).toEqual({ start: 10, steps: req });
    expect(compactingFitWith(2)(req, busy(20, 30), N, 0)).toEqual({ start: 10, steps: req });
  });

  it('undoes an expansion the base fit made greedily: the application ends at the same time, later started', () => {
    // The limit case above (start 1, step 2 stretched over [11, 31)): right to left, step 3 takes [31, 36), step 2
    // [21, 31) (3 + 6 <= 10) and step 1 [11, 21) (2 + 6 <= 10 on [20, 21)): nothing expanded, the same completion.
    const req = ep([10, 2], [10, 3], [5, 8]);
    const found = baseFit(req, busy(20, 31), N, 0, { expandLimit: 2 });
    expect(found).toEqual({ start: 1, steps: ep([10, 2], [20, 3], [5, 8]) });
    expect(compact(found, req, busy(20, 31), N, 0, 2)).toEqual({ start: 11, steps: req });
  });

  it('keeps the base result when there is nothing to compact', () => {
    // Steps 5 × 10, 3 × 10, 8 × 5; 6 busy on [10, 30). Step 1 must end by 10 (5 + 6 > 10) and step 3 cannot start
    // before 30, so step 2 spans [10, 30) whichever way the steps are placed.
    const req = ep([10, 5], [10, 3], [5, 8]);
    const found = baseFit(req, busy(10, 30), N, 0, { expandLimit: 2 });
    expect(found).toEqual({ start: 0, steps: ep([10, 5], [20, 3], [5, 8]) });
    expect(compact(found, req, busy(10, 30), N, 0, 2)).toEqual(found);
  });
});

describe('delay-only fit and Algorithm 1', () => {
  it('the delay-only fit starts each application after everything scheduled', () => {
    expect(delayFit(ep([10, 1]), busy(20, 30), N, 0)).toEqual({ start: 30, steps: ep([10, 1]) });
    expect(delayFit(ep([10, 1]), StepFunction.constant(0), N, 7)).toEqual({ start: 7, steps: ep([10, 1]) });
    const s = listSchedule([ep([10, 4]), ep([5, 4]), ep([5, 1])], N, delayFit);
    expect(s.scheduled.map((x) => x.start)).toEqual([0, 10, 15]);
  });

  it('adds each scheduled EP to the resource EP in turn', () => {
    // noX on 10 nodes: A = 6 × 10 then 2 × 10; B = 5 × 10 waits for A's first step; C = 4 × 20 fits beside A's second step and B.
    const reqs = [ep([10, 6], [10, 2]), ep([10, 5]), ep([20, 3])];
    const s = listSchedule(reqs, N, fpeVariants.noX.fit);
    expect(s.scheduled).toEqual([
      { start: 0, steps: reqs[0] },
      { start: 10, steps: reqs[1] },
      { start: 0, steps: reqs[2] },
    ]);
    // 9 on [0,10), 2 + 5 + 3 = 10 on [10,20), then 0.
    expect(s.resource.steps()).toEqual([
      { t: 0, v: 9 },
      { t: 10, v: 10 },
      { t: 20, v: 0 },
    ]);
    for (const [i, x] of s.scheduled.entries()) expect(satisfiesC1(x, reqs[i]!)).toBe(true);
  });

  it('rigid schedules each application as its peak for its whole duration', () => {
    expect(rigidProfile(ep([10, 6], [10, 2]))).toEqual(ep([20, 6]));
    const s = listSchedule([ep([10, 6], [10, 2]), ep([10, 5])], N, fpeVariants.rigid.fit);
    expect(s.scheduled).toEqual([
      { start: 0, steps: ep([20, 6]) },
      { start: 20, steps: ep([10, 5]) },
    ]);
  });

  it('the variants are registered by name', () => {
    expect([...FPE_VARIANTS]).toEqual(['rigid', 'noX', '2X', '2X+c', 'infX', 'infX+c']);
    for (const name of FPE_VARIANTS) expect(fpeVariant(name)?.name).toBe(name);
    expect(fpeVariant('3X')).toBeUndefined();
    expect(fpeVariant('toString')).toBeUndefined();
    expect(fpeVariants['2X+c']).toMatchObject({ expandLimit: 2, compacting: true, evolving: true });
    expect(fpeVariants.noX.expandLimit).toBe(1);
  });
});
