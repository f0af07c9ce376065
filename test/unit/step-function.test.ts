import { describe, expect, it } from 'vitest';
import { StepFunction, StepRecorder } from '../../core/time/step-function.js';

// Shorthand: sf(initial, [t, v], [t, v], ...).
function sf(initial: number, ...steps: Array<[number, number]>): StepFunction {
  return StepFunction.fromSteps(
    initial,
    steps.map(([t, v]) => ({ t, v })),
  );
}

function pairs(f: StepFunction): Array<[number, number]> {
  return f.steps().map((s) => [s.t, s.v]);
}

describe('StepFunction construction', () => {
  it('constant has no breakpoints and the same value everywhere', () => {
    const f = StepFunction.constant(7);
    expect(f.initial).toBe(7);
    expect(f.breakpoints).toBe(0);
    expect(f.steps()).toEqual([]);
    expect(f.finalValue).toBe(7);
    expect(f.valueAt(-1e300)).toBe(7);
    expect(f.valueAt(0)).toBe(7);
    expect(f.valueAt(Infinity)).toBe(7);
    expect(f.valueAt(-Infinity)).toBe(7);
  });

  it('constant accepts negative and infinite values, rejects NaN', () => {
    expect(StepFunction.constant(-3).valueAt(5)).toBe(-3);
    expect(StepFunction.constant(Infinity).valueAt(5)).toBe(Infinity);
    expect(() => StepFunction.constant(NaN)).toThrow(RangeError);
  });

  it('constant(-0) is stored as +0', () => {
    expect(Object.is(StepFunction.constant(-0).initial, 0)).toBe(true);
  });

  it('fromSteps with no steps is a constant', () => {
    expect(sf(4).equals(StepFunction.constant(4))).toBe(true);
  });

  it('fromSteps keeps sorted distinct steps', () => {
    const f = sf(0, [1, 2], [3, 5], [4, -1]);
    expect(pairs(f)).toEqual([
      [1, 2],
      [3, 5],
      [4, -1],
    ]);
    expect(f.breakpoints).toBe(3);
    expect(f.initial).toBe(0);
    expect(f.finalValue).toBe(-1);
  });

  it('fromSteps sorts unsorted input', () => {
    const f = sf(0, [4, -1], [1, 2], [3, 5]);
    expect(pairs(f)).toEqual([
      [1, 2],
      [3, 5],
      [4, -1],
    ]);
  });

  it('fromSteps: steps at the same time, last wins (sorted and unsorted input)', () => {
    expect(pairs(sf(0, [1, 2], [1, 3], [1, 4]))).toEqual([[1, 4]]);
    expect(pairs(sf(0, [5, 9], [1, 2], [5, 1], [1, 3]))).toEqual([
      [1, 3],
      [5, 1],
    ]);
  });

  it('fromSteps: a same-time overwrite back to the previous value leaves no breakpoint', () => {
    expect(sf(0, [1, 2], [1, 0]).breakpoints).toBe(0);
  });

  it('fromSteps drops breakpoints that do not change the value', () => {
    const f = sf(1, [0, 1], [2, 3], [4, 3], [6, 3], [8, 1]);
    expect(pairs(f)).toEqual([
      [2, 3],
      [8, 1],
    ]);
  });

  it('fromSteps does not mutate its input', () => {
    const input = [
      { t: 3, v: 1 },
      { t: 1, v: 2 },
    ];
    const copy = input.map((s) => ({ ...s }));
    StepFunction.fromSteps(0, input);
    expect(input).toEqual(copy);
  });

  it('fromSteps validates times and values', () => {
    expect(() => sf(0, [NaN, 1])).toThrow(RangeError);
    expect(() => sf(0, [Infinity, 1])).toThrow(RangeError);
    expect(() => sf(0, [-Infinity, 1])).toThrow(RangeError);
    expect(() => sf(0, [1, NaN])).toThrow(RangeError);
    expect(() => sf(NaN, [1, 1])).toThrow(RangeError);
    expect(() => sf(0, [1, NaN])).toThrow(/NaN/);
    expect(() => sf(0, [Infinity, 1])).toThrow(/finite/);
  });

  it('fromSteps accepts infinite values', () => {
    const f = sf(0, [1, Infinity], [2, -Infinity]);
    expect(f.valueAt(1.5)).toBe(Infinity);
    expect(f.valueAt(2)).toBe(-Infinity);
  });

  it('steps() returns a fresh copy', () => {
    const f = sf(0, [1, 2]);
    const s = f.steps();
    s[0]!.v = 100;
    s.push({ t: 5, v: 5 });
    expect(pairs(f)).toEqual([[1, 2]]);
  });

  it('interval: value on [t0, t1), 0 elsewhere', () => {
    const f = StepFunction.interval(2, 5, 3);
    expect(f.valueAt(1.999)).toBe(0);
    expect(f.valueAt(2)).toBe(3);
    expect(f.valueAt(4.999)).toBe(3);
    expect(f.valueAt(5)).toBe(0);
    expect(pairs(f)).toEqual([
      [2, 3],
      [5, 0],
    ]);
  });

  it('interval with t1 = Infinity has a single breakpoint', () => {
    const f = StepFunction.interval(2, Infinity, -4);
    expect(pairs(f)).toEqual([[2, -4]]);
    expect(f.valueAt(1e300)).toBe(-4);
  });

  it('interval with value 0 is the zero constant', () => {
    expect(StepFunction.interval(1, 2, 0).equals(StepFunction.constant(0))).toBe(true);
  });

  it('interval validates its bounds', () => {
    expect(() => StepFunction.interval(5, 5, 1)).toThrow(RangeError);
    expect(() => StepFunction.interval(5, 4, 1)).toThrow(RangeError);
    expect(() => StepFunction.interval(-Infinity, 4, 1)).toThrow(RangeError);
    expect(() => StepFunction.interval(Infinity, Infinity, 1)).toThrow(RangeError);
    expect(() => StepFunction.interval(NaN, 4, 1)).toThrow(RangeError);
    expect(() => StepFunction.interval(0, NaN, 1)).toThrow(RangeError);
    expect(() => StepFunction.interval(0, 1, NaN)).toThrow(RangeError);
  });

  it('exposes read-only times and values arrays matching steps()', () => {
    const f = sf(1, [1, 2], [3, 4]);
    expect(f.times).toEqual([1, 3]);
    expect(f.values).toEqual([2, 4]);
  });
});

