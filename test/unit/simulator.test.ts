// The simulator's own behaviour: event order, launch delays, FT's voluntary release, background load.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema, type GridSpecInput, type JobSpecInput } from '../../core/model/schemas.js';
import { EventEngine } from '../../core/sim/engine.js';
import { SimWorld, type SimulationConfig } from '../../core/sim/world.js';
import { singleCluster } from '../../core/sim/grids.js';
import { BOUNDED_SLOWDOWN_TAU_S, boundedSlowdown } from '../../core/sim/metrics.js';
import { parseSwf } from '../../core/sim/workloads/swf.js';

function run(grid: GridSpecInput, jobs: JobSpecInput[], extra: Partial<SimulationConfig> = {}) {
  const world = new SimWorld({
    grid: gridSpecSchema.parse(grid),
    jobs: jobs.map((j) => jobSpecSchema.parse(j)),
    seed: 1,
    ...extra,
  });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e));
  world.run();
  return {
    world,
    events,
    of: (type: string, jobId?: string) =>
      events.filter((e) => e.type === type && (!jobId || ('jobId' in e && e.jobId === jobId))),
  };
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
  const ft = (id: string, initial: number): JobSpecInput => ({
    id,
    kind: 'malleable',
    app: { model: 'ft' },
    components: [{ min: 2, max: 16, initial, program: 'ft' }],
  });

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
    const grid = {
      clusters: [
        {
          name: 'a',
          processors: 16,
          background: { meanInterarrivalS: 100, minSize: 4, maxSize: 4, meanDurationS: 300 },
        },
      ],
    };
    const rigid: JobSpecInput = {
      id: 'late',
      kind: 'rigid',
      submitTime: 3000,
      app: { model: 'fixed', runtime: 60 },
      components: [{ processors: 6, program: 'x' }],
    };
    const r = run(grid, [rigid], { pollIntervalS: 60 });
    const polled = r.of('cluster.polled') as Array<Extract<SchedulerEvent, { type: 'cluster.polled' }>>;
    expect(Math.max(...polled.map((e) => e.background))).toBeGreaterThanOrEqual(12);
    const placedAt = r.of('job.placed', 'late')[0]!.t;
    const seen = polled.filter((e) => e.t <= placedAt).at(-1)!;
    expect(seen.background).toBeLessThanOrEqual(10); // placed only when the last poll left 6 free
    expect(r.of('job.ended', 'late')[0]).toMatchObject({ state: 'completed' });
  });
});

