// A planned pass keeps each placed job's holdings from pass to pass and makes them again only where one changed
// (core/queue/planned-pass.ts). Property: after any sequence of placements, starts, resizes, ends and passes of
// time, the plans a pass shows equal those of a pass that kept nothing (every holding made from scratch), and a plan
// answered lazily (from its holdings) equals the same plan once its profile is built.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGrid } from '../../core/model/grid.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import type { AvailabilityProfile } from '../../core/plan/availability.js';
import { PlannedPass, type PlannedPassHost } from '../../core/queue/planned-pass.js';
import { PlacementQueue } from '../../core/queue/placement-queue.js';
import { NO_ROOM, type QueuePolicy } from '../../core/queue/policy.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';
import type { Step } from '../../core/time/step-function.js';

const grid = buildGrid(
  gridSpecSchema.parse({
    clusters: [
      { name: 'a', processors: 64 },
      { name: 'b', processors: 64 },
    ],
  }),
);

/** What a planned pass reads of a placed job (the fields of JobRecord that core/plan/holding.ts reads). */
interface FakeJob {
  id: string;
  seq: number;
  spec: { walltime?: number };
  startTime: number;
  held: number;
  size: number;
  evolving: boolean;
  malleable: boolean;
  preallocation: number;
  sizeHistory: Step[];
  components: Array<{ cluster: string; processors: number }>;
}

type Op =
  | {
      op: 'place';
      clusters: readonly string[];
      processors: number;
      walltime: number | undefined;
      malleable: boolean;
      evolving: boolean;
    }
  | { op: 'start'; k: number }
  | { op: 'resize'; k: number; size: number }
  | { op: 'end'; k: number }
  | { op: 'wait'; dt: number }
  | { op: 'pass'; lazy: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('place' as const),
    clusters: fc.oneof(fc.constant(['a']), fc.constant(['b']), fc.constant(['a', 'b']), fc.constant(['a', 'a'])),
    processors: fc.integer({ min: 0, max: 20 }),
    walltime: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    malleable: fc.boolean(),
    evolving: fc.boolean(),
  }),
  fc.record({ op: fc.constant('start' as const), k: fc.nat(12) }),
  fc.record({ op: fc.constant('resize' as const), k: fc.nat(12), size: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ op: fc.constant('end' as const), k: fc.nat(12) }),
  fc.record({ op: fc.constant('wait' as const), dt: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ op: fc.constant('pass' as const), lazy: fc.boolean() }),
);

function host(placed: () => Iterable<FakeJob>): PlannedPassHost {
  return {
    grid,
    availableFor: (i) => 10 + 3 * i,
    placedJobs: () => placed() as Iterable<JobRecord>,
    runtimeAt: (_id, size) => 100 / Math.sqrt(size),
    roomFor: () => 0,
    place: () => {},
    failedTry: () => 'kept',
    wake: () => {},
    eventCount: () => 0,
  };
}

/** Runs a pass and reads every cluster's plan: its free processors now and ahead, lazily answered or built. */
function plansOf(pass: PlannedPass, now: number, lazy: boolean): Array<{ now: number; ahead: number[]; free: string }> {
  let seen: Array<{ now: number; ahead: number[]; free: string }> = [];
  const policy: QueuePolicy = {
    name: 'fcfs',
    description: 'reads the plans',
    begin(view) {
      seen = Array.from({ length: view.clusterCount }, (_, c) => {
        const plan: AvailabilityProfile = view.plan(c);
        // Read lazily first (what a pass asks most), then the whole profile.
        const ahead = lazy ? [0, 1, 5, 17, 40, 1e9].map((dt) => plan.freeBetween(now + dt, now + dt + 7)) : [];
        return { now: plan.freeAt(now), ahead, free: plan.free.toString() };
      });
      return { admit: () => ({ room: NO_ROOM }), placed: () => {}, notPlaced: () => {} };
    },
  };
  expect(pass.run(policy, new PlacementQueue(Number.POSITIVE_INFINITY), now)).toBe(true);
  return seen;
}

describe('planned pass: holdings kept between passes', () => {
  it('show the same plans as holdings made from scratch, after any placements, starts, resizes and ends', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 60 }), (ops) => {
        const jobs: FakeJob[] = [];
        const kept = new PlannedPass(host(() => jobs));
        let now = 0;
        let made = 0;
        for (const o of ops) {
          const job = 'k' in o ? jobs[o.k % Math.max(1, jobs.length)] : undefined;
          if (o.op === 'place') {
            const p = Math.max(1, o.processors);
            jobs.push({
              id: `j${made}`,
              seq: made++,
              spec: { walltime: o.walltime },
              startTime: Number.NaN,
              held: p,
              size: p,
              evolving: o.evolving && !o.malleable,
              malleable: o.malleable,
              preallocation: p + 2,
              sizeHistory: [],
              components: o.clusters.map((cluster) => ({ cluster, processors: o.processors })),
            });
          } else if (o.op === 'start' && job !== undefined && !Number.isFinite(job.startTime)) {
            job.startTime = now;
            job.sizeHistory.push({ t: now, v: job.size });
          } else if (o.op === 'resize' && job !== undefined && job.malleable && Number.isFinite(job.startTime)) {
            job.size = o.size;
            job.held = o.size;
            job.sizeHistory.push({ t: now, v: o.size });
            job.components = job.components.map((c) => ({ cluster: c.cluster, processors: o.size }));
          } else if (o.op === 'end' && job !== undefined) jobs.splice(jobs.indexOf(job), 1);
          else if (o.op === 'wait') now += o.dt;
          else if (o.op === 'pass') {
            const fresh = new PlannedPass(host(() => jobs));
            const got = plansOf(kept, now, o.lazy);
            const want = plansOf(fresh, now, false);
            expect(got.map((p) => p.free)).toEqual(want.map((p) => p.free));
            expect(got.map((p) => p.now)).toEqual(want.map((p) => p.now));
            // The lazy answers, checked against a plan read only once built.
            if (o.lazy) {
              const built = new PlannedPass(host(() => jobs));
              let ahead: number[][] = [];
              built.run(
                {
                  name: 'fcfs',
                  description: 'reads the built plans',
                  begin(view) {
                    ahead = [0, 1].map((c) => {
                      const plan = view.plan(c);
                      void plan.free;
                      return [0, 1, 5, 17, 40, 1e9].map((dt) => plan.freeBetween(now + dt, now + dt + 7));
                    });
                    return { admit: () => ({ room: NO_ROOM }), placed: () => {}, notPlaced: () => {} };
                  },
                },
                new PlacementQueue(Number.POSITIVE_INFINITY),
                now,
              );
              expect(got.map((p) => p.ahead)).toEqual(ahead);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
