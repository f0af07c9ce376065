// The host's operator commands: jobs.resize (typed refusals, replayed on resume like cancel), sim.reset (validated,
// a new run in the store, listeners moved to the new grid) and the submit templates (kept in the store).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';

const tempFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'concertina-commands-')), 'run.db');
const grid = {
  name: 'two',
  clusters: [
    { name: 'a', processors: 32 },
    { name: 'b', processors: 16 },
  ],
};
const malleable = (id: string, min = 2, max = 12) => ({
  id,
  kind: 'malleable',
  app: { model: 'gadget2' },
  walltime: 100_000,
  components: [{ min, max, program: 'gadget2', cluster: 'a' }],
});
const rigid = (id: string) => ({
  id,
  kind: 'rigid',
  app: { model: 'fixed', runtime: 100_000 },
  components: [{ processors: 2, program: 'x', cluster: 'a' }],
});

/** A host on a small grid without workload nor background load, whose wall clock the test moves. */
function hostWith(store?: ReturnType<typeof openStore>) {
  const clock = { wall: 0 };
  // Each tick catches up with the moved clock whatever the machine's load (no slice limit): what the tests check.
  const host = new Host({
    grid: gridSpecSchema.parse(grid),
    workload: 'none',
    store,
    clock: () => clock.wall,
    speed: '1x',
    sliceMs: Number.POSITIVE_INFINITY,
  });
  const run = (seconds: number) => {
    clock.wall += seconds * 1000;
    host.tick();
  };
  return { host, run, clock };
}

const errorsOf = (r: { ok: boolean; errors?: unknown }) =>
  r.ok ? [] : (r.errors as Array<{ path: string; message: string }>);

describe('jobs.resize', () => {
  it('grows and shrinks a running malleable job through the application, and says why it refuses', () => {
    const { host, run } = hostWith();
    expect(host.call('jobs.submit', malleable('m')).ok).toBe(true);
    expect(host.call('jobs.submit', rigid('r')).ok).toBe(true);
    expect(host.call('jobs.submit', malleable('late', 31, 32)).ok).toBe(true); // waits: 28 free at most
    run(120);
    const m = host.world.scheduler.job('m')!;
    expect(m.state).toBe('running');
    // A poll found idle processors: the policy grew it to its max.
    expect(m.size).toBe(12);

    // Paused, the simulated application's answer waits: meanwhile the cluster is busy with the operation.
    host.call('sim.setSpeed', { speed: 'pause' });
    expect(host.call('jobs.resize', { jobId: 'm', delta: -4 })).toEqual({
      ok: true,
      value: { jobId: 'm', cluster: 'a', processors: 4, direction: 'shrink' },
    });
    expect(errorsOf(host.call('jobs.resize', { jobId: 'm', delta: 1 }))).toEqual([
      { path: 'jobId', message: 'cluster a is busy with another grow or shrink operation; try again when it ends' },
    ]);
    host.call('sim.setSpeed', { speed: '1x' });
    run(1);
    expect(m.size).toBe(8);
    const offered = [] as SchedulerEvent[];
    host.subscribe((e) => offered.push(e));
    expect(host.call('jobs.resize', { jobId: 'm', delta: 3 }).ok).toBe(true);
    run(1);
    expect(m.size).toBe(11);
    expect(offered.find((e) => e.type === 'grow.offered')).toMatchObject({ jobId: 'm', processors: 3, operator: true });

    expect(errorsOf(host.call('jobs.resize', { jobId: 'm', delta: 0 }))).toEqual([
      { path: 'delta', message: 'must not be 0' },
    ]);
    expect(errorsOf(host.call('jobs.resize', { jobId: 'm', delta: 1.5 }))).toEqual([
      { path: 'delta', message: 'must be a whole number' },
    ]);
    expect(errorsOf(host.call('jobs.resize', { jobId: 'm', delta: 100 }))[0]).toMatchObject({
      path: 'delta',
      message: expect.stringMatching(/beyond its maximum/),
    });
    expect(errorsOf(host.call('jobs.resize', { jobId: 'm', delta: -100 }))[0]).toMatchObject({
      path: 'delta',
      message: expect.stringMatching(/below its minimum/),
    });
    expect(errorsOf(host.call('jobs.resize', { jobId: 'r', delta: 1 }))).toEqual([
      { path: 'jobId', message: 'job r is not malleable (it is rigid)' },
    ]);
    expect(errorsOf(host.call('jobs.resize', { jobId: 'late', delta: 1 }))).toEqual([
      { path: 'jobId', message: 'job late is not running (it is queued)' },
    ]);
    expect(errorsOf(host.call('jobs.resize', { jobId: '', delta: 1 }))).toEqual([
      { path: 'jobId', message: 'is required' },
    ]);
  });

  it('is replayed when the run resumes, as is a cancel: the same jobs in the same states, sizes and history', () => {
    const file = tempFile();
    const store = openStore(file);
    const first = hostWith(store);
    first.host.call('jobs.submit', malleable('m'));
    first.host.call('jobs.submit', malleable('n', 2, 6));
    first.host.call('jobs.submit', rigid('r'));
    first.run(120); // m and n grown to their max at a poll that found idle processors
    expect(first.host.call('jobs.cancel', { jobId: 'r' }).ok).toBe(true);
    first.run(30);
    expect(first.host.call('jobs.resize', { jobId: 'm', delta: -5 }).ok).toBe(true);
    first.run(35);
    expect(first.host.call('jobs.resize', { jobId: 'm', delta: 2 }).ok).toBe(true);
    first.run(10); // no poll since the grow (one a minute)
    const before = first.host.call('jobs.list', { limit: 100 });
    const size = first.host.world.scheduler.job('m')!.size;
    expect(size).toBe(12 - 5 + 2);
    const clock = first.host.world.engine.now;
    first.host.stop();
    const events = store.events();
    store.close();

    const again = openStore(file);
    const second = hostWith(again);
    expect(second.host.world.engine.now).toBe(clock);
    expect(second.host.call('jobs.list', { limit: 100 })).toEqual(before);
    expect(second.host.world.scheduler.job('m')!.size).toBe(size);
    expect(second.host.world.scheduler.job('r')!.state).toBe('cancelled');
    second.run(10);
    second.host.stop();
    // The history is the one written before, continued: nothing of the replay written twice.
    const after = again.events();
    expect(after.slice(0, events.length)).toEqual(events);
    expect(after.filter((e) => e.type === 'grow.offered' && e.operator)).toHaveLength(1);
    expect(after.filter((e) => e.type === 'job.ended' && e.jobId === 'r')).toHaveLength(1);
    again.close();
  });
});

