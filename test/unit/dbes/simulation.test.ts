// DBES in the simulator, through the scheduler's ports: the paper's example played out (A and B malleable on four
// processors, C waiting), and the baselines registered by name.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import { malleabilityPolicy } from '../../../core/malleability/registry.js';
import { gridSpecSchema, jobSpecSchema } from '../../../core/model/schemas.js';
import { SimWorld } from '../../../core/sim/world.js';

function paperExample(cNeeds: number, policy = 'dbes') {
  const job = (
    id: string,
    kind: 'malleable' | 'rigid',
    min: number,
    max: number,
    seconds: number,
    submitTime: number,
  ) =>
    jobSpecSchema.parse({
      id,
      kind,
      submitTime,
      walltime: seconds,
      app:
        kind === 'malleable' ? { model: 'amdahl', serial: 0, parallel: seconds } : { model: 'fixed', runtime: seconds },
      components: [kind === 'malleable' ? { min, max, program: 'x' } : { processors: min, program: 'x' }],
    });
  const w = new SimWorld({
    grid: gridSpecSchema.parse({ clusters: [{ name: 'c', processors: 4 }] }),
    // A and B hold the whole cluster at first (EP's or DBES's second step would grow them), C comes a second later.
    jobs: [
      job('A', 'malleable', 1, 4, 3600, 0),
      job('B', 'malleable', 1, 4, 1800, 0),
      job('C', 'rigid', cNeeds, cNeeds, 600, 1),
    ],
    seed: 1,
    background: false,
    scheduler: { policy },
  });
  const events: SchedulerEvent[] = [];
  w.scheduler.on((e) => events.push(e));
  w.run();
  return events;
}

describe('DBES in the simulator', () => {
  it('the baselines and dbes are registered by name', () => {
    for (const name of ['rigid', 'esf', 'edf', 'ldf', 'ep', 'dbes']) expect(malleabilityPolicy(name)?.name).toBe(name);
  });

  it('malleable jobs start at their minimum, then the second step shares the idle processors', () => {
    const events = paperExample(3);
    const started = events.filter((e) => e.type === 'job.started' && (e.jobId === 'A' || e.jobId === 'B'));
    expect(started.map((e) => e.type === 'job.started' && [e.jobId, e.size])).toEqual([
      ['A', 1],
      ['B', 1],
    ]);
    const t0 = events.filter((e) => e.type === 'grow.offered' && e.t === 0);
    expect(t0.map((e) => e.type === 'grow.offered' && [e.jobId, e.processors, e.step, e.forJob])).toEqual([
      ['A', 1, 2, undefined],
      ['B', 1, 2, undefined],
    ]);
  });

  it('C arrives: the job it depends on is expanded for it, taking the other job’s second-step expansion', () => {
    // At t = 1: A 2 until 1800, B 2 until 900. C (3) can start only when A ends at 1800: C depends on A. The first step
    // takes B's second-step processor (a steal, in one pass) and gives it to A (the next pass, once released): A with
    // 3 ends at 1 + (1800 - 1) * 2 / 3 ≈ 1200, and C starts then.
    const events = paperExample(3);
    const at1 = events.filter((e) => e.t === 1 && (e.type === 'shrink.requested' || e.type === 'grow.offered'));
    expect(at1).toEqual([
      expect.objectContaining({
        type: 'shrink.requested',
        jobId: 'B',
        processors: 1,
        phase: 'steal',
        forJob: 'C',
        fromStep: 2,
      }),
      expect.objectContaining({ type: 'grow.offered', jobId: 'A', processors: 1, step: 1, forJob: 'C' }),
    ]);
    // The processors arriving say what they were given for, as the offers did.
    const grown = events.filter((e) => e.type === 'job.grown');
    expect(grown.map((e) => e.type === 'job.grown' && [e.t, e.jobId, e.processors, e.step, e.forJob])).toEqual([
      [0, 'A', 1, 2, undefined],
      [0, 'B', 1, 2, undefined],
      [1, 'A', 1, 1, 'C'],
    ]);
    const aEnds = events.find((e) => e.type === 'job.ended' && e.jobId === 'A')!.t;
    const cStarts = events.find((e) => e.type === 'job.started' && e.jobId === 'C')!.t;
    expect(aEnds).toBeCloseTo(1200.33, 1);
    expect(cStarts).toBe(aEnds);
  });

  it('under rigid nothing is ever expanded or shrunk', () => {
    const events = paperExample(3, 'rigid');
    expect(events.filter((e) => e.type === 'grow.offered' || e.type === 'shrink.requested')).toEqual([]);
  });

  it('a job of higher priority goes ahead of the jobs waiting before it (ESP’s Z jobs), under dbes and its baselines', () => {
    // A holds the 4 processors until 1000; B (2, 100 s) waits from t = 1, Z (4, 100 s, priority 1) from t = 2. In
    // submission order B would start at 1000 and Z at 1100; with its priority Z starts at 1000 and B after it, at 1100.
    const job = (id: string, n: number, seconds: number, submitTime: number, priority?: number) =>
      jobSpecSchema.parse({
        id,
        kind: 'rigid',
        submitTime,
        walltime: seconds,
        priority,
        app: { model: 'fixed', runtime: seconds },
        components: [{ processors: n, program: 'x' }],
      });
    for (const policy of ['dbes', 'esf', 'rigid']) {
      const w = new SimWorld({
        grid: gridSpecSchema.parse({ clusters: [{ name: 'c', processors: 4 }] }),
        jobs: [job('A', 4, 1000, 0), job('B', 2, 100, 1), job('Z', 4, 100, 2, 1)],
        seed: 1,
        background: false,
        scheduler: { policy },
      });
      const starts = new Map<string, number>();
      w.scheduler.on((e) => {
        if (e.type === 'job.started') starts.set(e.jobId, e.t);
      });
      w.run();
      expect([starts.get('Z'), starts.get('B')], policy).toEqual([1000, 1100]);
    }
  });

  it('a priority must be a whole number', () => {
    const parsed = jobSpecSchema.safeParse({
      kind: 'rigid',
      priority: 1.5,
      components: [{ processors: 1, program: 'x' }],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['priority'], message: 'must be a whole number' });
  });
});
