// The queue settings from the console's API to a live run on real processes (a `local` cluster of this machine):
// EASY chosen with settings.set before run.startLive is the live run's, still after the host restarts on its store
// (the run's configuration keeps it), and the live scheduler backfills with it — a short job past the blocked head,
// a long one held for the head's reservation. Conditions only: the running job ends when the test creates its file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { waitFor } from './harness/common.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-easy-host-'));
const file = path.join(dir, 'run.db');
const workRoot = path.join(dir, 'work');
const release = path.join(dir, 'release-a');
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
  await current?.host.stop();
  current?.store.close();
  current = undefined;
}

function jobOf(host: Host, jobId: string) {
  const r = host.call('jobs.list', {});
  return r.ok ? r.value.jobs.find((j) => j.id === jobId) : undefined;
}

/** When the job's first event of this type happened (run seconds), if it has. */
function timeOf(host: Host, jobId: string, type: string): number | undefined {
  const r = host.call('jobs.events', { jobId });
  return r.ok ? r.value.events.find((e) => e.type === type)?.t : undefined;
}

function submit(host: Host, id: string, processors: number, walltime: number, script: string): void {
  const r = host.call('jobs.submit', {
    id,
    kind: 'rigid',
    walltime,
    components: [{ processors, program: '/bin/sh', args: ['-c', script] }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

afterAll(async () => {
  writeFileSync(release, '');
  await close();
  rmSync(dir, { recursive: true, force: true });
});

describe('queue settings from the API to a live run (this machine)', () => {
  it('a live run started under easy keeps it across a restart and backfills with it', async () => {
    let host = open();
    expect(
      host.call('clusters.save', {
        name: 'here',
        login: { via: 'local' },
        system: 'local',
        slots: 4,
        workRoot,
        pollIntervalS: 1,
      }).ok,
    ).toBe(true);
    expect(host.call('settings.set', { queue: 'easy' })).toMatchObject({ ok: true, value: { queue: 'easy' } });
    expect(await host.call('run.startLive', {})).toEqual({ ok: true, value: { clusters: ['here'] } });
    expect(host.call('settings.get', {})).toMatchObject({
      ok: true,
      value: { queue: 'easy', reservationDepth: null, priority: 'submit' },
    });
    submit(host, 'a', 3, 120, `while [ ! -e '${release}' ]; do sleep 0.1; done`);
    await waitFor('a running', () => jobOf(host, 'a')?.state === 'running', 30_000, 100);

    // A restart: the live run resumes with its queue settings (the run's configuration), A adopted, still running.
    await close();
    host = open();
    expect(host.liveError).toBeUndefined();
    await waitFor('a adopted and running', () => jobOf(host, 'a')?.state === 'running', 30_000, 100);
    expect(host.call('settings.get', {})).toMatchObject({ ok: true, value: { queue: 'easy' } });

    // B needs all 4 slots: the blocked head. C (1 slot, 10 s) backfills into the free slot at once.
    submit(host, 'b', 4, 30, 'true');
    submit(host, 'c', 1, 10, 'true');
    await waitFor('c completed', () => jobOf(host, 'c')?.state === 'completed', 30_000, 100);
    expect(jobOf(host, 'b')?.state).toBe('queued');
    expect(jobOf(host, 'b')?.lastFailure).toMatch(/reserv/);
    // D (1 slot, 300 s) fits now but would delay B's reservation: it waits.
    submit(host, 'd', 1, 300, 'true');
    await waitFor(
      "d held for b's reservation",
      () => /reservation/.test(jobOf(host, 'd')?.lastFailure ?? ''),
      30_000,
      100,
    );
    expect(jobOf(host, 'd')?.state).toBe('queued');

    writeFileSync(release, '');
    await waitFor('d completed', () => jobOf(host, 'd')?.state === 'completed', 60_000, 100);
    expect(jobOf(host, 'b')?.state).toBe('completed');
    expect(timeOf(host, 'd', 'job.started')!).toBeGreaterThanOrEqual(timeOf(host, 'b', 'job.ended')!);
  }, 180_000);
});
