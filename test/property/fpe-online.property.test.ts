// Invariants of simulated runs of fully-predictably evolving jobs (submitted with their profiles, fitted online by an
// FPE variant) among rigid, malleable and non-predictably evolving jobs, on one or two clusters, checked after every
// instant: Concertina never holds more than a cluster's threshold, every profiled job runs each of its steps with its
// requested processors for at least the step's duration (C1 online: steps expanded or delayed, never shortened or
// resized; the rigid baseline holds its peak throughout), and every job ends.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { FPE_VARIANTS } from '../../core/fpe/registry.js';
import { gridSpecSchema, jobSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';

const stepArb = fc.record({
  duration_s: fc.integer({ min: 10, max: 400 }),
  processors: fc.integer({ min: 1, max: 12 }),
});
const scenarioArb = fc.record({
  clusters: fc.array(fc.integer({ min: 12, max: 24 }), { minLength: 1, maxLength: 2 }),
  variant: fc.constantFrom(...FPE_VARIANTS),
  policy: fc.constantFrom('fpsma', 'equipartition'),
  // The queue policies that promise starts (easy, cbf) put those promises in the plan profiled jobs are fitted on.
  queue: fc.constantFrom('koala', 'easy', 'cbf'),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  jobs: fc.array(
    fc.record({
      kind: fc.constantFrom('fpe', 'fpe', 'fpe', 'rigid', 'malleable', 'evolving'),
      steps: fc.array(stepArb, { minLength: 1, maxLength: 6 }),
      size: fc.integer({ min: 1, max: 12 }),
      runtime: fc.integer({ min: 10, max: 600 }),
      gap: fc.integer({ min: 0, max: 200 }),
    }),
    { minLength: 1, maxLength: 12 },
  ),
});

interface DrawnJob {
  kind: string;
  steps: Array<{ duration_s: number; processors: number }>;
  size: number;
  runtime: number;
}

function jobOf(j: DrawnJob, i: number, t: number): JobSpecInput {
  const base = { id: `j${i}`, submitTime: t };
  switch (j.kind) {
    case 'fpe':
      return { ...base, kind: 'evolving', profile: { steps: j.steps }, components: [{ program: 'fpe' }] };
    case 'rigid':
      return {
        ...base,
        kind: 'rigid',
        walltime: j.runtime,
        app: { model: 'fixed', runtime: j.runtime },
        components: [{ processors: j.size, program: 'r' }],
      };
    case 'malleable':
      return {
        ...base,
        kind: 'malleable',
        walltime: 4 * j.runtime,
        app: { model: 'amdahl', serial: 1, parallel: j.runtime },
        components: [{ min: 1, max: j.size, program: 'm' }],
      };
    default:
      return {
        ...base,
        kind: 'evolving',
        app: { model: 'evolving', phases: 3, phaseS: j.runtime },
        components: [{ min: 1, max: j.size, program: 'e' }],
      };
  }
}

describe('profiled evolving jobs online (property)', () => {
  it('never exceed a threshold, run every step as requested for at least its duration, and all end', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        let t = 0;
        const specs = s.jobs.map((j, i) => jobOf(j, i, (t += j.gap)));
        const world = new SimWorld({
          grid: gridSpecSchema.parse({ clusters: s.clusters.map((n, i) => ({ name: `c${i}`, processors: n })) }),
          jobs: specs.map((j) => jobSpecSchema.parse(j)),
          seed: s.seed,
          pollIntervalS: 60,
          background: false,
          scheduler: { fpeVariant: s.variant, policy: s.policy, queue: s.queue },
        });
        const events: SchedulerEvent[] = [];
        world.scheduler.on((e) => events.push(e));
        world.run(() => {
          for (const c of world.scheduler.clusters)
            expect(c.nonPreemptible + c.preemptible).toBeLessThanOrEqual(c.cluster.threshold);
        });
        const ended = events.filter((e) => e.type === 'job.ended');
        expect(ended.length).toBe(specs.length);
        specs.forEach((spec, i) => {
          if (!spec.profile) return;
          const id = `j${i}`;
          expect(ended.find((e) => e.jobId === id)!.state).toBe('completed');
          const steps = events.filter(
            (e): e is Extract<SchedulerEvent, { type: 'fpe.step' }> => e.type === 'fpe.step' && e.jobId === id,
          );
          const requested = spec.profile.steps;
          expect(steps.map((e) => e.step)).toEqual(requested.map((_, k) => k + 1));
          const peak = Math.max(...requested.map((r) => r.processors));
          steps.forEach((e, k) => {
            expect(e.processors).toBe(s.variant === 'rigid' ? peak : requested[k]!.processors);
            const end = k + 1 < steps.length ? steps[k + 1]!.t : ended.find((x) => x.jobId === id)!.t;
            expect(end - e.t).toBeGreaterThanOrEqual(requested[k]!.duration_s - 1e-9);
          });
        });
      }),
      { numRuns: 60 },
    );
  });
});
