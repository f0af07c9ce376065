// The plan snapshot draws placed profiled (FPE) jobs' steps within the capacity (core/plan/plan-snapshot.ts): the
// plan-layout property's counterexamples with profiled jobs, replayed. Each run is read as the property reads it, at
// each instant once it is over and half-way to the next.
import { describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../../core/model/schemas.js';
import type { SchedulerOptions } from '../../../core/scheduler/scheduler.js';
import type { ClusterPlan } from '../../../core/plan/plan-snapshot.js';
import { simWorld } from '../../support/sim-world.js';
import {
  evolvingJob,
  gridOf,
  malleableJob,
  profiledJob,
  rigidJob,
  stepsLasting,
} from '../../support/workload-specs.js';

/** Runs the jobs on one 10-processor cluster; `look` reads every snapshot (after the free check). */
function replay(
  scheduler: Partial<SchedulerOptions>,
  jobs: JobSpecInput[],
  look?: (plan: ClusterPlan, at: number) => void,
  processors = 10,
): void {
  const { world } = simWorld(gridOf([processors]), jobs, { seed: 0, scheduler });
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

  it('fcfs: two steps that wait for the same processors are drawn one after the other, never over each other', () => {
    // 16 processors. a runs 7 then 8 and b 3, 4 then 1, 10 s each from 0; fcfs starts e (pre-allocating 6, walltime
    // 40) into what their second steps need (7 + 3 + 6 = 16). Each step waits holding its processors: a's second
    // step, drawn first where b was counted as freeing its 3 at 20 (its step's length), left b no room to wait in, and
    // b's step was drawn at 10 over a's: -1 free at 10.
    const at0: Record<string, unknown> = {};
    replay(
      { policy: 'fpsma', queue: 'fcfs' },
      [
        profiledJob('a', 0, stepsLasting(10, [7, 8])),
        profiledJob('b', 0, stepsLasting(10, [3, 4, 1])),
        evolvingJob('e', 0, { initial: 3, max: 6, runtime: 10 }),
        rigidJob('r', 0, 1, 10),
      ],
      (plan, at) => {
        if (at === 0) for (const r of plan.running) at0[r.id] = r.steps;
      },
      16,
    );
    // Both wait for e's end at its walltime (40): 8 + 4 + 3 (b holding on) > 16 before.
    expect(at0).toMatchObject({
      a: [
        { t: 0, v: 7 },
        { t: 40, v: 8 },
        { t: 50, v: 0 },
      ],
      b: [
        { t: 0, v: 3 },
        { t: 40, v: 4 },
        { t: 50, v: 1 },
        { t: 60, v: 0 },
      ],
    });
  });

  it('easy: an earlier job’s promise is drawn after a running profiled job, never over its own processors', () => {
    // 10 processors. p runs 4, 5, then 4 for 10 s each from 0 beside r1 (1); r7 (7), submitted before p, is promised
    // 20 by easy, where p holds 4 of its 5 (the queue's plan admits r7 before p's later steps: arrival order). Drawn
    // there, it took p's processors: p's third step on time read -1 free at 20.
    const r7: Array<{ at: number; start: number }> = [];
    replay(
      { policy: 'equipartition', queue: 'easy' },
      [rigidJob('r7', 0, 7, 10), profiledJob('p', 0, stepsLasting(10, [4, 5, 4])), rigidJob('r1', 0, 1, 10)],
      (plan, at) => {
        const r = plan.reservations.find((x) => x.id === 'r7');
        if (r) r7.push({ at, start: r.start });
      },
    );
    // At its end, as p's own steps are drawn (at 0: 30).
    expect(r7[0]).toEqual({ at: 0, start: 30 });
  });

  it('fcfs: shared pre-allocated processors are never set aside where a stalled step holds its processor', () => {
    // 10 processors. e pre-allocates 2 from 25 (using 1 from 89), p holds 1 from 25 and asks 2 at 112; m (7..8)
    // starts at 111 and grows at 120 into e's unused processor. p's step waits for m's end (147.125) holding its
    // processor: set aside where p was counted as freeing it (at 130, its step's length after 120), it left p no room
    // to wait in, and p's step was drawn at 120 over the others: -1 free at 120.
    let stalled = false;
    replay(
      { policy: 'fpsma', queue: 'fcfs' },
      [
        evolvingJob('e', 25, { initial: 2, max: 2, runtime: 96 }),
        profiledJob('p', 25, [
          { duration_s: 87, processors: 1 },
          { duration_s: 10, processors: 2 },
        ]),
        malleableJob('m', 111, { min: 7, max: 8, runtime: 10, walltime: 40 }),
        rigidJob('r', 111, 1, 10),
      ],
      (plan, at) => {
        const p = plan.running.find((r) => r.id === 'p');
        if (at === 120 && plan.running.find((r) => r.id === 'm')?.processors === 8) {
          stalled = true;
          expect(p?.steps?.[1]).toEqual({ t: 147.125, v: 2 });
        }
      },
    );
    expect(stalled, 'm grew into e’s unused processor while p’s step waited').toBe(true);
  });

  it('koala: a step that waits ends its wait where the next step begins, not a rounding error after it', () => {
    // 11 processors. p runs 1, 2, 10 then 1 processors (54, 10, 10, 10 s); koala starts m (7..9, grown to 9) into its
    // third step's processors. Drawn at 389.06, p's third step waits for m's end at 1442.4444444444446, holding 2
    // until 389.05555555555554 + (1442.4444444444446 - 389.05555555555554) = 1442.4444444444448: both held between
    // (-1 free).
    let drawn = false;
    replay(
      { policy: 'fpsma', queue: 'koala' },
      [
        profiledJob('p', 0, [
          { duration_s: 54, processors: 1 },
          { duration_s: 10, processors: 2 },
          { duration_s: 10, processors: 10 },
          { duration_s: 10, processors: 1 },
        ]),
        malleableJob('m', 63, { min: 7, max: 9, runtime: 439, walltime: 1756 }),
        rigidJob('r', 119, 1, 10),
      ],
      (plan) => {
        const m = plan.running.find((r) => r.id === 'm');
        const p = plan.running.find((r) => r.id === 'p');
        if (m?.end !== undefined && p?.steps?.[1]?.v === 10 && p.steps[1].t === m.end) drawn = true;
      },
      11,
    );
    expect(drawn, 'p’s third step drawn at m’s end').toBe(true);
  });
});
