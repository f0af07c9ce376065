// A failed job shows why, through the host's API, on real daemons on loopback (Slurm and Grid Engine reached over
// SSH, as live.test.ts): its end carries the paths of its output files on the cluster and the last lines of its
// standard error, read there over the same connection, bounded, terminal escapes stripped.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import type { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { TAIL_LINES } from '../../runners/managers/output-tail.js';
import { requireDaemons, waitFor } from './harness/common.js';
import { hostLogin, startHost } from './harness/host-login.js';
import { SGE_PACKAGES, startSge, type SgeCell } from './harness/sge.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready =
  requireDaemons('the failed-job output integration tests', [
    ...new Set(['openssh-server', ...SLURM_PACKAGES, ...SGE_PACKAGES]),
  ]) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the failed-job output integration tests cannot run: ${missing}`);
  console.warn(`Skipping the failed-job output integration tests: ${missing}.`);
  return false;
}

const NODE = process.execPath;
let sshd: Sshd;
let slurm: SlurmCluster;
let sge: SgeCell;
let dir: string;
let store: Store;
let host: Host;

type Ended = Extract<SchedulerEvent, { type: 'job.ended' }>;
function ended(jobId: string): Ended | undefined {
  const r = host.call('jobs.events', { jobId });
  return r.ok ? (r.value.events as SchedulerEvent[]).find((e): e is Ended => e.type === 'job.ended') : undefined;
}

function submit(spec: Record<string, unknown>): void {
  const r = host.call('jobs.submit', spec);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

describe.skipIf(!ready)('a failed live job’s standard error, through the API', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-failed-output-'));
    [sshd, slurm, sge] = await Promise.all([
      startSshd(),
      startSlurm({ clusterName: 'cncfail', nodes: 1, cpusPerNode: 4, minJobAgeS: 2 }),
      startSge({ slots: 4 }),
    ]);
    const access = hostLogin(sshd, dir);
    const { login } = access;
    store = openStore(path.join(dir, 'run.db'));
    host = startHost(store, access);
    expect(
      host.call('clusters.save', {
        name: 'slurm',
        login,
        system: 'slurm',
        env: slurm.env,
        workRoot: path.join(dir, 'slurm'),
        pollIntervalS: 1,
      }).ok,
    ).toBe(true);
    expect(
      host.call('clusters.save', {
        name: 'sge',
        login,
        system: 'sge',
        env: sge.env,
        workRoot: path.join(dir, 'sge'),
        pollIntervalS: 1,
      }).ok,
    ).toBe(true);
    expect(await host.call('run.startLive', {})).toEqual({ ok: true, value: { clusters: ['sge', 'slurm'] } });
  }, 120_000);

  afterAll(async () => {
    await host?.stop();
    store?.close();
    await Promise.all([slurm?.stop(), sge?.stop(), sshd?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('Slurm: the FT demo given a bad amount of work ends failed with its complaint and its output files', async () => {
    submit({
      id: 'bad-ft',
      kind: 'malleable',
      components: [{ min: 1, max: 2, cluster: 'slurm', program: NODE, args: ['{assets}/apps/ft-demo.mjs', '-5'] }],
    });
    await waitFor('bad-ft ended', () => ended('bad-ft') !== undefined, 90_000, 200);
    const end = ended('bad-ft')!;
    expect(end).toMatchObject({ state: 'failed', reason: expect.stringContaining('exit status 2') });
    expect(end.output?.stderrTail).toBe('ft-demo: blocks must be a whole number >= 1 (got "-5")');
    // The paths are the cluster's (this machine's here): the standard error there holds what the API said.
    expect(end.output!.stderr.startsWith(path.join(dir, 'slurm'))).toBe(true);
    expect(readFileSync(end.output!.stderr, 'utf8')).toContain('blocks must be a whole number');
    expect(existsSync(end.output!.stdout)).toBe(true);
  }, 120_000);

  it('Grid Engine: a long, coloured standard error comes back as its last lines, without escapes', async () => {
    const script =
      'i=0; while [ $i -lt 500 ]; do echo "noise $i" >&2; i=$((i+1)); done; printf "\\033[31mfatal:\\033[0m disk \\033]0;title\\007full\\n" >&2; exit 3';
    submit({
      id: 'noisy',
      kind: 'rigid',
      components: [{ processors: 1, cluster: 'sge', program: '/bin/sh', args: ['-c', script] }],
    });
    await waitFor('noisy ended', () => ended('noisy') !== undefined, 90_000, 200);
    const end = ended('noisy')!;
    expect(end).toMatchObject({ state: 'failed', reason: expect.stringContaining('exit status 3') });
    const lines = end.output!.stderrTail!.split('\n');
    expect(lines).toHaveLength(TAIL_LINES);
    expect(lines.at(-1)).toBe('fatal: disk full');
    expect(lines.at(-2)).toBe('noise 499');
    // eslint-disable-next-line no-control-regex -- no control character but line feed and tab may be left
    expect(end.output!.stderrTail).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(end.output!.stderr.startsWith(path.join(dir, 'sge'))).toBe(true);
  }, 120_000);

  it('a job that completes carries no output in its end', async () => {
    submit({
      id: 'fine',
      kind: 'rigid',
      components: [{ processors: 1, cluster: 'slurm', program: '/bin/sh', args: ['-c', 'echo oops >&2; exit 0'] }],
    });
    await waitFor('fine ended', () => ended('fine') !== undefined, 90_000, 200);
    expect(ended('fine')).toMatchObject({ state: 'completed' });
    expect(ended('fine')!.output).toBeUndefined();
  }, 120_000);
});
