// A profiled (FPE) job among rigid jobs under dbes and its baselines (rigid, ep), on one cluster: once it runs, each of
// its later steps starts when its scheduled EP says (its step before ended), never waiting for a job the iteration
// started into its processors: DBES's plan holds its steps ahead (core/dbes/plan.ts runningPlan). Rigid jobs end at
// their walltimes, so the plans are exact. (Its first step is left out: its start is the FPE fit's, not DBES's.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FPE_VARIANTS } from '../../core/fpe/registry.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { simWorld } from '../support/sim-world.js';
import { gridOf, profiledJob, rigidJob } from '../support/workload-specs.js';

const stepArb = fc.record({
  duration_s: fc.integer({ min: 10, max: 400 }),
  processors: fc.integer({ min: 1, max: 12 }),
});

const scenarioArb = fc.record({
  processors: fc.integer({ min: 12, max: 24 }),
  // The rigid variant runs one step (its peak throughout): nothing ahead to hold.
  variant: fc.constantFrom(...FPE_VARIANTS.filter((v) => v !== 'rigid')),
  policy: fc.constantFrom('dbes', 'rigid', 'ep'),
  steps: fc.array(stepArb, { minLength: 2, maxLength: 5 }),
  // Where the profiled job comes among the rigid ones.
  at: fc.nat(),
  rigid: fc.array(
    fc.record({
      size: fc.integer({ min: 1, max: 12 }),
      runtime: fc.integer({ min: 10, max: 600 }),
      gap: fc.integer({ min: 0, max: 200 }),
    }),
    { minLength: 1, maxLength: 10 },
  ),
});

describe('a profiled job among rigid jobs under dbes (property)', () => {
  it('starts each later step on time: no job is started into its steps ahead', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        let t = 0;
        const at = s.at % (s.rigid.length + 1);
        const specs: JobSpecInput[] = s.rigid.map((j, i) => rigidJob(`r${i}`, (t += j.gap), j.size, j.runtime));
        specs.splice(at, 0, profiledJob('e', at === 0 ? 0 : specs[at - 1]!.submitTime!, s.steps));
        const { world, of } = simWorld(gridOf([s.processors]), specs, {
          pollIntervalS: 60,
          scheduler: { fpeVariant: s.variant, policy: s.policy },
        });
        world.run();
        const steps = of('fpe.step', 'e');
        expect(steps.length).toBe(s.steps.length);
        // Its fit as it stood when it started.
        const fits = of('fpe.scheduled', 'e');
        const fit = fits.filter((e) => e.t <= steps[0]!.t).pop()!;
        let start = steps[0]!.t;
        const planned = fit.steps.map((x) => (start += x.durationS) - x.durationS);
        expect(steps.map((e) => e.t)).toEqual(planned);
      }),
      { numRuns: 150 },
    );
  });
});