describe('StepFunction.valueAt', () => {
  const f = sf(10, [0, 5], [10, -2], [20, 7]);

  it('is right-continuous at breakpoints', () => {
    expect(f.valueAt(-0.001)).toBe(10);
    expect(f.valueAt(0)).toBe(5);
    expect(f.valueAt(9.999)).toBe(5);
    expect(f.valueAt(10)).toBe(-2);
    expect(f.valueAt(20)).toBe(7);
  });

  it('handles infinite arguments', () => {
    expect(f.valueAt(-Infinity)).toBe(10);
    expect(f.valueAt(Infinity)).toBe(7);
  });

  it('rejects NaN', () => {
    expect(() => f.valueAt(NaN)).toThrow(RangeError);
  });

  it('agrees with a linear scan on a large function', () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({ t: i * 3, v: i % 7 }));
    const g = StepFunction.fromSteps(-1, steps);
    const norm = g.steps();
    const linear = (t: number): number => {
      let v = g.initial;
      for (const s of norm) if (s.t <= t) v = s.v;
      return v;
    };
    for (let t = -2; t < 3005; t += 0.5) expect(g.valueAt(t)).toBe(linear(t));
  });
});

describe('StepFunction algebra', () => {
  const a = sf(1, [0, 3], [10, 0]);
  const b = sf(2, [5, -1], [10, 4], [15, 2]);

  it('plus merges breakpoints', () => {
    // (-inf,0): 1+2=3, [0,5): 3+2=5, [5,10): 3-1=2, [10,15): 0+4=4, [15,inf): 0+2=2
    expect(a.plus(b).initial).toBe(3);
    expect(pairs(a.plus(b))).toEqual([
      [0, 5],
      [5, 2],
      [10, 4],
      [15, 2],
    ]);
  });

  it('plus with breakpoints at the same times', () => {
    const c = sf(0, [1, 1], [2, 2]);
    const d = sf(0, [1, 10], [2, 20]);
    expect(pairs(c.plus(d))).toEqual([
      [1, 11],
      [2, 22],
    ]);
  });

  it('plus normalises cancelling steps', () => {
    // +1 on [1,3) and -1 on [1,3) cancel exactly.
    const c = StepFunction.interval(1, 3, 1);
    const d = StepFunction.interval(1, 3, -1);
    const s = c.plus(d);
    expect(s.breakpoints).toBe(0);
    expect(s.equals(StepFunction.constant(0))).toBe(true);
  });

  it('plus normalises a step that meets the other at the same time', () => {
    // [0,2) value 1 and [2,4) value 1 touch: sum is 1 on [0,4) with no breakpoint at 2.
    const s = StepFunction.interval(0, 2, 1).plus(StepFunction.interval(2, 4, 1));
    expect(pairs(s)).toEqual([
      [0, 1],
      [4, 0],
    ]);
  });

  it('plus with a constant', () => {
    expect(pairs(a.plus(StepFunction.constant(2)))).toEqual([
      [0, 5],
      [10, 2],
    ]);
    expect(a.plus(StepFunction.constant(2)).initial).toBe(3);
    expect(a.plus(StepFunction.constant(0)).equals(a)).toBe(true);
    expect(StepFunction.constant(0).plus(a).equals(a)).toBe(true);
    expect(StepFunction.constant(1).plus(StepFunction.constant(2)).equals(StepFunction.constant(3))).toBe(true);
  });

  it('minus', () => {
    // (-inf,0): 1-2=-1, [0,5): 3-2=1, [5,10): 3+1=4, [10,15): 0-4=-4, [15,inf): 0-2=-2
    const d = a.minus(b);
    expect(d.initial).toBe(-1);
    expect(pairs(d)).toEqual([
      [0, 1],
      [5, 4],
      [10, -4],
      [15, -2],
    ]);
    expect(a.minus(a).equals(StepFunction.constant(0))).toBe(true);
    expect(StepFunction.constant(0).minus(a).equals(a.scale(-1))).toBe(true);
  });

  it('minus of infinities is rejected rather than producing NaN', () => {
    const inf = StepFunction.constant(Infinity);
    expect(() => inf.minus(inf)).toThrow(RangeError);
  });

  it('scale', () => {
    expect(pairs(a.scale(2))).toEqual([
      [0, 6],
      [10, 0],
    ]);
    expect(a.scale(2).initial).toBe(2);
    expect(a.scale(1)).toBe(a);
    expect(a.scale(0).equals(StepFunction.constant(0))).toBe(true);
    expect(a.scale(0).breakpoints).toBe(0);
    expect(() => a.scale(NaN)).toThrow(RangeError);
  });

  it('scale(-1) of zero gives +0, not -0', () => {
    const z = StepFunction.interval(0, 1, 1).scale(-1);
    expect(Object.is(z.initial, 0)).toBe(true);
    expect(Object.is(z.valueAt(5), 0)).toBe(true);
  });

  it('map applies to every piece and normalises', () => {
    const f = sf(0, [1, 1], [2, 2], [3, 3]);
    const g = f.map((v) => (v >= 2 ? 1 : 0));
    expect(pairs(g)).toEqual([[2, 1]]);
    expect(() => f.map(() => NaN)).toThrow(RangeError);
  });

  it('combine applies an arbitrary function over the merged breakpoints', () => {
    // a*b: (-inf,0): 2, [0,5): 6, [5,10): -3, [10,15): 0, [15,inf): 0
    const p = a.combine(b, (x, y) => x * y);
    expect(p.initial).toBe(2);
    expect(pairs(p)).toEqual([
      [0, 6],
      [5, -3],
      [10, 0],
    ]);
    expect(() => a.combine(b, () => NaN)).toThrow(RangeError);
  });

  it('combine of two constants', () => {
    const c = StepFunction.constant(2).combine(StepFunction.constant(5), (x, y) => x * y);
    expect(c.equals(StepFunction.constant(10))).toBe(true);
  });

  it('pointwiseMin and pointwiseMax', () => {
    // min: (-inf,0): 1, [0,5): 2, [5,10): -1, [10,15): 0, [15,inf): 0
    expect(a.pointwiseMin(b).initial).toBe(1);
    expect(pairs(a.pointwiseMin(b))).toEqual([
      [0, 2],
      [5, -1],
      [10, 0],
    ]);
    // max: (-inf,0): 2, [0,5): 3, [5,10): 3, [10,15): 4, [15,inf): 2
    expect(a.pointwiseMax(b).initial).toBe(2);
    expect(pairs(a.pointwiseMax(b))).toEqual([
      [0, 3],
      [10, 4],
      [15, 2],
    ]);
  });

  it('operations do not mutate their operands', () => {
    const before = [pairs(a), pairs(b)];
    a.plus(b);
    a.minus(b);
    a.scale(3);
    a.addInterval(0, 5, 1);
    a.truncateBefore(5);
    expect([pairs(a), pairs(b)]).toEqual(before);
  });

  it('sum of an empty list is 0', () => {
    expect(StepFunction.sum([]).equals(StepFunction.constant(0))).toBe(true);
  });

  it('sum of one function is that function', () => {
    expect(StepFunction.sum([a]).equals(a)).toBe(true);
  });

  it('sum counts overlapping intervals', () => {
    const s = StepFunction.sum([
      StepFunction.interval(0, 10, 1),
      StepFunction.interval(5, 15, 1),
      StepFunction.interval(10, 20, 1),
      StepFunction.interval(5, Infinity, 2),
      StepFunction.constant(1),
    ]);
    // [0,5): 1+1=2, [5,10): 1+1+2+1=5, [10,15): 1+1+2+1=5 (merged), [15,20): 1+2+1=4, [20,inf): 2+1=3
    expect(s.initial).toBe(1);
    expect(pairs(s)).toEqual([
      [0, 2],
      [5, 5],
      [15, 4],
      [20, 3],
    ]);
  });

  it('sum agrees with repeated plus', () => {
    const list = Array.from({ length: 9 }, (_, i) => StepFunction.interval(i, i + 4, i + 1));
    let acc = StepFunction.constant(0);
    for (const f of list) acc = acc.plus(f);
    expect(StepFunction.sum(list).equals(acc)).toBe(true);
  });
});

