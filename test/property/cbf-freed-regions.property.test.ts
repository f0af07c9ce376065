// Conservative backfilling keeps its plans from pass to pass: a pass puts the last pass's reservations back from what
// that plan reserved less what left it (core/queue/planned-pass.ts, keptIn), and searches a freed cluster for a
// promised job only where core/plan/freed-regions.ts says an earlier start may be found. Property: over random workloads and grids (submissions, early ends, jobs killed at their
// walltime, pinned jobs, priorities), every pass leaves the same reservations, and the run the same
// events, as passes that rebuild every plan from its reservations and search every freed cluster for every promised job; and no
// reservation ever moves later.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { AvailabilityProfile } from '../../core/plan/availability.js';
import { cbf } from '../../core/queue/cbf.js';
import type { QueueView } from '../../core/queue/policy.js';
import { QUEUE_PRIORITIES } from '../../core/queue/priority.js';
import { SimWorld } from '../../core/sim/world.js';
import { gridOf, rigidJobsOn } from '../support/workload-specs.js';

const jobArb = fc.record({
  processors: fc.integer({ min: 1, max: 16 }),
  runtime: fc.integer({ min: 1, max: 300 }),
  // The walltime over the run time (an early end) or under it (killed at the walltime).
  estimate: fc.integer({ min: -40, max: 400 }),
  submit: fc.integer({ min: 0, max: 500 }),
  pin: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
});
const scenarioArb = fc.record({
  clusters: fc.array(fc.integer({ min: 2, max: 16 }), { minLength: 1, maxLength: 3 }),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 40 }),
  priority: fc.constantFrom(...QUEUE_PRIORITIES),
  // Decision (tested here): reservation depths build their own policy (registry.ts), so only full CBF is compared.
  depth: fc.constant(undefined),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function world(s: Scenario): SimWorld {
  return new SimWorld({
    grid: gridOf(s.clusters),
    jobs: rigidJobsOn(s.clusters, s.jobs, (j) => Math.max(1, j.runtime + j.estimate)),
    seed: 1,
    background: false,
    scheduler: { queue: 'cbf', priority: s.priority, reservationDepth: s.depth },
  });
}

/** The run's events and, after every step, each waiting job's reservation; checks no reservation moves later. */
function run(s: Scenario): { events: SchedulerEvent[]; plans: string[]; moved: number } {
  const w = world(s);
  const events: SchedulerEvent[] = [];
  w.scheduler.on((e) => events.push(e));
  const plans: string[] = [];
  const last = new Map<string, number>();
  let moved = 0;
  w.run(() => {
    let line = '';
    for (const job of w.scheduler.jobs()) {
      const p = job.plannedStart;
      if (job.state !== 'queued' || p === undefined) continue;
      line += `${job.id}@${p.cluster}:${p.start} `;
      const before = last.get(job.id);
      expect(p.start, `${job.id} moved later`).toBeLessThanOrEqual(before ?? Infinity);
      if (before !== undefined && p.start < before) moved++;
      last.set(job.id, p.start);
    }
    plans.push(line);
  });
  return { events, plans, moved };
}

describe('CBF with plans kept from pass to pass, searching only where a freed region may start a job earlier', () => {
  afterEach(() => vi.restoreAllMocks());

  it('leaves the same reservations at every step, and the same events, as rebuilding and searching everywhere', () => {
    let moved = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const narrowed = run(s);
        const begin = cbf.begin.bind(cbf);
        // The same passes, given no freed regions (every freed cluster searched for every promised job) and with every
        // plan's reservations put in one by one rather than kept from the last pass.
        vi.spyOn(cbf, 'begin').mockImplementation((view: QueueView) => begin({ ...view, freedRegions: undefined }));
        vi.spyOn(AvailabilityProfile.prototype, 'reserveAllHeld').mockReturnValue(false);
        const everywhere = run(s);
        vi.restoreAllMocks();
        expect(narrowed.plans).toEqual(everywhere.plans);
        expect(JSON.stringify(narrowed.events)).toBe(JSON.stringify(everywhere.events));
        moved += narrowed.moved;
      }),
      { numRuns: Number(process.env.RUNS ?? 200) },
    );
    // Not vacuous: compression did move reservations earlier.
    expect(moved).toBeGreaterThan(0);
  });
});
