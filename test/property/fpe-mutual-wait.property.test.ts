// Profiled jobs whose steps slip (koala queue jobs take the processors of their steps, so steps run late) on one
// cluster: whatever waits they end up in, every job ends with a reason. A profiled job runs every step it began with
// its requested processors for at least the step's duration, and ends completed, or failed for an evolution deadlock
// that an fpe.mutualWait event names (fpe-jobs.ts, fpe-mutual-wait.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { simWorld } from '../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../support/workload-specs.js';

const scenarioArb = fc.integer({ min: 4, max: 10 }).chain((processors) =>
  fc.record({
    processors: fc.constant(processors),
    variant: fc.constantFrom('noX', '2X', '2X+c', 'infX', 'infX+c'),
    jobs: fc.array(
      fc.oneof(
        fc.record({
          kind: fc.constant('fpe' as const),
          steps: fc.array(
            fc.record({
              duration_s: fc.integer({ min: 1, max: 60 }),
              processors: fc.integer({ min: 1, max: processors }),
            }),
            { minLength: 1, maxLength: 4 },
          ),
          gap: fc.integer({ min: 0, max: 15 }),
        }),
        fc.record({
          kind: fc.constant('rigid' as const),
          size: fc.integer({ min: 1, max: processors }),
          runtime: fc.integer({ min: 5, max: 80 }),
          gap: fc.integer({ min: 0, max: 15 }),
        }),
      ),
      { minLength: 4, maxLength: 12 },
    ),
  }),
);

describe('profiled jobs whose steps slip (property)', () => {
  it('all end: completed with every step run as requested, or failed for an evolution deadlock it names', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        let t = 0;
        let work = 0;
        const specs: JobSpecInput[] = s.jobs.map((j, i) => {
          t += j.gap;
          if (j.kind === 'rigid') {
            work += j.runtime;
            return rigidJob(`j${i}`, t, j.size, j.runtime);
          }
          for (const step of j.steps) work += step.duration_s;
          return profiledJob(`j${i}`, t, j.steps);
        });
        const { world, of } = simWorld(gridOf([s.processors]), specs, {
          seed: 0,
          pollIntervalS: 60,
          scheduler: { fpeVariant: s.variant, policy: 'fpsma', queue: 'koala' },
        });
        // Bounded: one job at a time would be done by t + work; a mutual wait left alone never ends. (About 1 run in 50
        // draws one: small clusters, many jobs.)
        world.runUntil(t + work + 1000);
        expect(world.finished).toBe(true);
        const ended = of('job.ended');
        expect(ended.length).toBe(specs.length);
        const broken = of('fpe.mutualWait').filter((e) => e.action === 'ended');
        for (const e of ended) {
          const spec = specs.find((x) => x.id === e.jobId)!;
          if (!spec.profile) {
            expect(e.state).toBe('completed');
            continue;
          }
          const requested = spec.profile.steps;
          const steps = of('fpe.step', e.jobId);
          if (e.state === 'failed') {
            expect(e.reason).toMatch(/^evolution deadlock: /);
            expect(broken.filter((b) => b.jobId === e.jobId && b.t === e.t)).toHaveLength(1);
          } else {
            expect(e.state).toBe('completed');
            expect(steps).toHaveLength(requested.length);
          }
          steps.forEach((step, k) => {
            expect(step.processors).toBe(requested[k]!.processors);
            const end = k + 1 < steps.length ? steps[k + 1]!.t : e.t;
            if (e.state === 'completed' || k + 1 < steps.length)
              expect(end - step.t).toBeGreaterThanOrEqual(requested[k]!.duration_s - 1e-9);
          });
        }
        expect(broken.length).toBe(ended.filter((e) => e.state === 'failed').length);
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
  });
});
