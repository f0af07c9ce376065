// Concertina's planning queue policies against the textbook reference simulator (test/support/reference-backfill.ts)
// on random single-cluster workloads with whole-second times, so that ends, arrivals and reservations often fall on
// the same instant, and with jobs killed at their walltime: every job starts when the reference starts it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { queuePolicy } from '../../core/queue/registry.js';
import { SimWorld } from '../../core/sim/world.js';
import { simulate, type ReferenceJob, type ReferencePolicy } from '../support/reference-backfill.js';

const jobArb = fc.record({
  processors: fc.integer({ min: 1, max: 16 }),
  runtime: fc.integer({ min: 1, max: 120 }),
  // The walltime over the run time, or under it (the job is killed at its walltime).
  estimate: fc.integer({ min: -30, max: 120 }),
  gap: fc.integer({ min: 0, max: 20 }),
});
const scenarioArb = fc.record({
  processors: fc.integer({ min: 1, max: 16 }),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 40 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** The scenario's jobs in submission order, as an SWF trace lists them. */
function referenceJobs(s: Scenario): ReferenceJob[] {
  let t = 0;
  return s.jobs.map((j, i) => {
    t += j.gap;
    return {
      id: `j${i}`,
      submit: t,
      runtime: j.runtime,
      walltime: Math.max(1, j.runtime + j.estimate),
      processors: Math.min(j.processors, s.processors),
    };
  });
}

function concertinaStarts(s: Scenario, policy: ReferencePolicy): Record<string, number> {
  const jobs = referenceJobs(s).map((j) =>
    jobSpecSchema.parse({
      id: j.id,
      kind: 'rigid',
      submitTime: j.submit,
      walltime: j.walltime,
      app: { model: 'fixed', runtime: j.runtime },
      components: [{ processors: j.processors, program: 'x' }],
    }),
  );
  const world = new SimWorld({
    grid: gridSpecSchema.parse({ clusters: [{ name: 'a', processors: s.processors }] }),
    jobs,
    seed: 1,
    background: false,
    scheduler: { queue: policy as 'fcfs' },
  });
  const starts: Record<string, number> = {};
  world.scheduler.on(
    (e: SchedulerEvent) => {
      if (e.type === 'job.started') starts[e.jobId] = e.t;
    },
    ['job.started'],
  );
  world.run();
  return starts;
}

const runs = { numRuns: Number(process.env.RUNS ?? 500) };

// Found by this property on a cbf that compressed only after a job ended before its walltime: j1 waited from 24 (the
// textbook start) to the next poll, at 60 (see the reference's unit test of the same schedule).
const found: Scenario[] = [
  {
    processors: 8,
    jobs: [
      { processors: 1, runtime: 23, estimate: 2, gap: 0 },
      { processors: 8, runtime: 1, estimate: 0, gap: 0 },
      { processors: 4, runtime: 23, estimate: -4, gap: 5 },
      { processors: 4, runtime: 1, estimate: 0, gap: 0 },
    ],
  },
];

describe('Concertina against the reference simulator on random workloads', () => {
  for (const policy of ['fcfs', 'easy', 'cbf'] as const) {
    const known = queuePolicy(policy) !== undefined;
    const title = `${policy}: every job starts when the reference starts it`;
    if (!known) {
      it.skip(`${title} — skipped: no queue policy named "${policy}" is registered yet`, () => {});
      continue;
    }
    it(title, () => {
      fc.assert(
        fc.property(scenarioArb, (s) => {
          const expected = Object.fromEntries(
            simulate(referenceJobs(s), s.processors, policy).jobs.map((j) => [j.id, j.start]),
          );
          expect(concertinaStarts(s, policy)).toEqual(expected);
        }),
        { ...runs, examples: found.map((s) => [s] as [Scenario]) },
      );
    });
  }
});
