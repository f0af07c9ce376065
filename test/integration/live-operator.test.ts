// The operator's shrink and growth on an idle cluster, as an operator meets them (issue 12, parts 1 and 4): the host
// on its store, in a live run on a real Slurm cluster on loopback reached over SSH, with the FT demo (2..8, a power
// of two only). Alone on the empty cluster it grows to 8 at a poll, nothing having come free; shrunk by 1 it gives
// back 4, and the host records and caps what the application did (4), never 7; the cap survives a restart of the
// host on the same store, a job ending on that cluster and many polls with idle processors; an operator's grow
// lifts it.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import type { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { repositoryAssetsDir } from '../../runners/live/live-world.js';
import { completeLines, requireDaemons, waitFor } from './harness/common.js';
import { hostLogin, startHost, type HostLogin } from './harness/host-login.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready = requireDaemons('the operator-resize integration test', ['openssh-server', ...SLURM_PACKAGES]) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the operator-resize integration test cannot run: ${missing}`);
  console.warn(`Skipping the operator-resize integration test: ${missing}.`);
  return false;
}

const NODE = process.execPath;
const FT = path.join(repositoryAssetsDir(), 'apps', 'ft-demo.mjs');

let sshd: Sshd;
let slurm: SlurmCluster;
let dir: string;
let access: HostLogin;
let current: { host: Host; store: Store } | undefined;

function open(): Host {
  const store = openStore(path.join(dir, 'run.db'));
  const host = startHost(store, access);
  current = { host, store };
  return host;
}

async function close(): Promise<void> {
  await current?.host.stop();
  current?.store.close();
  current = undefined;
}

