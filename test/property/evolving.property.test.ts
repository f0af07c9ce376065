// Invariants of simulated runs mixing evolving jobs (the evolving application model: spontaneous or announced
// updates inside their pre-allocations) with malleable and rigid jobs, under every approach and malleability policy,
// checked after every instant. No background load: the guarantee of an update is Concertina's, and local users who
// bypass it could hold the processors physically.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema, type GridSpecInput, type JobSpecInput } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';

const scenarioArb = fc
  .record({
    clusters: fc.array(
      fc.record({ processors: fc.integer({ min: 8, max: 48 }), reserve: fc.integer({ min: 0, max: 4 }) }),
      { minLength: 1, maxLength: 3 },
    ),
    approach: fc.constantFrom('pra', 'pwa'),
    policy: fc.constantFrom('fpsma', 'egs', 'equipartition'),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    poll: fc.integer({ min: 10, max: 120 }),
    jobs: fc.array(
      fc.record({
        kind: fc.constantFrom('evolving', 'evolving', 'malleable', 'malleable', 'rigid'),
        a: fc.integer({ min: 1, max: 48 }),
        b: fc.integer({ min: 1, max: 48 }),
        c: fc.integer({ min: 0, max: 48 }),
        app: fc.constantFrom('ft', 'gadget2'),
        phases: fc.integer({ min: 1, max: 8 }),
        phaseS: fc.integer({ min: 10, max: 400 }),
        announceS: fc.constantFrom(0, 0, 5, 60, 600),
        gap: fc.integer({ min: 0, max: 300 }),
      }),
      { minLength: 1, maxLength: 14 },
    ),
  })
  .map((s) => {
    const grid: GridSpecInput = {
      clusters: s.clusters.map((c, i) => ({
        name: `c${i}`,
        processors: c.processors,
        threshold: Math.max(4, c.processors - c.reserve),
      })),
    };
    const largest = Math.max(...s.clusters.map((c) => Math.max(4, c.processors - c.reserve)));
    let t = 0;
    const jobs = s.jobs.map((j, i): JobSpecInput => {
      t += j.gap;
      const lo = Math.min(largest, Math.min(j.a, j.b));
      const hi = Math.min(largest, Math.max(j.a, j.b));
      if (j.kind === 'rigid')
        return {
          id: `j${i}`,
          kind: 'rigid',
          submitTime: t,
          app: { model: 'fixed', runtime: j.phaseS },
          components: [{ processors: lo, program: 'p' }],
        };
      if (j.kind === 'malleable')
        return {
          id: `j${i}`,
          kind: 'malleable',
          submitTime: t,
          app: { model: j.app },
          components: [{ min: lo, max: Math.max(lo, Math.min(64, Math.max(j.a, j.b))), program: 'p' }],
        };
      const initial = lo + (j.c % (hi - lo + 1));
      const app = { model: 'evolving' as const, phases: j.phases, phaseS: j.phaseS, announceS: j.announceS };
      return {
        id: `j${i}`,
        kind: 'evolving',
        submitTime: t,
        app,
        components: [{ min: lo, max: hi, initial, program: 'p' }],
      };
    });
    return { ...s, grid: gridSpecSchema.parse(grid), jobs: jobs.map((j) => jobSpecSchema.parse(j)) };
  });

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function world(s: Scenario) {
  return new SimWorld({
    grid: s.grid,
    jobs: s.jobs,
    seed: s.seed,
    pollIntervalS: s.poll,
    background: false,
    scheduler: { approach: s.approach, policy: s.policy, triesThreshold: 200 },
    maxTimeS: 30 * 86400,
  });
}

