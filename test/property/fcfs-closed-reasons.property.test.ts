// FCFS closes its pass behind its blocked head (QueuePass.closed): the scan stops there, and the jobs it does not reach
// read the reason it gives them from the queue (ClosedScan) instead of being visited. Property: on random workloads
// (bursts that make long queues, one to three clusters, jobs pinned or not, with and without walltimes), a run whose
// passes never close (every job visited and told by admit) gives the same events, and after every instant every
// waiting job the same reason.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fcfs } from '../../core/queue/fcfs.js';
import type { QueuePass } from '../../core/queue/policy.js';
import { SimWorld } from '../../core/sim/world.js';
import { gridOf, rigidJobsOn } from '../support/workload-specs.js';

const workloadArb = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 3 }),
  jobs: fc.array(
    fc.record({
      processors: fc.integer({ min: 1, max: 16 }),
      runtime: fc.integer({ min: 1, max: 300 }),
      // Bursts: a few instants shared by many jobs.
      submit: fc.oneof({ arbitrary: fc.constantFrom(0, 100, 250), weight: 3 }, fc.integer({ min: 0, max: 600 })),
      noWalltime: fc.boolean(),
      pin: fc.option(fc.nat({ max: 2 }), { nil: undefined, freq: 4 }),
    }),
    { minLength: 1, maxLength: 40 },
  ),
});
type Workload = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

/** A run's events, and after each instant every waiting job's reason. */
function runLog(w: Workload): { events: string[]; instants: Array<Map<string, string>> } {
  const world = new SimWorld({
    grid: gridOf(w.sizes),
    jobs: rigidJobsOn(w.sizes, w.jobs, (j) => (j.noWalltime ? undefined : j.runtime)),
    seed: 1,
    background: false,
    scheduler: { queue: 'fcfs' },
  });
  const log = { events: [] as string[], instants: [] as Array<Map<string, string>> };
  world.scheduler.on((e) => log.events.push(JSON.stringify(e)));
  world.run(() => {
    const waiting = new Map<string, string>();
    for (const job of world.scheduler.jobs()) if (job.state === 'queued') waiting.set(job.id, job.lastFailure);
    log.instants.push(waiting);
  });
  return log;
}

/** FCFS's pass without `closed`: the scan visits every job. */
function neverClosing(pass: QueuePass): QueuePass {
  return {
    admit: (job) => pass.admit(job),
    placed: (job, processors) => pass.placed(job, processors),
    notPlaced: (job) => pass.notPlaced(job),
  };
}

describe('FCFS runs: the jobs behind a blocked head, not visited', () => {
  afterEach(() => vi.restoreAllMocks());

  it('see the same events and each the same reason as when every job is visited', () => {
    let behind = 0;
    const begin = fcfs.begin.bind(fcfs);
    fc.assert(
      fc.property(workloadArb, (w) => {
        const closing = runLog(w);
        const spy = vi.spyOn(fcfs, 'begin').mockImplementation((view) => neverClosing(begin(view)!));
        const visiting = runLog(w);
        spy.mockRestore();
        expect(closing.events).toEqual(visiting.events);
        expect(closing.instants).toEqual(visiting.instants);
        for (const waiting of closing.instants)
          for (const reason of waiting.values()) if (reason.startsWith('waiting behind job')) behind++;
      }),
      { numRuns: Number(process.env.RUNS ?? 100) },
    );
    // Jobs did wait behind a blocked head.
    expect(behind).toBeGreaterThan(0);
  });
});
