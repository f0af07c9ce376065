// The plan snapshot draws placed profiled (FPE) jobs' steps within the capacity (core/plan/plan-snapshot.ts): the
// plan-layout property's counterexamples with profiled jobs, replayed. Each run is read as the property reads it, at
// each instant once it is over and half-way to the next.
import { describe, expect, it } from 'vitest';
import { jobSpecSchema, type JobSpecInput } from '../../../core/model/schemas.js';
import type { SchedulerOptions } from '../../../core/scheduler/scheduler.js';
import { SimWorld } from '../../../core/sim/world.js';
import type { ClusterPlan } from '../../../core/plan/plan-snapshot.js';
import { evolvingJob, gridOf, malleableJob, profiledJob, rigidJob } from '../../support/workload-specs.js';

/** Runs the jobs on one 10-processor cluster; `look` reads every snapshot (after the free check). */
function replay(
  scheduler: Partial<SchedulerOptions>,
  jobs: JobSpecInput[],
  look?: (plan: ClusterPlan, at: number) => void,
): void {
  const world = new SimWorld({
    grid: gridOf([10]),
    jobs: jobs.map((j) => jobSpecSchema.parse(j)),
    seed: 0,
    background: false,
    scheduler,
  });
  world.run(() => {
    const now = world.engine.now;
    const next = world.engine.nextTime();
    if (next === now) return;
    for (const at of Number.isFinite(next) ? [now, (now + next) / 2] : [now]) {
      const plan = world.scheduler.planSnapshot(at).clusters[0]!;
      for (const s of plan.free) expect(s.v, `at ${at}: free at ${s.t}`).toBeGreaterThanOrEqual(0);
      look?.(plan, at);
    }
  });
}

describe('placed profiled jobs in the plan snapshot', () => {
  it('cbf: a next step that keeps its processors is never counted as freeing them for shared pre-allocated ones', () => {
    // e pre-allocates 2 and uses 1; m (1..5) grows to 5 at 60, one of its extras in e's unused processor, which the
    // plan sets aside from where it has one free. p's first step ends at 61, its second keeps p's processor until 71:
    // set aside at 61 (as freed by p), it was counted twice, -1 free at 61.
    let shared = false;
    replay(
      { policy: 'fpsma', queue: 'cbf' },
      [
        evolvingJob('e', 0, { initial: 1, max: 2, runtime: 63 }),
        profiledJob('p', 0, [
          { duration_s: 61, processors: 1 },
          { duration_s: 10, processors: 1 },
        ]),
        malleableJob('m', 0, { min: 1, max: 5, runtime: 61, walltime: 244 }),
        rigidJob('r', 3, 3, 59),
      ],
      (plan, at) => {
        const m = plan.running.find((r) => r.id === 'm');
        if (at < 61 && m?.processors === 5) shared = true;
      },
    );
    expect(shared, 'm filled e’s unused pre-allocation before p’s step').toBe(true);
  });
});