describe('StepFunction.addInterval', () => {
  it('on a constant', () => {
    const f = StepFunction.constant(5).addInterval(2, 4, -3);
    expect(f.initial).toBe(5);
    expect(pairs(f)).toEqual([
      [2, 2],
      [4, 5],
    ]);
  });

  it('to Infinity', () => {
    const f = StepFunction.constant(5).addInterval(2, Infinity, 1);
    expect(pairs(f)).toEqual([[2, 6]]);
  });

  it('over existing breakpoints inside, at and around the interval', () => {
    const f = sf(0, [1, 1], [2, 2], [3, 3], [4, 4], [5, 5]);
    // add 10 on [2, 4): breakpoints at 2 and 3 shift, 4 resumes the original.
    expect(pairs(f.addInterval(2, 4, 10))).toEqual([
      [1, 1],
      [2, 12],
      [3, 13],
      [4, 4],
      [5, 5],
    ]);
    // add 10 on [1.5, 4.5): new breakpoint at 1.5 (1+10) and at 4.5 (back to 4).
    expect(pairs(f.addInterval(1.5, 4.5, 10))).toEqual([
      [1, 1],
      [1.5, 11],
      [2, 12],
      [3, 13],
      [4, 14],
      [4.5, 4],
      [5, 5],
    ]);
  });

  it('before and after every breakpoint', () => {
    const f = sf(0, [10, 1]);
    expect(pairs(f.addInterval(0, 5, 2))).toEqual([
      [0, 2],
      [5, 0],
      [10, 1],
    ]);
    expect(pairs(f.addInterval(20, 30, 2))).toEqual([
      [10, 1],
      [20, 3],
      [30, 1],
    ]);
  });

  it('normalises: filling a dip removes its breakpoints', () => {
    const f = sf(3, [2, 1], [4, 3]);
    const g = f.addInterval(2, 4, 2);
    expect(g.breakpoints).toBe(0);
    expect(g.equals(StepFunction.constant(3))).toBe(true);
  });

  it('normalises: an addition that meets an adjacent equal step merges with it', () => {
    // f = 1 on [0,2), 0 elsewhere; adding 1 on [2,4) gives 1 on [0,4).
    const g = StepFunction.interval(0, 2, 1).addInterval(2, 4, 1);
    expect(pairs(g)).toEqual([
      [0, 1],
      [4, 0],
    ]);
    // and adding 1 on [-2,0) on the left as well.
    expect(pairs(g.addInterval(-2, 0, 1))).toEqual([
      [-2, 1],
      [4, 0],
    ]);
  });

  it('agrees with plus(interval)', () => {
    const f = sf(2, [0, 4], [3, 1], [7, 6], [9, 2]);
    const cases: Array<[number, number, number]> = [
      [-5, -1, 1],
      [-5, 0, 1],
      [0, 3, -1],
      [1, 8, 2],
      [3, 9, 5],
      [9, Infinity, -2],
      [10, 11, 3],
      [0, Infinity, 1],
    ];
    for (const [t0, t1, d] of cases) {
      expect(f.addInterval(t0, t1, d).equals(f.plus(StepFunction.interval(t0, t1, d)))).toBe(true);
    }
  });

  it('delta 0 returns an equal function', () => {
    const f = sf(2, [0, 4]);
    expect(f.addInterval(1, 2, 0).equals(f)).toBe(true);
  });

  it('validates', () => {
    const f = StepFunction.constant(0);
    expect(() => f.addInterval(2, 2, 1)).toThrow(RangeError);
    expect(() => f.addInterval(3, 2, 1)).toThrow(RangeError);
    expect(() => f.addInterval(-Infinity, 2, 1)).toThrow(RangeError);
    expect(() => f.addInterval(0, 2, NaN)).toThrow(RangeError);
    expect(() => StepFunction.constant(Infinity).addInterval(0, 2, -Infinity)).toThrow(RangeError);
  });
});

