import { describe, expect, it } from 'vitest';
import { StepFunction } from '../../../core/time/step-function.js';
import { alloc, cap, difference, emptyView, findHole, sum, union, viewOf } from '../../../core/coorm/index.js';
import { profileOfRects } from '../../../core/coorm/views.js';
import type { View } from '../../../core/coorm/index.js';

// Paper A.3: V = {a: [(3600, 4), (3600, 3)], b: [(∞, 6)]}.
const V = viewOf({
  a: [
    [3600, 4],
    [3600, 3],
  ],
  b: [[Infinity, 6]],
});

const steps = (v: View, cid: string) =>
  v
    .get(cid)
    ?.steps()
    .map((s) => [s.t, s.v]);

describe('views (appendix A.3)', () => {
  it('builds the paper example from (duration, nodes) pairs', () => {
    expect(steps(V, 'a')).toEqual([
      [0, 4],
      [3600, 3],
      [7200, 0],
    ]);
    expect(steps(V, 'b')).toEqual([[0, 6]]);
  });

  it('cap reads the paper example as it says', () => {
    expect(cap(V, 'a', 1800)).toBe(4);
    expect(cap(V, 'a', 3600)).toBe(3);
    expect(cap(V, 'a', 7200)).toBe(0);
    expect(cap(V, 'b', 1e9)).toBe(6);
    expect(cap(V, 'zz', 0)).toBe(0); // a cluster the view does not name has nothing
  });

  it('union is the pointwise maximum, over the clusters of both', () => {
    const W = viewOf({
      a: [
        [1800, 2],
        [3600, 5],
      ],
      c: [[100, 1]],
    });
    const U = union(V, W);
    // a: max(4,2) on [0,1800), max(4,5) on [1800,3600), max(3,5) on [3600,5400), 3 on [5400,7200), then 0.
    expect(steps(U, 'a')).toEqual([
      [0, 4],
      [1800, 5],
      [5400, 3],
      [7200, 0],
    ]);
    expect(steps(U, 'b')).toEqual([[0, 6]]);
    expect(steps(U, 'c')).toEqual([
      [0, 1],
      [100, 0],
    ]);
  });

  it('sum and difference are pointwise, a missing cluster counting as zero', () => {
    const W = viewOf({
      a: [
        [1800, 2],
        [3600, 5],
      ],
      c: [[100, 1]],
    });
    // a: 4+2 on [0,1800), 4+5 on [1800,3600), 3+5 on [3600,5400), 3 on [5400,7200).
    expect(steps(sum(V, W), 'a')).toEqual([
      [0, 6],
      [1800, 9],
      [3600, 8],
      [5400, 3],
      [7200, 0],
    ]);
    expect(steps(sum(V, W), 'c')).toEqual([
      [0, 1],
      [100, 0],
    ]);
    // a: 4-2, 4-5, 3-5, 3.
    expect(steps(difference(V, W), 'a')).toEqual([
      [0, 2],
      [1800, -1],
      [3600, -2],
      [5400, 3],
      [7200, 0],
    ]);
    expect(steps(difference(V, W), 'c')).toEqual([
      [0, -1],
      [100, 0],
    ]);
    expect(steps(difference(V, emptyView), 'a')).toEqual(steps(V, 'a'));
  });

  it('alloc is the least availability during the request, capped by n', () => {
    const r = { cid: 'a', n: 5, duration: 3600, scheduledAt: 1800 };
    // [1800, 5400) on a: min(4, 3) = 3.
    expect(alloc(V, r)).toBe(3);
    expect(alloc(V, { ...r, n: 2 })).toBe(2);
    expect(alloc(V, { ...r, scheduledAt: 0, duration: 3600 })).toBe(4);
    expect(alloc(V, { ...r, scheduledAt: 0, duration: Infinity })).toBe(0);
    // Clipped to the future: from 3600 on only the 3 counts.
    expect(alloc(V, { ...r, scheduledAt: 0, duration: 7200 }, 3600)).toBe(3);
    expect(alloc(V, { ...r, cid: 'b', duration: Infinity })).toBe(5);
    // Never negative.
    expect(alloc(difference(V, viewOf({ a: [[9000, 9]] })), r)).toBe(0);
  });

  it('findHole finds the first time all n nodes are there for the whole duration', () => {
    const hole = (n: number, duration: number, t0: number, earliest = -Infinity) =>
      findHole(V, { cid: 'a', n, duration, earliestScheduleAt: earliest }, t0);
    expect(hole(4, 3600, 0)).toBe(0);
    expect(hole(4, 3601, 0)).toBe(Infinity); // at 3600 only 3 are left
    expect(hole(3, 7200, 0)).toBe(0);
    expect(hole(3, 3600, 1000)).toBe(1000);
    expect(hole(3, 3600, 5000)).toBe(Infinity); // 7200 - 5000 < 3600
    expect(hole(3, 1000, 0, 6000)).toBe(6000); // earliestScheduleAt wins over t0
    expect(hole(6, 10, 0)).toBe(Infinity);
    expect(findHole(V, { cid: 'b', n: 6, duration: Infinity, earliestScheduleAt: 0 }, 42)).toBe(42);
    // A hole after a dip: 2 free, then 0 on [10, 20), then 2 again.
    const D: View = new Map([
      [
        'x',
        StepFunction.fromSteps(2, [
          { t: 10, v: 0 },
          { t: 20, v: 2 },
        ]),
      ],
    ]);
    expect(findHole(D, { cid: 'x', n: 2, duration: 15, earliestScheduleAt: 0 }, 0)).toBe(20);
    expect(findHole(D, { cid: 'x', n: 2, duration: 10, earliestScheduleAt: 0 }, 0)).toBe(0);
  });

  it('profileOfRects sums rectangles, open-ended ones included', () => {
    // [0,10)x2 + [5,15)x3 + [10,∞)x1
    const f = profileOfRects([0, 10, 2, 5, 15, 3, 10, Infinity, 1]);
    expect(f.steps().map((s) => [s.t, s.v])).toEqual([
      [0, 2],
      [5, 5],
      [10, 4],
      [15, 1],
    ]);
    expect(profileOfRects([]).equals(StepFunction.constant(0))).toBe(true);
  });
});
