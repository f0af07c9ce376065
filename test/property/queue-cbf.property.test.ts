// Conservative backfilling and reservation depths over random workloads and grids: no cluster is ever overbooked; a
// job is never planned later than it was first promised, and starts no later than that promise (no job overruns its
// walltime here: the batch system kills it at it); every job ends with a reason; the same input gives the same
// events; depth 1 gives EASY's schedule; and the plan a pass starts from equals an independent recomputation from the
// jobs (capacity, less what placed jobs hold until their start plus walltime, less the waiting jobs' promises). Among
// evolving and malleable jobs too, a promised rigid job starts by its first promise: no extra grows onto its processors
// or is moved there when an evolving job takes its pre-allocation back.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { cbf } from '../../core/queue/cbf.js';
import type { QueuePolicyName, QueueView } from '../../core/queue/policy.js';
import { QUEUE_PRIORITIES, type QueuePriorityName } from '../../core/queue/priority.js';
import { SimWorld } from '../../core/sim/world.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { simWorld } from '../support/sim-world.js';
import { evolvingJob, gridOf, malleableJob, rigidJob, rigidJobsOn } from '../support/workload-specs.js';

const jobArb = fc.record({
  processors: fc.integer({ min: 1, max: 16 }),
  runtime: fc.integer({ min: 1, max: 300 }),
  // The walltime over (or, killed at it, under) the run time.
  estimate: fc.integer({ min: -50, max: 300 }),
  submit: fc.integer({ min: 0, max: 600 }),
  noWalltime: fc.boolean(),
  // Pinned to a cluster (by index, modulo the grid's size) or free.
  pin: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
});
const scenarioArb = fc.record({
  clusters: fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 3 }),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 30 }),
  seed: fc.integer({ min: 0, max: 1000 }),
  priority: fc.constantFrom(...QUEUE_PRIORITIES),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

interface Setup {
  queue: QueuePolicyName;
  walltimes: 'all' | 'some';
  reservationDepth?: number;
  priority?: QueuePriorityName;
}

function world(s: Scenario, o: Setup): SimWorld {
  return new SimWorld({
    grid: gridOf(s.clusters),
    jobs: rigidJobsOn(s.clusters, s.jobs, (j) =>
      o.walltimes === 'some' && j.noWalltime ? undefined : Math.max(1, j.runtime + j.estimate),
    ),
    seed: s.seed,
    background: false,
    scheduler: { queue: o.queue, reservationDepth: o.reservationDepth, priority: o.priority ?? s.priority },
  });
}

/** Runs a world checking capacity at every step and the promises' monotony; returns the events and first promises. */
function runChecked(w: SimWorld, promises = true): { events: SchedulerEvent[]; promised: Map<string, number> } {
  const events: SchedulerEvent[] = [];
  w.scheduler.on((e) => events.push(e));
  const promised = new Map<string, number>();
  const last = new Map<string, number>();
  w.run(() => {
    w.clusters.forEach((c, i) => {
      expect(c.concertina).toBeLessThanOrEqual(c.processors);
      expect(w.scheduler.clusters[i]!.concertina).toBeLessThanOrEqual(c.processors);
    });
    for (const job of w.scheduler.jobs()) {
      const p = job.plannedStart;
      if (!promises || job.state !== 'queued' || p === undefined) continue;
      if (!promised.has(job.id)) promised.set(job.id, p.start);
      // Never planned later than it was promised.
      expect(p.start, job.id).toBeLessThanOrEqual(last.get(job.id) ?? Infinity);
      last.set(job.id, p.start);
    }
  });
  for (const job of w.scheduler.jobs()) {
    expect(['completed', 'failed']).toContain(job.state);
    expect(job.transitions.at(-1)!.reason.length).toBeGreaterThan(0);
  }
  expect(w.scheduler.unfinishedJobs).toBe(0);
  return { events, promised };
}

const starts = (events: readonly SchedulerEvent[]) =>
  new Map(events.filter((e) => e.type === 'job.started').map((e) => [(e as { jobId: string }).jobId, e.t]));
const runs = { numRuns: Number(process.env.RUNS ?? 100) };

