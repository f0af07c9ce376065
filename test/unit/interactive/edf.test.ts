// EDF feasibility on one node: the utilisation bound (D = T), the processor-demand test (D < T), the bound of the
// test interval and the slack, on hand-computed task sets.
import { describe, expect, it } from 'vitest';
import { busyPeriod, demandBound, feasibility } from '../../../core/interactive/edf.js';

const task = (costMs: number, periodMs: number, deadlineMs = periodMs) => ({ costMs, periodMs, deadlineMs });

describe('EDF feasibility', () => {
  it('implicit deadlines: feasible iff U <= 1', () => {
    // 2/5 + 3/5 = 1
    expect(feasibility([task(2, 5), task(3, 5)])).toMatchObject({
      feasible: true,
      test: 'utilization',
      utilization: 1,
      slackMs: 0,
    });
    // 1/3 + 1/3 + 1/3 = 1 in exact arithmetic, 1.0000000000000002 in floating point: still feasible
    expect(feasibility([task(1, 3), task(1, 3), task(1, 3)]).feasible).toBe(true);
    // 2/5 + 3/5 + 1/10 > 1
    expect(feasibility([task(2, 5), task(3, 5), task(1, 10)])).toMatchObject({ feasible: false, code: 'utilization' });
  });

  it('constrained deadlines: dbf(t) <= t at every deadline of the busy period', () => {
    // (C 2, D 4, T 10) and (C 3, D 5, T 10): dbf(4) = 2, dbf(5) = 5 -> feasible, slack min(4-2, 5-5) = 0
    expect(feasibility([task(2, 10, 4), task(3, 10, 5)])).toMatchObject({ feasible: true, test: 'demand', slackMs: 0 });
    // (C 3, D 4) and (C 3, D 5): U = 0.6 but dbf(5) = 6 > 5
    expect(feasibility([task(3, 10, 4), task(3, 10, 5)])).toMatchObject({ feasible: false, code: 'demand' });
    expect(demandBound([task(3, 10, 4), task(3, 10, 5)], 5)).toBe(6);
    // (C 1, D 2, T 4) and (C 2, D 6, T 8): deadlines 2, 6, 10, 14 ... dbf 1, 4, 5, 8 -> slack min(1, 2, 5, 6) = 1
    expect(feasibility([task(1, 4, 2), task(2, 8, 6)])).toMatchObject({ feasible: true, slackMs: 1 });
  });

  it('a task that cannot meet its own deadline', () => {
    expect(feasibility([task(5, 10, 4)])).toMatchObject({ feasible: false, code: 'demand' });
  });

  it('the busy period bounds the test interval', () => {
    // w0 = 5, w = ⌈5/5⌉·2 + ⌈5/10⌉·3 = 5: L = 5
    expect(busyPeriod([task(2, 5), task(3, 10)])).toBe(5);
    // U = 1/2 + 1/2: w = 5 -> 2·2 + 3 = 7 -> 2·2 + 2·3 = 10 -> 3·2 + 2·3 = 12 -> 12: L = 12, the hyperperiod
    expect(busyPeriod([task(2, 4), task(3, 6)])).toBe(12);
    // More deadlines than allowed: refused (conservatively), never accepted
    // (the busy period above covers 3 + 2 deadlines)
    expect(busyPeriod([task(2, 4), task(3, 6)], 4)).toBeUndefined();
    // deadlines 3, 6, 7, 11, 12: dbf 2, 5, 7, 9, 12 -> feasible, with slack 0 at 7 and 12
    expect(feasibility([task(2, 4, 3), task(3, 6)])).toMatchObject({ feasible: true, slackMs: 0 });
    expect(feasibility([task(2, 4, 3), task(3, 6)], { maxCheckpoints: 4 })).toMatchObject({
      feasible: false,
      code: 'interval',
    });
  });

  it('an idle node: feasible with infinite slack', () => {
    expect(feasibility([])).toEqual({ feasible: true, test: 'utilization', utilization: 0, slackMs: Infinity });
  });

  it('slack of a single task is D - C', () => {
    expect(feasibility([task(3, 10, 7)]).slackMs).toBe(4);
    expect(feasibility([task(3, 10)]).slackMs).toBe(7);
  });
});
