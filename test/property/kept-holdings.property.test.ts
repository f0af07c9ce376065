// A planned pass keeps each cluster's holdings between passes and makes again only those of the jobs the capacity
// ledger noted as changed (core/plan/kept-holdings.ts, core/queue/planned-pass.ts). Property: after any sequence of
// placements (one cluster or several), starts, resizes, failed claims, ends and passes of time, moved through the
// ledger as the scheduler moves them, every cluster's plan a kept pass shows equals the plan of a pass that made
// every holding from scratch: its free processors now and ahead (read lazily first), what is free from now before any
// plan is built (kept from pass to pass on the clusters where nothing moved), its profile, and where a request fits
// and which running jobs it waits for.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jobSpecSchema } from '../../core/model/schemas.js';
import { placementPolicy } from '../../core/placement/registry.js';
import { PlannedPass, type PlannedPassHost } from '../../core/queue/planned-pass.js';
import { PlacementQueue } from '../../core/queue/placement-queue.js';
import { NO_ROOM, type QueuePolicy } from '../../core/queue/policy.js';
import { ClusterState } from '../../core/scheduler/cluster-state.js';
import { JobRecord } from '../../core/scheduler/job-record.js';
import { CapacityLedger } from '../../core/scheduler/ledger.js';
import { grid } from '../support/harness.js';

// Three clusters the jobs use, and nine more: past FEW_CLUSTERS, a kept pass refreshes only the clusters that moved.
const g = grid({ a: 64, b: 48, c: 32, ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`idle${i}`, 16])) });

