// Invariants of whole simulated runs over random grids and workloads, checked after every instant.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GridSpecInput, JobSpecInput } from '../../core/model/schemas.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { isPowerOfTwo } from '../support/math.js';
import { SimWorld } from '../../core/sim/world.js';

const clusterArb = fc
  .record({
    processors: fc.integer({ min: 4, max: 64 }),
    reserve: fc.integer({ min: 0, max: 3 }),
    background: fc.option(fc.record({ every: fc.integer({ min: 20, max: 400 }), max: fc.integer({ min: 1, max: 8 }), duration: fc.integer({ min: 10, max: 600 }) }), { nil: undefined }),
    reservations: fc.boolean(),
  })
  .map((c) => ({ ...c, threshold: Math.max(2, c.processors - c.reserve) }));

export const scenarioArb = fc
  .record({
    clusters: fc.array(clusterArb, { minLength: 1, maxLength: 4 }),
    approach: fc.constantFrom('pra', 'pwa'),
    policy: fc.constantFrom('fpsma', 'egs'),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    poll: fc.integer({ min: 5, max: 120 }),
    jobs: fc.array(
      fc.record({
        kind: fc.constantFrom('rigid', 'moldable', 'malleable', 'malleable'),
        app: fc.constantFrom('ft', 'gadget2', 'amdahl'),
        a: fc.integer({ min: 1, max: 40 }),
        b: fc.integer({ min: 1, max: 40 }),
        placement: fc.constantFrom('wf', 'cf', 'cm', 'fcm'),
        gap: fc.integer({ min: 0, max: 300 }),
        files: fc.boolean(),
      }),
      { minLength: 1, maxLength: 25 },
    ),
  })
  .map((s) => {
    const grid: GridSpecInput = {
      clusters: s.clusters.map((c, i) => ({
        name: `c${i}`,
        processors: c.processors,
        threshold: c.threshold,
        supportsReservations: c.reservations,
        background: c.background && { meanInterarrivalS: c.background.every, minSize: 1, maxSize: c.background.max, meanDurationS: c.background.duration },
      })),
      files: [{ name: 'data', sizeMB: 500, replicas: ['c0'] }],
    };
    const largest = Math.max(...s.clusters.map((c) => c.threshold));
    let t = 0;
    const jobs = s.jobs.map((j, i): JobSpecInput => {
      t += j.gap;
      const lo = Math.min(largest, Math.min(j.a, j.b));
      const hi = Math.max(lo, Math.min(64, Math.max(j.a, j.b)));
      const app = j.app === 'amdahl' ? { model: 'amdahl' as const, serial: 10, parallel: 300 } : { model: j.app };
      const inputFiles = j.files ? ['data'] : [];
      if (j.kind === 'rigid') return { id: `j${i}`, kind: 'rigid', placement: j.placement, submitTime: t, app, components: [{ processors: lo, program: 'p', inputFiles }] };
      return { id: `j${i}`, kind: j.kind, placement: j.placement, submitTime: t, app, components: [{ min: lo, max: hi, program: 'p', inputFiles }] };
    });
    return { ...s, grid: gridSpecSchema.parse(grid), jobs: jobs.map((j) => jobSpecSchema.parse(j)) };
  });

type ScenarioValue = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function world(s: ScenarioValue) {
  return new SimWorld({ grid: s.grid, jobs: s.jobs, seed: s.seed, pollIntervalS: s.poll, scheduler: { approach: s.approach, policy: s.policy, triesThreshold: 50 }, maxTimeS: 10 * 86400 });
}

describe('simulated runs', () => {
  it('never exceed capacity or thresholds, keep malleable jobs within min..max, and end every job with a reason', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const w = world(s);
        const ft = new Set(s.jobs.filter((j) => j.app?.model === 'ft' && j.kind === 'malleable').map((j) => j.id));
        w.run(() => {
          w.clusters.forEach((c, i) => {
            // The batch system never runs more than it has: Concertina's share <= processors - background.
            expect(c.concertina).toBeLessThanOrEqual(c.processors - c.background);
            const state = w.scheduler.clusters[i]!;
            // What Concertina holds there (as it counts it, and as the cluster runs it) stays within the threshold.
            expect(state.concertina).toBeLessThanOrEqual(state.cluster.threshold);
            expect(c.concertina).toBeLessThanOrEqual(state.cluster.threshold);
            expect(state.nonPreemptible).toBeGreaterThanOrEqual(0);
            expect(state.preemptible).toBeGreaterThanOrEqual(0);
          });
          for (const job of w.scheduler.jobs()) {
            if (job.state !== 'running' || !job.malleable) continue;
            expect(job.size).toBeGreaterThanOrEqual(job.min);
            expect(job.held).toBeLessThanOrEqual(job.max);
            const appSize = w.applications.sizeOf(job.id);
            if (appSize !== undefined && ft.has(job.id) && job.pendingGrow === 0 && job.releasing === 0) {
              expect(isPowerOfTwo(appSize) || appSize === job.min).toBe(true);
            }
          }
        });
        for (const job of w.scheduler.jobs()) {
          expect(['completed', 'failed', 'cancelled']).toContain(job.state);
          expect(job.transitions.at(-1)!.reason.length).toBeGreaterThan(0);
        }
        expect(w.scheduler.liveJobs).toBe(0);
        // Nothing is left held anywhere once every job has ended.
        w.scheduler.clusters.forEach((c) => expect(c.concertina).toBe(0));
        w.clusters.forEach((c) => expect(c.concertina).toBe(0));
      }),
      { numRuns: Number(process.env.RUNS ?? 150) },
    );
  });

  it('gives the same event stream for the same seed', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const streams = [0, 1].map(() => {
          const w = world(s);
          const events: string[] = [];
          w.scheduler.on((e) => events.push(JSON.stringify(e)));
          w.run();
          return events;
        });
        expect(streams[1]).toEqual(streams[0]);
      }),
      { numRuns: Number(process.env.RUNS2 ?? 40) },
    );
  });
});

