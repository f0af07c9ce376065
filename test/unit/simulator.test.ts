// The simulator's own behaviour: event order, launch delays, FT's voluntary release, background load.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema, type GridSpecInput, type JobSpecInput } from '../../core/model/schemas.js';
import { EventEngine } from '../../core/sim/engine.js';
import { SimWorld, type SimulationConfig } from '../../core/sim/world.js';

function run(grid: GridSpecInput, jobs: JobSpecInput[], extra: Partial<SimulationConfig> = {}) {
  const world = new SimWorld({ grid: gridSpecSchema.parse(grid), jobs: jobs.map((j) => jobSpecSchema.parse(j)), seed: 1, ...extra });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e));
  world.run();
  return { world, events, of: (type: string, jobId?: string) => events.filter((e) => e.type === type && (!jobId || ('jobId' in e && e.jobId === jobId))) };
}

describe('event engine', () => {
  it('runs actions in time order, and same-time actions in the order they were scheduled', () => {
    const engine = new EventEngine();
    const seen: string[] = [];
    engine.at(5, () => seen.push('b'));
    engine.at(1, () => {
      seen.push('a');
      engine.soon(() => seen.push('a-soon')); // same instant, after what was already due now
      engine.at(5, () => seen.push('c')); // after b, scheduled earlier for 5
    });
    engine.at(1, () => seen.push('a2'));
    while (engine.step());
    expect(seen).toEqual(['a', 'a2', 'a-soon', 'b', 'c']);
    expect(engine.now).toBe(5);
  });
});

describe('simulated grid', () => {
  const oneCluster = { clusters: [{ name: 'a', processors: 16 }] };
  const ft = (id: string, initial: number): JobSpecInput => ({ id, kind: 'malleable', app: { model: 'ft' }, components: [{ min: 2, max: 16, initial, program: 'ft' }] });

  it('keeps no metrics history for an endless hosted grid (its memory stays bounded)', () => {
    const r = run(oneCluster, [ft('j', 2)], { metrics: false, maxTimeS: 3600, endless: true });
    expect(r.of('job.ended', 'j')).toHaveLength(1);
    expect(r.world.metrics.summary(0).jobs).toBe(0);
    expect(r.world.metrics.clusterUsage()[0]!.concertina.breakpoints).toBe(0);
  });

  it('starts a job after the launch delay of its local job', () => {
    const r = run(oneCluster, [ft('j', 4)], { launchDelayS: 30 });
    const placed = r.of('job.placed', 'j')[0]!;
    const started = r.of('job.started', 'j')[0]!;
    expect(started.t - placed.t).toBe(30);
  });

  it('lets FT given 5 processors keep a power of two and release the rest on its own', () => {
    const r = run(oneCluster, [ft('j', 5)]);
    expect(r.of('job.started', 'j')[0]).toMatchObject({ size: 5 });
    expect(r.of('job.shrunk', 'j')[0]).toMatchObject({ processors: 1, size: 4, voluntary: true });
    expect(r.of('job.ended', 'j')[0]).toMatchObject({ state: 'completed' });
  });

  it('finishes FT in about 2 minutes on 2 processors', () => {
    // The paper's trigger: nothing frees up, so nothing triggers growth.
    const r = run(oneCluster, [ft('j', 2)], { background: false, scheduler: { growthAtPoll: 'freed' } });
    const started = r.of('job.started', 'j')[0]!;
    const ended = r.of('job.ended', 'j')[0]!;
    expect(ended.t - started.t).toBeCloseTo(120, 0);
  });

  it('grows FT at the first poll that finds idle processors, and so finishes it sooner', () => {
    const r = run(oneCluster, [ft('j', 2)], { background: false });
    const started = r.of('job.started', 'j')[0]!;
    const ended = r.of('job.ended', 'j')[0]!;
    expect(r.of('job.grown', 'j').length).toBeGreaterThan(0);
    expect(ended.t - started.t).toBeLessThan(120);
  });

  it('shows the background load of local users to the scheduler through polls, and places around it', () => {
    // Local users keep about 12 of 16 processors busy (4-processor jobs, one every 100 s, for 300 s on average).
    const grid = { clusters: [{ name: 'a', processors: 16, background: { meanInterarrivalS: 100, minSize: 4, maxSize: 4, meanDurationS: 300 } }] };
    const rigid: JobSpecInput = { id: 'late', kind: 'rigid', submitTime: 3000, app: { model: 'fixed', runtime: 60 }, components: [{ processors: 6, program: 'x' }] };
    const r = run(grid, [rigid], { pollIntervalS: 60 });
    const polled = r.of('cluster.polled') as Array<Extract<SchedulerEvent, { type: 'cluster.polled' }>>;
    expect(Math.max(...polled.map((e) => e.background))).toBeGreaterThanOrEqual(12);
    const placedAt = r.of('job.placed', 'late')[0]!.t;
    const seen = polled.filter((e) => e.t <= placedAt).at(-1)!;
    expect(seen.background).toBeLessThanOrEqual(10); // placed only when the last poll left 6 free
    expect(r.of('job.ended', 'late')[0]).toMatchObject({ state: 'completed' });
  });
});
