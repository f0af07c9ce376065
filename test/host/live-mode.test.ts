// The host's live mode with a fake LiveWorld (a simulated scheduler behind the LiveWorld interface, its time moved
// by the test): run.startLive builds the world from the stored clusters, every command goes through world.act, the
// snapshot carries the clusters' link state, speed is fixed, accepted jobs are stored before the answer, and a
// restarted host resumes the live run by handing the new world the state the previous one left.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';
import { Host } from '../../electron/host/host.js';
import type { LiveWorldFactory, LiveWorldFactoryOptions } from '../../electron/live/live-run.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import type { LiveClusterState, LiveWorld } from '../../runners/live/types.js';

interface FakeWorld extends LiveWorld {
  readonly sim: SimWorld;
  readonly options: LiveWorldFactoryOptions;
  acts: number;
  started: boolean;
  stopped: boolean;
  states: LiveClusterState[];
}

/** A LiveWorld over a simulated scheduler on the configured clusters' names. */
function fakeFactory(built: FakeWorld[], startError?: Error): LiveWorldFactory {
  return (options) => {
    const grid = gridSpecSchema.parse({
      name: 'live',
      clusters: options.clusters.map((c) => ({ name: c.name, processors: c.slots ?? 8 })),
    });
    const sim = new SimWorld({ grid, jobs: [], seed: 1, endless: true, metrics: false, background: false });
    const world: FakeWorld = {
      sim,
      options,
      acts: 0,
      started: false,
      stopped: false,
      states: options.clusters.map((c) => ({ name: c.name, connection: 'open' })),
      scheduler: sim.scheduler,
      now: () => sim.engine.now,
      async start() {
        if (startError) throw startError;
        world.started = true;
      },
      async stop() {
        world.stopped = true;
      },
      clusters: () => world.states,
      act(command) {
        world.acts++;
        const result = command(sim.scheduler, sim.engine.now);
        sim.engine.soon(() => undefined);
        return result;
      },
      on: (listener: (event: SchedulerEvent) => void) => sim.scheduler.on(listener),
      // Opaque to the host: stored as it is and handed back as `restore` after a restart.
      persistentState: () =>
        ({ jobs: [...sim.scheduler.jobs()].map((j) => j.id), at: sim.engine.now }) as unknown as ReturnType<
          LiveWorld['persistentState']
        >,
      onApplication: () => () => undefined,
      recovered: () => [],
    };
    built.push(world);
    return world;
  };
}

