// Malleability under load (issue 11): over random grids, workloads and background loads, a shrink never asks a job
// for more than it runs above its minimum, passes at one instant always make progress, and PWA runs end.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobManagementApproach } from '../../core/malleability/approach.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';
import { das3Grid } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { SimWorld } from '../../core/sim/world.js';
import { scenarioArb } from '../support/scenarios.js';

/** Calls `after` with the scheduler's state once each pass has run. */
function onPass(scheduler: Scheduler, after: () => void): void {
  const holder = scheduler as unknown as { approach: JobManagementApproach };
  const inner = holder.approach;
  holder.approach = {
    ...inner,
    pass(context) {
      inner.pass(context);
      after();
    },
  };
}

/** A KOALA run on DAS-3 with local users keeping `background` of it busy: the first `jobs` jobs of a preset. */
const loadedArb = fc.record({
  background: fc.double({ min: 0.05, max: 0.97, noNaN: true }),
  policy: fc.constantFrom('fpsma', 'egs'),
  workload: fc.constantFrom('wm-fast', 'wmr-fast', 'wm', 'wmr'),
  seed: fc.integer({ min: 1, max: 1000 }),
  jobs: fc.integer({ min: 10, max: 60 }),
  adaptS: fc.constantFrom(0, 0, 5, 30),
  launchDelayS: fc.constantFrom(0, 0, 2, 10),
});

function loadedWorld(s: typeof loadedArb extends fc.Arbitrary<infer T> ? T : never, triesThreshold = 30) {
  const jobs = workloadPreset(s.workload, s.seed)!.slice(0, s.jobs);
  return new SimWorld({
    grid: gridSpecSchema.parse(das3Grid(s.background)),
    jobs,
    seed: s.seed,
    adaptS: s.adaptS,
    launchDelayS: s.launchDelayS,
    scheduler: { approach: 'pwa', policy: s.policy, triesThreshold },
    maxTimeS: 60 * 86400,
  });
}

describe('malleability under load', () => {
  it('never asks a job to shrink by more than it runs above its minimum', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          scenarioArb.map((s) => ({ random: s })),
          loadedArb.map((s) => ({ loaded: s })),
        ),
        (c) => {
          const w =
            'random' in c
              ? new SimWorld({
                  grid: c.random.grid,
                  jobs: c.random.jobs,
                  seed: c.random.seed,
                  pollIntervalS: c.random.poll,
                  scheduler: { approach: 'pwa', policy: c.random.policy, triesThreshold: 50 },
                  maxTimeS: 10 * 86400,
                })
              : loadedWorld(c.loaded);
          let asked = 0;
          w.scheduler.on(
            (e) => {
              if (e.type !== 'shrink.requested') return;
              asked++;
              const job = w.scheduler.job(e.jobId)!;
              // At the request, nothing of it is agreed yet: what it runs above its minimum, less what it already gives.
              expect(e.processors).toBeGreaterThan(0);
              expect(e.processors).toBeLessThanOrEqual(job.size - job.releasing - job.min);
            },
            ['shrink.requested'],
          );
          w.run();
          return asked >= 0;
        },
      ),
      { numRuns: 40 },
    );
  });

  it('never has two passes at one instant leave the same state', () => {
    fc.assert(
      fc.property(loadedArb, (s) => {
        const w = loadedWorld(s);
        let instant = Number.NaN;
        const left = new Set<number>();
        onPass(w.scheduler, () => {
          const t = w.engine.now;
          if (t !== instant) {
            instant = t;
            left.clear();
          }
          const key = w.scheduler.stateKey();
          expect(left.has(key), `two passes at t = ${t} left the same state`).toBe(false);
          left.add(key);
        });
        w.run();
      }),
      { numRuns: 40 },
    );
  });

  it('ends every PWA run, whatever the background load up to the full grid', () => {
    fc.assert(
      fc.property(loadedArb, (s) => {
        // Tries without limit: a job fails only if the run is stuck, and a stuck run shows as one that does not end.
        const w = loadedWorld(s, Number.MAX_SAFE_INTEGER);
        let steps = 0;
        // Bounded: a run that loops at one instant or forever would not end within this many instants.
        while (w.stepInstant()) if (++steps > 500_000) break;
        expect(w.finished).toBe(true);
        expect(w.scheduler.unfinishedJobs).toBe(0);
      }),
      { numRuns: 30 },
    );
  });
});
