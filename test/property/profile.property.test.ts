import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addRect, profileOfRects } from '../../core/time/profile.js';
import { StepFunction, StepRecorder } from '../../core/time/step-function.js';

// The builders of core/time/profile.ts must give exactly (Object.is on every number) what their first, plainer
// versions gave: those are kept here as the reference. Fractional values make the order of the floating-point sums
// visible; few distinct times make ties, -0 and 0 included, frequent.

function referenceProfileOfRects(rects: readonly number[]): StepFunction {
  let initial = 0;
  const events: Array<{ t: number; d: number }> = [];
  for (let i = 0; i < rects.length; i += 3) {
    const v = rects[i + 2]!;
    if (v === 0) continue;
    if (rects[i]! === -Infinity) initial += v;
    else events.push({ t: rects[i]!, d: v });
    if (rects[i + 1]! !== Infinity) events.push({ t: rects[i + 1]!, d: -v });
  }
  events.sort((a, b) => a.t - b.t);
  const out = new StepRecorder(initial);
  let level = initial;
  for (let i = 0; i < events.length;) {
    const t = events[i]!.t;
    for (; i < events.length && events[i]!.t === t; i++) level += events[i]!.d;
    out.set(t, level);
  }
  return out.toStepFunction();
}

function referenceAddRect(f: StepFunction, t0: number, t1: number, v: number, from: number): StepFunction {
  if (v === 0 || t0 === Infinity || !(t1 > t0) || !(t1 > from)) return f;
  if (t0 > from) return f.addInterval(t0, t1, v);
  const shifted = f.map((x) => x + v);
  return t1 === Infinity ? shifted : shifted.addInterval(t1, Infinity, -v);
}

function representation(f: StepFunction): { initial: number; times: number[]; values: number[] } {
  return { initial: f.initial, times: [...f.times], values: [...f.values] };
}

function expectSame(actual: StepFunction, expected: StepFunction): void {
  const a = representation(actual);
  const e = representation(expected);
  expect(Object.is(a.initial, e.initial)).toBe(true);
  expect(a.times.length).toBe(e.times.length);
  for (let i = 0; i < a.times.length; i++) {
    expect(Object.is(a.times[i], e.times[i])).toBe(true);
    expect(Object.is(a.values[i], e.values[i])).toBe(true);
  }
}

const timeArb = fc.oneof(
  fc.integer({ min: -6, max: 6 }),
  fc.constant(-0),
  fc.integer({ min: -12, max: 12 }).map((k) => k / 4),
);
const valueArb = fc.oneof(fc.integer({ min: -4, max: 4 }), fc.constantFrom(0.1, 0.2, 0.3, 1e16, -1e16, 1 / 3, -0.7));
const rectArb = fc
  .record({ a: timeArb, w: fc.integer({ min: 1, max: 6 }), v: valueArb, open: fc.nat(5) })
  .map(({ a, w, v, open }) => [open === 0 ? -Infinity : a, open === 1 ? Infinity : a + w, v] as const);
const rectsArb = fc.array(rectArb, { maxLength: 40 }).map((list) => list.flat());

describe('profileOfRects', () => {
  it('gives exactly what the sort of event objects gave', () => {
    fc.assert(
      fc.property(rectsArb, (rects) => expectSame(profileOfRects(rects), referenceProfileOfRects(rects))),
      { numRuns: 500 },
    );
  });

  it('a small call after a large one reads nothing left over from it', () => {
    const large: number[] = [];
    for (let i = 0; i < 500; i++) large.push(i % 37, (i % 37) + 1 + (i % 5), 0.1 * (i % 7) + 1);
    expectSame(profileOfRects(large), referenceProfileOfRects(large));
    const small = [3, 5, 2, 4, 9, 1];
    expectSame(profileOfRects(small), referenceProfileOfRects(small));
  });

  it('keeps the time the earlier rectangle gave when -0 and 0 meet', () => {
    expect(Object.is(profileOfRects([-0, 1, 1, 0, 2, 1]).times[0], -0)).toBe(true);
    expect(Object.is(profileOfRects([0, 1, 1, -0, 2, 1]).times[0], 0)).toBe(true);
  });

  it('names the rectangle whose time cannot be a breakpoint, and a NaN sum', () => {
    expect(() => profileOfRects([0, 1, 1, NaN, 2, 1])).toThrow(/rectangle 1: t0/);
    expect(() => profileOfRects([0, 1, 1, 1, -Infinity, 1])).toThrow(/rectangle 1: t1/);
    expect(() => profileOfRects([0, 1, Infinity, 0, 2, -Infinity])).toThrow(/NaN/);
  });
});

describe('addRect', () => {
  const profileArb = rectsArb.map((rects) => referenceProfileOfRects(rects));
  it('gives exactly what shifting and shifting back gave', () => {
    fc.assert(
      fc.property(profileArb, rectArb, timeArb, (f, [t0, t1, v], from) =>
        expectSame(addRect(f, t0, t1, v, from), referenceAddRect(f, t0, t1, v, from)),
      ),
      { numRuns: 500 },
    );
  });

  it('an infinite amount before a finite end is refused as before', () => {
    const f = StepFunction.constant(3);
    expect(() => addRect(f, -Infinity, 5, Infinity)).toThrow(RangeError);
    expectSame(
      addRect(f, -Infinity, Infinity, Infinity),
      referenceAddRect(f, -Infinity, Infinity, Infinity, -Infinity),
    );
  });
});
