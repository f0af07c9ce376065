import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AvailabilityProfile, type Holding, type Reservation } from '../../core/plan/availability.js';

// Small integer times and sizes, so that equal ends, reservations touching job ends and full clusters are frequent.
// Every time at which the reference can change is an integer, so it is constant between consecutive event times.
const NOW = 5;

interface Case {
  capacity: number;
  running: Holding[];
  /** Given at build time. */
  initial: Reservation[];
  /** Reserved after the build, then the `removed` ones (indices into initial ++ later) given back. */
  later: Reservation[];
  removed: number[];
}

const endArb = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(Infinity));
const durationArb = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(Infinity));

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    capacity: fc.integer({ min: 0, max: 12 }),
    running: fc.array(fc.record({ n: fc.integer({ min: 0, max: 5 }), end: endArb }), { maxLength: 8 }),
    initial: fc.array(
      fc.record({ n: fc.integer({ min: 0, max: 5 }), start: fc.integer({ min: 0, max: 30 }), duration: durationArb }),
      { maxLength: 4 },
    ),
    later: fc.array(
      fc.record({ n: fc.integer({ min: 0, max: 5 }), start: fc.integer({ min: 0, max: 30 }), duration: durationArb }),
      { maxLength: 4 },
    ),
    removed: fc.array(fc.nat({ max: 7 }), { maxLength: 4 }),
  })
  .map((c) => ({
    capacity: c.capacity,
    running: c.running.map((j, i) => ({ id: `j${i}`, ...j })),
    initial: c.initial.map((r, i) => ({ id: `r${i}`, ...r })),
    later: c.later.map((r, i) => ({ id: `s${i}`, ...r })),
    removed: c.removed,
  }));

function planOf(c: Case): { plan: AvailabilityProfile; reservations: Reservation[] } {
  const plan = AvailabilityProfile.build({
    now: NOW,
    capacity: c.capacity,
    running: c.running,
    reservations: c.initial,
  });
  for (const r of c.later) plan.reserve(r);
  const all = [...c.initial, ...c.later];
  const gone = new Set<string>();
  for (const k of c.removed) {
    const r = all[k];
    if (r === undefined) continue;
    expect(plan.unreserve(r.id)).toBe(!gone.has(r.id));
    gone.add(r.id);
  }
  return { plan, reservations: all.filter((r) => !gone.has(r.id)) };
}

// Independent recomputation at a time t >= NOW: the capacity minus every job still running at t (end > t) minus
// every reservation whose window holds t.
function refFree(
  capacity: number,
  running: readonly Holding[],
  reservations: readonly Reservation[],
  t: number,
): number {
  let free = capacity;
  for (const j of running) if (t < j.end) free -= j.n;
  for (const r of reservations) if (r.start <= t && t < r.start + r.duration) free -= r.n;
  return free;
}

// Where the reference can change: job ends and reservation bounds at or after NOW, and NOW itself.
function events(running: readonly Holding[], reservations: readonly Reservation[]): number[] {
  const ts = [NOW];
  for (const j of running) if (j.end > NOW && j.end < Infinity) ts.push(j.end);
  for (const r of reservations)
    for (const t of [r.start, r.start + r.duration]) if (t > NOW && t < Infinity) ts.push(t);
  return [...new Set(ts)].sort((a, b) => a - b);
}

// Does n fit over [s, s + d) in the reference (d = 0: at the instant s)? The value is constant between events.
function refFits(free: (t: number) => number, times: readonly number[], s: number, d: number, n: number): boolean {
  if (free(s) < n) return false;
  return times.every((t) => !(s < t && t < s + d) || free(t) >= n);
}

