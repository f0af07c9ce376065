// The living default's stream of jobs: the same seed and settings give the same jobs, in a run as on their own; a
// kind the mix leaves out never arrives; arrivals only move forward.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { JobStream, jobStreamSettingsSchema, type JobStreamSettings } from '../../core/sim/workloads/stream.js';
import { SimWorld } from '../../core/sim/world.js';

const mixArb = fc
  .tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }))
  .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const)
  .chain(([a, b]) =>
    fc.record({
      jobsPerHour: fc.double({ min: 1, max: 600, noNaN: true }),
      malleablePct: fc.constant(a),
      rigidPct: fc.constant(b - a),
      evolvingPct: fc.constant(100 - b),
    }),
  );

function draw(seed: number, settings: JobStreamSettings, n: number) {
  const stream = new JobStream(seed, settings);
  const jobs = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    const job = stream.next(t)!;
    jobs.push(job);
    t = job.submitTime;
  }
  return jobs;
}

describe('job stream', () => {
  it('same seed and settings ⇒ same jobs; arrivals move forward; only the kinds of the mix', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), mixArb, (seed, settings) => {
        expect(jobStreamSettingsSchema.safeParse(settings).success).toBe(true);
        const a = draw(seed, settings, 50);
        expect(draw(seed, settings, 50)).toEqual(a);
        for (let i = 1; i < a.length; i++) expect(a[i]!.submitTime).toBeGreaterThanOrEqual(a[i - 1]!.submitTime);
        const pct = {
          malleable: settings.malleablePct,
          rigid: settings.rigidPct,
          evolving: settings.evolvingPct,
        } as Record<string, number>;
        for (const job of a) expect(pct[job.kind]).toBeGreaterThan(0);
      }),
      { numRuns: 100 },
    );
  });

  it('same seed ⇒ same event stream of a grid living on the stream', () => {
    const grid = gridSpecSchema.parse({
      name: 'g',
      clusters: [
        { name: 'a', processors: 48, threshold: 44 },
        { name: 'b', processors: 24 },
      ],
    });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), mixArb, (seed, settings) => {
        const jobsPerHour = Math.min(settings.jobsPerHour, 60);
        // Long enough for about 40 arrivals whatever the rate (a Poisson stream of 1 an hour may bring none in 4 h).
        const horizonS = Math.max(4, 40 / jobsPerHour) * 3600;
        const run = () => {
          const world = new SimWorld({
            grid,
            jobs: [],
            seed,
            endless: true,
            metrics: false,
            stream: new JobStream(seed, { ...settings, jobsPerHour }),
          });
          const events: SchedulerEvent[] = [];
          world.scheduler.on((e) => events.push(e));
          world.runUntil(horizonS);
          return events;
        };
        const first = run();
        expect(first.some((e) => e.type === 'job.submitted')).toBe(true);
        expect(run()).toEqual(first);
      }),
      { numRuns: 15 },
    );
  });
});
