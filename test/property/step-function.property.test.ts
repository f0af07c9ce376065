import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StepFunction, StepRecorder } from '../../core/time/step-function.js';

// Small integer times and values, so that collisions (same-time steps, equal values) are frequent and every
// piece between integer times is constant, which makes brute force over unit cells exact.
interface Raw {
  initial: number;
  steps: Array<{ t: number; v: number }>;
}

const TMIN = -10;
const TMAX = 10;

const rawArb: fc.Arbitrary<Raw> = fc.record({
  initial: fc.integer({ min: -5, max: 5 }),
  steps: fc.array(fc.record({ t: fc.integer({ min: TMIN, max: TMAX }), v: fc.integer({ min: -5, max: 5 }) }), {
    maxLength: 12,
  }),
});

// Probe points: integers, half-integers between them, and the ends of the line.
const probeArb = fc.oneof(
  fc.integer({ min: TMIN - 2, max: TMAX + 2 }),
  fc.integer({ min: 2 * TMIN - 4, max: 2 * TMAX + 4 }).map((k) => k / 2),
  fc.constantFrom(-Infinity, Infinity),
);

// Reference semantics straight from the raw input, independent of the implementation: the value is that of
// the latest-listed step among those with the greatest time <= t.
function refValue(raw: Raw, t: number): number {
  let bestT = -Infinity;
  let v = raw.initial;
  for (const s of raw.steps) {
    if (s.t <= t && s.t >= bestT) {
      bestT = s.t;
      v = s.v;
    }
  }
  return v;
}

function build(raw: Raw): StepFunction {
  return StepFunction.fromSteps(raw.initial, raw.steps);
}

// Every time at which either function can change value.
function stepTimes(...raws: Raw[]): number[] {
  return [...new Set(raws.flatMap((r) => r.steps.map((s) => s.t)))].sort((a, b) => a - b);
}

function isNormalised(f: StepFunction): boolean {
  let prevV = f.initial;
  let prevT = -Infinity;
  for (const s of f.steps()) {
    if (!(s.t > prevT) || s.v === prevV) return false;
    prevT = s.t;
    prevV = s.v;
  }
  return true;
}

