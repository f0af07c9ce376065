// Interactive jobs online in the simulated world (the scheduler's head nodes, core/scheduler/interactive-jobs.ts, and
// the simulated applications on EDF worker nodes, core/sim/interactive/periodic-apps.ts): whatever the jobs' times,
// sizes, loads up to C, lifetimes, cancellations, and the partition's placement and sharing, an admitted set never
// misses a deadline and is never re-placed when no instance overruns its C; and the iterations are really reported.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { TASK_PLACEMENTS } from '../../core/interactive/placement/index.js';
import { NODE_SHARINGS } from '../../core/interactive/sharing.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';

const jobArb = fc
  .record({
    submitMs: fc.integer({ min: 0, max: 5000 }),
    arrivalMs: fc.integer({ min: 0, max: 500 }),
    periodMs: fc.constantFrom(100, 200, 250, 500, 1000),
    deadlineShare: fc.double({ min: 0.2, max: 1, noNaN: true }),
    dataUnits: fc.integer({ min: 1, max: 60 }),
    load: fc.double({ min: 0, max: 1, noNaN: true }),
    iterations: fc.integer({ min: 0, max: 20 }),
    walltimeS: fc.integer({ min: 1, max: 15 }),
    cancelAfterS: fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: undefined }),
  })
  .map((r) => ({ ...r, deadlineMs: Math.max(1, Math.round(r.periodMs * r.deadlineShare)) }));

const scenario = fc.record({
  nodes: fc.integer({ min: 1, max: 6 }),
  cms: fc.constantFrom(0, 0.5, 1),
  cps: fc.constantFrom(1, 2, 5),
  placement: fc.constantFrom(...TASK_PLACEMENTS),
  sharing: fc.constantFrom(...NODE_SHARINGS),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 8 }),
});

describe('interactive jobs online in simulation', () => {
  it('an admitted set without overruns never misses a deadline, and its instances are reported', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const grid = gridSpecSchema.parse({
          clusters: [
            {
              name: 'rt',
              processors: 4,
              interactive: {
                nodes: s.nodes,
                cmsMsPerUnit: s.cms,
                cpsMsPerUnit: s.cps,
                placement: s.placement,
                sharing: s.sharing,
              },
            },
          ],
        });
        const jobs = s.jobs.map((j, i) =>
          jobSpecSchema.parse({
            id: `j${i}`,
            kind: 'interactive',
            submitTime: j.submitMs / 1000,
            walltime: j.walltimeS,
            components: [{ program: 'periodic' }],
            interactive: {
              arrivalMs: j.arrivalMs,
              periodMs: j.periodMs,
              dataUnits: j.dataUnits,
              deadlineMs: j.deadlineMs,
            },
            app: { model: 'periodic', load: j.load, iterations: j.iterations },
          }),
        );
        const w = new SimWorld({ grid, jobs, seed: 3, background: false });
        const events: SchedulerEvent[] = [];
        w.scheduler.on((e) => events.push(e));
        let iterations = 0;
        const receive = w.scheduler.receive.bind(w.scheduler);
        w.scheduler.receive = (message, now) => {
          if (message.type === 'iteration') iterations++;
          return receive(message, now);
        };
        s.jobs.forEach((j, i) => {
          if (j.cancelAfterS !== undefined)
            w.engine.at(j.submitMs / 1000 + j.cancelAfterS, () => w.scheduler.cancel(`j${i}`, w.engine.now));
        });
        w.runUntil(60);
        expect(events.filter((e) => e.type === 'interactive.missed')).toEqual([]);
        expect(events.filter((e) => e.type === 'interactive.replaced')).toEqual([]);
        // A job admitted and left to run reports iterations (a refused one, or one cancelled at once, need not).
        const started = new Set(events.flatMap((e) => (e.type === 'job.started' ? [e.jobId] : [])));
        if (s.jobs.some((j, i) => started.has(`j${i}`) && j.cancelAfterS === undefined))
          expect(iterations).toBeGreaterThan(0);
        // Every job ended (none left running on the nodes).
        expect(w.scheduler.interactiveSample('rt')!.jobs).toBe(0);
      }),
      { numRuns: 150 },
    );
  });
});
