// The host's mode through its API (electron/host/mode.ts): a live run started and left for a new simulated one, and a
// stored live run that resumes, fails to start, or cannot even be built — the last two refuse commands with why
// until a new run starts.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';
import { Host } from '../../electron/host/host.js';
import type { LiveWorldFactory } from '../../electron/live/live-run.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { waitFor } from '../integration/harness/common.js';

/** A LiveWorld over a simulated scheduler; `fail`: how it fails (its start rejects, or it cannot be built). */
function factory(fail?: 'start' | 'build'): LiveWorldFactory {
  return (options) => {
    if (fail === 'build') throw new Error('no such cluster type');
    const grid = gridSpecSchema.parse({
      name: 'live',
      clusters: options.clusters.map((c) => ({ name: c.name, processors: 8 })),
    });
    const sim = new SimWorld({ grid, jobs: [], seed: 1, endless: true, metrics: false, background: false });
    return {
      scheduler: sim.scheduler,
      now: () => sim.engine.now,
      start: async () => {
        if (fail === 'start') throw new Error('a: connection refused');
      },
      stop: async () => undefined,
      clusters: () => options.clusters.map((c) => ({ name: c.name, connection: 'open' as const })),
      act: (command) => command(sim.scheduler, sim.engine.now),
      on: (listener: (event: SchedulerEvent) => void) => sim.scheduler.on(listener),
      persistentState: () => ({ jobs: [] }) as unknown as ReturnType<LiveWorld['persistentState']>,
      onApplication: () => () => undefined,
      recovered: () => [],
    };
  };
}

const dirs: string[] = [];
const opened: Array<{ host: Host; store: Store }> = [];
afterEach(async () => {
  for (const { host, store } of opened.splice(0)) {
    await host.stop();
    store.close();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function hostOn(file: string, liveWorld: LiveWorldFactory): Host {
  const store = openStore(file);
  const host = new Host({
    store,
    workload: 'none',
    liveWorld,
    clusters: { knownHosts: new KnownHosts(path.join(path.dirname(file), 'known_hosts'), []) },
  });
  opened.push({ host, store });
  return host;
}

async function closeLast(): Promise<void> {
  const last = opened.pop()!;
  await last.host.stop();
  last.store.close();
}

function storeFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-mode-'));
  dirs.push(dir);
  return path.join(dir, 'run.db');
}

const mode = (host: Host) => {
  const s = host.call('grid.snapshot', {});
  return s.ok ? s.value.mode : undefined;
};
const rigid = {
  kind: 'rigid',
  app: { model: 'fixed', runtime: 600 },
  components: [{ processors: 2, program: 'sleep' }],
};
const das = gridSpecSchema.parse({ name: 'small', clusters: [{ name: 'x', processors: 8 }] });

/** A store that holds a live run on cluster `a`. */
async function storedLiveRun(): Promise<string> {
  const file = storeFile();
  const host = hostOn(file, factory());
  host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
  expect((await host.call('run.startLive', {})).ok).toBe(true);
  await closeLast();
  return file;
}

describe('host mode through the API', () => {
  it('simulating → live (run.startLive) → simulating (sim.reset) → live again', async () => {
    const host = hostOn(storeFile(), factory());
    expect(mode(host)).toBe('sim');
    host.call('clusters.save', { name: 'a', login: { via: 'local' }, system: 'local', slots: 4 });
    expect((await host.call('run.startLive', {})).ok).toBe(true);
    expect(mode(host)).toBe('live');
    expect(host.call('sim.setSpeed', { speed: '10x' })).toMatchObject({ ok: false, errors: [{ path: 'speed' }] });
    expect(host.call('sim.reset', { grid: das, workload: 'none', seed: 1 }).ok).toBe(true);
    expect(mode(host)).toBe('sim');
    expect(host.call('sim.setSpeed', { speed: '10x' }).ok).toBe(true);
    expect((await host.call('run.startLive', {})).ok).toBe(true);
    expect(mode(host)).toBe('live');
  });

  it('a stored live run resumes: resuming-live → live, and its commands are served', async () => {
    const host = hostOn(await storedLiveRun(), factory());
    await waitFor('the live run resumed', () => host.call('jobs.submit', rigid).ok, 10_000, 10);
    expect(mode(host)).toBe('live');
    expect(host.liveError).toBeUndefined();
  });

  it.each([
    ['start', 'the live run could not resume: a: connection refused'],
    ['build', 'the live run could not resume: no such cluster type'],
  ] as const)(
    'a stored live run whose world fails to %s refuses commands with why, until sim.reset',
    async (fail, reason) => {
      const host = hostOn(await storedLiveRun(), factory(fail));
      await waitFor('the resume failed', () => host.liveError !== undefined, 10_000, 10);
      expect(host.liveError).toBe(reason);
      expect(mode(host)).toBe('live');
      expect(host.call('jobs.submit', rigid)).toEqual({ ok: false, errors: [{ path: '', message: reason }] });
      expect(host.call('settings.set', { triesThreshold: 3 })).toEqual({
        ok: false,
        errors: [{ path: '', message: reason }],
      });
      expect(host.call('sim.reset', { grid: das, workload: 'none', seed: 1 }).ok).toBe(true);
      expect(mode(host)).toBe('sim');
      expect(host.liveError).toBeUndefined();
      expect(host.call('jobs.submit', rigid).ok).toBe(true);
    },
  );
});
