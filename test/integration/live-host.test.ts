// The host's live mode with the real LiveWorld on this machine (a `local` cluster, so no daemon is needed): a live
// run started through the API, a job accepted and running, the host stopped and started again on its store — the
// run resumes live, the job is adopted from the cluster (started once, never submitted again) and can be cancelled.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { waitFor } from './harness/common.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-host-'));
const file = path.join(dir, 'run.db');
const workRoot = path.join(dir, 'work');
let current: { host: Host; store: Store } | undefined;

function open(): Host {
  const store = openStore(file);
  const host = new Host({
    store,
    workload: 'none',
    clusters: { knownHosts: new KnownHosts(path.join(dir, 'known_hosts'), []) },
  });
  host.start(50);
  current = { host, store };
  return host;
}

async function close(): Promise<void> {
  await current?.host.stop(); // the live world's connections and timers closed
  current?.store.close();
  current = undefined;
}

function stateOf(host: Host, jobId: string): string | undefined {
  const r = host.call('jobs.list', {});
  return r.ok ? r.value.jobs.find((j) => j.id === jobId)?.state : undefined;
}

/** Local jobs the plain host's batch system was asked to start (one folder each in its state directory). */
const localJobs = () => readdirSync(path.join(workRoot, 'local')).filter((e) => /^\d+$/.test(e)).length;

afterAll(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

describe('host live mode with the real live world (this machine)', () => {
  it('starts, runs a job, and after a restart resumes it without submitting it again', async () => {
    let host = open();
    expect(
      host.call('clusters.save', {
        name: 'here',
        login: { via: 'local' },
        system: 'local',
        slots: 2,
        workRoot,
        pollIntervalS: 1,
      }).ok,
    ).toBe(true);
    expect(await host.call('run.startLive', {})).toEqual({ ok: true, value: { clusters: ['here'] } });
    const submitted = host.call('jobs.submit', {
      id: 'long',
      kind: 'rigid',
      components: [{ processors: 1, program: '/bin/sh', args: ['-c', 'sleep 60'] }],
    });
    expect(submitted).toEqual({ ok: true, value: { jobId: 'long' } });
    await waitFor('long running', () => stateOf(host, 'long') === 'running', 30_000, 100);
    expect(localJobs()).toBe(1);

    await close();
    host = open();
    expect(host.liveError).toBeUndefined();
    const snapshot = host.call('grid.snapshot', {});
    if (!snapshot.ok) throw new Error(JSON.stringify(snapshot.errors));
    expect(snapshot.value.mode).toBe('live');
    const clusterNames = () => {
      const s = host.call('grid.snapshot', {});
      return s.ok ? s.value.clusters.map((c) => `${c.name}:${c.connection}`).join() : '';
    };
    await waitFor('the cluster reconnected', () => clusterNames() === 'here:open', 30_000, 100);
    await waitFor('long adopted and running', () => stateOf(host, 'long') === 'running', 30_000, 100);
    expect(localJobs()).toBe(1);
    // The store keeps one submission and one start of the earlier session, and the adoption once.
    const types = () => {
      const r = host.call('jobs.events', { jobId: 'long' });
      return r.ok ? r.value.events.map((e) => e.type) : [];
    };
    await waitFor('the adoption stored', () => types().includes('job.adopted'), 10_000, 100);
    expect(
      ['job.submitted', 'job.placed', 'job.started', 'job.adopted'].map((t) => types().filter((x) => x === t).length),
    ).toEqual([1, 1, 1, 1]);

    expect(host.call('jobs.cancel', { jobId: 'long' }).ok).toBe(true);
    await waitFor('long cancelled', () => stateOf(host, 'long') === 'cancelled', 30_000, 100);
    expect(localJobs()).toBe(1);
  }, 120_000);
});
