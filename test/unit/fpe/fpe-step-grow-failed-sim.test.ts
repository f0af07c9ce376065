// In simulation, a profiled job's step grow that waits at the cluster's own batch system behind load the scheduler has
// not polled yet (core/sim/simulated-cluster.ts runs requests first come, first served): the grow is withdrawn after
// the timeout (cancelGrow) and asked again, with the step delayed, until it runs. Without the timeout the job held its
// grow's place in the queue; with a failing batch system it would have waited forever.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import { gridSpecSchema, jobSpecSchema } from '../../../core/model/schemas.js';
import { SimWorld } from '../../../core/sim/world.js';

type Of<T extends SchedulerEvent['type']> = Extract<SchedulerEvent, { type: T }>;

describe("a profiled job's step grow waiting behind unpolled load, in simulation", () => {
  // 10 processors, polled every 10,000 s. e runs 1 processor for 100 s, then 3 for 50 s. At 50 a local user's job
  // takes the 9 others until 1050, unseen by the scheduler until its next poll. The grow of 2 asked at 100 waits:
  // withdrawn at 400 (timeout 300 s), asked again at 460, withdrawn at 760, asked again at 820; it runs at 1050, when
  // the user's job ends. Step 2 began at 820 for the scheduler (it asked for its processors then), and its application
  // runs it once they come, from 1050: the job completes at 1100.
  it('is withdrawn at each timeout and asked again a minute later, until it runs', () => {
    const world = new SimWorld({
      grid: gridSpecSchema.parse({ clusters: [{ name: 'a', processors: 10 }] }),
      jobs: [
        jobSpecSchema.parse({
          id: 'e',
          kind: 'evolving',
          profile: {
            steps: [
              { duration_s: 100, processors: 1 },
              { duration_s: 50, processors: 3 },
            ],
          },
          components: [{ program: 'fpe-app' }],
        }),
      ],
      seed: 1,
      pollIntervalS: 10_000,
      background: false,
      scheduler: { fpeVariant: '2X' },
    });
    world.engine.at(50, () => world.clusters[0]!.addBackground(9, 1000));
    const events: SchedulerEvent[] = [];
    world.scheduler.on((x) => events.push(x));
    expect(world.runUntil(20_000, () => events.length > 1000)).toBe(true);
    const of = <T extends SchedulerEvent['type']>(type: T) => events.filter((x): x is Of<T> => x.type === type);
    expect(of('fpe.growFailed').map((x) => [x.t, x.step, x.missing, x.attempt, x.retryAt])).toEqual([
      [400, 2, 2, 1, 460],
      [760, 2, 2, 2, 820],
    ]);
    expect(of('fpe.step').map((x) => [x.t, x.step, x.processors, x.expandedS])).toEqual([
      [0, 1, 1, 0],
      [100, 2, 3, 0],
      [460, 2, 3, 360],
      [820, 2, 3, 720],
    ]);
    // The application began step 2 when its processors came, at 1050.
    expect(of('job.ended')).toMatchObject([{ t: 1100, jobId: 'e', state: 'completed' }]);
  });
});
