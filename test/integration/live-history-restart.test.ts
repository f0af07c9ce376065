// A live run's whole history survives the host's restart on the same store (issue 12, section 2), on a real Slurm
// cluster on loopback reached over SSH beside this machine as a plain cluster: jobs that failed and completed,
// their events and reasons, a malleable job's grow and shrink (Activity) and its size over time (the drawer), and
// the grid's utilization history (grid.history) read the same after the host is stopped (as SIGTERM stops
// `concertina serve`) and started again; and ended jobs have left the host's memory once stored (issue 13).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { repositoryAssetsDir } from '../../runners/live/live-world.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { requireDaemons, waitFor } from './harness/common.js';
import { hostLogin, startHost, type HostLogin } from './harness/host-login.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready = requireDaemons('the live history-across-restart test', ['openssh-server', ...SLURM_PACKAGES]) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the live history-across-restart test cannot run: ${missing}`);
  console.warn(`Skipping the live history-across-restart test: ${missing}.`);
  return false;
}

const NODE = process.execPath;
const GADGET = path.join(repositoryAssetsDir(), 'apps', 'gadget-demo.mjs');

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

/** What SIGTERM does to `concertina serve`: the host stopped (the live world's connections closed), the store closed. */
async function close(): Promise<void> {
  await current?.host.stop();
  current?.store.close();
  current = undefined;
}

