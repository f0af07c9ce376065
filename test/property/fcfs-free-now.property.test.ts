// FCFS asks what each cluster has free now as `freeFromNow(c, 0)` where the view answers it (core/queue/fcfs.ts, through
// policy.ts's freeFromNow), so that its passes build no plan. Property: on random multicluster workloads (more clusters than
// FEW_CLUSTERS, small ones so that many jobs wait, bursts of jobs at one instant, jobs pinned or not, overrunning their
// walltime or killed at it, a few without one, malleable ones mixed in, local jobs launched at once or later), FCFS
// shown views without `freeFromNow` (every answer read from the cluster's plan: plan(c).freeAt(now)) admits every job
// with the same room on every cluster and the same reason, and every job starts, ends and fails at the same times.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { fcfs } from '../../core/queue/fcfs.js';
import type { QueuePolicy, QueueView } from '../../core/queue/policy.js';
import { SimWorld } from '../../core/sim/world.js';

const CLUSTERS = 10;

const jobArb = fc.record({
  processors: fc.integer({ min: 1, max: 24 }),
  runtime: fc.integer({ min: 1, max: 300 }),
  // The walltime over (or, killed at it, under) the run time.
  estimate: fc.integer({ min: -50, max: 300 }),
  submit: fc.oneof({ arbitrary: fc.constantFrom(0, 100, 250), weight: 6 }, fc.integer({ min: 0, max: 600 })),
  // Few: a running job without one holds its processors with no end.
  noWalltime: fc.nat(9).map((k) => k === 0),
  pinned: fc.option(fc.integer({ min: 0, max: CLUSTERS - 1 }), { nil: undefined }),
  malleable: fc.boolean(),
});
const scenarioArb = fc.record({
  // Small clusters, so that many jobs wait.
  sizes: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: CLUSTERS, maxLength: CLUSTERS }),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 80, size: '+2' }),
  launchDelayS: fc.constantFrom(0, 0, 3),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function world(s: Scenario): SimWorld {
  const jobs = s.jobs.map((j, i) => {
    const cluster = j.pinned === undefined ? undefined : `c${j.pinned}`;
    const most = j.pinned === undefined ? Math.max(...s.sizes) : s.sizes[j.pinned]!;
    const processors = Math.min(j.processors, most);
    const common = {
      id: `j${i}`,
      placement: 'wf',
      submitTime: j.submit,
      app: { model: 'fixed', runtime: j.runtime },
      ...(j.noWalltime ? {} : { walltime: Math.max(1, j.runtime + j.estimate) }),
    };
    const components = j.malleable
      ? [{ min: 1, max: processors, initial: processors, program: 'x', cluster }]
      : [{ processors, program: 'x', cluster }];
    return jobSpecSchema.parse({ ...common, kind: j.malleable ? 'malleable' : 'rigid', components });
  });
  return new SimWorld({
    grid: gridSpecSchema.parse({ clusters: s.sizes.map((processors, i) => ({ name: `c${i}`, processors })) }),
    jobs,
    seed: 1,
    background: false,
    launchDelayS: s.launchDelayS,
    scheduler: { queue: 'fcfs', triesThreshold: Number.POSITIVE_INFINITY },
  });
}

/**
 * Each admission (the job, its room on each cluster, why it waits, its reservation), then each job's state, start
 * and end; the policy is shown `shown(view)` in place of each view.
 */
function schedule(s: Scenario, policy: QueuePolicy, shown: (view: QueueView) => QueueView): string[] {
  const answers: string[] = [];
  const begin = policy.begin.bind(policy);
  vi.spyOn(policy, 'begin').mockImplementation((given) => {
    const view = shown(given);
    const pass = begin(view)!;
    return {
      placed: (job, processors) => pass.placed(job, processors),
      notPlaced: (job) => pass.notPlaced(job),
      ...(pass.closed ? { closed: () => pass.closed!() } : {}),
      admit: (job) => {
        const a = pass.admit(job);
        const room = Array.from({ length: view.clusterCount }, (_, c) => a.room.on(c)).join(',');
        answers.push(
          `${view.now} ${job.id} most ${a.room.most} room ${room} ${a.reason} ${JSON.stringify(a.reserved)}`,
        );
        return a;
      },
    };
  });
  const w = world(s);
  w.run();
  vi.restoreAllMocks();
  return answers.concat(
    [...w.scheduler.jobs()].map(
      (j) =>
        `${j.id} ${j.state} ${j.transitions.find((t) => t.state === 'running')?.time} ${j.transitions.at(-1)!.time}`,
    ),
  );
}

const asGiven = (view: QueueView): QueueView => view;

describe('fcfs: what is free now, asked without a plan', () => {
  afterEach(() => vi.restoreAllMocks());

  it('admits, starts and ends every job as when every answer is read from the plans', () => {
    // The general path: a view that does not answer freeFromNow, so FCFS reads every cluster's plan.
    const fromPlans = (view: QueueView): QueueView => ({ ...view, freeFromNow: undefined });
    fc.assert(
      fc.property(scenarioArb, (s) => {
        expect(schedule(s, fcfs, asGiven)).toEqual(schedule(s, fcfs, fromPlans));
      }),
      { numRuns: Number(process.env.RUNS ?? 150) },
    );
  });
});