describe('StepFunction.maxOver / minOver', () => {
  const f = sf(0, [0, 5], [10, 2], [20, 8], [30, 1]);

  it('half-open: the breakpoint at t1 is excluded, the one at t0 included', () => {
    expect(f.maxOver(10, 20)).toBe(2);
    expect(f.minOver(10, 20)).toBe(2);
    expect(f.maxOver(0, 10)).toBe(5);
    expect(f.maxOver(0, 20.0001)).toBe(8);
    expect(f.minOver(20, 30)).toBe(8);
    expect(f.minOver(20, 30.5)).toBe(1);
  });

  it('uses the value in force at t0 when t0 is between breakpoints', () => {
    expect(f.maxOver(5, 6)).toBe(5);
    expect(f.minOver(15, 25)).toBe(2);
    expect(f.maxOver(15, 25)).toBe(8);
  });

  it('before the first breakpoint uses the initial value', () => {
    expect(f.maxOver(-10, -5)).toBe(0);
    expect(f.minOver(-10, 0)).toBe(0);
    expect(f.maxOver(-10, 0)).toBe(0);
    expect(f.maxOver(-10, 1)).toBe(5);
  });

  it('with Infinity bounds', () => {
    expect(f.maxOver(0, Infinity)).toBe(8);
    expect(f.minOver(0, Infinity)).toBe(1);
    expect(f.minOver(-Infinity, Infinity)).toBe(0);
    expect(f.maxOver(-Infinity, 0)).toBe(0);
    expect(f.maxOver(100, Infinity)).toBe(1);
  });

  it('on a constant', () => {
    const c = StepFunction.constant(-4);
    expect(c.maxOver(0, 1)).toBe(-4);
    expect(c.minOver(-Infinity, Infinity)).toBe(-4);
  });

  it('with negative values', () => {
    const g = sf(-1, [0, -5], [1, -3]);
    expect(g.minOver(-1, 2)).toBe(-5);
    expect(g.maxOver(0, 2)).toBe(-3);
  });

  it('rejects empty or inverted intervals and NaN', () => {
    expect(() => f.maxOver(5, 5)).toThrow(RangeError);
    expect(() => f.minOver(6, 5)).toThrow(RangeError);
    expect(() => f.maxOver(Infinity, Infinity)).toThrow(RangeError);
    expect(() => f.maxOver(NaN, 5)).toThrow(RangeError);
    expect(() => f.minOver(0, NaN)).toThrow(RangeError);
  });
});