function value<T>(r: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

const jobs = (host: Host) => value(host.call('jobs.list', { limit: 1000 })).jobs;
const stateOf = (host: Host, id: string) => jobs(host).find((j) => j.id === id)?.state;
const eventsOf = (host: Host, id: string) => {
  const r = host.call('jobs.events', { jobId: id });
  return r.ok ? r.value.events : [];
};
const types = (host: Host, id: string) => eventsOf(host, id).map((e) => e.type);
/** The live world's scheduler (private to the host): what it still holds in memory. */
const liveScheduler = (host: Host) => (host as unknown as { live: LiveWorld }).live.scheduler;

describe.skipIf(!ready)(
  'a live run after the host restarts on its store (loopback Slurm over SSH and this machine)',
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-history-'));
      [sshd, slurm] = await Promise.all([
        startSshd(),
        startSlurm({ clusterName: 'cnchist', nodes: 2, cpusPerNode: 2, minJobAgeS: 2 }),
      ]);
      access = hostLogin(sshd, dir);
    }, 90_000);

    afterAll(async () => {
      const host = current?.host;
      if (host)
        for (const j of jobs(host))
          if (j.state === 'running' || j.state === 'queued' || j.state === 'claiming')
            host.call('jobs.cancel', { jobId: j.id });
      await close();
      await Promise.all([slurm?.stop(), sshd?.dispose()]);
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('shows the ended jobs, their events, the operations, sizes and utilization of before the restart, as they were', async () => {
      let host = open();
      value(
        host.call('clusters.save', {
          name: 'here',
          login: { via: 'local' },
          system: 'local',
          slots: 1,
          workRoot: path.join(dir, 'here'),
          pollIntervalS: 1,
        }),
      );
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
      expect(value(await host.call('run.startLive', {})).clusters.sort()).toEqual(['here', 'slurm']);
      const sh = (id: string, script: string) => ({
        id,
        kind: 'rigid',
        components: [{ processors: 1, cluster: 'slurm', program: '/bin/sh', args: ['-c', script] }],
      });
      value(host.call('jobs.submit', sh('fails', 'exit 3')));
      value(host.call('jobs.submit', sh('done', 'exit 0')));
      value(
        host.call('jobs.submit', {
          id: 'mal',
          kind: 'malleable',
          components: [
            { min: 1, max: 3, initial: 1, cluster: 'slurm', program: NODE, args: [GADGET, '300', '100000000'] },
          ],
        }),
      );
      await waitFor(
        'fails failed, done completed, mal running',
        () =>
          stateOf(host, 'fails') === 'failed' &&
          stateOf(host, 'done') === 'completed' &&
          stateOf(host, 'mal') === 'running',
        60_000,
        100,
      );
      // One grow and one shrink of the malleable job, whoever asks for the grow (the operator, or a policy first).
      host.call('jobs.resize', { jobId: 'mal', delta: 1 });
      await waitFor('mal grown', () => types(host, 'mal').includes('job.grown'), 60_000, 100);
      value(host.call('jobs.resize', { jobId: 'mal', delta: -1 }));
      await waitFor('mal shrunk', () => types(host, 'mal').includes('job.shrunk'), 60_000, 100);
      // Two samples of the grid history at least (one every 10 s of the run).
      await waitFor(
        'two grid history samples',
        () => value(host.call('grid.history', {})).samples.length >= 2,
        60_000,
        200,
      );
      // Ended jobs have left the live world's memory once their end was stored; the API still finds them.
      await waitFor(
        'ended jobs out of memory',
        () => liveScheduler(host).job('fails') === undefined && liveScheduler(host).job('done') === undefined,
        10_000,
        50,
      );

      const endedBefore = jobs(host).filter((j) => j.id === 'fails' || j.id === 'done');
      expect(endedBefore.map((j) => [j.id, j.state])).toEqual([
        ['fails', 'failed'],
        ['done', 'completed'],
      ]);
      const eventsBefore = { fails: eventsOf(host, 'fails'), done: eventsOf(host, 'done'), mal: eventsOf(host, 'mal') };
      expect(eventsBefore.fails.at(-1)).toMatchObject({
        type: 'job.ended',
        state: 'failed',
        reason: expect.stringContaining('exit status 3'),
      });
      const activityBefore = value(host.call('activity.history', {}));
      expect(activityBefore.totals.grows).toBeGreaterThanOrEqual(1);
      expect(activityBefore.totals.shrinks).toBeGreaterThanOrEqual(1);
      const sizesBefore = value(host.call('jobs.views', { jobId: 'mal' })).allocated;
      expect(new Set(sizesBefore.map((s) => s.v)).size).toBeGreaterThanOrEqual(2);
      const historyBefore = value(host.call('grid.history', {})).samples;

      await close();
      const stoppedAt = historyBefore.at(-1)!.time;
      host = open();
      await waitFor('mal adopted and running', () => stateOf(host, 'mal') === 'running', 60_000, 100);
      await waitFor('the adoption stored', () => types(host, 'mal').includes('job.adopted'), 20_000, 100);

      // The Queue lists the ended jobs as before, and their drawers read their events and reasons.
      expect(jobs(host).filter((j) => j.id === 'fails' || j.id === 'done')).toEqual(endedBefore);
      expect(eventsOf(host, 'fails')).toEqual(eventsBefore.fails);
      expect(eventsOf(host, 'done')).toEqual(eventsBefore.done);
      expect(eventsOf(host, 'mal').slice(0, eventsBefore.mal.length)).toEqual(eventsBefore.mal);
      // An ended job's id is not taken again.
      expect(host.call('jobs.submit', sh('done', 'exit 0'))).toEqual({
        ok: false,
        errors: [{ path: 'id', message: 'duplicates job "done"' }],
      });
      // Activity: the operations of before the restart, counted and listed.
      const activityAfter = value(host.call('activity.history', {}));
      expect(activityAfter.totals.grows).toBeGreaterThanOrEqual(activityBefore.totals.grows);
      expect(activityAfter.totals.shrinks).toBeGreaterThanOrEqual(activityBefore.totals.shrinks);
      expect(activityAfter.latest.slice(0, activityBefore.latest.length)).toEqual(activityBefore.latest);
      // The drawer's size chart: the sizes of before the restart, then the adopted size.
      const sizesAfter = value(host.call('jobs.views', { jobId: 'mal' })).allocated;
      expect(sizesAfter.slice(0, sizesBefore.length)).toEqual(sizesBefore);
      // The grid history goes on from where it was: every sample of before, then the new ones, none far apart.
      await waitFor(
        'a grid history sample after the restart',
        () => value(host.call('grid.history', {})).samples.at(-1)!.time > stoppedAt,
        60_000,
        200,
      );
      const historyAfter = value(host.call('grid.history', {})).samples;
      expect(historyAfter.slice(0, historyBefore.length)).toEqual(historyBefore);
      const resumedAt = historyAfter[historyBefore.length]!.time;
      expect(resumedAt).toBeGreaterThan(stoppedAt);
      expect(historyAfter[0]!.time).toBe(historyBefore[0]!.time);

      value(host.call('jobs.cancel', { jobId: 'mal' }));
      await waitFor('mal cancelled', () => stateOf(host, 'mal') === 'cancelled', 60_000, 100);
    }, 300_000);
  },
);
