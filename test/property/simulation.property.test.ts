// Invariants of whole simulated runs over random grids and workloads, checked after every instant.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPowerOfTwo } from '../support/math.js';
import { SimWorld } from '../../core/sim/world.js';
import { scenarioArb } from '../support/scenarios.js';

type ScenarioValue = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function world(s: ScenarioValue) {
  return new SimWorld({
    grid: s.grid,
    jobs: s.jobs,
    seed: s.seed,
    pollIntervalS: s.poll,
    scheduler: { approach: s.approach, policy: s.policy, triesThreshold: 50 },
    maxTimeS: 10 * 86400,
  });
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
        expect(w.scheduler.unfinishedJobs).toBe(0);
        // Nothing is left held anywhere once every job has ended.
        w.scheduler.clusters.forEach((c) => expect(c.concertina).toBe(0));
        w.clusters.forEach((c) => expect(c.concertina).toBe(0));
      }),
      { numRuns: Number(process.env.RUNS ?? 150) },
    );
  });

  it('leave nothing due at an instant they do not come back to (issue 16: advance settles its instant)', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const w = world(s);
        w.run(() => {
          const now = w.engine.now;
          if (w.engine.nextTime() > now) expect(w.scheduler.nextWakeup()).toBeGreaterThan(now);
        });
      }),
      { numRuns: Number(process.env.RUNS3 ?? 60) },
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