describe('walltimes', () => {
  const single = (processors: number) => ({ clusters: [{ name: 'a', processors }] });
  const rigid = (id: string, processors: number, runtime: number, walltime?: number, submitTime = 0): JobSpecInput => ({
    id,
    kind: 'rigid',
    submitTime,
    app: { model: 'fixed', runtime },
    components: [{ processors, program: 'x' }],
    ...(walltime === undefined ? {} : { walltime }),
  });
  const ended = (r: ReturnType<typeof run>, id: string) =>
    r.of('job.ended', id)[0] as Extract<SchedulerEvent, { type: 'job.ended' }>;
  const startedAt = (r: ReturnType<typeof run>, id: string) => r.of('job.started', id)[0]!.t;

  it('kills a job that would run past its walltime at exactly its walltime, failed with a reason naming it', () => {
    const r = run(single(4), [rigid('long', 4, 100, 60, 7)], { background: false });
    expect(startedAt(r, 'long')).toBe(7);
    expect(ended(r, 'long')).toMatchObject({
      t: 67,
      state: 'failed',
      reason: 'killed by the batch system: walltime of 60 s exceeded',
    });
    expect(r.world.metrics.jobs()[0]).toMatchObject({ id: 'long', state: 'failed', execution_s: 60, walltime_s: 60 });
  });

  it('lets a job that finishes at its walltime or before complete; a job without one runs to its end', () => {
    const r = run(single(8), [rigid('exact', 2, 60, 60), rigid('short', 2, 30, 60), rigid('none', 2, 500)], {
      background: false,
    });
    expect(ended(r, 'exact')).toMatchObject({ t: 60, state: 'completed' });
    expect(ended(r, 'short')).toMatchObject({ t: 30, state: 'completed' });
    expect(ended(r, 'none')).toMatchObject({ t: 500, state: 'completed' });
    expect(r.world.metrics.jobs().find((j) => j.id === 'none')!.walltime_s).toBeNaN();
  });

  it('counts the walltime from the start after the launch delay, and frees the processors for a waiting job at the kill', () => {
    const r = run(single(4), [rigid('long', 4, 1000, 100), rigid('next', 4, 10, undefined, 1)], {
      background: false,
      launchDelayS: 5,
    });
    expect(startedAt(r, 'long')).toBe(5);
    expect(ended(r, 'long')).toMatchObject({ t: 105, state: 'failed' });
    expect(startedAt(r, 'next')).toBe(110); // placed at the kill, then its own launch delay
  });

  it('kills a malleable job at its walltime whatever it grew to', () => {
    const job: JobSpecInput = {
      id: 'm',
      kind: 'malleable',
      walltime: 200,
      app: { model: 'amdahl', serial: 0, parallel: 16_000 },
      components: [{ min: 2, max: 8, program: 'm' }],
    };
    const r = run(single(8), [job], { background: false });
    expect(ended(r, 'm')).toMatchObject({
      t: startedAt(r, 'm') + 200,
      state: 'failed',
      reason: expect.stringContaining('walltime of 200 s'),
    });
    expect(r.world.clusters[0]!.concertina).toBe(0);
  });

  it('replays an SWF trace with field 9 as walltime: a job past its requested time is killed there', () => {
    // job 1: runs 50 s of 100 requested; job 2: ran 130 s of 120 requested (killed at 120); job 3: no request (its run time).
    const swf = [
      '1 0 -1 50 2 -1 -1 2 100 -1 1 -1 -1 -1 -1 -1 -1 -1',
      '2 0 -1 130 2 -1 -1 2 120 -1 1 -1 -1 -1 -1 -1 -1 -1',
      '3 5 -1 40 4 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1',
    ].join('\n');
    const parsed = parseSwf(swf, 'inline.swf');
    if (!parsed.ok) throw new Error('the inline trace must parse');
    expect(parsed.value.walltimeFromRunTime).toBe(1);
    const world = new SimWorld({
      grid: gridSpecSchema.parse(singleCluster(4)),
      jobs: parsed.value.jobs,
      seed: 1,
      background: false,
    });
    world.run();
    const jobs = Object.fromEntries(world.metrics.jobs().map((j) => [j.id, j]));
    expect(jobs['swf-1']).toMatchObject({ state: 'completed', start: 0, end: 50, walltime_s: 100 });
    expect(jobs['swf-2']).toMatchObject({
      state: 'failed',
      start: 0,
      end: 120,
      walltime_s: 120,
      reason: expect.stringContaining('walltime of 120 s'),
    });
    // Job 3 needs all 4 processors: it waits for the kill of job 2.
    expect(jobs['swf-3']).toMatchObject({ state: 'completed', start: 120, end: 160, walltime_s: 40 });
  });
});

