// Live mode survives the console's crash (issue 4, sections 4 and 5): `concertina serve` with a store runs a live
// run on this machine (a `local` cluster, so no daemon is needed) and is killed with SIGKILL while its jobs run.
// Started again on the same store it resumes the run: the job still running is adopted (submitted once, started
// once), the one that ended while it was down is recorded with its end, and nothing runs twice. And a job whose
// submission reached the cluster just before a crash, after the state was last stored, is found by its tag.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLiveWorld, type LiveWorldOptions } from '../../runners/live/live-world.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { waitFor } from './harness/common.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-crash-'));
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  // Whatever still runs on the plain host (a failed test's jobs): their process groups.
  for (const root of [path.join(dir, 'work', 'local'), path.join(dir, 'work2', 'local')]) {
    for (const entry of safeList(root)) {
      try {
        process.kill(-Number(readFileSync(path.join(root, entry, 'pid'), 'utf8').trim()), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder).filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
}

/** `concertina serve` on the store, its data folder in the test's directory; resolves with its URL. */
function serve(store: string): { child: ChildProcess; url: Promise<URL> } {
  const env = { ...process.env, XDG_DATA_HOME: path.join(dir, 'data'), HOME: dir };
  const child = spawn(process.execPath, ['bin/concertina.js', 'serve', '--port', '0', '--store', store], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const url = new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /Open: (\S+)/.exec(out);
      if (m) resolve(new URL(m[1]!));
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, url };
}

async function api<T = unknown>(
  url: URL,
  method: string,
  body: unknown = {},
): Promise<{ ok: boolean; value: T; errors?: unknown }> {
  const r = await fetch(`${url.origin}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${url.searchParams.get('token')}` },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { ok: boolean; value: T };
}

type JobRow = { id: string; state: string };
const jobs = async (url: URL) => (await api<{ jobs: JobRow[] }>(url, 'jobs.list', { limit: 1000 })).value?.jobs ?? [];
const stateOf = async (url: URL, id: string) => (await jobs(url)).find((j) => j.id === id)?.state;
const eventTypes = async (url: URL, id: string) =>
  (await api<{ events: Array<{ type: string; state?: string; reason?: string }> }>(url, 'jobs.events', { jobId: id }))
    .value?.events ?? [];
const localJobs = (workRoot: string) => safeList(path.join(workRoot, 'local')).length;

describe('live mode after the console is killed', () => {
  it('resumes from its store after a SIGKILL: adopts what runs, records what ended meanwhile, runs nothing twice', async () => {
    const store = path.join(dir, 'run.db');
    const workRoot = path.join(dir, 'work');
    const first = serve(store);
    const url = await first.url;
    expect(
      (
        await api(url, 'clusters.save', {
          name: 'here',
          login: { via: 'local' },
          system: 'local',
          slots: 4,
          workRoot,
          pollIntervalS: 1,
        })
      ).ok,
    ).toBe(true);
    expect(await api(url, 'run.startLive')).toEqual({ ok: true, value: { clusters: ['here'] } });
    expect(
      (
        await api(url, 'jobs.submit', {
          id: 'long',
          kind: 'rigid',
          components: [{ processors: 2, program: '/bin/sh', args: ['-c', 'sleep 120'] }],
        })
      ).ok,
    ).toBe(true);
    expect(
      (
        await api(url, 'jobs.submit', {
          id: 'short',
          kind: 'rigid',
          components: [{ processors: 1, program: '/bin/sh', args: ['-c', 'sleep 3; exit 3'] }],
        })
      ).ok,
    ).toBe(true);
    await waitFor(
      'both running',
      async () => (await stateOf(url, 'long')) === 'running' && (await stateOf(url, 'short')) === 'running',
      30_000,
      100,
    );
    expect(localJobs(workRoot)).toBe(2);

    const killed = new Promise((resolve) => first.child.on('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;
    // While the console is down, the short job ends.
    await waitFor(
      'short to end',
      () =>
        safeList(path.join(workRoot, 'local')).some((e) => {
          try {
            return readFileSync(path.join(workRoot, 'local', e, 'exit'), 'utf8').trim() === '3';
          } catch {
            return false;
          }
        }),
      15_000,
      100,
    );

    const second = serve(store);
    const url2 = await second.url;
    await waitFor('long adopted and running', async () => (await stateOf(url2, 'long')) === 'running', 30_000, 200);
    await waitFor('short recorded as ended', async () => (await stateOf(url2, 'short')) === 'failed', 30_000, 200);
    const short = await eventTypes(url2, 'short');
    expect(short.at(-1)).toMatchObject({
      type: 'job.ended',
      state: 'failed',
      reason: expect.stringContaining('exit status 3'),
    });
    const long = (await eventTypes(url2, 'long')).map((e) => e.type);
    expect(['job.submitted', 'job.started', 'job.adopted'].map((t) => long.filter((x) => x === t).length)).toEqual([
      1, 1, 1,
    ]);
    // Nothing submitted again: still the two local jobs of the first session.
    expect(localJobs(workRoot)).toBe(2);
    expect((await jobs(url2)).map((j) => j.id).sort()).toEqual(['long', 'short']);

    expect((await api(url2, 'jobs.cancel', { jobId: 'long' })).ok).toBe(true);
    await waitFor('long cancelled', async () => (await stateOf(url2, 'long')) === 'cancelled', 30_000, 200);
    const stopped = new Promise((resolve) => second.child.on('exit', resolve));
    second.child.kill('SIGTERM');
    await stopped;
    expect(localJobs(workRoot)).toBe(2);
  }, 120_000);

  it('finds by its tag a job that reached the cluster after the state was last stored, and runs it once', async () => {
    const workRoot = path.join(dir, 'work2');
    const options: LiveWorldOptions = {
      clusters: [{ name: 'here', login: { via: 'local' }, system: 'local', slots: 2, workRoot, pollIntervalS: 1 }],
      log: () => {},
    };
    let world: LiveWorld = createLiveWorld(options);
    await world.start();
    // The state as stored when the job was accepted, before its local job was submitted.
    world.act((s, now) =>
      s.submit(
        { id: 'racer', kind: 'rigid', components: [{ processors: 1, program: '/bin/sh', args: ['-c', 'sleep 120'] }] },
        now,
      ),
    );
    const stored = JSON.parse(JSON.stringify(world.persistentState()));
    expect(stored.jobs).toEqual([expect.objectContaining({ launched: false })]);
    await waitFor('racer running', () => world.scheduler.job('racer')?.state === 'running', 20_000, 50);
    expect(localJobs(workRoot)).toBe(1);
    // The crash: the world goes away with its job running on the cluster.
    await world.stop();

    world = createLiveWorld({ ...options, restore: stored });
    await world.start();
    await waitFor('racer running again', () => world.scheduler.job('racer')?.state === 'running', 20_000, 50);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // a few polls: nothing else is submitted
    expect(localJobs(workRoot)).toBe(1);
    expect(world.scheduler.job('racer')).toMatchObject({ state: 'running' });
    world.act((s, now) => s.cancel('racer', now));
    await waitFor('racer cancelled', () => world.scheduler.job('racer')?.state === 'cancelled', 20_000, 50);
    await world.stop();
  }, 60_000);
});
