// Properties of the evolving-application schedules on random queues (small integer EPs, small clusters, so that
// collisions and expansions are frequent): every scheduled EP is the requested one expanded and/or delayed (C1), the
// scheduled EPs never overflow the cluster (C2), expansions respect the expand limit, noX never wastes and starts each
// application at the earliest time it fits whole, the base fit reaches the earliest completion (both by brute force), and
// compacting ends when the base fit does and never starts earlier.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { baseFit } from '../../core/fpe/base-fit.js';
import { compact } from '../../core/fpe/compact.js';
import {
  epFunction,
  satisfiesC1,
  totalDuration,
  wasteArea,
  type EvolutionProfile,
} from '../../core/fpe/evolution-profile.js';
import { listSchedule } from '../../core/fpe/list-schedule.js';
import { FPE_VARIANTS, fpeVariants } from '../../core/fpe/registry.js';
import { StepFunction } from '../../core/time/step-function.js';

interface Case {
  nodes: number;
  t0: number;
  queue: EvolutionProfile[];
}

const caseArb: fc.Arbitrary<Case> = fc.integer({ min: 2, max: 12 }).chain((nodes) =>
  fc.record({
    nodes: fc.constant(nodes),
    t0: fc.integer({ min: 0, max: 20 }),
    queue: fc.array(
      fc.array(fc.record({ duration: fc.integer({ min: 1, max: 15 }), nodes: fc.integer({ min: 1, max: nodes }) }), {
        minLength: 1,
        maxLength: 5,
      }),
      {
        minLength: 1,
        maxLength: 8,
      },
    ),
  }),
);

const peak = (f: StepFunction) => f.maxOver(-Infinity, Infinity);

/**
 * The earliest completion of `req` over `res` by brute force over whole seconds: step 1 lasts its duration from any
 * start >= t0 (delaying it is never worse than expanding it), each middle step from d to l·d (and no longer than it
 * needs to outlast the resource EP), the last its duration,
 * each holding its nodes throughout. `horizon` bounds the first step's start.
 */
function earliestCompletion(
  req: EvolutionProfile,
  res: StepFunction,
  nodes: number,
  t0: number,
  l: number,
  horizon: number,
): number {
  const fits = (a: number, b: number, n: number) => nodes - res.maxOver(a, b) >= n;
  let ends = new Set<number>();
  for (let s = t0; s <= horizon; s++) if (fits(s, s + req[0]!.duration, req[0]!.nodes)) ends.add(s + req[0]!.duration);
  for (let i = 1; i < req.length; i++) {
    const { duration: d, nodes: n } = req[i]!;
    const longest = i === req.length - 1 ? d : Math.min(l * d, d + horizon);
    const next = new Set<number>();
    for (const s of ends) for (let len = d; len <= longest && fits(s, s + len, n); len++) next.add(s + len);
    ends = next;
  }
  return Math.min(...ends);
}

describe('evolving-application schedules', () => {
  it('C1 and C2 for every variant; the resource EP is the sum of the scheduled EPs; the expand limit holds', () => {
    fc.assert(
      // Times as a live run sees them too: seconds since the epoch with a fraction, where (t + d) - t is not always d.
      fc.property(caseArb, fc.constantFrom(0, 1_764_147_600.123, 0.1), ({ nodes, t0: from, queue }, epoch) => {
        const t0 = epoch + from;
        for (const name of FPE_VARIANTS) {
          const v = fpeVariants[name];
          const s = listSchedule(queue, nodes, v.fit, t0);
          expect(peak(s.resource), name).toBeLessThanOrEqual(nodes);
          expect(s.resource.equals(StepFunction.sum(s.scheduled.map((x) => epFunction(x.steps, x.start)))), name).toBe(
            true,
          );
          if (!v.evolving) continue;
          s.scheduled.forEach((x, i) => {
            expect(satisfiesC1(x, queue[i]!, t0), `${name}: application ${i}`).toBe(true);
            x.steps.forEach((step, k) =>
              expect(step.duration, `${name}: application ${i} step ${k + 1}`).toBeLessThanOrEqual(
                v.expandLimit * queue[i]![k]!.duration,
              ),
            );
            // The first and last steps are never expanded (the first is delayed instead; nothing follows the last).
            expect(x.steps[0]!.duration).toBe(queue[i]![0]!.duration);
            expect(x.steps.at(-1)!.duration).toBe(queue[i]!.at(-1)!.duration);
          });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('noX never wastes, and starts each application at the earliest time its unexpanded EP fits (brute force over whole seconds)', () => {
    fc.assert(
      fc.property(caseArb, ({ nodes, t0, queue }) => {
        const s = listSchedule(queue, nodes, fpeVariants.noX.fit, t0);
        let res = StepFunction.constant(0);
        s.scheduled.forEach((x, i) => {
          const req = queue[i]!;
          expect(x.steps).toEqual(req);
          expect(wasteArea(x.steps, req)).toBe(0);
          let earliest = t0;
          while (peak(res.plus(epFunction(req, earliest))) > nodes) earliest++;
          expect(x.start, `application ${i}`).toBe(earliest);
          res = res.plus(epFunction(x.steps, x.start));
        });
      }),
      { numRuns: 200 },
    );
  });

  it("the base fit gives the earliest completion any schedule within the expand limit has (the paper's claim; brute force)", () => {
    fc.assert(
      fc.property(caseArb, fc.constantFrom(1, 2, 3, Infinity), ({ nodes, t0, queue }, l) => {
        const head = listSchedule(queue.slice(0, -1), nodes, fpeVariants.infX.fit, t0);
        const req = queue.at(-1)!;
        const found = baseFit(req, head.resource, nodes, t0, { expandLimit: l });
        const horizon = Math.max(t0, head.resource.times.at(-1) ?? 0) + 1;
        expect(found.start + totalDuration(found.steps)).toBe(
          earliestCompletion(req, head.resource, nodes, t0, l, horizon),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('compacting keeps C1 and C2, ends exactly when the base fit does (the last step at the completion time found), never starts earlier, and never expands more', () => {
    fc.assert(
      fc.property(caseArb, fc.constantFrom(1, 2, 3, Infinity), ({ nodes, t0, queue }, l) => {
        // The queue but its last application makes the resource EP; the last one is fitted and compacted on it.
        const head = listSchedule(queue.slice(0, -1), nodes, fpeVariants.infX.fit, t0);
        const req = queue.at(-1)!;
        const found = baseFit(req, head.resource, nodes, t0, { expandLimit: l });
        const c = compact(found, req, head.resource, nodes, t0, l);
        expect(satisfiesC1(c, req, t0)).toBe(true);
        expect(peak(head.resource.plus(epFunction(c.steps, c.start)))).toBeLessThanOrEqual(nodes);
        expect(c.start + totalDuration(c.steps)).toBe(found.start + totalDuration(found.steps));
        expect(c.start).toBeGreaterThanOrEqual(found.start);
        expect(totalDuration(c.steps)).toBeLessThanOrEqual(totalDuration(found.steps));
        c.steps.forEach((step, k) => expect(step.duration).toBeLessThanOrEqual(l * req[k]!.duration));
      }),
      { numRuns: 300 },
    );
  });
});
