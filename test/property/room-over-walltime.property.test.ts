// roomOverWalltime (core/queue/policy.ts) makes no room array for a job no cluster has room for (most jobs behind
// EASY's head): it answers NO_ROOM. Property: on random plans (running jobs with and without ends, overbooked ones,
// reservations ahead) and random jobs on no particular cluster (needing nothing to more than a cluster has), it
// answers as roomOf over what each cluster's plan has free over the job's walltime from now (0 where below its need):
// the same room on every cluster, the same cluster with the most, the same whether it has room.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FEW_CLUSTERS,
  hasRoom,
  roomOf,
  roomOverWalltime,
  type ClusterRoom,
  type WaitingJob,
} from '../../core/queue/policy.js';
import { PLAN_NOW, planClusterArb, plainView, plansOf, walltimeArb } from '../support/plan-arbitraries.js';

const jobArb = fc.record({
  need: fc.integer({ min: 0, max: 18 }),
  walltime: walltimeArb,
});

/** What a room says, cluster by cluster. */
function said(room: ClusterRoom, need: number, clusters: number): unknown {
  const on: number[] = [];
  for (let c = 0; c < clusters; c++) on.push(room.on(c));
  return { has: hasRoom(room, need), most: room.most, on };
}

describe('roomOverWalltime on a few clusters', () => {
  it('answers as roomOf over what each cluster has free over the walltime', () => {
    let without = 0;
    let withRoom = 0;
    fc.assert(
      fc.property(
        fc.array(planClusterArb, { minLength: 1, maxLength: FEW_CLUSTERS }),
        fc.array(jobArb, { minLength: 1, maxLength: 10 }),
        (clusters, jobs) => {
          const plans = plansOf(clusters);
          const view = plainView(plans);
          jobs.forEach((j, k) => {
            const job: WaitingJob = { id: `j${k}`, need: j.need, walltime: j.walltime, cluster: undefined };
            const free = plans.map((p) => {
              const f = p.freeBetween(PLAN_NOW, PLAN_NOW + job.walltime);
              return f >= job.need ? f : 0;
            });
            const room = roomOverWalltime(job, view);
            expect(said(room, job.need, plans.length)).toEqual(said(roomOf(free), job.need, plans.length));
            if (hasRoom(room, job.need)) withRoom++;
            else without++;
          });
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
    // Both answers are met.
    expect(without).toBeGreaterThan(0);
    expect(withRoom).toBeGreaterThan(0);
  });
});
