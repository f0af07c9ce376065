// The plan snapshot over random running jobs, reservations and a pending grow offer: its free processors at every time
// equal an independent recomputation from the items it lists (capacity minus running jobs until their ends minus the
// offer until its end minus reservations over their spans); every job a reservation waits for is a running job of its cluster that ends by its start; and the items
// listed are bounded by the limit, their totals counted.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planSnapshot, type PlanJob } from '../../core/plan/plan-snapshot.js';

const NOW = 10;

const job = (over: Partial<PlanJob> & { id: string }): PlanJob => ({
  kind: 'rigid',
  spec: {},
  components: [],
  startTime: Number.NaN,
  held: 0,
  size: 0,
  evolving: false,
  malleable: false,
  preallocation: 0,
  need: 0,
  backfilled: false,
  plannedStart: undefined,
  sizeHistory: [],
  ...over,
});

const caseArb = fc.record({
  capacity: fc.integer({ min: 0, max: 12 }),
  running: fc.array(
    fc.record({
      n: fc.integer({ min: 1, max: 6 }),
      start: fc.integer({ min: 0, max: NOW }),
      walltime: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    }),
    { maxLength: 6 },
  ),
  waiting: fc.array(
    fc.record({
      n: fc.integer({ min: 1, max: 8 }),
      start: fc.option(fc.integer({ min: NOW, max: 60 }), { nil: undefined }),
      walltime: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
    }),
    { maxLength: 8 },
  ),
  limit: fc.integer({ min: 1, max: 10 }),
  /** Processors set aside for a grow offer not yet answered, held until `end`. */
  offer: fc.option(fc.record({ n: fc.integer({ min: 1, max: 4 }), end: fc.integer({ min: NOW + 1, max: 80 }) }), {
    nil: undefined,
  }),
});

describe('plan snapshot (property)', () => {
  it('free equals capacity minus what the listed items hold; waits-for names running jobs ending by the start; bounded', () => {
    fc.assert(
      fc.property(caseArb, ({ capacity, running, waiting, limit, offer }) => {
        const placed = running.map((r, i) =>
          job({
            id: `r${i}`,
            spec: r.walltime === undefined ? {} : { walltime: r.walltime },
            components: [{ cluster: 'a', processors: r.n }],
            startTime: r.start,
            held: r.n,
            size: r.n,
            need: r.n,
            sizeHistory: [{ t: r.start, v: r.n }],
          }),
        );
        const queue = waiting.map((w, i) =>
          job({
            id: `w${i}`,
            spec: w.walltime === undefined ? {} : { walltime: w.walltime },
            need: w.n,
            plannedStart: w.start === undefined ? undefined : { cluster: 0, start: w.start },
          }),
        );
        const held = running.reduce((s, r) => s + r.n, 0);
        const plan = planSnapshot({
          now: NOW,
          queuePolicy: 'cbf',
          clusters: [
            {
              name: 'a',
              processors: 12,
              availableNow: capacity - held - (offer?.n ?? 0),
              offersHeld: offer && { n: offer.n, end: offer.end, jobId: 'r0' },
            },
          ],
          clusterIndex: (n) => (n === 'a' ? 0 : undefined),
          placed,
          waiting: queue,
          limit,
        });
        const c = plan.clusters[0]!;
        const cap = Math.max(0, capacity);
        expect(c.capacity).toEqual([{ t: NOW, v: cap }]);
        expect(c.runningTotal).toBe(running.length);
        expect(c.running.length).toBe(Math.min(limit, running.length));
        const reserved = waiting.filter((w) => w.start !== undefined).length;
        expect(c.reservationsTotal).toBe(reserved);
        expect(c.reservations.length).toBe(Math.min(limit, reserved));
        expect(c.offers).toEqual(offer && { processors: offer.n, start: NOW, end: offer.end, jobId: 'r0' });
        // Independent recomputation at every integer time: what every running job holds (listed or not) and the
        // reservations listed.
        const valueAt = (t: number) => {
          let v = c.free[0]!.v;
          for (const s of c.free) if (s.t <= t) v = s.v;
          return v;
        };
        for (let t = NOW; t <= 120; t++) {
          let expected = cap;
          for (const r of running) if (r.walltime === undefined || r.start + r.walltime > t) expected -= r.n;
          if (offer !== undefined && t < offer.end) expected -= offer.n;
          for (const r of c.reservations) if (r.start <= t && (r.end === null || t < r.end)) expected -= r.processors;
          expect(valueAt(t), `free at ${t}`).toBe(expected);
        }
        for (const r of c.reservations) {
          for (const id of r.waitsFor) {
            const i = Number(id.slice(1));
            const j = running[i]!;
            expect(j.walltime, `${r.id} waits for ${id}, which has an end`).toBeDefined();
            expect(j.start + j.walltime! <= r.start, `${id} ends by ${r.id}'s start`).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
