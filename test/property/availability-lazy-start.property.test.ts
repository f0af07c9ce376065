// A lazy plan (a constant capacity, every reservation starting by now: core/plan/availability.ts) answers
// earliestStart for a request that fits at its first time without building its profile. Property: on such a plan,
// with its holdings given as a list or kept by the caller, every earliestStart (and earliestStartWithout, which falls
// back to it) is the start the built profile's search finds, asked of a twin plan whose profile was built first; and
// the plan answers later questions as its twin does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AvailabilityProfile, type Holding } from '../../core/plan/availability.js';
import type { HeldOverTime } from '../../core/plan/kept-holdings.js';

const now = 50;

const planArb = fc.record({
  capacity: fc.integer({ min: 0, max: 20 }),
  running: fc.array(
    fc.record({
      n: fc.integer({ min: 0, max: 8 }),
      end: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.constant(Infinity)),
    }),
    { maxLength: 8 },
  ),
  // Starting by now: the plan stays lazy.
  reservations: fc.array(
    fc.record({
      n: fc.integer({ min: 0, max: 8 }),
      start: fc.integer({ min: 0, max: now }),
      duration: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(Infinity)),
    }),
    { maxLength: 6 },
  ),
  kept: fc.boolean(),
});

const queryArb = fc.record({
  n: fc.integer({ min: 0, max: 24 }),
  d: fc.oneof(fc.integer({ min: 0, max: 150 }), fc.constant(Infinity)),
  from: fc.integer({ min: 0, max: 250 }),
  until: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant(Infinity)),
  without: fc.option(fc.nat(6), { nil: undefined }),
});

/** The caller-kept form of a list of holdings (as KeptHoldings answers it). */
function keptOf(list: readonly Holding[]): HeldOverTime {
  return {
    heldAfter: (t) => list.reduce((sum, h) => sum + (h.end > t || h.end === Infinity ? h.n : 0), 0),
    list: () => list,
  };
}

type Plan = typeof planArb extends fc.Arbitrary<infer P> ? P : never;

function build(p: Plan): AvailabilityProfile {
  const running = p.running.map((r, i) => ({ id: `r${i}`, ...r }));
  const plan = AvailabilityProfile.build({
    now,
    capacity: p.capacity,
    ...(p.kept ? { kept: keptOf(running) } : { running }),
  });
  for (const [i, r] of p.reservations.entries()) plan.reserve({ id: `x${i}`, ...r });
  return plan;
}

describe('availability profile: a lazy plan starts a request that fits at once without building its profile', () => {
  it('earliestStart on a lazy plan is the built profile search', () => {
    fc.assert(
      fc.property(planArb, fc.array(queryArb, { minLength: 1, maxLength: 6 }), (p, queries) => {
        const lazy = build(p);
        const built = build(p);
        void built.free;
        for (const q of queries) {
          const expected =
            q.without === undefined
              ? built.earliestStart(q.n, q.d, q.from, q.until)
              : built.earliestStartWithout(`x${q.without}`, q.n, q.d, q.from, q.until);
          const got =
            q.without === undefined
              ? lazy.earliestStart(q.n, q.d, q.from, q.until)
              : lazy.earliestStartWithout(`x${q.without}`, q.n, q.d, q.from, q.until);
          expect(got).toBe(expected);
        }
        expect(lazy.freeBetween(now, Infinity)).toBe(built.freeBetween(now, Infinity));
        expect(lazy.free.times).toEqual(built.free.times);
        expect(lazy.free.values).toEqual(built.free.values);
      }),
      { numRuns: 2000 },
    );
  });
});
