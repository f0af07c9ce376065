// The availability profile's planner shortcuts agree with its plain queries: earliestStart(n, d, from, until) is
// earliestFit's start when that is no later than `until` (else Infinity), whether the search walks the free processors
// (the first on them) or jumps along their index (the next ones, until the plan changes), and reserveAll sets the same reservations
// aside as one reserve after another when they fit, and changes nothing when they do not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AvailabilityProfile } from '../../core/plan/availability.js';
import { risesAbove } from '../../core/queue/planned-pass.js';
import { StepFunction } from '../../core/time/step-function.js';

const planArb = fc.record({
  capacity: fc.integer({ min: 0, max: 20 }),
  running: fc.array(
    fc.record({
      n: fc.integer({ min: 0, max: 8 }),
      end: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.constant(Infinity)),
    }),
    { maxLength: 8 },
  ),
  reservations: fc.array(
    fc.record({
      n: fc.integer({ min: 0, max: 8 }),
      start: fc.integer({ min: 0, max: 200 }),
      duration: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(Infinity)),
    }),
    { maxLength: 8 },
  ),
});
const now = 50;
const build = (p: { capacity: number; running: Array<{ n: number; end: number }> }) =>
  AvailabilityProfile.build({ now, capacity: p.capacity, running: p.running.map((r, i) => ({ id: `r${i}`, ...r })) });

describe('availability profile: bounded earliest start and reservations in one sweep', () => {
  it('earliestStart is earliestFit bounded by until', () => {
    fc.assert(
      fc.property(
        planArb,
        fc.integer({ min: 0, max: 24 }),
        fc.oneof(fc.integer({ min: 0, max: 150 }), fc.constant(Infinity)),
        fc.integer({ min: 0, max: 300 }),
        (p, n, d, until) => {
          const plan = build(p);
          for (const [i, r] of p.reservations.entries()) plan.reserve({ id: `x${i}`, ...r });
          const fit = plan.earliestFit(n, d, now);
          const start = fit.fits ? fit.start : Infinity;
          expect(plan.earliestStart(n, d, now, until)).toBe(start <= until ? start : Infinity);
          expect(plan.earliestStart(n, d, now)).toBe(start);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('earliestStart stays earliestFit bounded by until while reservations come and go (its running maximum follows the plan)', () => {
    const opArb = fc.oneof(
      fc.record({
        op: fc.constant('reserve' as const),
        n: fc.integer({ min: 0, max: 8 }),
        start: fc.integer({ min: 0, max: 200 }),
        duration: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(Infinity)),
      }),
      fc.record({ op: fc.constant('unreserve' as const), k: fc.nat(12) }),
      fc.record({
        op: fc.constant('query' as const),
        n: fc.integer({ min: 0, max: 24 }),
        d: fc.oneof(fc.integer({ min: 0, max: 150 }), fc.constant(Infinity)),
        from: fc.integer({ min: 0, max: 250 }),
        until: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant(Infinity)),
      }),
    );
    fc.assert(
      fc.property(planArb, fc.array(opArb, { maxLength: 30 }), (p, ops) => {
        const plan = build(p);
        let made = 0;
        for (const o of ops) {
          if (o.op === 'reserve') plan.reserve({ id: `x${made++}`, n: o.n, start: o.start, duration: o.duration });
          else if (o.op === 'unreserve') plan.unreserve(`x${o.k}`);
          else {
            const fit = plan.earliestFit(o.n, o.d, o.from);
            const start = fit.fits ? fit.start : Infinity;
            expect(plan.earliestStart(o.n, o.d, o.from, o.until)).toBe(start <= o.until ? start : Infinity);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('earliestStartWithout is earliestStart once that reservation is given back (and leaves the plan as it was)', () => {
    fc.assert(
      fc.property(
        planArb,
        fc.nat(8),
        fc.integer({ min: 0, max: 24 }),
        fc.oneof(fc.integer({ min: 0, max: 150 }), fc.constant(Infinity)),
        fc.integer({ min: 0, max: 250 }),
        fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant(Infinity)),
        (p, k, n, d, from, until) => {
          const plan = build(p);
          const given = build(p);
          for (const [i, r] of p.reservations.entries()) {
            plan.reserve({ id: `x${i}`, ...r });
            given.reserve({ id: `x${i}`, ...r });
          }
          const before = plan.free;
          given.unreserve(`x${k}`);
          expect(plan.earliestStartWithout(`x${k}`, n, d, from, until)).toBe(given.earliestStart(n, d, from, until));
          expect(plan.free).toBe(before);
          expect(plan.reservation(`x${k}`)).toEqual(
            p.reservations[k] === undefined ? undefined : { id: `x${k}`, ...p.reservations[k] },
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("earliestStartWithout for a reservation's own request, bounded by its start (compression's question), is earliestStart once it is given back", () => {
    // Reservations made as conservative backfilling makes them (each at its earliest start), or anywhere.
    fc.assert(
      fc.property(
        planArb,
        fc.boolean(),
        fc.nat(8),
        fc.integer({ min: 0, max: 250 }),
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60 })),
        fc.boolean(),
        (p, packed, k, from, early, capped) => {
          const plan = build(p);
          const given = build(p);
          const made = p.reservations.map((r, i) => {
            const start = packed ? plan.earliestStart(r.n, r.duration, now) : r.start;
            const x = { id: `x${i}`, n: r.n, start: Number.isFinite(start) ? start : r.start, duration: r.duration };
            plan.reserve(x);
            given.reserve(x);
            return x;
          });
          const r = made[k];
          if (r === undefined) return;
          given.unreserve(r.id);
          // Bounded by its own start (or earlier, as when another cluster already offers an earlier one), or not at all.
          const until = capped ? r.start - early : Infinity;
          expect(plan.earliestStartWithout(r.id, r.n, r.duration, from, until)).toBe(
            given.earliestStart(r.n, r.duration, from, until),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('reserveAll sets aside what one reserve after another would, or nothing when they do not all fit', () => {
    fc.assert(
      fc.property(planArb, (p) => {
        const rs = p.reservations.map((r, i) => ({ id: `x${i}`, ...r }));
        const one = build(p);
        const all = build(p);
        const before = all.free;
        for (const r of rs) one.reserve(r);
        const fits = one.free.minOver(now, Infinity) >= 0;
        expect(all.reserveAll(rs)).toBe(fits);
        if (fits) {
          expect(all.free.truncateBefore(now).equals(one.free.truncateBefore(now))).toBe(true);
          expect(all.reservations().map((r) => r.id)).toEqual(rs.map((r) => r.id));
        } else {
          expect(all.free).toBe(before);
          expect(all.reservations()).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('risesAbove (what a CBF pass reads as a cluster that freed something)', () => {
  const stepsArb = fc.array(fc.record({ t: fc.integer({ min: 0, max: 100 }), v: fc.integer({ min: -5, max: 5 }) }), {
    maxLength: 8,
  });
  it('is whether f - g has a positive value from `from` on', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 5 }),
        stepsArb,
        fc.integer({ min: -5, max: 5 }),
        stepsArb,
        fc.integer({ min: -10, max: 110 }),
        (fi, fs, gi, gs, from) => {
          const f = StepFunction.fromSteps(fi, fs);
          const g = StepFunction.fromSteps(gi, gs);
          expect(risesAbove(f, g, from)).toBe(f.minus(g).maxOver(from, Infinity) > 0);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