describe('jobs.list since a version', () => {
  it('answers unchanged, with no jobs, only while nothing changed in this run', () => {
    const { host, run } = hostWith();
    host.call('sim.setSpeed', { speed: 'pause' });
    host.call('jobs.submit', malleable('m'));
    const first = host.call('jobs.list', { limit: 100 });
    if (!first.ok) throw new Error('jobs.list refused');
    expect(first.value.jobs).toHaveLength(1);
    expect(host.call('jobs.list', { limit: 100, since: first.value.version })).toEqual({
      ok: true,
      value: { jobs: [], total: 1, version: first.value.version, unchanged: true },
    });
    host.call('sim.setSpeed', { speed: '1x' });
    run(120); // placed and started: changed
    const second = host.call('jobs.list', { limit: 100, since: first.value.version });
    expect(second.ok && second.value.unchanged).toBeUndefined();
    expect(second.ok && second.value.jobs[0]!.state).toBe('running');
    // A new run never answers "unchanged" to a version of the old one.
    host.call('sim.reset', { grid: 'das3', workload: 'none' });
    const third = host.call('jobs.list', { limit: 100, since: second.ok ? second.value.version : '' });
    expect(third).toMatchObject({ ok: true, value: { jobs: [], total: 0 } });
    expect(third.ok && third.value.unchanged).toBeUndefined();
  });
});

