// EASY's pass tells a job behind the head that needs more than any cluster has free now that it waits, without asking
// its room over its walltime (core/queue/easy.ts, mostFreeNow in core/queue/policy.ts). Property: on random plans (one
// to more than FEW_CLUSTERS clusters, running jobs with and without ends, overbooked ones, reservations ahead) and a
// random queue (jobs pinned or not, needing nothing to more than a cluster has, with and without a walltime), a pass
// admits every job exactly as the same pass that asks every job's room: the same room on every cluster, reason and
// reservation, with the same jobs placed or not placed after each admission.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AvailabilityProfile } from '../../core/plan/availability.js';
import { EasyPass } from '../../core/queue/easy.js';
import { FEW_CLUSTERS, hasRoom, type Admission, type QueueView, type WaitingJob } from '../../core/queue/policy.js';

const NOW = 10;

const endArb = fc.oneof(fc.integer({ min: NOW + 1, max: NOW + 60 }), fc.constant(Infinity));
const walltimeArb = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 60 }), weight: 5 }, fc.constant(Infinity));
const clusterArb = fc.record({
  capacity: fc.integer({ min: 0, max: 16 }),
  running: fc.array(fc.record({ n: fc.integer({ min: 0, max: 8 }), end: endArb }), { maxLength: 6 }),
  reservations: fc.array(
    fc.record({
      n: fc.integer({ min: 1, max: 8 }),
      start: fc.integer({ min: NOW + 1, max: NOW + 60 }),
      duration: walltimeArb,
    }),
    { maxLength: 2 },
  ),
});
const scenarioArb = fc.record({
  clusters: fc.array(clusterArb, { minLength: 1, maxLength: FEW_CLUSTERS + 3 }),
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
  const plans = s.clusters.map((c, i) =>
    AvailabilityProfile.build({
      now: NOW,
      capacity: c.capacity,
      running: c.running.map((r, k) => ({ id: `c${i}r${k}`, ...r })),
      reservations: c.reservations.map((r, k) => ({ id: `c${i}s${k}`, ...r })),
    }),
  );
  const freeFromNow = (i: number, duration: number): number => plans[i]!.freeBetween(NOW, NOW + duration);
  const view: QueueView = {
    now: NOW,
    clusterCount: plans.length,
    plan: (i) => plans[i]!,
    freed: () => true,
    promised: 0,
  };
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

/** What an admission says, cluster by cluster. */
function said(a: Admission, need: number, clusters: number): unknown {
  const on: number[] = [];
  for (let c = 0; c < clusters; c++) on.push(a.room.on(c));
  return { has: hasRoom(a.room, need), most: a.room.most, on, reason: a.reason, reserved: a.reserved };
}

describe('EASY pass: the jobs behind the head that need more than is free now', () => {
  it('are admitted exactly as when every job is asked its room', () => {
    let skippable = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const count = s.clusters.length;
        const fast = new EasyPass(viewOf(s));
        const full = new EasyPass(viewOf(s), true);
        const fullView = viewOf(s);
        s.jobs.forEach((j, k) => {
          const job: WaitingJob = {
            id: `j${k}`,
            need: j.need,
            walltime: j.walltime,
            cluster: j.pinned === undefined ? undefined : j.pinned % count,
          };
          const a = fast.admit(job);
          const b = full.admit(job);
          expect(said(a, job.need, count)).toEqual(said(b, job.need, count));
          if (a.reason?.startsWith('waiting: cannot start now') && job.cluster === undefined) {
            let most = -Infinity;
            for (let c = 0; c < count; c++) most = Math.max(most, fullView.plan(c).freeAt(NOW));
            if (job.need > most) skippable++;
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
    // The property is not vacuous: jobs are told to wait by the bound.
    expect(skippable).toBeGreaterThan(0);
  });
});