describe('StepFunction properties', () => {
  it('fromSteps matches the reference semantics and is normalised', () => {
    fc.assert(
      fc.property(rawArb, fc.array(probeArb, { maxLength: 20 }), (raw, probes) => {
        const f = build(raw);
        expect(isNormalised(f)).toBe(true);
        for (const t of [...probes, ...stepTimes(raw)]) expect(f.valueAt(t)).toBe(refValue(raw, t));
      }),
      { numRuns: 500 },
    );
  });

  it('plus, minus, min, max and combine agree pointwise with valueAt', () => {
    fc.assert(
      fc.property(rawArb, rawArb, fc.array(probeArb, { maxLength: 20 }), (ra, rb, probes) => {
        const a = build(ra);
        const b = build(rb);
        const ops: Array<[StepFunction, (x: number, y: number) => number]> = [
          [a.plus(b), (x, y) => x + y],
          [a.minus(b), (x, y) => x - y],
          [a.pointwiseMin(b), Math.min],
          [a.pointwiseMax(b), Math.max],
          [a.combine(b, (x, y) => x * y), (x, y) => x * y],
        ];
        const times = [...probes, ...stepTimes(ra, rb), ...stepTimes(ra, rb).map((t) => t - 0.5)];
        for (const [f, op] of ops) {
          expect(isNormalised(f)).toBe(true);
          for (const t of times) expect(f.valueAt(t)).toBe(op(refValue(ra, t), refValue(rb, t)) + 0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('plus then minus is the identity, and plus commutes', () => {
    fc.assert(
      fc.property(rawArb, rawArb, (ra, rb) => {
        const a = build(ra);
        const b = build(rb);
        expect(a.plus(b).minus(b).equals(a)).toBe(true);
        expect(a.plus(b).equals(b.plus(a))).toBe(true);
      }),
    );
  });

  it('scale and map agree pointwise', () => {
    fc.assert(
      fc.property(rawArb, fc.integer({ min: -3, max: 3 }), fc.array(probeArb, { maxLength: 20 }), (raw, k, probes) => {
        const f = build(raw);
        const scaled = f.scale(k);
        const mapped = f.map((v) => Math.abs(v) % 3);
        expect(isNormalised(scaled)).toBe(true);
        expect(isNormalised(mapped)).toBe(true);
        for (const t of probes) {
          expect(scaled.valueAt(t)).toBe(refValue(raw, t) * k + 0);
          expect(mapped.valueAt(t)).toBe(Math.abs(refValue(raw, t)) % 3);
        }
      }),
    );
  });

  const intervalArb = fc
    .record({
      t0: fc.integer({ min: TMIN, max: TMAX }),
      len: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constant(Infinity)),
    })
    .map(({ t0, len }) => ({ t0, t1: t0 + len }));

  it('the sum of intervals counts the intervals covering each point', () => {
    fc.assert(
      fc.property(fc.array(intervalArb, { maxLength: 15 }), fc.array(probeArb, { maxLength: 30 }), (ivs, probes) => {
        const s = StepFunction.sum(ivs.map((iv) => StepFunction.interval(iv.t0, iv.t1, 1)));
        expect(isNormalised(s)).toBe(true);
        const times = [...probes, ...ivs.flatMap((iv) => [iv.t0, iv.t1, iv.t0 - 0.5])];
        for (const t of times) {
          // valueAt(Infinity) is the limit at the end of the line: the open-ended intervals.
          if (t === Infinity) {
            expect(s.valueAt(t)).toBe(ivs.filter((iv) => iv.t1 === Infinity).length);
            continue;
          }
          const covering = ivs.filter((iv) => iv.t0 <= t && t < iv.t1).length;
          expect(s.valueAt(t)).toBe(covering);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('sum equals a left fold of plus', () => {
    fc.assert(
      fc.property(fc.array(rawArb, { maxLength: 7 }), (raws) => {
        const fs = raws.map(build);
        const folded = fs.reduce((acc, f) => acc.plus(f), StepFunction.constant(0));
        expect(StepFunction.sum(fs).equals(folded)).toBe(true);
      }),
    );
  });

  it('addInterval equals plus(interval)', () => {
    fc.assert(
      fc.property(rawArb, intervalArb, fc.integer({ min: -4, max: 4 }), (raw, iv, d) => {
        const f = build(raw);
        const got = f.addInterval(iv.t0, iv.t1, d);
        expect(isNormalised(got)).toBe(true);
        expect(got.equals(f.plus(StepFunction.interval(iv.t0, iv.t1, d)))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('addInterval equals plus(interval) on long functions too (copied in bulk past 64 breakpoints)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 60, maxLength: 300 }),
        fc.integer({ min: -5, max: 310 }),
        fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constant(Infinity)),
        fc.integer({ min: -4, max: 4 }),
        fc.boolean(),
        (vs, start, len, d, between) => {
          const f = StepFunction.fromSteps(
            0,
            vs.map((v, t) => ({ t, v })),
          );
          // On a breakpoint or between two.
          const t0 = between ? start + 0.5 : start;
          const got = f.addInterval(t0, start + len, d);
          expect(isNormalised(got)).toBe(true);
          expect(got.equals(f.plus(StepFunction.interval(t0, start + len, d)))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  const queryArb = fc
    .record({
      t0: fc.oneof(fc.integer({ min: TMIN - 2, max: TMAX + 2 }), fc.constant(-Infinity)),
      len: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constant(Infinity)),
    })
    // -Infinity + Infinity would be NaN: the whole line instead.
    .map(({ t0, len }) => ({
      t0,
      t1: t0 === -Infinity && len === Infinity ? Infinity : t0 === -Infinity ? len : t0 + len,
    }));

  it('maxOver and minOver agree with brute force over the breakpoints inside [t0, t1)', () => {
    fc.assert(
      fc.property(rawArb, queryArb, (raw, q) => {
        const f = build(raw);
        const inside = [q.t0, ...stepTimes(raw).filter((t) => q.t0 < t && t < q.t1)].map((t) => refValue(raw, t));
        expect(f.maxOver(q.t0, q.t1)).toBe(Math.max(...inside));
        expect(f.minOver(q.t0, q.t1)).toBe(Math.min(...inside));
      }),
      { numRuns: 500 },
    );
  });

  it('integral equals the brute-force sum over unit cells', () => {
    fc.assert(
      fc.property(
        rawArb,
        fc.integer({ min: TMIN - 3, max: TMAX + 3 }),
        fc.integer({ min: 0, max: 25 }),
        (raw, t0, len) => {
          const f = build(raw);
          let area = 0;
          // Times are integers, so the function is constant on each [k, k+1).
          for (let k = t0; k < t0 + len; k++) area += refValue(raw, k);
          expect(f.integral(t0, t0 + len)).toBe(area);
          // Half-open bounds that cut cells in two: half the cell at each end.
          if (len > 0) {
            const cut = area - refValue(raw, t0) / 2 + refValue(raw, t0 + len) / 2;
            expect(f.integral(t0 + 0.5, t0 + len + 0.5)).toBe(cut);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('earliestFit returns a fitting start with no earlier fitting candidate', () => {
    fc.assert(
      fc.property(
        rawArb,
        fc.oneof(
          fc.integer({ min: TMIN - 2, max: TMAX + 2 }),
          fc.integer({ min: 2 * TMIN, max: 2 * TMAX }).map((k) => k / 2),
        ),
        fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constant(0.5), fc.constant(Infinity)),
        fc.integer({ min: -6, max: 6 }),
        (raw, from, duration, need) => {
          const f = build(raw);
          const times = stepTimes(raw);
          // Brute force: the value at t and at every step time in (t, t + duration) must be >= need.
          const fits = (t: number): boolean =>
            duration === 0 ||
            (refValue(raw, t) >= need &&
              times.filter((s) => t < s && s < t + duration).every((s) => refValue(raw, s) >= need));
          const candidates = [from, ...times.filter((t) => t >= from)];
          const got = f.earliestFit(from, duration, need);
          if (got === Infinity) {
            for (const c of candidates) expect(fits(c)).toBe(false);
          } else {
            expect(got).toBeGreaterThanOrEqual(from);
            expect(candidates).toContain(got);
            expect(fits(got)).toBe(true);
            for (const c of candidates) if (c < got) expect(fits(c)).toBe(false);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('firstTimeBelow agrees with brute force', () => {
    fc.assert(
      fc.property(rawArb, probeArb, fc.integer({ min: -6, max: 6 }), (raw, from, threshold) => {
        const f = build(raw);
        const candidates = [from, ...stepTimes(raw).filter((t) => t > from)];
        const expected = candidates.find((t) => refValue(raw, t) < threshold) ?? Infinity;
        expect(f.firstTimeBelow(from, threshold)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('firstTimeAtLeast agrees with brute force', () => {
    fc.assert(
      fc.property(rawArb, probeArb, fc.integer({ min: -6, max: 6 }), (raw, from, threshold) => {
        const f = build(raw);
        const candidates = [from, ...stepTimes(raw).filter((t) => t > from)];
        const expected = candidates.find((t) => refValue(raw, t) >= threshold) ?? Infinity;
        expect(f.firstTimeAtLeast(from, threshold)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('truncateBefore preserves every value from the cut on and keeps no breakpoint at or before it', () => {
    fc.assert(
      fc.property(rawArb, probeArb, fc.array(probeArb, { maxLength: 20 }), (raw, cut, probes) => {
        const f = build(raw);
        const g = f.truncateBefore(cut);
        expect(isNormalised(g)).toBe(true);
        for (const s of g.steps()) expect(s.t).toBeGreaterThan(cut);
        for (const t of [...probes, ...stepTimes(raw)]) if (t >= cut) expect(g.valueAt(t)).toBe(f.valueAt(t));
      }),
    );
  });

  it('equals is exactly pointwise equality on the probe set', () => {
    fc.assert(
      fc.property(rawArb, rawArb, (ra, rb) => {
        const a = build(ra);
        const b = build(rb);
        const times = [-Infinity, ...stepTimes(ra, rb)];
        const same = times.every((t) => refValue(ra, t) === refValue(rb, t));
        expect(a.equals(b)).toBe(same);
        expect(a.equals(b, 0.5)).toBe(same);
        expect(a.equals(StepFunction.fromSteps(a.initial, a.steps()))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('StepRecorder equals fromSteps on the same time-ordered steps', () => {
    fc.assert(
      fc.property(rawArb, fc.integer({ min: 0, max: 12 }), (raw, snapAt) => {
        // Stable sort keeps the "last wins" order for equal times.
        const ordered = [...raw.steps].sort((a, b) => a.t - b.t);
        const r = new StepRecorder(raw.initial);
        let snap: StepFunction | undefined;
        ordered.forEach((s, i) => {
          if (i === snapAt) snap = r.toStepFunction();
          r.set(s.t, s.v);
        });
        expect(r.toStepFunction().equals(build(raw))).toBe(true);
        expect(isNormalised(r.toStepFunction())).toBe(true);
        expect(r.current).toBe(r.toStepFunction().finalValue);
        // A snapshot taken midway equals the prefix, unaffected by the later appends.
        if (snap !== undefined) {
          expect(snap.equals(StepFunction.fromSteps(raw.initial, ordered.slice(0, snapAt)))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("StepRecorder.integral is its snapshot's integral, over any window", () => {
    fc.assert(
      fc.property(
        rawArb,
        fc.integer({ min: TMIN - 2, max: TMAX + 2 }),
        fc.integer({ min: 0, max: TMAX - TMIN + 4 }),
        (raw, t0, width) => {
          const r = new StepRecorder(raw.initial);
          for (const s of [...raw.steps].sort((a, b) => a.t - b.t)) r.set(s.t, s.v);
          expect(r.integral(t0, t0 + width)).toBe(r.toStepFunction().integral(t0, t0 + width));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('StepRecorder holding thousands of breakpoints (several chunks) equals fromSteps, integral for integral', () => {
    // Times mostly one apart, sometimes repeated (an overwrite, or a pop when the value before comes back).
    const stepsArb = fc.array(fc.tuple(fc.constantFrom(0, 1, 1, 1, 1), fc.integer({ min: 0, max: 3 })), {
      minLength: 14_000,
      maxLength: 20_000,
    });
    fc.assert(
      fc.property(stepsArb, fc.array(fc.tuple(fc.nat(20_000), fc.nat(20_000)), { maxLength: 20 }), (raw, windows) => {
        const r = new StepRecorder(1);
        const steps: Array<{ t: number; v: number }> = [];
        let t = 0;
        for (const [dt, v] of raw) {
          t += dt;
          r.set(t, v);
          steps.push({ t, v });
        }
        const f = StepFunction.fromSteps(1, steps);
        expect(r.toStepFunction().equals(f)).toBe(true);
        expect(r.current).toBe(f.finalValue);
        for (const [a, b] of [[0, t + 1], [-5, 0], ...windows]) {
          const [t0, t1] = a! <= b! ? [a!, b!] : [b!, a!];
          expect(r.integral(t0, t1)).toBe(f.integral(t0, t1));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('StepRecorder drops a chunk whose one breakpoint an overwrite undoes', () => {
    const r = new StepRecorder(0);
    const steps: Array<{ t: number; v: number }> = [];
    const record = (t: number, v: number) => {
      r.set(t, v);
      steps.push({ t, v });
    };
    for (let t = 0; t < 4096; t++) record(t, t % 2 === 0 ? 1 : 2); // one chunk, full
    record(5000, 7); // the next chunk's first breakpoint
    record(5000, 2); // the value before it again: no breakpoint at 5000, no second chunk
    record(5001, 3);
    record(5002, 2);
    const f = StepFunction.fromSteps(0, steps);
    expect(r.toStepFunction().equals(f)).toBe(true);
    expect(r.integral(4000, 6000)).toBe(f.integral(4000, 6000));
    expect(() => r.integral(2, 1)).toThrow(RangeError);
  });

  it('StepRecorder.add accumulates deltas like a sum of open-ended intervals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ t: fc.integer({ min: TMIN, max: TMAX }), d: fc.integer({ min: -3, max: 3 }) }), {
          maxLength: 15,
        }),
        (deltas) => {
          const ordered = [...deltas].sort((a, b) => a.t - b.t);
          const r = new StepRecorder();
          for (const { t, d } of ordered) r.add(t, d);
          const expected = StepFunction.sum(ordered.map(({ t, d }) => StepFunction.interval(t, Infinity, d)));
          expect(r.toStepFunction().equals(expected)).toBe(true);
        },
      ),
    );
  });
});
