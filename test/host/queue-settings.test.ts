// The queue settings through the host: queue policy, reservation depth and priority are read and changed with
// settings.get / settings.set (errors naming the field), offered by settings.choices with the core's own names and
// descriptions, kept as stored commands that a resumed run replays, carried by sim.reset into the new run's config,
// and handed to a live run's world as it starts and as it resumes. The other scheduler settings (malleability
// policy, approach, FPE variant) likewise: stored, replayed, kept through sim.reset and carried into a live run.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { queuePolicies } from '../../core/queue/registry.js';
import { malleabilityPolicies } from '../../core/malleability/registry.js';
import { QUEUE_PRIORITIES } from '../../core/queue/priority.js';
import { FPE_VARIANTS, fpeVariants } from '../../core/fpe/registry.js';
import { SimWorld } from '../../core/sim/world.js';
import { Host } from '../../electron/host/host.js';
import type { LiveWorldFactory, LiveWorldFactoryOptions } from '../../electron/live/live-run.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import type { LiveWorld } from '../../runners/live/types.js';

const grid = gridSpecSchema.parse({
  name: 'two',
  clusters: [
    { name: 'a', processors: 32 },
    { name: 'b', processors: 16 },
  ],
});
const dirs: string[] = [];
const opened: Array<{ host: Host; store: Store }> = [];
afterEach(async () => {
  for (const { host, store } of opened.splice(0)) {
    await host.stop();
    store.close();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storeFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-queue-settings-'));
  dirs.push(dir);
  return path.join(dir, 'run.db');
}

interface FakeWorld extends LiveWorld {
  readonly options: LiveWorldFactoryOptions;
  started: boolean;
}

/** A LiveWorld over a simulated scheduler built with the queue settings the host hands the factory. */
function fakeFactory(built: FakeWorld[]): LiveWorldFactory {
  return (options) => {
    const liveGrid = gridSpecSchema.parse({
      name: 'live',
      clusters: options.clusters.map((c) => ({ name: c.name, processors: c.slots ?? 8 })),
    });
    const sim = new SimWorld({
      grid: liveGrid,
      jobs: [],
      seed: 1,
      endless: true,
      metrics: false,
      background: false,
      ...(options.queue ? { scheduler: options.queue } : {}),
    });
    const world: FakeWorld = {
      options,
      started: false,
      scheduler: sim.scheduler,
      now: () => sim.engine.now,
      async start() {
        world.started = true;
      },
      async stop() {},
      clusters: () => options.clusters.map((c) => ({ name: c.name, connection: 'open' as const })),
      act: (command) => command(sim.scheduler, sim.engine.now),
      on: (listener: (event: SchedulerEvent) => void) => sim.scheduler.on(listener),
      persistentState: () => ({ at: sim.engine.now }) as unknown as ReturnType<LiveWorld['persistentState']>,
      onApplication: () => () => undefined,
      recovered: () => [],
    };
    built.push(world);
    return world;
  };
}

function hostOn(file: string, factory?: LiveWorldFactory): Host {
  const store = openStore(file);
  const host = new Host({
    grid,
    store,
    workload: 'none',
    clusters: { knownHosts: new KnownHosts(path.join(path.dirname(file), 'known_hosts'), []) },
    ...(factory ? { liveWorld: factory } : {}),
  });
  opened.push({ host, store });
  return host;
}

async function restart(file: string, factory?: LiveWorldFactory): Promise<Host> {
  for (const { host, store } of opened.splice(0)) {
    await host.stop();
    store.close();
  }
  const host = hostOn(file, factory);
  await host.ready;
  return host;
}

const queueOf = (host: Host) => {
  const s = host.call('settings.get', {});
  if (!s.ok) throw new Error('settings.get failed');
  return { queue: s.value.queue, reservationDepth: s.value.reservationDepth, priority: s.value.priority };
};

describe('queue settings through the host', () => {
  it('starts with the scheduler defaults and changes them with settings.set, on the scheduler itself', () => {
    const host = hostOn(storeFile());
    expect(queueOf(host)).toEqual({ queue: 'koala', reservationDepth: null, priority: 'submit' });
    const r = host.call('settings.set', { queue: 'easy', reservationDepth: 2, priority: 'wait' });
    expect(r).toMatchObject({ ok: true, value: { queue: 'easy', reservationDepth: 2, priority: 'wait' } });
    expect(host.world.scheduler.queuePolicyName).toBe('easy');
    expect(host.world.scheduler.reservationDepth).toBe(2);
    expect(host.world.scheduler.priority).toBe('wait');
    // null: back to the policy's own depth.
    expect(host.call('settings.set', { reservationDepth: null })).toMatchObject({
      ok: true,
      value: { reservationDepth: null },
    });
    expect(host.world.scheduler.reservationDepth).toBeUndefined();
  });

  it('refuses a bad value with an error naming its field, and changes nothing', () => {
    const host = hostOn(storeFile());
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ queue: 'sjf' }, 'queue', /must be one of koala, fcfs, easy/],
      [{ reservationDepth: -1 }, 'reservationDepth', /0 or more/],
      [{ reservationDepth: 1.5 }, 'reservationDepth', /whole number/],
      [{ reservationDepth: 'two' }, 'reservationDepth', /whole number of jobs/],
      [{ priority: 'random' }, 'priority', /must be one of submit, wait, size/],
    ];
    for (const [input, field, message] of cases) {
      const r = host.call('settings.set', input);
      expect(r.ok, JSON.stringify(input)).toBe(false);
      if (!r.ok) expect(r.errors[0]).toEqual({ path: field, message: expect.stringMatching(message) });
    }
    expect(queueOf(host)).toEqual({ queue: 'koala', reservationDepth: null, priority: 'submit' });
  });

  it("offers the core's queue policies with their descriptions, which of them plan ahead, and the priorities", () => {
    const host = hostOn(storeFile());
    const r = host.call('settings.choices', {});
    if (!r.ok) throw new Error('settings.choices failed');
    expect(r.value.queuePolicies.map((q) => q.name)).toEqual(Object.keys(queuePolicies));
    for (const q of r.value.queuePolicies) expect(q.description).toBe(queuePolicies[q.name].description);
    const plans = Object.fromEntries(r.value.queuePolicies.map((q) => [q.name, q.plansAhead]));
    expect(plans).toMatchObject({ koala: false, fcfs: true, easy: true });
    expect(r.value.priorities.map((p) => p.name)).toEqual([...QUEUE_PRIORITIES]);
    for (const p of r.value.priorities) expect(p.description).not.toBe('');
  });

  it("offers the core's malleability policies by name, DBES and its baselines among them, with their descriptions", () => {
    const host = hostOn(storeFile());
    const r = host.call('settings.choices', {});
    if (!r.ok) throw new Error('settings.choices failed');
    expect(r.value.policies.map((p) => p.name)).toEqual(Object.keys(malleabilityPolicies));
    expect(r.value.policies.map((p) => p.name)).toEqual(
      expect.arrayContaining(['fpsma', 'egs', 'equipartition', 'dbes', 'rigid', 'esf', 'edf', 'ldf', 'ep']),
    );
    for (const p of r.value.policies) expect(p.description).toBe(malleabilityPolicies[p.name]!.description);
    // Every name offered is one settings.set takes.
    for (const p of r.value.policies) expect(host.call('settings.set', { policy: p.name }).ok, p.name).toBe(true);
  });

  it('a resumed run has the queue settings it had: the stored commands are replayed', async () => {
    const file = storeFile();
    const host = hostOn(file);
    expect(host.call('settings.set', { queue: 'easy', reservationDepth: 3, priority: 'size' }).ok).toBe(true);
    expect(host.call('settings.set', { queue: 'fcfs', reservationDepth: null }).ok).toBe(true);
    const again = await restart(file);
    expect(again.run.state).toBe('running');
    expect(queueOf(again)).toEqual({ queue: 'fcfs', reservationDepth: null, priority: 'size' });
    expect(again.world.scheduler.queuePolicyName).toBe('fcfs');
  });

  it('sim.reset keeps the queue settings unless it gives others; the new run starts with them after a restart too', async () => {
    const file = storeFile();
    const host = hostOn(file);
    expect(host.call('settings.set', { queue: 'easy', reservationDepth: 1 }).ok).toBe(true);
    expect(host.call('sim.reset', { grid: 'das3', workload: 'none' }).ok).toBe(true);
    expect(queueOf(host)).toEqual({ queue: 'easy', reservationDepth: 1, priority: 'submit' });
    expect(
      host.call('sim.reset', {
        grid: 'das3',
        workload: 'none',
        queue: 'fcfs',
        reservationDepth: null,
        priority: 'wait',
      }).ok,
    ).toBe(true);
    expect(queueOf(host)).toEqual({ queue: 'fcfs', reservationDepth: null, priority: 'wait' });
    // The new run's config holds them (its stored commands are none: the reset's run starts empty).
    expect(opened[0]!.store.run()?.queue).toEqual({ queue: 'fcfs', reservationDepth: null, priority: 'wait' });
    const again = await restart(file);
    expect(queueOf(again)).toEqual({ queue: 'fcfs', reservationDepth: null, priority: 'wait' });
    expect(again.call('sim.reset', { grid: 'das3', workload: 'none', queue: 'lifo' })).toMatchObject({
      ok: false,
      errors: [{ path: 'queue' }],
    });
  });

  it("a live run starts with the run's queue settings and resumes with them and the later changes", async () => {
    const file = storeFile();
    const built: FakeWorld[] = [];
    const host = hostOn(file, fakeFactory(built));
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    expect(host.call('settings.set', { queue: 'easy', reservationDepth: 2 }).ok).toBe(true);
    expect((await host.call('run.startLive', {})).ok).toBe(true);
    expect(built[0]!.options.queue).toEqual({ queue: 'easy', reservationDepth: 2, priority: 'submit' });
    expect(built[0]!.scheduler.queuePolicyName).toBe('easy');
    expect(queueOf(host)).toEqual({ queue: 'easy', reservationDepth: 2, priority: 'submit' });
    // A change during the live run reaches the live world's scheduler and is stored with the run.
    expect(host.call('settings.set', { priority: 'wait', reservationDepth: null }).ok).toBe(true);
    expect(built[0]!.scheduler.priority).toBe('wait');

    const again = await restart(file, fakeFactory(built));
    const resumed = built[1]!;
    expect(resumed.options.queue).toEqual({ queue: 'easy', reservationDepth: 2, priority: 'submit' });
    // The resumed world is the run's once it has started; then the stored changes are applied again.
    for (
      let i = 0;
      i < 1000 && !(resumed.started && again.call('settings.get', {}).ok && queueOf(again).priority === 'wait');
      i++
    )
      await new Promise((resolve) => setImmediate(resolve));
    expect(queueOf(again)).toEqual({ queue: 'easy', reservationDepth: null, priority: 'wait' });
    expect(resumed.scheduler.reservationDepth).toBeUndefined();
  });

  it('a live run scheduled under DBES chosen in Settings keeps DBES when it resumes (the stored setting is applied again)', async () => {
    const file = storeFile();
    const built: FakeWorld[] = [];
    const host = hostOn(file, fakeFactory(built));
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    expect((await host.call('run.startLive', {})).ok).toBe(true);
    expect(host.call('settings.set', { policy: 'dbes' })).toMatchObject({ ok: true, value: { policy: 'dbes' } });
    expect(built[0]!.scheduler.policy.name).toBe('dbes');

    const again = await restart(file, fakeFactory(built));
    const resumed = built[1]!;
    for (let i = 0; i < 1000 && !(resumed.started && resumed.scheduler.policy.name === 'dbes'); i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(resumed.scheduler.policy.name).toBe('dbes');
    expect(again.call('settings.get', {})).toMatchObject({ ok: true, value: { policy: 'dbes' } });
  });
});

