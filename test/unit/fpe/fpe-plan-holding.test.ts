// A running profiled (FPE) job in the plans (core/plan/holding.ts, fpe-jobs.ts profiledHolds): it holds its current
// step's processors until that step's end and its later steps after it, walltime or not, so that a step that shrinks
// frees processors in the queue policies' plans and in the plan snapshot the console draws, at the shrink.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import type { JobSpecInput } from '../../../core/model/schemas.js';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../../support/workload-specs.js';

/** A world of one 10-processor cluster under `queue`, profiled jobs fitted by 2X, and its scheduler's events. */
const run = (queue: 'easy' | 'cbf', jobs: JobSpecInput[]) =>
  simWorld(gridOf([10]), jobs, { pollIntervalS: 60, scheduler: { fpeVariant: '2X', queue } });

// 10 processors. e runs 6 for 100 s, then 2 for 300 s (ends at 400). r (8 for 100 s, submitted at 1) does not fit
// before e's shrink: it is reserved at 100. b (4 for 150 s, submitted at 2) fits now, but over [2, 152) it overlaps
// r's reservation (2 + 8 + 4 > 10): it may not backfill, and starts once r ends, at 200. With e held at 6 to no end (or
// to its walltime), r would get no reservation before then, b would backfill at 2 and r would wait for it until 152.
function shrinking(queue: 'easy' | 'cbf', walltime: number | undefined) {
  const e = profiledJob('e', 0, [
    { duration_s: 100, processors: 6 },
    { duration_s: 300, processors: 2 },
  ]);
  if (walltime !== undefined) e.walltime = walltime;
  return run(queue, [e, rigidJob('r', 1, 8, 100), rigidJob('b', 2, 4, 150)]);
}

const starts = (events: SchedulerEvent[]) =>
  Object.fromEntries(events.filter((x) => x.type === 'job.started').map((x) => [x.jobId, x.t]));

describe('a running profiled job in the plans', () => {
  for (const queue of ['easy', 'cbf'] as const) {
    for (const walltime of [undefined, 2000]) {
      const label = walltime === undefined ? 'without a walltime' : `with a walltime (${walltime} s) past its profile`;
      it(`${queue}, ${label}: a job behind it is reserved at its shrink, and a later one does not backfill over it`, () => {
        const { world, events } = shrinking(queue, walltime);
        world.runUntil(5);
        expect(world.scheduler.plannedStart('r')).toEqual({ cluster: 0, start: 100 });
        const plan = world.scheduler.planSnapshot(5).clusters[0]!;
        expect(plan.running).toMatchObject([{ id: 'e', processors: 6, end: 400 }]);
        expect(plan.reservations.find((x) => x.id === 'r')).toMatchObject({ start: 100, end: 200 });
        world.run();
        expect(starts(events)).toEqual({ e: 0, r: 100, b: 200 });
      });
    }
  }
});

describe('a running profiled job whose step keeps its size', () => {
  // 10 processors. e runs 4 for 100 s, 4 again for 100 s, then 1 for 100 s. r (8 for 50 s, submitted at 150, during
  // e's second step) is reserved at 200, when e gives back 3, and b (3 for 100 s, submitted at 160) fits now but
  // would overlap r there (1 + 8 + 3 > 10): it waits for r's end. A plan that kept e's holding to its first step's
  // end would hold nothing for e from 100 to 200.
  for (const queue of ['easy', 'cbf'] as const) {
    it(`${queue}: holds its current processors to the end of its second step, not its first`, () => {
      const e = profiledJob('e', 0, [
        { duration_s: 100, processors: 4 },
        { duration_s: 100, processors: 4 },
        { duration_s: 100, processors: 1 },
      ]);
      const { world, events } = run(queue, [e, rigidJob('r', 150, 8, 50), rigidJob('b', 160, 3, 100)]);
      world.runUntil(170);
      expect(world.scheduler.plannedStart('r')).toEqual({ cluster: 0, start: 200 });
      expect(world.scheduler.planSnapshot(170).clusters[0]!.running).toMatchObject([{ id: 'e', processors: 4 }]);
      world.run();
      expect(starts(events)).toEqual({ e: 0, r: 200, b: 250 });
    });
  }
});