describe('sim.reset', () => {
  it('refuses a bad grid, workload or seed, naming the field, and changes nothing', () => {
    const { host } = hostWith();
    host.call('jobs.submit', malleable('kept'));
    expect(errorsOf(host.call('sim.reset', { grid: 'das4', workload: 'none' }))).toEqual([
      { path: 'grid', message: 'must be a grid preset (das3) or a grid object (got "das4")' },
    ]);
    expect(errorsOf(host.call('sim.reset', { workload: 'none' }))).toEqual([{ path: 'grid', message: 'is required' }]);
    expect(
      errorsOf(host.call('sim.reset', { grid: { clusters: [{ name: 'x', processors: 0 }] }, workload: 'none' })),
    ).toEqual([{ path: 'grid.clusters[0].processors', message: 'must be at least 1' }]);
    expect(
      errorsOf(
        host.call('sim.reset', {
          grid: { clusters: [{ name: 'x', processors: 4 }], files: [{ name: 'f', sizeMB: 1, replicas: ['y'] }] },
          workload: 'none',
        }),
      ),
    ).toEqual([{ path: 'grid.files[0].replicas[0]', message: 'names unknown cluster "y"' }]);
    expect(errorsOf(host.call('sim.reset', { grid: 'das3', workload: 'w3' }))).toEqual([
      { path: 'workload', message: 'must be one of wm, wmr, wm-fast, wmr-fast, wme, none' },
    ]);
    expect(errorsOf(host.call('sim.reset', { grid: 'das3', workload: 'wm', seed: -1 }))).toEqual([
      { path: 'seed', message: 'must be at least 0' },
    ]);
    expect(host.world.scheduler.job('kept')).toBeDefined();
  });

  it('starts a new run on the new grid and workload; listeners follow it; the store keeps only the new run', () => {
    const file = tempFile();
    const store = openStore(file);
    const { host, run } = hostWith(store);
    host.call('jobs.submit', malleable('old'));
    run(60);
    const seen: SchedulerEvent[] = [];
    host.subscribe((e) => seen.push(e));

    const reset = host.call('sim.reset', {
      grid: { name: 'tiny', clusters: [{ name: 'solo', processors: 8 }] },
      workload: 'wm-fast',
      seed: 7,
    });
    expect(reset).toEqual({ ok: true, value: { grid: 'tiny', clusters: 1, workload: 'wm-fast', jobs: 300, seed: 7 } });
    const snapshot = host.call('grid.snapshot', {});
    expect(snapshot.ok && snapshot.value.clusters.map((c) => c.name)).toEqual(['solo']);
    expect(snapshot.ok && snapshot.value.time).toBe(0);
    expect(host.world.scheduler.job('old')).toBeUndefined();
    run(65); // the workload's first jobs arrive (one every 30 s)
    expect(seen.some((e) => e.type === 'job.submitted' && e.jobId === 'j0001')).toBe(true);
    expect(store.run()).toEqual({
      grid: expect.objectContaining({ name: 'tiny' }),
      workload: 'wm-fast',
      seed: 7,
      streamFrom: 'start',
      queue: { queue: 'koala', reservationDepth: null, priority: 'submit' },
    });
    expect(store.commands()).toEqual([]);
    expect(store.events().some((e) => 'jobId' in e && e.jobId === 'old')).toBe(false);
    const before = host.call('jobs.list', { limit: 1000 });
    host.stop();
    store.close();

    // Started again on the same file, it resumes the new run.
    const again = openStore(file);
    const resumed = hostWith(again);
    const after = resumed.host.call('jobs.list', { limit: 1000 });
    expect(after.ok && after.value.jobs).toEqual(before.ok && before.value.jobs);
    expect(after.ok && after.value.total).toBe(3);
    resumed.host.stop();
    again.close();
  });

  it('takes a preset by name', () => {
    const { host } = hostWith();
    expect(host.call('sim.reset', { grid: 'das3', workload: 'none', seed: 3 })).toEqual({
      ok: true,
      value: { grid: 'das3', clusters: 5, workload: 'none', jobs: 0, seed: 3 },
    });
  });
});

describe('templates', () => {
  const spec = {
    name: 'ft-8',
    kind: 'malleable',
    app: { model: 'ft' },
    components: [{ min: 2, max: 8, program: 'ft' }],
  };

  it('are saved, listed by name, replaced and deleted; kept in the store across restarts and resets', () => {
    const file = tempFile();
    const store = openStore(file);
    const { host } = hostWith(store);
    expect(host.call('templates.save', { name: 'small ft', spec })).toEqual({ ok: true, value: { name: 'small ft' } });
    expect(host.call('templates.save', { name: 'a rigid', spec: rigid('x') }).ok).toBe(true);
    expect(host.call('templates.save', { name: 'small ft', spec: { ...spec, walltime: 60 } }).ok).toBe(true);
    host.call('sim.reset', { grid: 'das3', workload: 'none' });
    host.stop();
    store.close();

    const again = openStore(file);
    const second = hostWith(again).host;
    const listed = second.call('templates.list', {});
    expect(listed.ok && listed.value.templates.map((t) => t.name)).toEqual(['a rigid', 'small ft']);
    expect(listed.ok && listed.value.templates[1]!.spec).toMatchObject({
      kind: 'malleable',
      walltime: 60,
      components: [{ min: 2, max: 8 }],
    });
    expect(second.call('templates.delete', { name: 'a rigid' })).toEqual({ ok: true, value: { name: 'a rigid' } });
    expect(errorsOf(second.call('templates.delete', { name: 'a rigid' }))).toEqual([
      { path: 'name', message: 'names no template ("a rigid")' },
    ]);
    const left = second.call('templates.list', {});
    expect(left.ok && left.value.templates.map((t) => t.name)).toEqual(['small ft']);
    second.stop();
    again.close();
  });

  it('refuses a spec the job schema refuses, or a blank name, naming the field', () => {
    const { host } = hostWith();
    expect(
      errorsOf(
        host.call('templates.save', {
          name: 'bad',
          spec: { ...spec, components: [{ min: 8, max: 2, program: 'ft' }] },
        }),
      ),
    ).toEqual([{ path: 'spec.components[0].min', message: 'must not exceed max (min 8 > max 2)' }]);
    expect(errorsOf(host.call('templates.save', { name: '  ', spec }))).toEqual([
      { path: 'name', message: 'must not be empty' },
    ]);
    // Without a store they live as long as the host.
    expect(host.call('templates.save', { name: 'mem', spec }).ok).toBe(true);
    const listed = host.call('templates.list', {});
    expect(listed.ok && listed.value.templates.map((t) => t.name)).toEqual(['mem']);
  });
});
