// Profiled (FPE) jobs' steps ahead in DBES's plan (core/dbes/plan.ts runningPlan, fed by fpe-jobs.ts profiledHolds):
// in the simulator under dbes and its baselines, a running profiled job holds its current step to its end and its
// later steps after it, so no waiting job is started into the processors its next step takes, while one that ends
// before the step still starts; on a scripted cluster, neither shrinks nor an evolving grant take a step's processors.
import { describe, expect, it } from 'vitest';
import { dbesIteration } from '../../../core/dbes/iteration.js';
import type { Reservation } from '../../../core/plan/availability.js';
import { standardIteration, evenSizes } from '../../../core/dbes/standard.js';
import type { SchedulerEvent } from '../../../core/events.js';
import type { JobSpecInput } from '../../../core/model/schemas.js';
import { eventsOf } from '../../support/scheduler-events.js';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../../support/workload-specs.js';
import { cluster, malleable, rigid, secondStep, waiting } from './builders.js';

/** A world of one 10-processor cluster under `policy`, and its scheduler's events. */
function run(policy: string, jobs: JobSpecInput[]) {
  return simWorld(gridOf([10]), jobs, { pollIntervalS: 60, scheduler: { policy, fpeVariant: '2X' } });
}

const starts = (events: SchedulerEvent[]) =>
  Object.fromEntries(eventsOf(events, 'job.started').map((x) => [x.jobId, x.t]));

const steps = (events: SchedulerEvent[], jobId: string) =>
  eventsOf(events, 'fpe.step', jobId).map((x) => [x.step, x.t]);

// 10 processors. e runs 2 for 100 s, then 8 for 300 s (ends at 400). r (6 for 200 s, submitted at 1) fits now, but
// over [1, 201) it overlaps e's second step (8 + 6 > 10): it is reserved at 400, after e. b (4 for 50 s, submitted
// at 2) ends at 52, before e's second step (2 + 4 <= 10 until then): it starts at 2. A plan holding e at 2 to its
// first step's end only started r at 1, then b at r's end (201), and e's second step waited for both, until 251.
describe('a running profiled job in DBES’s plan', () => {
  for (const policy of ['dbes', 'rigid', 'ep'])
    it(`${policy}: a waiting job that would overlap its next step starts after it; one ending before starts now`, () => {
      const e = profiledJob('e', 0, [
        { duration_s: 100, processors: 2 },
        { duration_s: 300, processors: 8 },
      ]);
      const { world, events } = run(policy, [e, rigidJob('r', 1, 6, 200), rigidJob('b', 2, 4, 50)]);
      world.runUntil(5);
      expect(world.scheduler.plannedStart('r')).toEqual({ cluster: 0, start: 400 });
      world.run();
      expect(starts(events)).toEqual({ e: 0, b: 2, r: 400 });
      expect(steps(events, 'e')).toEqual([
        [1, 0],
        [2, 100],
      ]);
    });
});

// 10 processors, all submitted at 0: rigid 9 waits; p runs 2 for 51 s, then 3 for 10 s; rigid 1 runs. At 51 p's
// larger step waits (the 9 was promised a start ahead of it). A plan that took p's waiting step as ended at `now`
// saw 10 free at 60 and started the 9 beside p's 2: 11 held on 10 (found by the plan-layout property).
describe('a profiled job whose larger step waits, under dbes', () => {
  it('keeps its processors in the plan: nothing starts beside it past the capacity', () => {
    const p = profiledJob('p', 0, [
      { duration_s: 51, processors: 2 },
      { duration_s: 10, processors: 3 },
    ]);
    const { world, of } = simWorld(gridOf([10]), [rigidJob('r9', 0, 9, 100), p, rigidJob('r1', 0, 1, 100)], {
      pollIntervalS: 60,
      scheduler: { policy: 'dbes', queue: 'koala', reservationDepth: 3 },
    });
    let peak = 0;
    const held = () => {
      for (const c of world.scheduler.clusters) peak = Math.max(peak, c.nonPreemptible + c.preemptible);
      return peak > 10;
    };
    world.runUntil(120, held); // stops at the first instant past the capacity
    expect(peak).toBeLessThanOrEqual(10);
    world.run(held);
    expect(of('job.ended').map((e) => e.state)).toEqual(['completed', 'completed', 'completed']);
  });
});

/** e's second step, 8 processors over [100, 400), as the driver hands it to the iteration. */
const secondStepOfE: Reservation[] = [{ id: 'e#step2', n: 8, start: 100, duration: 300 }];

describe('an iteration with a profiled step ahead', () => {
  // 10 processors: e holds 2 until 100, then its step takes 8 until 400; m holds 4 (1 + 3 expanded) until 1000. r (6
  // for 200 s) has 4 idle now, but over [0, 200) only 10 - 4 - 8 = -2 free: it is reserved at 400. Shrinking m's
  // expansion by 2 would free 6 now, not from 100 on: no shrink, and r does not start.
  const state = () =>
    cluster(10, [rigid('e', 2, 100), malleable('m', 1, 4, 1000, [secondStep(3)])], [waiting('r', 6, 200)], {
      profiledSteps: secondStepOfE,
    });

  it('dbes: the shrink phase shrinks nothing for a StartLater job the step keeps from fitting', () => {
    const out = dbesIteration(state());
    expect(out.actions).toEqual([]);
    expect(out.startLater).toEqual([{ id: 'r', start: 400, dependsOn: [] }]);
  });

  it('ep: neither does the baselines’ shrink for the next reserved job', () => {
    const out = standardIteration(state(), evenSizes);
    expect(out.actions).toEqual([]);
    expect(out.startLater.map((s) => [s.id, s.start])).toEqual([['r', 400]]);
  });

  // 10 processors: e holds 2 until 100, then 8 until 400; v (evolving, 2) asks 3 more. Held to 1000, v with 5 would
  // leave 10 - 5 - 8 = -3 free over [100, 400): refused. Held to 100 (it ends before the step), it is granted.
  it('refuses an evolving grant that would take the step’s processors, grants one that ends before it', () => {
    const ask = (vEnd: number) =>
      dbesIteration(
        cluster(10, [rigid('e', 2, 100), rigid('v', 2, vEnd)], [], {
          requests: [{ jobId: 'v', processors: 3 }],
          profiledSteps: secondStepOfE,
        }),
      ).actions;
    expect(ask(1000)).toEqual([
      { kind: 'reject', jobId: 'v', processors: 3, reason: "a profiled job's step ahead holds those processors" },
    ]);
    expect(ask(100)).toEqual([{ kind: 'grant', jobId: 'v', processors: 3, delay: 0 }]);
  });
});
