// Placement invariants over random grids, availability and jobs: no policy takes more than a cluster has available,
// pinned components stay pinned, and sizes stay within the job's bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGrid, type Grid } from '../../core/model/grid.js';
import { componentRequest } from '../../core/model/job.js';
import { gridSpecSchema, jobSpecSchema, PLACEMENT_POLICIES, type JobSpec } from '../../core/model/schemas.js';
import type { PlacementContext } from '../../core/placement/policy.js';
import { placementPolicies } from '../../core/placement/registry.js';

interface World {
  grid: Grid;
  available: number[];
}

// 1-8 clusters, each with 1-64 processors and 0..processors of them available.
const world: fc.Arbitrary<World> = fc
  .array(
    fc.integer({ min: 1, max: 64 }).chain((p) => fc.tuple(fc.constant(p), fc.integer({ min: 0, max: p }))),
    { minLength: 1, maxLength: 8 },
  )
  .map((clusters) => ({
    grid: buildGrid(
      gridSpecSchema.parse({ clusters: clusters.map(([processors], i) => ({ name: `c${i}`, processors })) }),
    ),
    available: clusters.map(([, a]) => a),
  }));

// Pins name a cluster by index into the grid (taken modulo its size), or nothing.
const pin = fc.option(fc.nat({ max: 7 }), { nil: undefined, freq: 3 });

type JobShape =
  | { kind: 'rigid'; components: { processors: number; pin: number | undefined }[] }
  | { kind: 'moldable' | 'malleable'; min: number; extra: number; initial: number; pin: number | undefined };

const jobShape: fc.Arbitrary<JobShape> = fc.oneof(
  fc.record({
    kind: fc.constant('rigid' as const),
    components: fc.array(fc.record({ processors: fc.integer({ min: 1, max: 40 }), pin }), {
      minLength: 1,
      maxLength: 4,
    }),
  }),
  fc.record({
    kind: fc.constantFrom('moldable' as const, 'malleable' as const),
    min: fc.integer({ min: 1, max: 40 }),
    extra: fc.nat({ max: 60 }),
    // A fraction of the way from min to max.
    initial: fc.double({ min: 0, max: 1, noNaN: true }),
    pin,
  }),
);

function toJob(shape: JobShape, grid: Grid): JobSpec {
  const cluster = (p: number | undefined) =>
    p === undefined ? {} : { cluster: grid.clusters[p % grid.clusters.length]!.name };
  if (shape.kind === 'rigid') {
    return jobSpecSchema.parse({
      kind: 'rigid',
      components: shape.components.map((c) => ({ program: 'app', processors: c.processors, ...cluster(c.pin) })),
    });
  }
  const max = shape.min + shape.extra;
  const initial = shape.min + Math.floor(shape.initial * shape.extra);
  const bounds = shape.kind === 'malleable' ? { min: shape.min, max, initial } : { min: shape.min, max };
  return jobSpecSchema.parse({ kind: shape.kind, components: [{ program: 'app', ...bounds, ...cluster(shape.pin) }] });
}

const context = (w: World): PlacementContext => ({ grid: w.grid, available: (i) => w.available[i]! });
const pinned = (job: JobSpec) => job.components.some((c) => c.cluster !== undefined);

describe.each(PLACEMENT_POLICIES.map((name) => ({ name })))('placement policy $name', ({ name }) => {
  const policy = placementPolicies[name];

  it('never takes more than available, keeps pins, and sizes within min..max', () => {
    fc.assert(
      fc.property(world, jobShape, (w, shape) => {
        const job = toJob(shape, w.grid);
        const result = policy.place(job, context(w));
        if (!result.ok) {
          expect(result.reason.length).toBeGreaterThan(0);
          return;
        }
        const used = new Map<string, number>();
        for (const c of result.components) {
          expect(c.processors).toBeGreaterThanOrEqual(1);
          used.set(c.cluster, (used.get(c.cluster) ?? 0) + c.processors);
        }
        for (const [cluster, n] of used) expect(n).toBeLessThanOrEqual(w.available[w.grid.cluster(cluster)!.index]!);

        // fcm re-splits an unpinned rigid job: only the total is kept.
        if (name === 'fcm' && job.kind === 'rigid' && !pinned(job)) {
          const total = job.components.reduce((s, c) => s + c.processors!, 0);
          expect(result.components.reduce((s, c) => s + c.processors, 0)).toBe(total);
          expect(new Set(result.components.map((c) => c.cluster)).size).toBe(result.components.length);
          return;
        }
        expect(result.components).toHaveLength(job.components.length);
        result.components.forEach((placed, i) => {
          const { min, max } = componentRequest(job, i);
          expect(placed.processors).toBeGreaterThanOrEqual(min);
          expect(placed.processors).toBeLessThanOrEqual(max);
          const pin = job.components[i]!.cluster;
          if (pin !== undefined) expect(placed.cluster).toBe(pin);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('places a lone unpinned component whenever some cluster has its minimum', () => {
    fc.assert(
      fc.property(world, jobShape, (w, shape) => {
        const job = toJob(shape, w.grid);
        fc.pre(job.components.length === 1 && !pinned(job));
        const need = componentRequest(job, 0).min;
        // fcm may spread a rigid job over the whole grid; every other case needs one cluster with room.
        const room =
          name === 'fcm' && job.kind === 'rigid' ? w.available.reduce((s, a) => s + a, 0) : Math.max(...w.available);
        expect(policy.place(job, context(w)).ok).toBe(room >= need);
      }),
      { numRuns: 300 },
    );
  });
});
