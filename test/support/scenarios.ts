// Random grids and workloads for the property tests of whole simulated runs.
import fc from 'fast-check';
import type { GridSpecInput, JobSpecInput } from '../../core/model/schemas.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';

const clusterArb = fc
  .record({
    processors: fc.integer({ min: 4, max: 64 }),
    reserve: fc.integer({ min: 0, max: 3 }),
    background: fc.option(
      fc.record({
        every: fc.integer({ min: 20, max: 400 }),
        max: fc.integer({ min: 1, max: 8 }),
        duration: fc.integer({ min: 10, max: 600 }),
      }),
      { nil: undefined },
    ),
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
        background: c.background && {
          meanInterarrivalS: c.background.every,
          minSize: 1,
          maxSize: c.background.max,
          meanDurationS: c.background.duration,
        },
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
      if (j.kind === 'rigid')
        return {
          id: `j${i}`,
          kind: 'rigid',
          placement: j.placement,
          submitTime: t,
          app,
          components: [{ processors: lo, program: 'p', inputFiles }],
        };
      return {
        id: `j${i}`,
        kind: j.kind,
        placement: j.placement,
        submitTime: t,
        app,
        components: [{ min: lo, max: hi, program: 'p', inputFiles }],
      };
    });
    return { ...s, grid: gridSpecSchema.parse(grid), jobs: jobs.map((j) => jobSpecSchema.parse(j)) };
  });
