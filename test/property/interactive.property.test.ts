// Interactive periodic divisible jobs, properties:
// - the EDF feasibility test (utilisation bound for D = T, processor demand for D < T) agrees with a brute-force
//   EDF simulation of the synchronous release, on small task sets;
// - no task set the head admits ever misses a deadline in simulation unless an instance overran its C, whatever the
//   jobs' phases, departures, sharing model, placement policy or widening.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feasibility, type EdfTask } from '../../core/interactive/edf.js';
import { TASK_PLACEMENTS } from '../../core/interactive/placement/index.js';
import { NODE_SHARINGS } from '../../core/interactive/sharing.js';
import { runInteractive } from '../../core/sim/interactive/simulation.js';
import type { GeneratedJob } from '../../core/sim/interactive/workload.js';

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Preemptive EDF in unit steps from a synchronous release, over enough hyperperiods to see any miss. */
function edfMissesBruteForce(tasks: readonly EdfTask[]): boolean {
  const h = tasks.reduce((l, t) => (l * t.periodMs) / gcd(l, t.periodMs), 1);
  const dMax = Math.max(...tasks.map((t) => t.deadlineMs));
  // With U > 1 the demand released in m hyperperiods exceeds m·H + D_max once m > D_max.
  const releasesUntil = (dMax + 1) * h;
  const pending: Array<{ deadline: number; left: number }> = [];
  for (let t = 0; t < releasesUntil + dMax; t++) {
    if (t < releasesUntil)
      for (const k of tasks) if (t % k.periodMs === 0) pending.push({ deadline: t + k.deadlineMs, left: k.costMs });
    if (pending.some((p) => p.deadline <= t)) return true;
    if (pending.length === 0) continue;
    let best = 0;
    for (let i = 1; i < pending.length; i++) if (pending[i]!.deadline < pending[best]!.deadline) best = i;
    if (--pending[best]!.left === 0) pending.splice(best, 1);
  }
  return pending.length > 0;
}

const taskArb: fc.Arbitrary<EdfTask> = fc.integer({ min: 2, max: 8 }).chain((periodMs) =>
  fc.integer({ min: 1, max: periodMs }).chain((deadlineMs) =>
    fc.record({
      periodMs: fc.constant(periodMs),
      deadlineMs: fc.constant(deadlineMs),
      costMs: fc.integer({ min: 1, max: deadlineMs }),
    }),
  ),
);

describe('EDF feasibility against brute force', () => {
  it('the test says feasible exactly when the synchronous EDF schedule misses no deadline', () => {
    fc.assert(
      fc.property(fc.array(taskArb, { minLength: 1, maxLength: 4 }), (tasks) => {
        expect(feasibility(tasks).feasible).toBe(!edfMissesBruteForce(tasks));
      }),
      { numRuns: 400 },
    );
  });

  it('implicit deadlines: the utilisation bound decides, with or without the slack computed', () => {
    const implicit = fc.array(
      fc.integer({ min: 2, max: 8 }).chain((periodMs) =>
        fc.record({
          periodMs: fc.constant(periodMs),
          deadlineMs: fc.constant(periodMs),
          costMs: fc.integer({ min: 1, max: periodMs }),
        }),
      ),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(implicit, (tasks) => {
        const brute = !edfMissesBruteForce(tasks);
        expect(feasibility(tasks, { withSlack: false }).feasible).toBe(brute);
        expect(feasibility(tasks).feasible).toBe(brute);
      }),
      { numRuns: 200 },
    );
  });
});

const jobArb = (i: number): fc.Arbitrary<GeneratedJob> =>
  fc
    .record({
      arrivalMs: fc.integer({ min: 0, max: 400 }),
      periodMs: fc.constantFrom(10, 15, 20, 25, 40),
      deadlineShare: fc.double({ min: 0.1, max: 1, noNaN: true }),
      work: fc.double({ min: 0.1, max: 3, noNaN: true }),
      lifetimeMs: fc.integer({ min: 1, max: 600 }),
      growthAt: fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
      growth: fc.double({ min: 1.05, max: 2, noNaN: true }),
      iterationSeed: fc.nat(),
    })
    .map((r) => {
      const deadlineMs = Math.max(1, Math.round(r.periodMs * r.deadlineShare));
      return {
        id: `j${i}`,
        arrivalMs: r.arrivalMs,
        periodMs: r.periodMs,
        deadlineMs,
        dataUnits: r.work * deadlineMs,
        lifetimeMs: r.lifetimeMs,
        growthAtMs: r.growthAt === undefined ? undefined : r.arrivalMs + r.growthAt,
        growth: r.growthAt === undefined ? 1 : r.growth,
        iterationSeed: r.iterationSeed,
      };
    });

const scenario = fc.record({
  nodes: fc.integer({ min: 1, max: 3 }),
  jobs: fc.integer({ min: 1, max: 16 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => jobArb(i)))),
  sharing: fc.constantFrom(...NODE_SHARINGS),
  placement: fc.constantFrom(...TASK_PLACEMENTS),
  widen: fc.constantFrom(1, 2, 4),
  cms: fc.constantFrom(0, 0.01, 0.1),
  dataFractionMin: fc.double({ min: 0.3, max: 1, noNaN: true }),
});

describe('the guarantee in simulation', () => {
  it('no admitted task set misses a deadline without an overrun', () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), (s, overruns) => {
        const jobs = [...s.jobs]
          .sort((a, b) => a.arrivalMs - b.arrivalMs)
          .map((j) => (overruns ? j : { ...j, growthAtMs: undefined, growth: 1 }));
        const r = runInteractive({
          nodes: s.nodes,
          cost: { cmsMsPerUnit: s.cms, cpsMsPerUnit: 1 },
          sharing: s.sharing,
          placement: s.placement,
          widen: s.widen,
          horizonMs: 1500,
          jobs,
          dataFractionMin: s.dataFractionMin,
        });
        expect(r.missesWithoutOverrun).toBe(0);
        if (!overruns) {
          expect(r.overrunInstances).toBe(0);
          expect(r.misses).toBe(0);
        }
      }),
      { numRuns: 500 },
    );
  });
});