describe('StepFunction.integral', () => {
  const f = sf(1, [0, 3], [10, -2], [20, 0]);

  it('on pieces', () => {
    // [0,10): 3*10 = 30
    expect(f.integral(0, 10)).toBe(30);
    // [-5,0): 1*5 = 5; [0,10): 30; [10,15): -2*5 = -10 => 25
    expect(f.integral(-5, 15)).toBe(25);
    // [2,4): 3*2 = 6
    expect(f.integral(2, 4)).toBe(6);
    // [15,20): -2*5 = -10; [20,100): 0 => -10
    expect(f.integral(15, 100)).toBe(-10);
    // exactly at t1 = breakpoint: [5,20) = 3*5 + -2*10 = -5
    expect(f.integral(5, 20)).toBe(-5);
  });

  it('is additive over adjacent intervals', () => {
    expect(f.integral(-3, 7) + f.integral(7, 25)).toBe(f.integral(-3, 25));
  });

  it('of a constant', () => {
    expect(StepFunction.constant(2.5).integral(-2, 2)).toBe(10);
    expect(StepFunction.constant(0).integral(-1e9, 1e9)).toBe(0);
  });

  it('over an empty interval is 0', () => {
    expect(f.integral(3, 3)).toBe(0);
  });

  it('requires finite, ordered bounds', () => {
    expect(() => f.integral(0, Infinity)).toThrow(RangeError);
    expect(() => f.integral(-Infinity, 0)).toThrow(RangeError);
    expect(() => f.integral(NaN, 0)).toThrow(RangeError);
    expect(() => f.integral(5, 4)).toThrow(RangeError);
  });
});

