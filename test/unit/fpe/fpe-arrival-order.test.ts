// Arrival order decides between a profiled job and the jobs submitted before or after it (core/scheduler/fpe-jobs.ts):
// a later profiled job's stalled step neither pushes an earlier waiting profiled job's start when it is fitted again,
// nor takes the processors an earlier job starts with in the same instant; what a running one keeps into its later
// steps is never promised to a job submitted before it.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import type { JobSpecInput } from '../../../core/model/schemas.js';
import { eventsOf } from '../../support/scheduler-events.js';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, profiledJob, rigidJob, stepsLasting } from '../../support/workload-specs.js';

function run(processors: number, queue: 'easy' | 'cbf', specs: JobSpecInput[]): SchedulerEvent[] {
  const { world, events } = simWorld(gridOf([processors]), specs, {
    pollIntervalS: 60,
    scheduler: { fpeVariant: '2X+c', queue },
  });
  world.run();
  return events;
}

const startOf = (events: SchedulerEvent[], id: string) => eventsOf(events, 'job.started', id)[0]?.t;
const stepsOf = (events: SchedulerEvent[], id: string) => eventsOf(events, 'fpe.step', id).map((e) => e.t);

describe('profiled jobs in arrival order', () => {
  it('a later profiled job stalled for its step does not push an earlier waiting one refitted (fpe-online property)', () => {
    // 14 processors: b0 2 until 118, b1 8 until 181; x (7 for 10 s) fits at 181. a0 and a1 (5 each) start when b0
    // ends and a0 ends; a2 starts at 120 and stalls for its 3-processor step until a1 ends at 182. Refitted at 180,
    // x counted a2's 3 from then on and moved to 182; x comes first: at 181 14 - 5 (a1) - 1 (a2) = 8 >= 7.
    const events = run(14, 'easy', [
      rigidJob('b0', 0, 2, 118),
      rigidJob('b1', 0, 8, 181),
      profiledJob('x', 1, stepsLasting(10, [7])),
      rigidJob('a0', 1, 5, 10),
      rigidJob('a1', 1, 5, 54),
      profiledJob('a2', 1, [
        { duration_s: 10, processors: 1 },
        { duration_s: 61, processors: 3 },
        { duration_s: 10, processors: 8 },
      ]),
      rigidJob('a3', 1, 1, 10),
    ]);
    expect(eventsOf(events, 'fpe.scheduled', 'x').map((e) => e.start)).toEqual([181]);
    expect(startOf(events, 'x')).toBe(181);
    // a2's second step waits for x's start: 14 - 5 (a1) - 7 (x) leaves it 2 more only once a1 ends.
    expect(stepsOf(events, 'a2')[1]).toBe(182);
  });

  it("a profiled job's step waits for an earlier queue job promised the same instant (cbf)", () => {
    // 10 processors: j0 3 and j3 1 until 10; j1 (7) is promised 10; j2, submitted after j1, started at 0 with 1 and
    // grows to 4 at 10. Both need what j0 and j3 free at 10: j1 starts then, j2's step once j1 ends at 20.
    const events = run(10, 'cbf', [
      rigidJob('j0', 0, 3, 10),
      rigidJob('j1', 0, 7, 10),
      profiledJob('j2', 0, stepsLasting(10, [1, 4])),
      rigidJob('j3', 0, 1, 10),
    ]);
    expect(startOf(events, 'j1')).toBe(10);
    expect(stepsOf(events, 'j2')).toEqual([0, 20]);
  });

  it("a running profiled job's processors kept into its later steps are not promised to an earlier job (easy)", () => {
    // 10 processors: p (4, then 5, then 4, 10 s each) and r1 (1 until 10) start at 0; r7 (7), submitted first, waits.
    // p keeps its 4 until it ends at 30: r7 is promised 30, and p's step of 5 takes its 1 more on time at 10.
    // With p's later steps planned after r7, r7 was promised 10 inside p's 4: the step waited until 20 for it, and
    // r7 was promised 30 and 40 before it started at 40.
    const { world, events } = simWorld(
      gridOf([10]),
      [rigidJob('r7', 0, 7, 10), profiledJob('p', 0, stepsLasting(10, [4, 5, 4])), rigidJob('r1', 0, 1, 10)],
      { pollIntervalS: 60, scheduler: { fpeVariant: '2X+c', queue: 'easy' } },
    );
    const promised = new Set<number>();
    world.run(() => {
      const start = world.scheduler.plannedStart('r7')?.start;
      if (start !== undefined) promised.add(start);
    });
    expect([...promised]).toEqual([30]);
    expect(startOf(events, 'r7')).toBe(30);
    expect(stepsOf(events, 'p')).toEqual([0, 10, 20]);
  });
});