/** Steps the event loop until `done` holds (a resumed live world becomes the run's once it has started). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('the FPE variant and the other scheduler settings through the host', () => {
  it("offers the FPE variants with their descriptions; settings.set changes the scheduler's, a bad one refused at fpeVariant", () => {
    const host = hostOn(storeFile());
    const r = host.call('settings.choices', {});
    if (!r.ok) throw new Error('settings.choices failed');
    expect(r.value.fpeVariants.map((v) => v.name)).toEqual([...FPE_VARIANTS]);
    for (const v of r.value.fpeVariants) expect(v.description).toBe(fpeVariants[v.name].description);
    expect(host.call('settings.get', {})).toMatchObject({
      ok: true,
      value: { fpeVariant: host.world.scheduler.fpeVariant },
    });
    expect(host.call('settings.set', { fpeVariant: 'infX+c' })).toMatchObject({
      ok: true,
      value: { fpeVariant: 'infX+c' },
    });
    expect(host.world.scheduler.fpeVariant).toBe('infX+c');
    const bad = host.call('settings.set', { fpeVariant: '3X' } as never);
    expect(bad).toMatchObject({ ok: false, errors: [{ path: 'fpeVariant' }] });
    expect(host.world.scheduler.fpeVariant).toBe('infX+c');
  });

  it('the FPE variant is stored with the run and replayed when it resumes, and kept through sim.reset', async () => {
    const file = storeFile();
    const host = hostOn(file);
    expect(host.call('settings.set', { fpeVariant: 'noX' }).ok).toBe(true);
    const again = await restart(file);
    expect(again.world.scheduler.fpeVariant).toBe('noX');
    expect(again.call('settings.set', { policy: 'dbes', approach: 'pwa' }).ok).toBe(true);
    expect(again.call('sim.reset', { grid: 'das3', workload: 'none' }).ok).toBe(true);
    expect(again.call('settings.get', {})).toMatchObject({
      ok: true,
      value: { fpeVariant: 'noX', policy: 'dbes', approach: 'pwa' },
    });
    // The reset's run has them as stored commands: a restart replays them.
    const third = await restart(file);
    expect(third.world.scheduler.fpeVariant).toBe('noX');
    expect(third.world.scheduler.policy.name).toBe('dbes');
    expect(third.world.scheduler.approachName).toBe('pwa');
  });

  it("changes a profiled job's grow timeout and attempts on the scheduler; a bad value is refused at its field", () => {
    const host = hostOn(storeFile());
    const scheduler = () => host.world.scheduler;
    expect(host.call('settings.get', {})).toMatchObject({
      ok: true,
      value: { fpeGrowTimeoutS: 300, fpeGrowAttempts: 3 },
    });
    expect(host.call('settings.set', { fpeGrowTimeoutS: 90.5, fpeGrowAttempts: 5 })).toMatchObject({
      ok: true,
      value: { fpeGrowTimeoutS: 90.5, fpeGrowAttempts: 5 },
    });
    expect([scheduler().fpeGrowTimeoutS, scheduler().fpeGrowAttempts]).toEqual([90.5, 5]);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ fpeGrowTimeoutS: 0 }, 'fpeGrowTimeoutS', 'must be a number of seconds > 0'],
      [{ fpeGrowTimeoutS: -30 }, 'fpeGrowTimeoutS', 'must be a number of seconds > 0'],
      [{ fpeGrowTimeoutS: 'soon' }, 'fpeGrowTimeoutS', 'must be a number of seconds > 0'],
      [{ fpeGrowAttempts: 0 }, 'fpeGrowAttempts', 'must be a whole number of attempts, 1 or more'],
      [{ fpeGrowAttempts: 2.5 }, 'fpeGrowAttempts', 'must be a whole number of attempts, 1 or more'],
      [{ fpeGrowAttempts: null }, 'fpeGrowAttempts', 'must be a whole number of attempts, 1 or more'],
    ];
    for (const [input, field, message] of cases) {
      const r = host.call('settings.set', input as never);
      expect(r.ok, JSON.stringify(input)).toBe(false);
      if (!r.ok) expect(r.errors).toEqual([{ path: field, message }]);
    }
    expect([scheduler().fpeGrowTimeoutS, scheduler().fpeGrowAttempts]).toEqual([90.5, 5]);
  });

  it("a profiled job's grow timeout and attempts are stored with the run, replayed when it resumes, kept through sim.reset", async () => {
    const file = storeFile();
    const host = hostOn(file);
    expect(host.call('settings.set', { fpeGrowTimeoutS: 45, fpeGrowAttempts: 1 }).ok).toBe(true);
    const again = await restart(file);
    expect([again.world.scheduler.fpeGrowTimeoutS, again.world.scheduler.fpeGrowAttempts]).toEqual([45, 1]);
    expect(again.call('sim.reset', { grid: 'das3', workload: 'none' }).ok).toBe(true);
    expect(again.call('settings.get', {})).toMatchObject({
      ok: true,
      value: { fpeGrowTimeoutS: 45, fpeGrowAttempts: 1 },
    });
    const third = await restart(file);
    expect([third.world.scheduler.fpeGrowTimeoutS, third.world.scheduler.fpeGrowAttempts]).toEqual([45, 1]);
  });

  it("a malleability policy, approach and FPE variant chosen before run.startLive are the live run's, and still after a resume", async () => {
    const file = storeFile();
    const built: FakeWorld[] = [];
    const host = hostOn(file, fakeFactory(built));
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    expect(
      host.call('settings.set', { policy: 'dbes', approach: 'pwa', fpeVariant: 'infX', fpeGrowAttempts: 2 }).ok,
    ).toBe(true);
    expect((await host.call('run.startLive', {})).ok).toBe(true);
    const live = built[0]!.scheduler;
    expect([live.policy.name, live.approachName, live.fpeVariant, live.fpeGrowAttempts]).toEqual([
      'dbes',
      'pwa',
      'infX',
      2,
    ]);
    expect(host.call('settings.get', {})).toMatchObject({
      ok: true,
      value: { policy: 'dbes', approach: 'pwa', fpeVariant: 'infX' },
    });

    await restart(file, fakeFactory(built));
    const resumed = built[1]!;
    await until(() => resumed.started && resumed.scheduler.policy.name === 'dbes');
    expect([resumed.scheduler.policy.name, resumed.scheduler.approachName, resumed.scheduler.fpeVariant]).toEqual([
      'dbes',
      'pwa',
      'infX',
    ]);
    expect(resumed.scheduler.fpeGrowAttempts).toBe(2);
  });
});