describe('StepFunction.earliestFit', () => {
  // Availability: 4 until 10, a dip to 1 on [10,20), 4 on [20,30), 2 on [30,40), 8 from 40.
  const avail = sf(4, [10, 1], [20, 4], [30, 2], [40, 8]);

  it('fits immediately when the window is clear', () => {
    expect(avail.earliestFit(0, 5, 3)).toBe(0);
    expect(avail.earliestFit(-100, 50, 1)).toBe(-100);
  });

  it('exactly-fitting window ending at a dip (half-open)', () => {
    // [5, 10) needs 4 and the dip starts at 10: fits.
    expect(avail.earliestFit(5, 5, 4)).toBe(5);
    // [20, 30) exactly fills the plateau.
    expect(avail.earliestFit(11, 10, 4)).toBe(20);
  });

  it('window straddling a dip restarts after it', () => {
    // From 5, 6 seconds would overlap the dip at 10: next start is 20, [20,26) fits.
    expect(avail.earliestFit(5, 6, 3)).toBe(20);
    // 11 seconds from 20 hits the 2 at 30 -> restart at 40 (8 forever).
    expect(avail.earliestFit(0, 11, 3)).toBe(40);
  });

  it('need low enough to ride over the dips', () => {
    expect(avail.earliestFit(0, 1000, 1)).toBe(0);
    expect(avail.earliestFit(15, 1000, 2)).toBe(20);
  });

  it('start inside a dip waits for the recovery', () => {
    expect(avail.earliestFit(12, 1, 3)).toBe(20);
    // at a breakpoint exactly
    expect(avail.earliestFit(20, 1, 4)).toBe(20);
    expect(avail.earliestFit(10, 1, 2)).toBe(20);
  });

  it('infinite duration', () => {
    expect(avail.earliestFit(0, Infinity, 3)).toBe(40);
    expect(avail.earliestFit(0, Infinity, 1)).toBe(0);
    expect(avail.earliestFit(0, Infinity, 8)).toBe(40);
    expect(avail.earliestFit(50, Infinity, 8)).toBe(50);
  });

  it('never fits', () => {
    expect(avail.earliestFit(0, 1, 9)).toBe(Infinity);
    expect(sf(5, [0, 0]).earliestFit(-10, 20, 1)).toBe(Infinity);
    // ends low forever: a long enough job never fits
    expect(sf(5, [100, 0]).earliestFit(0, 101, 1)).toBe(Infinity);
    expect(sf(5, [100, 0]).earliestFit(0, 100, 1)).toBe(0);
    expect(sf(5, [100, 0]).earliestFit(0, Infinity, 1)).toBe(Infinity);
  });

  it('need <= 0 fits immediately on a non-negative profile', () => {
    expect(avail.earliestFit(3, 100, 0)).toBe(3);
    expect(avail.earliestFit(3, Infinity, -5)).toBe(3);
  });

  it('need <= 0 still respects negative (overcommitted) values', () => {
    const g = sf(0, [10, -2], [15, 0]);
    expect(g.earliestFit(0, 20, 0)).toBe(15);
    expect(g.earliestFit(0, 20, -2)).toBe(0);
  });

  it('duration 0 is an empty window and fits at from', () => {
    expect(avail.earliestFit(12, 0, 3)).toBe(12);
    expect(avail.earliestFit(12, 0, 100)).toBe(12);
  });

  it('on constants', () => {
    expect(StepFunction.constant(4).earliestFit(7, 100, 4)).toBe(7);
    expect(StepFunction.constant(4).earliestFit(7, 100, 5)).toBe(Infinity);
  });

  it('several consecutive dips and a tight gap', () => {
    // 10 everywhere except dips on [1,2), [3,4), [6,7); need 5 for 2 seconds: first gap of length >= 2 is [4,6).
    const g = sf(10, [1, 0], [2, 10], [3, 0], [4, 10], [6, 0], [7, 10]);
    expect(g.earliestFit(0, 2, 5)).toBe(4);
    expect(g.earliestFit(0, 1, 5)).toBe(0);
    expect(g.earliestFit(0, 3, 5)).toBe(7);
    expect(g.earliestFit(0.5, 1, 5)).toBe(2);
  });

  it('a rising step within the window does not break the fit', () => {
    const g = sf(3, [5, 4], [6, 6]);
    expect(g.earliestFit(0, 10, 3)).toBe(0);
  });

  it('validates', () => {
    expect(() => avail.earliestFit(NaN, 1, 1)).toThrow(RangeError);
    expect(() => avail.earliestFit(-Infinity, 1, 1)).toThrow(RangeError);
    expect(() => avail.earliestFit(0, -1, 1)).toThrow(RangeError);
    expect(() => avail.earliestFit(0, NaN, 1)).toThrow(RangeError);
    expect(() => avail.earliestFit(0, 1, NaN)).toThrow(RangeError);
  });
});

describe('StepFunction.firstTimeBelow', () => {
  const f = sf(5, [10, 3], [20, 1], [30, 6]);

  it('returns from when already below', () => {
    expect(f.firstTimeBelow(12, 4)).toBe(12);
    expect(f.firstTimeBelow(10, 4)).toBe(10);
  });

  it('returns the first breakpoint dropping below', () => {
    expect(f.firstTimeBelow(0, 4)).toBe(10);
    expect(f.firstTimeBelow(0, 2)).toBe(20);
    expect(f.firstTimeBelow(-Infinity, 2)).toBe(20);
  });

  it('threshold is strict', () => {
    expect(f.firstTimeBelow(0, 3)).toBe(20);
    expect(f.firstTimeBelow(0, 1)).toBe(Infinity);
  });

  it('returns Infinity when it never drops', () => {
    expect(f.firstTimeBelow(30, 6)).toBe(Infinity);
    expect(StepFunction.constant(1).firstTimeBelow(0, 1)).toBe(Infinity);
    expect(StepFunction.constant(1).firstTimeBelow(0, 2)).toBe(0);
  });

  it('validates', () => {
    expect(() => f.firstTimeBelow(NaN, 1)).toThrow(RangeError);
    expect(() => f.firstTimeBelow(0, NaN)).toThrow(RangeError);
  });
});

