// EASY's pass tells a job behind the head that needs more than any cluster has free now that it waits, without asking
// its room over its walltime (core/queue/easy.ts, mostFreeOver in core/queue/policy.ts), and stops the scan once no
// cluster has a processor free. Property: on random plans (one to more than FEW_CLUSTERS clusters, running jobs with
// and without ends, overbooked ones, reservations ahead) and a random queue (jobs pinned or not, needing nothing to
// more than a cluster has, with and without a walltime), a pass admits every job exactly as the same pass that asks
// every job's room (the same room on every cluster, reason and reservation, with the same jobs placed or not placed
// after each admission), no job needing a processor after it stopped has room, and a job mayFit says does not fit is
// admitted no room and the reason waits gives. And on random workloads (bursts that make long queues, jobs pinned or
// not, with and without walltimes), a run whose passes ask every job's room and never stop gives the same events, and
// every waiting job the same planned start and the same reason after each instant, the jobs a scan stopped before, or
// passed over by need or fit without a visit (QueuePass.waitsAbove, mayFit), reading the reason the pass gives them
// (the queue's ClosedScan).
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { easy, EasyPass } from '../../core/queue/easy.js';
import { ClosedScan, PlacementQueue } from '../../core/queue/placement-queue.js';
import {
  FEW_CLUSTERS,
  hasRoom,
  NO_ROOM,
  type Admission,
  type QueueView,
  type WaitingJob,
} from '../../core/queue/policy.js';
import { JobRecord } from '../../core/scheduler/job-record.js';
import { SimWorld } from '../../core/sim/world.js';
import { PLAN_NOW, planClusterArb, plainView, plansOf, walltimeArb } from '../support/plan-arbitraries.js';
import { gridOf, rigidJobsOn } from '../support/workload-specs.js';

const NOW = PLAN_NOW;