type Op =
  | {
      op: 'place';
      kind: 'rigid' | 'malleable' | 'evolving';
      clusters: readonly number[];
      processors: number;
      walltime: number | undefined;
    }
  | { op: 'start'; k: number }
  | { op: 'resize'; k: number; size: number }
  | { op: 'claimFailed'; k: number }
  | { op: 'end'; k: number }
  | { op: 'wait'; dt: number }
  | { op: 'pass' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant('place' as const),
      kind: fc.constantFrom('rigid' as const, 'malleable' as const, 'evolving' as const),
      clusters: fc.oneof(
        fc.constant([0]),
        fc.constant([1]),
        fc.constant([2]),
        fc.constant([0, 1]),
        fc.constant([2, 2]),
      ),
      processors: fc.integer({ min: 1, max: 12 }),
      walltime: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('start' as const), k: fc.nat(30) }), weight: 2 },
  fc.record({ op: fc.constant('resize' as const), k: fc.nat(30), size: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ op: fc.constant('claimFailed' as const), k: fc.nat(30) }),
  fc.record({ op: fc.constant('end' as const), k: fc.nat(30) }),
  { arbitrary: fc.record({ op: fc.constant('wait' as const), dt: fc.integer({ min: 0, max: 25 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('pass' as const) }), weight: 2 },
);

function host(ledger: CapacityLedger, keeps: boolean): PlannedPassHost {
  const base: PlannedPassHost = {
    grid: g,
    availableFor: (i) => 20 + 5 * i,
    placedJobs: () => ledger.placedJobs,
    runtimeAt: (_id, size) => 90 / Math.sqrt(size),
    roomFor: () => 0,
    place: () => {},
    failedTry: () => 'kept',
    wake: () => {},
    eventCount: () => 0,
  };
  if (!keeps) return base;
  return {
    ...base,
    placedOn: (i) => ledger.placedOn(i),
    holdingsVersion: (i) => ledger.version(i),
    placements: () => ledger.placements,
    watchChanges: (on) => ledger.watchChanges(on),
    drainChanges: (i, visit) => ledger.drainChanges(i, visit),
    drainMoved: (visit) => ledger.drainMoved(visit),
  };
}

/** Every cluster's plan as a pass shows it: read lazily first when `lazy`, then whole. */
function plansOf(pass: PlannedPass, now: number, lazy: boolean): unknown[] {
  let seen: unknown[] = [];
  const policy: QueuePolicy = {
    name: 'fcfs',
    description: 'reads the plans',
    begin(view) {
      // What a pass asks first, before any plan is built: a kept pass answers it from the clusters that moved only.
      const fromNow = Array.from({ length: view.clusterCount }, (_, c) => view.freeFromNow!(c, 12));
      seen = Array.from({ length: view.clusterCount }, (_, c) => {
        const plan = view.plan(c);
        const ahead = lazy ? [0, 1, 6, 19, 45, 1e9].map((dt) => plan.freeBetween(now + dt, now + dt + 5)) : [];
        const fits = [1, 9, 30].map((n) => plan.earliestFit(n, 12, now));
        const built = [0, 1, 6, 19, 45, 1e9].map((dt) => plan.freeBetween(now + dt, now + dt + 5));
        return {
          now: plan.freeAt(now),
          fromNow: fromNow[c],
          ahead: lazy ? ahead : built,
          built,
          free: plan.free.toString(),
          fits,
        };
      });
      return { admit: () => ({ room: NO_ROOM }), placed: () => {}, notPlaced: () => {} };
    },
  };
  expect(pass.run(policy, new PlacementQueue(Number.POSITIVE_INFINITY), now)).toBe(true);
  return seen;
}

describe('planned pass: holdings kept between passes through the ledger', () => {
  it('show the plans a pass made from scratch shows, after any placements, starts, resizes, failed claims and ends', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 80 }), fc.boolean(), (ops, lazy) => {
        const clusters = g.clusters.map((c) => new ClusterState(c));
        const ledger = new CapacityLedger(g, clusters, () => {});
        const kept = new PlannedPass(host(ledger, true));
        const jobs: JobRecord[] = [];
        let now = 0;
        for (const o of ops) {
          const live = jobs.filter((j) => ledger.placedJobs.has(j));
          const job = 'k' in o && live.length > 0 ? live[o.k % live.length] : undefined;
          if (o.op === 'place') {
            const id = `j${jobs.length}`;
            const p = o.processors;
            const single = o.kind !== 'rigid' ? [o.clusters[0]!] : o.clusters;
            const components =
              o.kind === 'rigid'
                ? [{ processors: p, program: 'x' }]
                : [{ min: 1, max: p + 4, initial: p, program: 'x' }];
            const spec = jobSpecSchema.parse({ id, kind: o.kind, walltime: o.walltime, components });
            const record = new JobRecord(spec, id, jobs.length, now, placementPolicy(spec.placement)!);
            jobs.push(record);
            record.components = single.map((c) => ({ cluster: g.clusters[c]!.name, processors: p }));
            record.clusterIndex = single[0]!;
            ledger.place(record);
            if (o.kind === 'rigid') for (const c of single) ledger.holdRigid(clusters[c]!, p);
            else {
              if (o.kind === 'evolving') ledger.holdPreallocation(record);
              ledger.account(record, () => (record.claimed = p));
            }
          } else if (o.op === 'start' && job !== undefined && !Number.isFinite(job.startTime)) {
            if (job.malleable || job.evolving) {
              ledger.account(job, () => {
                job.size = job.claimed;
                job.claimed = 0;
              });
            } else job.size = job.components.reduce((s, c) => s + c.processors, 0);
            job.startTime = now;
            ledger.started(job);
            job.recordSize(now);
          } else if (o.op === 'resize' && job !== undefined && job.malleable && Number.isFinite(job.startTime)) {
            ledger.account(job, () => (job.size = o.size));
            job.recordSize(now);
          } else if (o.op === 'claimFailed' && job !== undefined && !Number.isFinite(job.startTime)) {
            // As the scheduler's claimFailed: given back, removed, then placed again later as a new placement.
            ledger.unaccount(job);
            ledger.remove(job);
            job.components = [];
            job.clusterIndex = -1;
          } else if (o.op === 'end' && job !== undefined) {
            ledger.unaccount(job);
            ledger.remove(job);
          } else if (o.op === 'wait') now += o.dt;
          else if (o.op === 'pass') {
            const got = plansOf(kept, now, lazy);
            const want = plansOf(new PlannedPass(host(ledger, false)), now, false);
            expect(got).toEqual(want);
          }
        }
        expect(plansOf(kept, now, lazy)).toEqual(plansOf(new PlannedPass(host(ledger, false)), now, false));
      }),
      { numRuns: 300 },
    );
  });
});