describe('StepFunction.firstTimeAtLeast', () => {
  const f = sf(1, [10, 3], [20, 0], [30, 6]);

  it('returns from when already at the threshold, else the first breakpoint reaching it', () => {
    expect(f.firstTimeAtLeast(12, 3)).toBe(12);
    expect(f.firstTimeAtLeast(0, 3)).toBe(10);
    expect(f.firstTimeAtLeast(20, 3)).toBe(30);
    expect(f.firstTimeAtLeast(-Infinity, 1)).toBe(-Infinity);
    expect(f.firstTimeAtLeast(0, 6)).toBe(30);
  });

  it('returns Infinity when it never reaches the threshold', () => {
    expect(f.firstTimeAtLeast(0, 7)).toBe(Infinity);
    expect(StepFunction.constant(1).firstTimeAtLeast(0, 2)).toBe(Infinity);
  });

  it('validates', () => {
    expect(() => f.firstTimeAtLeast(NaN, 1)).toThrow(RangeError);
    expect(() => f.firstTimeAtLeast(0, NaN)).toThrow(RangeError);
  });
});

describe('StepFunction.truncateBefore', () => {
  const f = sf(0, [0, 1], [10, 2], [20, 3]);

  it('drops history before t and keeps the value at t', () => {
    const g = f.truncateBefore(15);
    expect(g.initial).toBe(2);
    expect(pairs(g)).toEqual([[20, 3]]);
    for (const t of [15, 19.9, 20, 100]) expect(g.valueAt(t)).toBe(f.valueAt(t));
  });

  it('a breakpoint exactly at t becomes the initial value', () => {
    const g = f.truncateBefore(10);
    expect(g.initial).toBe(2);
    expect(pairs(g)).toEqual([[20, 3]]);
  });

  it('before every breakpoint is a no-op', () => {
    expect(f.truncateBefore(-5).equals(f)).toBe(true);
    expect(f.truncateBefore(-Infinity).equals(f)).toBe(true);
  });

  it('after every breakpoint is a constant', () => {
    expect(f.truncateBefore(50).equals(StepFunction.constant(3))).toBe(true);
    expect(f.truncateBefore(Infinity).equals(StepFunction.constant(3))).toBe(true);
  });

  it('rejects NaN', () => {
    expect(() => f.truncateBefore(NaN)).toThrow(RangeError);
  });
});

describe('StepFunction.equals and normalisation', () => {
  it('equal functions built differently are equal', () => {
    const x = sf(0, [1, 1], [2, 1], [3, 0]);
    const y = StepFunction.interval(1, 3, 1);
    expect(x.equals(y)).toBe(true);
    expect(y.equals(x)).toBe(true);
  });

  it('differs on initial, time or value', () => {
    const x = sf(0, [1, 1]);
    expect(x.equals(sf(1, [1, 1]))).toBe(false);
    expect(x.equals(sf(0, [2, 1]))).toBe(false);
    expect(x.equals(sf(0, [1, 2]))).toBe(false);
    expect(x.equals(sf(0, [1, 1], [2, 2]))).toBe(false);
    expect(x.equals(StepFunction.constant(0))).toBe(false);
  });

  it('with eps tolerates small value differences, including extra tiny steps', () => {
    const x = sf(0, [1, 1]);
    const y = sf(1e-12, [1, 1 + 1e-12], [2, 1]);
    expect(x.equals(y)).toBe(false);
    expect(x.equals(y, 1e-9)).toBe(true);
    expect(y.equals(x, 1e-9)).toBe(true);
    expect(x.equals(sf(0, [1, 1.1]), 1e-9)).toBe(false);
  });

  it('with eps still distinguishes shifted breakpoints', () => {
    expect(sf(0, [1, 1]).equals(sf(0, [1.5, 1]), 0.5)).toBe(false);
    expect(sf(0, [1, 1]).equals(sf(0, [1.5, 1]), 1)).toBe(true);
  });

  it('with eps handles infinite values', () => {
    const x = sf(0, [1, Infinity]);
    expect(x.equals(sf(0, [1, Infinity]), 1e-9)).toBe(true);
    expect(x.equals(sf(0, [1, 1e300]), 1e-9)).toBe(false);
  });

  it('rejects a negative or NaN eps', () => {
    expect(() => StepFunction.constant(0).equals(StepFunction.constant(0), -1)).toThrow(RangeError);
    expect(() => StepFunction.constant(0).equals(StepFunction.constant(0), NaN)).toThrow(RangeError);
  });

  it('no operation leaves redundant breakpoints', () => {
    const fns = [
      sf(0, [0, 1], [1, 1], [2, 0]),
      StepFunction.interval(0, 1, 1).plus(StepFunction.interval(1, 2, 1)),
      sf(0, [0, 1], [1, 2]).map(() => 5),
      sf(0, [0, 1], [1, 2]).pointwiseMin(StepFunction.constant(1)),
      sf(0, [0, 2], [1, 3]).pointwiseMax(StepFunction.constant(5)),
      sf(1, [0, 2], [1, 1]).addInterval(0, 1, -1),
      StepFunction.sum([StepFunction.interval(0, 1, 1), StepFunction.interval(1, 2, 1)]),
    ];
    for (const f of fns) {
      let prev = f.initial;
      for (const s of f.steps()) {
        expect(s.v).not.toBe(prev);
        prev = s.v;
      }
    }
  });
});