const scenarioArb = fc.record({
  clusters: fc.array(planClusterArb, { minLength: 1, maxLength: FEW_CLUSTERS + 3 }),
  // Whether the view answers from its plans only, or also through freeFromNow and the most-free index.
  indexed: fc.boolean(),
  jobs: fc.array(
    fc.record({
      need: fc.integer({ min: 0, max: 18 }),
      walltime: walltimeArb,
      pinned: fc.option(fc.nat({ max: FEW_CLUSTERS + 2 }), { nil: undefined, freq: 4 }),
      // What comes of an admission with room: placed (on the cluster with the most room) or not placed.
      placed: fc.boolean(),
    }),
    { minLength: 1, maxLength: 40 },
  ),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function viewOf(s: Scenario): QueueView {
  const plans = plansOf(s.clusters);
  const freeFromNow = (i: number, duration: number): number => plans[i]!.freeBetween(NOW, NOW + duration);
  const view = plainView(plans);
  if (!s.indexed) return view;
  return {
    ...view,
    freeFromNow,
    mostFreeFromNow: (duration) => {
      let most = -1;
      for (let i = 0; i < plans.length; i++)
        if (most < 0 || freeFromNow(i, duration) > freeFromNow(most, duration)) most = i;
      return most;
    },
  };
}

/** A job that waits, with this reason: no room, no reservation. */
const NO_ROOM_WITH = (reason: string): Admission => ({ room: NO_ROOM, reason });

/** What an admission says, cluster by cluster. */
function said(a: Admission, need: number, clusters: number): unknown {
  const on: number[] = [];
  for (let c = 0; c < clusters; c++) on.push(a.room.on(c));
  return { has: hasRoom(a.room, need), most: a.room.most, on, reason: a.reason, reserved: a.reserved };
}

describe('EASY pass: the jobs behind the head that need more than is free now, and the pass stopped once nothing is', () => {
  it('are admitted exactly as when every job is asked its room', () => {
    let skippable = 0;
    let unfit = 0;
    let stopped = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const count = s.clusters.length;
        const fast = new EasyPass(viewOf(s));
        const full = new EasyPass(viewOf(s), true);
        // What the scan by need relies on (QueuePass.waitsAbove): once finite, the bound never rises in the pass, and
        // waits answers one reason for every need above it.
        let above = Number.POSITIVE_INFINITY;
        let reason: string | undefined;
        s.jobs.forEach((j, k) => {
          const bound = fast.waitsAbove();
          expect(bound).toBeLessThanOrEqual(above);
          if (bound < Infinity) {
            for (const need of [Math.max(bound, 0) + 1, Math.max(bound, 0) + 7, Infinity]) {
              reason ??= fast.waits(need);
              expect(fast.waits(need)).toBe(reason);
            }
            expect(reason).toBeDefined();
          }
          above = bound;
          const job: WaitingJob = {
            id: `j${k}`,
            need: j.need,
            walltime: j.walltime,
            cluster: j.pinned === undefined ? undefined : j.pinned % count,
          };
          // What the scheduler asks first of a job on no particular cluster (then not admitted when answered), and
          // whether it stopped before this job (then none behind it needing a processor may start); and whether the
          // scan by need would step over it as one that does not fit (then not admitted).
          const waits = job.cluster === undefined ? fast.waits(job.need) : undefined;
          const fits = job.cluster === undefined && job.need > 0 ? fast.mayFit(job.need, job.walltime) : true;
          expect(full.mayFit(job.need, job.walltime)).toBe(true);
          const closed = fast.closed();
          const a = fast.admit(job);
          const b = full.admit(job);
          expect(said(a, job.need, count)).toEqual(said(b, job.need, count));
          if (!fits) {
            unfit++;
            expect(said(b, job.need, count)).toEqual(said(NO_ROOM_WITH(fast.waits(Infinity)!), job.need, count));
          }
          if (waits !== undefined) {
            skippable++;
            expect(said(b, job.need, count)).toEqual(said(NO_ROOM_WITH(waits), job.need, count));
          }
          if (closed !== undefined && job.need > 0) {
            stopped++;
            expect(hasRoom(b.room, job.need)).toBe(false);
            expect(b.reserved).toBeUndefined();
            // The reason closed gives the jobs the scan stops before is the one the pass that asks them gives.
            expect(b.reason).toBe(closed);
          }
          if (!hasRoom(a.room, job.need) || (a.reserved !== undefined && a.reserved.start > NOW)) return;
          if (j.placed && a.room.most >= 0) {
            const held = [{ cluster: a.room.most, processors: job.need }];
            fast.placed(job, held);
            full.placed(job, held);
          } else {
            fast.notPlaced(job);
            full.notPlaced(job);
          }
        });
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
    // The property is not vacuous: jobs are told to wait by the bound, and passes stop.
    expect(skippable).toBeGreaterThan(0);
    expect(unfit).toBeGreaterThan(0);
    expect(stopped).toBeGreaterThan(0);
  });
});

const workloadArb = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 3 }),
  jobs: fc.array(
    fc.record({
      processors: fc.integer({ min: 1, max: 16 }),
      runtime: fc.integer({ min: 1, max: 300 }),
      // The walltime over (or, killed at it, under) the run time.
      estimate: fc.integer({ min: -50, max: 300 }),
      // Bursts: a few instants shared by many jobs.
      submit: fc.oneof({ arbitrary: fc.constantFrom(0, 100, 250), weight: 3 }, fc.integer({ min: 0, max: 600 })),
      noWalltime: fc.boolean(),
      pin: fc.option(fc.nat({ max: 2 }), { nil: undefined, freq: 4 }),
    }),
    { minLength: 1, maxLength: 40 },
  ),
});
type Workload = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * Found once (in a version whose closed scan left it out): a head with no walltime the plan cannot say when it fits
 * puts the job reserved behind it in the last pass out of reach of a scan that stops, its planned start to be dropped.
 */