describe('AvailabilityProfile against an independent recomputation', () => {
  it('the free capacity at any time equals the capacity minus running jobs and reservations', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { plan, reservations } = planOf(c);
        const probes = [...events(c.running, reservations), 0, 100, 1e9];
        for (const e of [...probes]) probes.push(e + 0.5);
        for (const t of probes)
          expect(plan.freeAt(t)).toBe(refFree(c.capacity, c.running, reservations, Math.max(t, NOW)));
        const last = refFree(c.capacity, c.running, reservations, 1e12);
        expect(plan.freeAt(Infinity)).toBe(last);
      }),
      { numRuns: 500 },
    );
  });

  it('freeBetween is the least of the recomputation over the window', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.integer({ min: NOW, max: 35 }),
        fc.oneof(fc.integer({ min: 0, max: 15 }), fc.constant(Infinity)),
        (c, t1, width) => {
          const { plan, reservations } = planOf(c);
          const free = (t: number) => refFree(c.capacity, c.running, reservations, t);
          const inside = [t1, ...events(c.running, reservations).filter((t) => t1 < t && t < t1 + width)];
          if (width === Infinity) inside.push(1e12);
          expect(plan.freeBetween(t1, t1 + width)).toBe(Math.min(...inside.map(free)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the earliest fit fits over its whole duration and no earlier step boundary fits', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.integer({ min: 0, max: 14 }),
        fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(0.5), fc.constant(Infinity)),
        fc.integer({ min: 0, max: 35 }),
        (c, n, d, from) => {
          const { plan, reservations } = planOf(c);
          const free = (t: number) => refFree(c.capacity, c.running, reservations, t);
          const times = events(c.running, reservations);
          const t0 = Math.max(from, NOW);
          const candidates = [t0, ...times.filter((t) => t > t0)];
          const got = plan.earliestFit(n, d, from);
          if (!got.fits) {
            expect(n).toBeGreaterThan(0);
            expect(got.reason).toBe(n > c.capacity ? 'exceeds-capacity' : 'never-free');
            for (const s of candidates) expect(refFits(free, times, s, d, n)).toBe(false);
            return;
          }
          expect(candidates).toContain(got.start);
          if (n > 0) {
            expect(refFits(free, times, got.start, d, n)).toBe(true);
            for (const s of candidates) if (s < got.start) expect(refFits(free, times, s, d, n)).toBe(false);
          } else {
            expect(got.start).toBe(t0);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('the jobs a start waits for are needed, and the others could hold on without delaying it', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.integer({ min: 1, max: 12 }),
        fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(Infinity)),
        (c, n, d) => {
          const { plan, reservations } = planOf(c);
          const got = plan.earliestFit(n, d);
          if (!got.fits) return;
          const s = got.start;
          const named = new Set(got.waitsFor);
          for (const id of named) {
            const j = c.running.find((x) => x.id === id)!;
            expect(j.end > NOW && j.end <= s).toBe(true);
          }
          // Jobs held forever instead of released: the start still fits with all the excused ones held, and no longer
          // fits once any named one is held too.
          const fitsHolding = (held: ReadonlySet<string>) => {
            const running = c.running.map((j) => (held.has(j.id) ? { ...j, end: Infinity } : j));
            const free = (t: number) => refFree(c.capacity, running, reservations, t);
            return refFits(free, events(running, reservations), s, d, n);
          };
          const excused = new Set(
            c.running.filter((j) => j.n > 0 && j.end > NOW && j.end <= s && !named.has(j.id)).map((j) => j.id),
          );
          expect(fitsHolding(excused)).toBe(true);
          for (const id of named) expect(fitsHolding(new Set([...excused, id]))).toBe(false);
          // A start at once waits for nobody.
          if (s === NOW) expect(got.waitsFor).toEqual([]);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('reserving the earliest fit keeps the plan at or above zero wherever it was, and unreserving restores it', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), (c, n, d) => {
        const { plan } = planOf(c);
        const before = plan.free;
        const got = plan.earliestFit(n, d);
        if (!got.fits) return;
        plan.reserve({ id: 'new', n, start: got.start, duration: d });
        expect(plan.freeBetween(got.start, got.start + d)).toBeGreaterThanOrEqual(0);
        expect(plan.reservationWaitsFor('new')).toEqual(got.waitsFor);
        plan.unreserve('new');
        expect(plan.free.equals(before)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
