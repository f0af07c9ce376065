// Operator resizes at random moments of random simulated runs never break capacity, thresholds or min..max, and
// never offer more than was free or than the job could take.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';

const scenarioArb = fc.record({
  clusters: fc.array(
    fc.record({
      processors: fc.integer({ min: 4, max: 48 }),
      reserve: fc.integer({ min: 0, max: 3 }),
      busy: fc.boolean(),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  approach: fc.constantFrom('pra', 'pwa'),
  policy: fc.constantFrom('fpsma', 'egs'),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  jobs: fc.array(
    fc.record({
      malleable: fc.constantFrom(true, true, true, false),
      app: fc.constantFrom('ft', 'gadget2', 'amdahl'),
      a: fc.integer({ min: 1, max: 24 }),
      b: fc.integer({ min: 1, max: 24 }),
      gap: fc.integer({ min: 0, max: 200 }),
    }),
    { minLength: 1, maxLength: 15 },
  ),
  /**
   * Operator commands: when (per mille of the workload's submission span and ten minutes more), which job, by how much; `fit` picks a running malleable job and cuts the amount to what
   * it can give or take, otherwise the job and the amount go as drawn (often refused).
   */
  commands: fc.array(
    fc.record({
      permille: fc.integer({ min: 0, max: 1000 }),
      job: fc.nat(),
      delta: fc.integer({ min: -20, max: 20 }),
      fit: fc.boolean(),
    }),
    { minLength: 5, maxLength: 30 },
  ),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function world(s: Scenario) {
  const grid = gridSpecSchema.parse({
    clusters: s.clusters.map((c, i) => ({
      name: `c${i}`,
      processors: c.processors,
      threshold: Math.max(2, c.processors - c.reserve),
      background: c.busy ? { meanInterarrivalS: 120, minSize: 1, maxSize: 4, meanDurationS: 300 } : undefined,
    })),
  });
  const largest = Math.min(...grid.clusters.map((c) => c.threshold ?? c.processors));
  let t = 0;
  const jobs = s.jobs.map((j, i) => {
    t += j.gap;
    const lo = Math.min(largest, j.a, j.b);
    const hi = Math.max(lo, Math.max(j.a, j.b));
    const app = j.app === 'amdahl' ? { model: 'amdahl' as const, serial: 10, parallel: 600 } : { model: j.app };
    const component = j.malleable ? { min: lo, max: hi, program: 'p' } : { processors: lo, program: 'p' };
    return jobSpecSchema.parse({
      id: `j${i}`,
      kind: j.malleable ? 'malleable' : 'rigid',
      submitTime: t,
      app,
      components: [component],
    });
  });
  return {
    jobs,
    world: new SimWorld({
      grid,
      jobs,
      seed: s.seed,
      scheduler: { approach: s.approach, policy: s.policy, triesThreshold: 50 },
      maxTimeS: 5 * 86400,
    }),
  };
}

describe('operator resizes', () => {
  it('keep every cluster within its capacity and threshold and every malleable job within min..max', () => {
    // So that the property is not vacuous: how many resizes of each direction the runs accepted.
    const accepted = { grow: 0, shrink: 0 };
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { jobs, world: w } = world(s);
        const span = jobs.at(-1)!.submitTime + 600;
        for (const c of s.commands) {
          w.engine.at(Math.floor((c.permille / 1000) * span), () => {
            // Mostly a running malleable job (the ones an operator resizes), sometimes any job (often refused).
            const running = [...w.scheduler.jobs()].filter((j) => j.state === 'running' && j.malleable);
            const job =
              c.fit && running.length > 0
                ? running[c.job % running.length]!
                : w.scheduler.job(`j${c.job % s.jobs.length}`);
            if (!job) return;
            const state = w.scheduler.clusters[job.clusterIndex];
            const free = state?.availableFor() ?? 0;
            const room = job.max - job.held;
            const shrinkable = job.shrinkable;
            const delta = c.fit ? (c.delta < 0 ? -Math.min(-c.delta, shrinkable) : Math.min(c.delta, room)) : c.delta;
            const r = w.scheduler.resize(job.id, delta, w.engine.now);
            if (!r.ok) return;
            accepted[r.value.direction]++;
            if (r.value.direction === 'grow') {
              expect(r.value.processors).toBeLessThanOrEqual(Math.min(free, room, delta));
              expect(r.value.processors).toBeGreaterThan(0);
            } else {
              expect(r.value.processors).toBe(-delta);
              expect(r.value.processors).toBeLessThanOrEqual(shrinkable);
            }
          });
        }
        w.run(() => {
          w.clusters.forEach((c, i) => {
            expect(c.concertina).toBeLessThanOrEqual(c.processors - c.background);
            const state = w.scheduler.clusters[i]!;
            // Held and on offer together stay within the threshold.
            expect(state.concertina + state.offered).toBeLessThanOrEqual(state.cluster.threshold);
            expect(c.concertina).toBeLessThanOrEqual(state.cluster.threshold);
            expect(state.offered).toBeGreaterThanOrEqual(0);
            expect(state.preemptible).toBeGreaterThanOrEqual(0);
          });
          for (const job of w.scheduler.jobs()) {
            if (job.state !== 'running' || !job.malleable) continue;
            expect(job.size).toBeGreaterThanOrEqual(job.min);
            expect(job.held).toBeLessThanOrEqual(job.max);
            expect(job.cap).toBeGreaterThanOrEqual(job.min);
          }
        });
        for (const job of w.scheduler.jobs()) expect(['completed', 'failed', 'cancelled']).toContain(job.state);
        w.scheduler.clusters.forEach((c) => expect(c.concertina + c.offered).toBe(0));
      }),
      { numRuns: Number(process.env.RUNS ?? 120) },
    );
    expect(accepted.grow).toBeGreaterThan(0);
    expect(accepted.shrink).toBeGreaterThan(0);
  });
});