const EXAMPLES: Workload[] = [
  {
    sizes: [1, 1],
    jobs: [
      { processors: 1, runtime: 1, estimate: 0, submit: 250, noWalltime: false, pin: 0 },
      { processors: 1, runtime: 161, estimate: 0, submit: 0, noWalltime: false, pin: undefined },
      { processors: 1, runtime: 90, estimate: 0, submit: 0, noWalltime: true, pin: 0 },
      { processors: 1, runtime: 1, estimate: 0, submit: 0, noWalltime: false, pin: 0 },
      { processors: 1, runtime: 1, estimate: 0, submit: 250, noWalltime: false, pin: undefined },
      { processors: 1, runtime: 152, estimate: 0, submit: 100, noWalltime: false, pin: undefined },
    ],
  },
];

/**
 * A run's events, and after each instant every waiting job's reason and planned start; how many times a waiting
 * job was not visited at an instant whose pass closed (a scan stopped before it), and how many scans passed over jobs.
 */
interface RunLog {
  readonly events: string[];
  readonly instants: Array<Map<string, { readonly reason: string; readonly planned: string }>>;
  stoppedBefore: number;
  passedOver: number;
}

function runLog(w: Workload): RunLog {
  const world = new SimWorld({
    grid: gridOf(w.sizes),
    jobs: rigidJobsOn(w.sizes, w.jobs, (j) => (j.noWalltime ? undefined : Math.max(1, j.runtime + j.estimate))),
    seed: 1,
    background: false,
    scheduler: { queue: 'easy' },
  });
  const log: RunLog = { events: [], instants: [], stoppedBefore: 0, passedOver: 0 };
  world.scheduler.on((e) => log.events.push(JSON.stringify(e)));
  // Its queues are short: every scan by need steps over jobs, by need and fit.
  world.scheduler.queue.byNeedFrom = 0;
  // The jobs visited (each visit keeps its reason) and the passes closed at each instant.
  const visits = vi.spyOn(JobRecord.prototype, 'keepReason');
  const closes = vi.spyOn(ClosedScan.prototype, 'close');
  // A scan returns the least need it passed over (Infinity: none).
  const scans = vi.spyOn(PlacementQueue.prototype, 'scan');
  world.run(() => {
    const visited = new Set(visits.mock.contexts);
    const waiting = new Map<string, { reason: string; planned: string }>();
    for (const job of world.scheduler.jobs())
      if (job.state === 'queued') {
        waiting.set(job.id, { reason: job.lastFailure, planned: JSON.stringify(job.plannedStart) });
        if (closes.mock.calls.length > 0 && !visited.has(job)) log.stoppedBefore++;
      }
    log.instants.push(waiting);
    visits.mockClear();
    closes.mockClear();
  });
  log.passedOver = scans.mock.results.filter((r) => r.type === 'return' && r.value < Infinity).length;
  visits.mockRestore();
  closes.mockRestore();
  scans.mockRestore();
  return log;
}

describe('EASY runs: the jobs passed over or told they wait from their need alone, the scan stopped once none is free', () => {
  afterEach(() => vi.restoreAllMocks());

  it('see the same events, planned starts and reasons as when every job is asked its room', () => {
    let stoppedBefore = 0;
    let passedOver = 0;
    fc.assert(
      fc.property(workloadArb, (w) => {
        const fast = runLog(w);
        const spy = vi.spyOn(easy, 'begin').mockImplementation((view) => new EasyPass(view, true));
        const full = runLog(w);
        spy.mockRestore();
        expect(fast.events).toEqual(full.events);
        expect(fast.instants.length).toBe(full.instants.length);
        fast.instants.forEach((waiting, k) => {
          const expected = full.instants[k]!;
          expect([...waiting.keys()]).toEqual([...expected.keys()]);
          for (const [id, { reason, planned }] of waiting) {
            expect(planned).toBe(expected.get(id)!.planned);
            expect(reason).toBe(expected.get(id)!.reason);
          }
        });
        stoppedBefore += fast.stoppedBefore;
        passedOver += fast.passedOver;
        // The pass that asks every job's room never passes one over.
        expect(full.passedOver).toBe(0);
      }),
      { numRuns: Number(process.env.RUNS ?? 100), examples: EXAMPLES.map((w) => [w]) },
    );
    // The scan did stop before some jobs, and passed over some.
    expect(stoppedBefore).toBeGreaterThan(0);
    expect(passedOver).toBeGreaterThan(0);
  });
});
