// clusters.stageAssets through the host: copies the SDK and the demo applications to a cluster where its copy
// differs, over a connection of its own without a live run, or through the live run's world when the cluster is in
// it; an unknown cluster or an unreachable one is a typed error naming the field.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';
import { Host } from '../../electron/host/host.js';
import type { LiveWorldFactory } from '../../electron/live/live-run.js';
import { repositoryAssetsDir } from '../../runners/live/live-world.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';

const dirs: string[] = [];
const hosts: Host[] = [];
afterEach(() => {
  for (const host of hosts.splice(0)) host.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-stage-host-'));
  dirs.push(dir);
  return dir;
}

function hostWith(liveWorld?: LiveWorldFactory) {
  const host = new Host({
    workload: 'none',
    clusters: { knownHosts: new KnownHosts(path.join(tempDir(), 'known_hosts'), []) },
    ...(liveWorld ? { liveWorld } : {}),
  });
  hosts.push(host);
  return host;
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A port on loopback with nothing listening. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('clusters.stageAssets', () => {
  it('without a live run, copies what differs over a connection of its own, then nothing while the copies match', async () => {
    const host = hostWith();
    const workRoot = path.join(tempDir(), 'work');
    host.call('clusters.save', { name: 'here', login: { via: 'local' }, system: 'local', slots: 2, workRoot });
    const first = await host.call('clusters.stageAssets', { name: 'here' });
    if (!first.ok) throw new Error(JSON.stringify(first.errors));
    expect(first.value.dir).toBe(path.join(workRoot, 'assets'));
    expect(first.value.copied).toEqual(
      expect.arrayContaining([
        'sdk/concertina-app.mjs',
        'apps/ft-demo.mjs',
        'apps/gadget-demo.mjs',
        'apps/slot-stub.sh',
      ]),
    );
    expect(first.value.unchanged).toEqual([]);
    const source = repositoryAssetsDir();
    for (const file of first.value.copied) {
      expect(sha(path.join(workRoot, 'assets', file)), file).toBe(sha(path.join(source, file)));
      expect((statSync(path.join(workRoot, 'assets', file)).mode & 0o111) !== 0, file).toBe(
        (statSync(path.join(source, file)).mode & 0o111) !== 0,
      );
    }
    const again = await host.call('clusters.stageAssets', { name: 'here' });
    expect(again).toEqual({
      ok: true,
      value: { cluster: 'here', dir: first.value.dir, copied: [], unchanged: first.value.copied },
    });
  });

  it('names the field for an unknown cluster and for one that cannot be reached', async () => {
    const host = hostWith();
    expect(await host.call('clusters.stageAssets', { name: 'nowhere' })).toEqual({
      ok: false,
      errors: [{ path: 'name', message: 'names no cluster ("nowhere")' }],
    });
    expect(await host.call('clusters.stageAssets', {} as never)).toMatchObject({
      ok: false,
      errors: [{ path: 'name' }],
    });
    host.call('clusters.save', {
      name: 'down',
      login: { via: 'ssh', host: '127.0.0.1', port: await closedPort() },
      system: 'local',
      slots: 1,
      workRoot: '/tmp/never',
    });
    const r = await host.call('clusters.stageAssets', { name: 'down' });
    expect(r).toMatchObject({
      ok: false,
      errors: [{ path: 'name', message: expect.stringMatching(/^down: the assets cannot be staged: /) }],
    });
  });

  it("in a live run, stages through the run's world for a cluster in it, and over its own connection for one not in it", async () => {
    const asked: (string | undefined)[] = [];
    const factory: LiveWorldFactory = (options) => {
      const sim = new SimWorld({
        grid: gridSpecSchema.parse({
          name: 'live',
          clusters: options.clusters.map((c) => ({ name: c.name, processors: 2 })),
        }),
        jobs: [],
        seed: 1,
        endless: true,
        metrics: false,
        background: false,
      });
      const world: LiveWorld = {
        scheduler: sim.scheduler,
        now: () => sim.engine.now,
        start: async () => undefined,
        stop: async () => undefined,
        clusters: () => options.clusters.map((c) => ({ name: c.name, connection: 'open' as const })),
        act: (command) => command(sim.scheduler, sim.engine.now),
        on: (listener) => sim.scheduler.on(listener),
        persistentState: () => ({ version: 1, epochMs: 0, submitted: 0, jobs: [] }),
        onApplication: () => () => undefined,
        recovered: () => [],
        // Only `remote` is in the run (as a world answers for a cluster it has not reached: nothing).
        stageAssets: async (cluster) => {
          asked.push(cluster);
          return cluster === 'remote'
            ? [{ dir: '/scratch/assets', copied: ['apps/ft-demo.mjs'], unchanged: ['sdk/concertina-app.mjs'] }]
            : [];
        },
      };
      return world;
    };
    const host = hostWith(factory);
    const workRoot = path.join(tempDir(), 'work');
    // A connection of its own to `remote` would fail: the answer can only come from the world.
    host.call('clusters.save', {
      name: 'remote',
      login: { via: 'ssh', host: '127.0.0.1', port: await closedPort() },
      system: 'slurm',
      workRoot: '/scratch',
    });
    host.call('clusters.save', { name: 'here', login: { via: 'local' }, system: 'local', slots: 2, workRoot });
    expect(await host.call('run.startLive', {})).toMatchObject({ ok: true });
    expect(await host.call('clusters.stageAssets', { name: 'remote' })).toEqual({
      ok: true,
      value: {
        cluster: 'remote',
        dir: '/scratch/assets',
        copied: ['apps/ft-demo.mjs'],
        unchanged: ['sdk/concertina-app.mjs'],
      },
    });
    const here = await host.call('clusters.stageAssets', { name: 'here' });
    expect(here).toMatchObject({
      ok: true,
      value: {
        cluster: 'here',
        dir: path.join(workRoot, 'assets'),
        copied: expect.arrayContaining(['apps/ft-demo.mjs']),
      },
    });
    expect(asked).toEqual(['remote', 'here']);
  });
});