describe('StepFunction.toString', () => {
  it('shows initial value and breakpoints', () => {
    expect(StepFunction.constant(3).toString()).toBe('StepFunction(3)');
    expect(sf(0, [1, 2], [5, 0]).toString()).toBe('StepFunction(0; 1→2, 5→0)');
  });
});

describe('StepRecorder', () => {
  it('starts empty', () => {
    const r = new StepRecorder();
    expect(r.current).toBe(0);
    expect(r.lastTime).toBe(-Infinity);
    expect(r.toStepFunction().equals(StepFunction.constant(0))).toBe(true);
    expect(new StepRecorder(4).toStepFunction().equals(StepFunction.constant(4))).toBe(true);
  });

  it('records appended steps', () => {
    const r = new StepRecorder(1);
    r.set(0, 3);
    r.set(5, 2);
    r.add(7, 4);
    expect(r.current).toBe(6);
    expect(r.lastTime).toBe(7);
    expect(r.toStepFunction().equals(sf(1, [0, 3], [5, 2], [7, 6]))).toBe(true);
  });

  it('skips equal values', () => {
    const r = new StepRecorder();
    r.set(0, 0);
    r.set(1, 2);
    r.set(2, 2);
    r.add(3, 0);
    expect(pairs(r.toStepFunction())).toEqual([[1, 2]]);
    expect(r.lastTime).toBe(3);
  });

  it('same time overwrites; restoring the previous value removes the breakpoint', () => {
    const r = new StepRecorder();
    r.set(1, 2);
    r.set(1, 3);
    expect(pairs(r.toStepFunction())).toEqual([[1, 3]]);
    r.set(1, 0);
    expect(r.toStepFunction().breakpoints).toBe(0);
    r.set(1, 5);
    r.set(2, 7);
    r.set(2, 5);
    expect(pairs(r.toStepFunction())).toEqual([[1, 5]]);
  });

  it('add at the same time accumulates', () => {
    const r = new StepRecorder();
    r.add(1, 2);
    r.add(1, 3);
    r.add(1, -1);
    expect(pairs(r.toStepFunction())).toEqual([[1, 4]]);
  });

  it('rejects going back in time, even after a skipped set', () => {
    const r = new StepRecorder();
    r.set(5, 1);
    expect(() => r.set(4, 2)).toThrow(RangeError);
    r.set(8, 1); // equal value: skipped, but time still advances
    expect(() => r.set(6, 3)).toThrow(RangeError);
  });

  it('validates', () => {
    expect(() => new StepRecorder(NaN)).toThrow(RangeError);
    const r = new StepRecorder();
    expect(() => r.set(NaN, 1)).toThrow(RangeError);
    expect(() => r.set(Infinity, 1)).toThrow(RangeError);
    expect(() => r.set(0, NaN)).toThrow(RangeError);
    expect(() => r.add(0, NaN)).toThrow(RangeError);
  });

  it('snapshots share nothing with later appends', () => {
    const r = new StepRecorder();
    r.set(1, 1);
    const snap = r.toStepFunction();
    r.set(2, 2);
    r.set(2, 3); // overwrite in place must not reach the snapshot either
    r.set(3, 0);
    expect(pairs(snap)).toEqual([[1, 1]]);
    const snap2 = r.toStepFunction();
    r.set(3, 9);
    expect(pairs(snap2)).toEqual([
      [1, 1],
      [2, 3],
      [3, 0],
    ]);
    expect(pairs(r.toStepFunction())).toEqual([
      [1, 1],
      [2, 3],
      [3, 9],
    ]);
  });

  it('an in-place overwrite after a snapshot does not alter it', () => {
    const r = new StepRecorder();
    r.set(1, 1);
    const snap = r.toStepFunction();
    r.set(1, 5);
    expect(pairs(snap)).toEqual([[1, 1]]);
    expect(pairs(r.toStepFunction())).toEqual([[1, 5]]);
  });

  it('handles long histories', () => {
    const r = new StepRecorder();
    const steps: Array<{ t: number; v: number }> = [];
    for (let i = 0; i < 100_000; i++) {
      r.set(i, i % 3);
      steps.push({ t: i, v: i % 3 });
    }
    expect(r.toStepFunction().equals(StepFunction.fromSteps(0, steps))).toBe(true);
    expect(r.toStepFunction().breakpoints).toBe(99_999);
  });
});