const dirs: string[] = [];
const opened: Array<{ host: Host; store: Store }> = [];
afterEach(() => {
  for (const { host, store } of opened.splice(0)) {
    host.stop();
    store.close();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function hostOn(file: string, factory?: LiveWorldFactory) {
  const store = openStore(file);
  const host = new Host({
    store,
    workload: 'none',
    clusters: { knownHosts: new KnownHosts(path.join(path.dirname(file), 'known_hosts'), []) },
    ...(factory ? { liveWorld: factory } : {}),
  });
  opened.push({ host, store });
  return host;
}

function storeFile() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-live-host-'));
  dirs.push(dir);
  return path.join(dir, 'run.db');
}

const rigid = {
  id: 'r1',
  kind: 'rigid',
  app: { model: 'fixed', runtime: 600 },
  components: [{ processors: 2, program: 'sleep', cluster: 'a' }],
};

describe('host live mode', () => {
  it('refuses to start without clusters, naming why', async () => {
    const built: FakeWorld[] = [];
    const host = hostOn(storeFile(), fakeFactory(built));
    expect(await host.call('run.startLive', {})).toEqual({
      ok: false,
      errors: [{ path: 'clusters', message: expect.stringContaining('no live cluster') }],
    });
    expect(built).toHaveLength(0);
  });

  it('a world that cannot start leaves the simulated run in place', async () => {
    const built: FakeWorld[] = [];
    const host = hostOn(storeFile(), fakeFactory(built, new Error('a: connection refused')));
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    expect(await host.call('run.startLive', {})).toEqual({
      ok: false,
      errors: [{ path: 'clusters', message: 'the live run could not start: a: connection refused' }],
    });
    const snapshot = host.call('grid.snapshot', {});
    expect(snapshot.ok && snapshot.value.mode).toBe('sim');
  });

  it("stores a live run's state as it starts, before any job: a console that dies then resumes that run (its run id)", async () => {
    const file = storeFile();
    const built: FakeWorld[] = [];
    const host = hostOn(file, fakeFactory(built));
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    expect((await host.call('run.startLive', {})).ok).toBe(true);
    // Read by another connection while the host runs (as a restart after a crash would find it).
    const other = openStore(file);
    try {
      expect(other.liveState()).toEqual({ jobs: [], at: 0 });
    } finally {
      other.close();
    }
  });

  it('runs the live grid through world.act, streams its events, stores accepted jobs, and resumes after a restart', async () => {
    const file = storeFile();
    const built: FakeWorld[] = [];
    const host = hostOn(file, fakeFactory(built));
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    host.call('clusters.save', { name: 'b', login: { via: 'ssh', host: 'b.example.org' }, system: 'slurm', slots: 8 });
    const events: SchedulerEvent[] = [];
    host.subscribe((e) => events.push(e));

    expect(await host.call('run.startLive', {})).toEqual({ ok: true, value: { clusters: ['a', 'b'] } });
    const world = built[0]!;
    expect(world.started).toBe(true);
    expect(world.options.clusters.map((c) => c.name)).toEqual(['a', 'b']);
    expect(world.options.restore).toBeUndefined();

    world.states = [
      { name: 'a', connection: 'open' },
      { name: 'b', connection: 'lost', lastError: 'b (alice@b.example.org:22): connection reset' },
    ];
    world.sim.runUntil(5);
    const snapshot = host.call('grid.snapshot', {});
    if (!snapshot.ok) throw new Error(JSON.stringify(snapshot.errors));
    expect(snapshot.value.mode).toBe('live');
    expect(snapshot.value.time).toBe(5);
    expect(snapshot.value.clusters.map((c) => [c.name, c.connection, c.lastError, c.processors])).toEqual([
      ['a', 'open', undefined, 4],
      ['b', 'lost', 'b (alice@b.example.org:22): connection reset', 8],
    ]);
    expect(snapshot.value.clusters[0]!.lastPoll).not.toBeUndefined();

    const refused = host.call('sim.setSpeed', { speed: '10x' });
    expect(refused).toEqual({ ok: false, errors: [{ path: 'speed', message: expect.stringContaining('real time') }] });
    // The snapshot says so before anyone tries: the console disables its speed buttons with this reason.
    expect(snapshot.value.speedFixed).toBe(!refused.ok && refused.errors[0]!.message);
    // No cluster is renamed during a live run (its jobs and a resumed run find it by name); edited in place, it may be.
    const a = { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 };
    expect(host.call('clusters.update', { name: 'a', config: { ...a, name: 'a2' } })).toEqual({
      ok: false,
      errors: [{ path: 'config.name', message: expect.stringContaining('live run') }],
    });
    expect(host.call('clusters.update', { name: 'a', config: { ...a, pollIntervalS: 5 } })).toEqual({
      ok: true,
      value: { name: 'a' },
    });

    const acts = world.acts;
    expect(host.call('jobs.submit', rigid)).toEqual({ ok: true, value: { jobId: 'r1' } });
    expect(world.acts).toBe(acts + 1);
    expect(opened[0]!.store.commands()).toEqual([
      { t: 5, key: 'jobs.submit', value: expect.objectContaining({ id: 'r1' }), jobId: 'r1' },
    ]);
    world.sim.runUntil(6);
    expect(events.some((e) => 'jobId' in e && e.jobId === 'r1')).toBe(true);
    const listed = host.call('jobs.list', {});
    expect(listed.ok && listed.value.jobs.map((j) => j.id)).toEqual(['r1']);
    expect(host.call('settings.set', { policy: 'egs' })).toMatchObject({ ok: true, value: { policy: 'egs' } });
    expect(world.sim.scheduler.policy.name).toBe('egs');

    // A restart: the stored run is live, and its world gets back what the API accepted.
    host.flush();
    opened.splice(0).forEach(({ host: h, store }) => {
      h.stop();
      store.close();
    });
    expect(world.stopped).toBe(true);
    const again = hostOn(file, fakeFactory(built));
    const resumed = built[1]!;
    // The state stored at the last flush that saw events: the accepted job is in it.
    expect(resumed.options.restore).toEqual({ jobs: ['r1'], at: 6 });
    expect(resumed.options.clusters.map((c) => c.name)).toEqual(['a', 'b']);
    // Until the world has started, commands are refused (not taken by the idle simulated world underneath).
    expect(again.call('jobs.submit', { ...rigid, id: 'r2' })).toEqual({
      ok: false,
      errors: [{ path: '', message: expect.stringContaining('resuming') }],
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(resumed.started).toBe(true);
    // The run's settings are applied again; nothing is submitted again by the host.
    expect(resumed.sim.scheduler.policy.name).toBe('egs');
    expect([...resumed.sim.scheduler.jobs()]).toHaveLength(0);
    expect(opened[0]!.store.commands().filter((c) => c.key === 'jobs.submit')).toHaveLength(1);
    const after = again.call('grid.snapshot', {});
    expect(after.ok && after.value.mode).toBe('live');

    // sim.reset goes back to a simulated run and stops the live world.
    expect(again.call('sim.reset', { grid: 'das3', workload: 'none' }).ok).toBe(true);
    expect(resumed.stopped).toBe(true);
    const sim = again.call('grid.snapshot', {});
    expect(sim.ok && sim.value.mode).toBe('sim');
    expect(opened[0]!.store.run()).toMatchObject({ workload: 'none' });
    expect(opened[0]!.store.run()?.mode).toBeUndefined();
  });
});

describe('host live mode: ended jobs', () => {
  it("leave the live world's memory once stored; after a restart the Queue and the drawer show them as before", async () => {
    const file = storeFile();
    const built: FakeWorld[] = [];
    const host = hostOn(file, fakeFactory(built));
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    expect((await host.call('run.startLive', {})).ok).toBe(true);
    const world = built[0]!;
    expect(host.call('jobs.submit', { ...rigid, app: { model: 'fixed', runtime: 5 } })).toEqual({
      ok: true,
      value: { jobId: 'r1' },
    });
    world.sim.runUntil(20);
    expect(world.sim.scheduler.job('r1')?.state).toBe('completed');
    host.flush();
    // Stored, then released: the world no longer holds it; the API still knows it.
    expect(world.sim.scheduler.job('r1')).toBeUndefined();
    const listed = host.call('jobs.list', {});
    if (!listed.ok) throw new Error(JSON.stringify(listed.errors));
    const before = listed.value.jobs;
    expect(before.map((j) => [j.id, j.state])).toEqual([['r1', 'completed']]);
    const events = host.call('jobs.events', { jobId: 'r1' });
    if (!events.ok) throw new Error(JSON.stringify(events.errors));
    expect(events.value.events.at(-1)).toMatchObject({ type: 'job.ended', state: 'completed' });

    opened.splice(0).forEach(({ host: h, store }) => {
      h.stop();
      store.close();
    });
    const again = hostOn(file, fakeFactory(built));
    // Once the resumed world has started (its start() settles on the event loop), it is the run's.
    const resumedLive = () => {
      const s = again.call('grid.snapshot', {});
      return s.ok && s.value.clusters.length > 0;
    };
    for (let i = 0; i < 1000 && !resumedLive(); i++) await new Promise((resolve) => setImmediate(resolve));
    expect(resumedLive()).toBe(true);
    const after = again.call('jobs.list', {});
    expect(after.ok && after.value.jobs).toEqual(before);
    expect(again.call('jobs.events', { jobId: 'r1' })).toEqual(events);
    expect(again.call('jobs.submit', { ...rigid })).toEqual({
      ok: false,
      errors: [{ path: 'id', message: 'duplicates job "r1"' }],
    });
  });
});