describe('summary metrics', () => {
  it('bounded slowdown is max(1, (wait + run) / max(run, 10 s))', () => {
    expect(BOUNDED_SLOWDOWN_TAU_S).toBe(10);
    expect(boundedSlowdown(0, 500)).toBe(1);
    expect(boundedSlowdown(30, 60)).toBe(1.5); // 90 / 60
    expect(boundedSlowdown(100, 5)).toBe(10.5); // 105 / 10: a 5 s job counts as 10 s
    expect(boundedSlowdown(2, 3)).toBe(1); // 5 / 10 < 1
  });

  it('summary: mean bounded slowdown and max wait over completed jobs, on a hand-computed schedule', () => {
    // 4 processors. a: 4 procs, 100 s at 0 (wait 0, bsld 1). b: 4 procs, 5 s at 0, waits for a (wait 100, bsld
    // 105 / 10 = 10.5). c: 2 procs, 200 s at 10, waits for b (starts 105: wait 95, bsld 295 / 200 = 1.475).
    const jobs = [
      { id: 'a', kind: 'rigid', app: { model: 'fixed', runtime: 100 }, components: [{ processors: 4, program: 'x' }] },
      { id: 'b', kind: 'rigid', app: { model: 'fixed', runtime: 5 }, components: [{ processors: 4, program: 'x' }] },
      {
        id: 'c',
        kind: 'rigid',
        submitTime: 10,
        app: { model: 'fixed', runtime: 200 },
        components: [{ processors: 2, program: 'x' }],
      },
    ] satisfies JobSpecInput[];
    const r = run({ clusters: [{ name: 'a', processors: 4 }] }, jobs, { background: false });
    expect(r.world.metrics.jobs().map((j) => [j.id, j.start, j.wait_s])).toEqual([
      ['a', 0, 0],
      ['b', 100, 100],
      ['c', 105, 95],
    ]);
    const s = r.world.metrics.summary(0);
    expect(s.mean_bounded_slowdown).toBeCloseTo((1 + 10.5 + 1.475) / 3, 12);
    expect(s.max_wait_s).toBe(100);
  });

  it('summary over all jobs: a job that failed waiting counts its wait until it failed, and its reason is listed', () => {
    // 4 processors. a: 4 procs, 1,000 s at 0. b: 4 procs at 1, tried at each pass (arrival, then polls) until its
    // tries run out: it fails waiting, never started.
    const jobs = [
      { id: 'a', kind: 'rigid', app: { model: 'fixed', runtime: 1000 }, components: [{ processors: 4, program: 'x' }] },
      {
        id: 'b',
        kind: 'rigid',
        submitTime: 1,
        app: { model: 'fixed', runtime: 10 },
        components: [{ processors: 4, program: 'x' }],
      },
    ] satisfies JobSpecInput[];
    const r = run({ clusters: [{ name: 'a', processors: 4 }] }, jobs, {
      background: false,
      scheduler: { triesThreshold: 2 },
    });
    const b = r.world.metrics.jobs().find((j) => j.id === 'b')!;
    expect(b.state).toBe('failed');
    expect(b.wait_s).toBeNaN();
    expect(b.end).toBeGreaterThan(1);
    const s = r.world.metrics.summary(0);
    // Completed only: a (wait 0). All: a (0) and b (its time in the queue, execution 0: bsld = wait / 10 s).
    expect(s.mean_wait_s).toBe(0);
    expect(s.mean_wait_all_s).toBeCloseTo((b.end - 1) / 2, 12);
    expect(s.mean_bounded_slowdown_all).toBeCloseTo((1 + Math.max(1, (b.end - 1) / 10)) / 2, 12);
    expect(s.failure_reasons).toEqual([{ reason: b.reason.replace(/\d+(?:\.\d+)?/g, 'N'), jobs: 1 }]);
    expect(s.failure_reasons[0]!.reason).toMatch(/tries/);
  });
});

describe('a one-shot run forgets its ended jobs (simulate(): forgetEnded)', () => {
  // Malleable jobs that grow and shrink, rigid ones that wait, one that fails waiting: every figure a row holds.
  const jobs: JobSpecInput[] = [
    { id: 'm1', kind: 'malleable', app: { model: 'ft' }, components: [{ min: 2, max: 16, initial: 4, program: 'ft' }] },
    {
      id: 'r1',
      kind: 'rigid',
      submitTime: 5,
      app: { model: 'fixed', runtime: 300 },
      components: [{ processors: 8, program: 'x' }],
    },
    {
      id: 'm2',
      kind: 'malleable',
      submitTime: 20,
      app: { model: 'ft' },
      components: [{ min: 2, max: 16, initial: 2, program: 'ft' }],
    },
    {
      id: 'wide',
      kind: 'rigid',
      submitTime: 30,
      app: { model: 'fixed', runtime: 10 },
      components: [{ processors: 16, program: 'x' }],
    },
    {
      id: 'r2',
      kind: 'rigid',
      name: 'second',
      submitTime: 40,
      walltime: 50,
      app: { model: 'fixed', runtime: 100 },
      components: [{ processors: 2, program: 'x' }],
    },
  ];
  const grid = { clusters: [{ name: 'a', processors: 16 }] };

  it('keeps no record of an ended job in the scheduler, and measures every job as a run that keeps them', () => {
    const kept = run(grid, jobs, { background: false, scheduler: { triesThreshold: 3 } });
    const forgot = run(grid, jobs, { background: false, scheduler: { triesThreshold: 3 }, forgetEnded: true });
    expect([...kept.world.scheduler.jobs()]).toHaveLength(jobs.length);
    expect([...forgot.world.scheduler.jobs()]).toEqual([]);
    // The run covers what the rows hold: grows, a failure, a walltime kill, a name apart from the id.
    const rows = kept.world.metrics.jobs();
    expect(rows.some((j) => j.grows > 0)).toBe(true);
    expect(
      rows
        .filter((j) => j.state === 'failed')
        .map((j) => j.id)
        .sort(),
    ).toEqual(['r2', 'wide']);
    expect(rows.find((j) => j.id === 'r2')!.name).toBe('second');
    expect(forgot.world.metrics.jobs()).toEqual(rows);
    expect(forgot.world.metrics.summary(0)).toEqual(kept.world.metrics.summary(0));
    expect(forgot.events).toEqual(kept.events);
  });
});