describe('simulated runs with evolving jobs', () => {
  it('never give pre-allocated processors non-preemptibly to another job, serve every update inside a pre-allocation, stay within capacity and sizes, and end every job with a reason', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const w = world(s);
        const events: SchedulerEvent[] = [];
        w.scheduler.on((e) => events.push(e));
        w.run(() => {
          w.clusters.forEach((c, i) => {
            const state = w.scheduler.clusters[i]!;
            const threshold = state.cluster.threshold;
            // The batch system never runs more than it has, nor Concertina more than its threshold.
            expect(c.concertina).toBeLessThanOrEqual(c.processors);
            expect(c.concertina).toBeLessThanOrEqual(threshold);
            // Promised processors are counted before malleable extras give them back (by a deadline, or in this
            // instant): the count goes over only while that is under way.
            const reclaiming = [...state.evolvingJobs, ...state.malleableJobs].some(
              (j) => j.promised > 0 || j.releasing > 0,
            );
            if (!reclaiming) expect(state.concertina).toBeLessThanOrEqual(threshold);
            expect(state.nonPreemptible + state.preallocatedUnused).toBeLessThanOrEqual(threshold);
            for (const n of [state.nonPreemptible, state.preemptible, state.preallocatedUnused, state.offered])
              expect(n).toBeGreaterThanOrEqual(0);
            // Counted from the jobs, not the counters: whole pre-allocations, rigid sizes and malleable minimums,
            // all non-preemptible, fit in the threshold together; so no pre-allocated processor went to another job.
            let committed = 0;
            let preallocated = 0;
            for (const job of w.scheduler.jobs()) {
              if (job.ended || job.components.length === 0) continue;
              for (const placed of job.components) {
                if (placed.cluster !== state.cluster.name) continue;
                if (job.evolving) {
                  committed += job.max;
                  preallocated += job.max - job.held;
                } else if (job.malleable) committed += Math.min(job.held, job.min);
                else committed += placed.processors;
              }
            }
            expect(committed).toBeLessThanOrEqual(threshold);
            expect(state.preallocatedUnused).toBe(preallocated);
          });
          for (const job of w.scheduler.jobs()) {
            if (job.state !== 'running' || !(job.malleable || job.evolving)) continue;
            expect(job.size).toBeGreaterThanOrEqual(job.min);
            expect(job.held).toBeLessThanOrEqual(job.max);
          }
        });
        expect(events.filter((e) => e.type === 'evolve.refused')).toEqual([]);
        // Every update is served by its time (at once when spontaneous), unless a later one or the job's end came first.
        const requested = events.filter(
          (e): e is Extract<SchedulerEvent, { type: 'evolve.requested' }> => e.type === 'evolve.requested',
        );
        for (const r of requested) {
          const due = r.t + r.announceS;
          const superseded = requested.some((o) => o.jobId === r.jobId && o.t > r.t && o.t <= due);
          const ended = events.some((e) => e.type === 'job.ended' && e.jobId === r.jobId && e.t <= due);
          if (superseded || ended) continue;
          const served = events.some(
            (e) =>
              e.type === 'job.evolved' && e.jobId === r.jobId && e.size === r.processors && e.t >= r.t && e.t <= due,
          );
          expect(
            served,
            `update of ${r.jobId} to ${r.processors} at ${r.t} (announced ${r.announceS} s) served by ${due}`,
          ).toBe(true);
        }
        for (const job of w.scheduler.jobs()) {
          expect(['completed', 'failed', 'cancelled']).toContain(job.state);
          expect(job.transitions.at(-1)!.reason.length).toBeGreaterThan(0);
          if (job.evolving && job.state === 'completed') expect(job.sizeHistory.at(-1)!.v).toBe(0);
        }
        expect(w.scheduler.unfinishedJobs).toBe(0);
        w.scheduler.clusters.forEach((c) => {
          expect(c.concertina).toBe(0);
          expect(c.preallocatedUnused).toBe(0);
        });
        w.clusters.forEach((c) => expect(c.concertina).toBe(0));
      }),
      { numRuns: Number(process.env.RUNS ?? 60) },
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
      { numRuns: Number(process.env.RUNS2 ?? 30) },
    );
  });
});
