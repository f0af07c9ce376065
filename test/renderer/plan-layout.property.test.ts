// The Plan view's Gantt over plan snapshots of random simulated runs (rigid, malleable, non-predictably evolving and
// profiled jobs on one or two clusters) under every queue policy and under dbes, read at each instant and half-way to
// the next (where a console reads it): the snapshot never plans more than the capacity at any time, the axis is the
// cluster's processors, and no drawn box goes past them or shares a processor with a box overlapping it in time
// except the processors it draws as shared (a malleable job's extras in an evolving job's unused pre-allocation).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jobSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';
import { layoutPlan, type ClusterPlanView } from '../../renderer/src/composables/plan-layout.js';
import { evolvingJob, gridOf, malleableJob, profiledJob, rigidJob } from '../support/workload-specs.js';

// The renderer's typecheck has no Node types: the environment is read through globalThis.
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env;
const runs = { numRuns: Number(env?.RUNS ?? 40) };

// A kind listed twice is drawn twice as often.
const jobArb = fc.record({
  kind: fc.constantFrom('rigid', 'rigid', 'malleable', 'malleable', 'evolving', 'profiled'),
  size: fc.integer({ min: 1, max: 10 }),
  grow: fc.integer({ min: 0, max: 8 }),
  runtime: fc.integer({ min: 10, max: 900 }),
  gap: fc.integer({ min: 0, max: 300 }),
  steps: fc.array(
    fc.record({ duration_s: fc.integer({ min: 10, max: 400 }), processors: fc.integer({ min: 1, max: 10 }) }),
    { minLength: 1, maxLength: 4 },
  ),
});
const scenarioArb = fc.record({
  clusters: fc.array(fc.integer({ min: 10, max: 20 }), { minLength: 1, maxLength: 2 }),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 14 }),
  seed: fc.integer({ min: 0, max: 1000 }),
});
type Drawn = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;

function spec(j: Drawn, i: number, submitTime: number, dbes: boolean): JobSpecInput {
  const id = `j${i}`;
  switch (j.kind) {
    case 'rigid':
      return rigidJob(id, submitTime, j.size, j.runtime);
    case 'malleable':
      // Under dbes its walltime is its run time at its minimum; otherwise a generous estimate.
      return malleableJob(id, submitTime, {
        min: j.size,
        max: j.size + j.grow,
        runtime: j.runtime,
        walltime: dbes ? j.runtime : 4 * j.runtime,
      });
    case 'evolving':
      return evolvingJob(id, submitTime, { initial: j.size, max: j.size + j.grow, runtime: j.runtime });
    default:
      return profiledJob(id, submitTime, j.steps);
  }
}

function checkCluster(plan: ClusterPlanView, now: number, where: string): void {
  const capacity = plan.capacity[0]!.v;
  for (const s of plan.free) expect(s.v, `${where}: free at ${s.t}`).toBeGreaterThanOrEqual(0);
  const layout = layoutPlan(plan, now);
  // The axis is the cluster's processors, never the plan's capacity (which counts shared processors twice).
  expect(layout.top, `${where}: the axis top`).toBe(plan.processors);
  expect(layout.usable + layout.shared, `${where}: usable and shared`).toBe(capacity);
  const inside = (band: readonly [number, number], within: ReadonlyArray<readonly [number, number]>) =>
    within.some(([from, to]) => from <= band[0] && band[1] <= to);
  let drawnShared = 0;
  layout.boxes.forEach((a, i) => {
    for (const [from, to] of a.shared) drawnShared += to - from;
    for (const [from, to] of a.bands) {
      expect(from, `${where}: ${a.id}`).toBeGreaterThanOrEqual(0);
      expect(to, `${where}: ${a.id} drawn past the processors`).toBeLessThanOrEqual(plan.processors);
    }
    for (const b of layout.boxes.slice(i + 1)) {
      if (!(a.x0 < b.x1 && b.x0 < a.x1)) continue;
      // Two boxes overlapping in time share only what one of them draws as shared.
      for (const [f1, t1] of a.bands)
        for (const [f2, t2] of b.bands) {
          const common: [number, number] = [Math.max(f1, f2), Math.min(t1, t2)];
          if (common[0] >= common[1]) continue;
          expect(
            inside(common, a.shared) || inside(common, b.shared),
            `${where}: ${a.id} and ${b.id} share processors`,
          ).toBe(true);
        }
    }
  });
  expect(drawnShared, `${where}: drawn shared`).toBeLessThanOrEqual(layout.shared);
}

describe('plan layout over simulated runs (property)', () => {
  for (const [queue, policy] of [
    ['koala', 'fpsma'],
    ['fcfs', 'fpsma'],
    ['easy', 'equipartition'],
    ['cbf', 'fpsma'],
    ['koala', 'dbes'],
  ] as const) {
    it(`${queue}${policy === 'dbes' ? ' under dbes' : ''}: never plans past the capacity nor draws past the cluster's processors`, () => {
      let reservations = 0;
      const dbes = policy === 'dbes';
      fc.assert(
        fc.property(scenarioArb, (s) => {
          let t = 0;
          const world = new SimWorld({
            grid: gridOf(s.clusters),
            jobs: s.jobs.map((j, i) => jobSpecSchema.parse(spec(j, i, (t += j.gap), dbes))),
            seed: s.seed,
            background: false,
            scheduler: { policy, queue, ...(dbes && { reservationDepth: 3 }) },
          });
          world.run(() => {
            const now = world.engine.now;
            const next = world.engine.nextTime();
            // Once the instant is over (offers made in it answered): where a console reads the plan.
            if (next === now) return;
            for (const at of Number.isFinite(next) ? [now, (now + next) / 2] : [now]) {
              const snapshot = world.scheduler.planSnapshot(at);
              for (const c of snapshot.clusters) {
                reservations += c.reservations.length;
                checkCluster(c as ClusterPlanView, at, `${c.name} at ${at}`);
              }
            }
          });
        }),
        runs,
      );
      if (queue === 'easy' || queue === 'cbf' || policy === 'dbes') expect(reservations).toBeGreaterThan(0);
    });
  }
});
