// Queue policies over random single-cluster workloads: EASY never starts a job later than a reservation it was
// given (no backfilled job delays the head); the cluster is never overbooked; every job ends with a reason; the
// same input gives the same events.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { easy } from '../../core/queue/easy.js';
import type { QueuePolicyName } from '../../core/queue/policy.js';
import { SimWorld } from '../../core/sim/world.js';

const jobArb = fc.record({
  processors: fc.integer({ min: 1, max: 16 }),
  runtime: fc.integer({ min: 1, max: 300 }),
  // The walltime over (or, killed at it, under) the run time.
  estimate: fc.integer({ min: -50, max: 300 }),
  submit: fc.integer({ min: 0, max: 600 }),
  noWalltime: fc.boolean(),
});
const scenarioArb = fc.record({
  processors: fc.integer({ min: 1, max: 16 }),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 30 }),
  seed: fc.integer({ min: 0, max: 1000 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function world(s: Scenario, queue: QueuePolicyName, walltimes: 'all' | 'some'): SimWorld {
  const jobs = s.jobs.map((j, i) =>
    jobSpecSchema.parse({
      id: `j${i}`,
      kind: 'rigid',
      submitTime: j.submit,
      app: { model: 'fixed', runtime: j.runtime },
      components: [{ processors: Math.min(j.processors, s.processors), program: 'x' }],
      ...(walltimes === 'some' && j.noWalltime ? {} : { walltime: Math.max(1, j.runtime + j.estimate) }),
    }),
  );
  return new SimWorld({
    grid: gridSpecSchema.parse({ clusters: [{ name: 'a', processors: s.processors }] }),
    jobs,
    seed: s.seed,
    background: false,
    scheduler: { queue },
  });
}

function runChecked(w: SimWorld): SchedulerEvent[] {
  const events: SchedulerEvent[] = [];
  w.scheduler.on((e) => events.push(e));
  w.run(() => {
    const c = w.clusters[0]!;
    expect(c.concertina).toBeLessThanOrEqual(c.processors);
    expect(w.scheduler.clusters[0]!.concertina).toBeLessThanOrEqual(c.processors);
  });
  for (const job of w.scheduler.jobs()) {
    expect(['completed', 'failed']).toContain(job.state);
    expect(job.transitions.at(-1)!.reason.length).toBeGreaterThan(0);
  }
  expect(w.scheduler.unfinishedJobs).toBe(0);
  return events;
}

const runs = { numRuns: Number(process.env.RUNS ?? 100) };

describe('queue policies over random workloads', () => {
  afterEach(() => vi.restoreAllMocks());

  it('EASY: a job given a reservation starts no later than it (no backfilled job delays the head)', () => {
    const reserved = new Map<string, number>();
    const begin = easy.begin.bind(easy);
    vi.spyOn(easy, 'begin').mockImplementation((view) => {
      const pass = begin(view)!;
      // The pass's own methods, not a spread: a pass may keep them on its prototype.
      return {
        placed: (job, processors) => pass.placed(job, processors),
        notPlaced: (job) => pass.notPlaced(job),
        admit: (job) => {
          const a = pass.admit(job);
          if (a.reserved) reserved.set(job.id, Math.min(reserved.get(job.id) ?? Infinity, a.reserved.start));
          return a;
        },
      };
    });
    let reservations = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        reserved.clear();
        const events = runChecked(world(s, 'easy', 'all'));
        const started = new Map(
          events.filter((e) => e.type === 'job.started').map((e) => [(e as { jobId: string }).jobId, e.t]),
        );
        for (const [id, start] of reserved) expect(started.get(id)).toBeLessThanOrEqual(start + 1e-9);
        reservations += reserved.size;
      }),
      runs,
    );
    // The property is not vacuous: the workloads do make reservations.
    expect(reservations).toBeGreaterThan(0);
  });

  for (const queue of ['fcfs', 'easy'] as const) {
    it(`${queue}: never overbooks the cluster, ends every job with a reason, and the same input gives the same events (jobs with and without walltimes)`, () => {
      fc.assert(
        fc.property(scenarioArb, (s) => {
          const first = runChecked(world(s, queue, 'some'));
          const again = runChecked(world(s, queue, 'some'));
          expect(JSON.stringify(again)).toBe(JSON.stringify(first));
        }),
        runs,
      );
    });
  }

  it('fcfs: jobs start in submission order', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const events = runChecked(world(s, 'fcfs', 'some'));
        const order = events
          .filter((e) => e.type === 'job.started')
          .map((e) => Number((e as { jobId: string }).jobId.slice(1)));
        const bySubmit = [...order].sort((x, y) => s.jobs[x]!.submit - s.jobs[y]!.submit || x - y);
        expect(order).toEqual(bySubmit);
      }),
      runs,
    );
  });
});