describe('conservative backfilling over random workloads and grids', () => {
  afterEach(() => vi.restoreAllMocks());

  it('CBF: never overbooks, never plans a job later than its promise, and every promised job starts by its first promise', () => {
    let promises = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { events, promised } = runChecked(world(s, { queue: 'cbf', walltimes: 'all' }));
        const started = starts(events);
        for (const [id, start] of promised) expect(started.get(id), id).toBeLessThanOrEqual(start + 1e-9);
        promises += promised.size;
      }),
      runs,
    );
    // Not vacuous: the workloads do make promises.
    expect(promises).toBeGreaterThan(0);
  });

  for (const setup of [
    { queue: 'cbf', walltimes: 'some' },
    { queue: 'cbf', walltimes: 'some', reservationDepth: 2 },
    { queue: 'easy', walltimes: 'some', reservationDepth: 0 },
    { queue: 'fcfs', walltimes: 'some' },
  ] as const satisfies readonly Setup[]) {
    it(`${JSON.stringify(setup)}: every job ends with a reason, the clusters are never overbooked, the same input gives the same events`, () => {
      const promises = setup.queue !== 'fcfs';
      fc.assert(
        fc.property(scenarioArb, (s) => {
          const first = runChecked(world(s, setup), promises).events;
          const again = runChecked(world(s, setup), promises).events;
          expect(JSON.stringify(again)).toBe(JSON.stringify(first));
        }),
        runs,
      );
    });
  }

  it('CBF among evolving jobs and malleable ones filling their pre-allocations: a promised rigid job starts by its first promise', () => {
    // Old code: a malleable job grew onto the processors a rigid job was promised (13 processors: j0 (2) and j1 (12)
    // for 10 s, m (1..2) at 1 grows into the one free, and j1, promised at 10, starts at 10.5), and an evolving job's
    // grow moved the extras filling its pre-allocation onto them. The examples below, which RUNS=1500 found: a pending
    // grow offer left the plan's capacity one short and dropped j2's promise (at 11 m is offered j0's processor, j3
    // backfills until 50, j2 promised at 48 starts at 50); j1 filled j2's unused pre-allocation with extras that
    // stayed past its end onto j3's processors (j3 promised at 50 started at 50.3); and j8 promised at 604 moved to 605
    // when j6 grew at 420.
    const example = (processors: number, seed: number, jobs: Array<[string, number, number, number, number]>) => ({
      processors,
      seed,
      jobs: jobs.map(([kind, size, extra, runtime, gap]) => ({ kind, size, extra, runtime, gap })),
    });
    const examples = [
      example(8, 0, [
        ['rigid', 1, 0, 11, 0],
        ['malleable', 1, 1, 12, 0],
        ['rigid', 8, 0, 10, 0],
        ['rigid', 1, 0, 39, 10],
        ['rigid', 1, 0, 10, 0],
      ]),
      example(18, 730, [
        ['rigid', 10, 0, 10, 0],
        ['malleable', 9, 5, 61, 0],
        ['evolving', 5, 4, 10, 0],
        ['rigid', 5, 0, 10, 1],
      ]),
      example(8, 0, [
        ['rigid', 6, 0, 138, 0],
        ['evolving', 2, 1, 222, 0],
        ['rigid', 1, 0, 10, 39],
        ['rigid', 1, 0, 10, 76],
        ['rigid', 4, 0, 222, 1],
        ['rigid', 7, 0, 10, 1],
        ['malleable', 2, 1, 61, 82],
        ['rigid', 4, 0, 235, 73],
        ['rigid', 7, 0, 10, 88],
      ]),
    ];
    const jobArb = fc.record({
      kind: fc.constantFrom('rigid', 'rigid', 'malleable', 'evolving'),
      size: fc.integer({ min: 1, max: 12 }),
      extra: fc.integer({ min: 0, max: 8 }),
      runtime: fc.integer({ min: 10, max: 400 }),
      gap: fc.integer({ min: 0, max: 100 }),
    });
    const mixArb = fc.record({
      processors: fc.integer({ min: 8, max: 24 }),
      seed: fc.integer({ min: 0, max: 1000 }),
      jobs: fc.array(jobArb, { minLength: 2, maxLength: 12 }),
    });
    let promises = 0;
    fc.assert(
      fc.property(mixArb, (s) => {
        let t = 0;
        const specs = s.jobs.map((j, i): JobSpecInput => {
          t += j.gap;
          const size = Math.min(j.size, s.processors);
          const max = Math.min(s.processors, size + j.extra);
          if (j.kind === 'rigid') return rigidJob(`j${i}`, t, size, j.runtime);
          if (j.kind === 'malleable')
            return malleableJob(`j${i}`, t, { min: size, max, runtime: j.runtime, walltime: 4 * j.runtime });
          return evolvingJob(`j${i}`, t, { initial: size, max, runtime: j.runtime });
        });
        const { world: w, events } = simWorld(gridOf([s.processors]), specs, {
          seed: s.seed,
          scheduler: { queue: 'cbf' },
        });
        const promised = new Map<string, number>();
        w.run(() => {
          for (const job of w.scheduler.jobs()) {
            const p = job.plannedStart;
            if (job.state === 'queued' && p !== undefined && job.kind === 'rigid' && !promised.has(job.id))
              promised.set(job.id, p.start);
          }
        });
        const started = starts(events);
        for (const [id, start] of promised) expect(started.get(id), id).toBeLessThanOrEqual(start + 1e-9);
        promises += promised.size;
      }),
      // A fixed seed, the known cases first.
      { ...runs, seed: 20261126, examples: examples.map((e) => [e] as [typeof e]) },
    );
    expect(promises).toBeGreaterThan(0);
  });

  // Decision (tested): with jobs without a walltime the two differ on purpose: EASY re-picks its head at every pass,
  // so a job ahead of the head that the plan could not place (waiting for a job without a walltime) may start first
  // and push the head's reservation back; a depth-1 promise holds.
  it('a reservation depth of 1 gives EASY its own schedule (submission order, every job with a walltime)', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const easy = runChecked(world(s, { queue: 'easy', walltimes: 'all', priority: 'submit' }), false).events;
        const depth1 = runChecked(
          world(s, { queue: 'cbf', walltimes: 'all', priority: 'submit', reservationDepth: 1 }),
        ).events;
        expect(JSON.stringify([...starts(depth1)])).toBe(JSON.stringify([...starts(easy)]));
      }),
      runs,
    );
  });

  it("the plan a CBF pass starts from equals an independent recomputation from the jobs' holdings and promises", () => {
    let compared = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const w = world(s, { queue: 'cbf', walltimes: 'some' });
        const begin = cbf.begin.bind(cbf);
        vi.spyOn(cbf, 'begin').mockImplementation((view: QueueView) => {
          const now = view.now;
          const waiting = [...w.scheduler.jobs()].filter((j) => j.state === 'queued' && j.plannedStart !== undefined);
          // Only when every promise was kept (none is broken in these workloads, which overrun nothing).
          if (view.promised === waiting.length) {
            for (let c = 0; c < view.clusterCount; c++) {
              const spans: Array<{ from: number; to: number; n: number }> = [];
              for (const j of w.scheduler.jobs()) {
                const wt = j.spec.walltime ?? Infinity;
                if ((j.state === 'claiming' || j.state === 'running') && j.clusterIndex === c) {
                  const from = Number.isFinite(j.startTime) ? j.startTime : now;
                  spans.push({ from, to: from + wt, n: j.components[0]!.processors });
                }
                if (j.state === 'queued' && j.plannedStart?.cluster === c)
                  spans.push({ from: j.plannedStart.start, to: j.plannedStart.start + wt, n: j.need });
              }
              const plan = view.plan(c);
              const times = new Set<number>([now, ...plan.free.times.filter((t) => t >= now)]);
              for (const sp of spans)
                for (const t of [sp.from, sp.to]) if (t >= now && Number.isFinite(t)) times.add(t);
              for (const t of times) {
                const held = spans.reduce((sum, sp) => sum + (Math.max(sp.from, now) <= t && t < sp.to ? sp.n : 0), 0);
                expect(plan.freeAt(t), `cluster ${c} at ${t}`).toBe(s.clusters[c]! - held);
              }
              compared++;
            }
          }
          return begin(view);
        });
        runChecked(w);
        vi.restoreAllMocks();
      }),
      runs,
    );
    expect(compared).toBeGreaterThan(0);
  });
});