function value<T>(r: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

const jobOf = (host: Host, jobId: string) => value(host.call('jobs.list', {})).jobs.find((j) => j.id === jobId);
const eventsOf = (host: Host, jobId: string): SchedulerEvent[] => {
  const r = host.call('jobs.events', { jobId });
  return r.ok ? (r.value.events as SchedulerEvent[]) : [];
};
const slurmCard = (host: Host) => value(host.call('grid.snapshot', {})).clusters.find((c) => c.name === 'slurm')!;
/** Waits until the host has polled Slurm `n` more times (a poll a second), whatever changed. */
async function polls(host: Host, n: number, what: string): Promise<void> {
  const from = slurmCard(host).lastPoll ?? 0;
  await waitFor(`${n} polls of slurm (${what})`, () => (slurmCard(host).lastPoll ?? 0) >= from + n, 60_000, 100);
}

/** The job's folder on the cluster (one per run tag: this run's, kept across the restart). */
function jobDir(jobId: string): string {
  const root = path.join(dir, 'slurm', 'jobs');
  const name = existsSync(root) ? readdirSync(root).find((d) => d.endsWith(`-${jobId}`)) : undefined;
  if (!name) throw new Error(`no folder for ${jobId} under ${root}`);
  return path.join(root, name);
}
/** What the application wrote to the host (from-app.jsonl), as parsed lines. */
const fromApp = (jobId: string) =>
  completeLines(path.join(jobDir(jobId), 'from-app.jsonl')).map(
    (l) => JSON.parse(l) as { type: string; offerId?: number; accepted?: number; note?: string },
  );
/** The sizes the application computed with (its progress notes), repeats collapsed. */
const sizesSeen = (jobId: string) =>
  fromApp(jobId)
    .map((m) => /^size (\d+):/.exec(m.note ?? '')?.[1])
    .filter((s): s is string => s !== undefined)
    .map(Number)
    .filter((v, i, all) => i === 0 || v !== all[i - 1]);

describe.skipIf(!ready)("the operator's shrink and growth on an idle cluster, live on loopback Slurm over SSH", () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-operator-'));
    [sshd, slurm] = await Promise.all([
      startSshd(),
      startSlurm({ clusterName: 'cncop', nodes: 2, cpusPerNode: 6, minJobAgeS: 2 }),
    ]);
    access = hostLogin(sshd, dir);
  }, 90_000);

  afterAll(async () => {
    const host = current?.host;
    if (host && jobOf(host, 'ft')?.state === 'running') host.call('jobs.cancel', { jobId: 'ft' });
    await close();
    await Promise.all([slurm?.stop(), sshd?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('grows FT on the empty cluster at a poll; shrunk by 1 it gives back 4 and stays capped at 4, across a restart, until the operator grows it', async () => {
    let host = open();
    value(
      host.call('clusters.save', {
        name: 'slurm',
        login: access.login,
        system: 'slurm',
        env: slurm.env,
        workRoot: path.join(dir, 'slurm'),
        pollIntervalS: 1,
      }),
    );
    value(await host.call('run.startLive', {}));
    // Enough work to outlive the test at any size (it is cancelled at the end).
    value(
      host.call('jobs.submit', {
        id: 'ft',
        kind: 'malleable',
        components: [{ min: 2, max: 8, initial: 2, cluster: 'slurm', program: NODE, args: [FT, '4000000', '12'] }],
      }),
    );

    // Part 4: alone on an empty cluster, nothing comes free, yet a poll offers it the idle processors.
    await waitFor('ft grown to 8 by the policy at a poll', () => jobOf(host, 'ft')?.size === 8, 90_000, 200);
    expect(eventsOf(host, 'ft').filter((e) => e.type === 'job.shrunk' || e.type === 'job.ended')).toEqual([]);
    await waitFor('ft to compute at size 8', () => sizesSeen('ft').includes(8), 60_000, 200);

    // Part 1: shrink by 1. FT keeps a power of two: it gives back 4.
    value(host.call('jobs.resize', { jobId: 'ft', delta: -1 }));
    await waitFor('ft shrunk', () => eventsOf(host, 'ft').some((e) => e.type === 'job.shrunk'), 60_000, 200);
    const answered = eventsOf(host, 'ft').filter(
      (e): e is Extract<SchedulerEvent, { type: 'shrink.answered' }> => e.type === 'shrink.answered',
    );
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({ accepted: 4, operator: true });
    // What the host recorded is what the application wrote in its protocol file.
    const own = fromApp('ft').filter((m) => m.type === 'shrinkAnswer');
    expect(own.map((m) => [m.offerId, m.accepted])).toEqual([[answered[0]!.offerId, 4]]);
    expect(jobOf(host, 'ft')).toMatchObject({ size: 4, cap: 4 });
    // Polls find 8 idle processors: nothing is offered to it (capped at 4), it never runs at 7.
    const offersBefore = eventsOf(host, 'ft').filter((e) => e.type === 'grow.offered').length;
    await polls(host, 5, 'idle processors beside a capped job');
    expect(eventsOf(host, 'ft').filter((e) => e.type === 'grow.offered')).toHaveLength(offersBefore);
    expect(jobOf(host, 'ft')).toMatchObject({ size: 4, cap: 4 });
    await waitFor('ft to compute at size 4', () => sizesSeen('ft').at(-1) === 4, 60_000, 200);

    // The host stops and starts again on its store: the cap is restored with the adopted job.
    await close();
    host = open();
    await waitFor('ft adopted and running', () => jobOf(host, 'ft')?.state === 'running', 60_000, 200);
    expect(jobOf(host, 'ft')).toMatchObject({ size: 4, cap: 4 });
    const offersAtRestart = eventsOf(host, 'ft').filter((e) => e.type === 'grow.offered').length;
    // A job on that cluster ends (processors come free), and more polls find idle processors: still capped.
    value(
      host.call('jobs.submit', {
        id: 'brief',
        kind: 'rigid',
        components: [{ processors: 2, cluster: 'slurm', program: '/bin/sh', args: ['-c', 'sleep 1'] }],
      }),
    );
    await waitFor('brief ended', () => jobOf(host, 'brief')?.state === 'completed', 60_000, 200);
    await polls(host, 5, 'after a job ended beside the capped job');
    expect(eventsOf(host, 'ft').filter((e) => e.type === 'grow.offered')).toHaveLength(offersAtRestart);
    expect(jobOf(host, 'ft')).toMatchObject({ size: 4, cap: 4 });
    expect(sizesSeen('ft').at(-1)).toBe(4);

    // The operator's grow lifts the cap: the same application grows to 8 again.
    value(host.call('jobs.resize', { jobId: 'ft', delta: 4 }));
    await waitFor('ft grown to 8 by the operator', () => jobOf(host, 'ft')?.size === 8, 60_000, 200);
    expect(jobOf(host, 'ft')!.cap).toBeUndefined();
    await waitFor('ft to compute at size 8 again', () => sizesSeen('ft').at(-1) === 8, 60_000, 200);
    // FT never computed at a size that is not a power of two.
    expect(sizesSeen('ft').filter((s) => (s & (s - 1)) !== 0)).toEqual([]);
    value(host.call('jobs.cancel', { jobId: 'ft' }));
    await waitFor('ft cancelled', () => jobOf(host, 'ft')?.state === 'cancelled', 60_000, 200);
  }, 420_000);
});
