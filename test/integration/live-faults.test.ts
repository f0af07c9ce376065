// Faults in a live run against real daemons on loopback (issue 4, section 5): a cluster whose host key is wrong
// and one whose authentication fails stay unreachable from the start with their error (tried again) while the rest
// of the grid works; a batch command missing on a cluster fails the job with an error naming the command; sshd
// stopped and started again mid-run leaves the running job going on Slurm, the cluster shown lost then open again,
// nothing submitted twice and the job's end recorded.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { FINAL_STATES } from '../../core/model/job.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { createLiveWorld, runTag, type LiveWorldOptions } from '../../runners/live/live-world.js';
import type { LiveClusterState, LiveWorld } from '../../runners/live/types.js';
import { jobDirName } from '../../runners/managers/naming.js';
import { requireDaemons, run, sleep, waitFor } from './harness/common.js';
import { hostLogin, sshOptions } from './harness/host-login.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready = requireDaemons('the live-mode fault tests', ['openssh-server', ...SLURM_PACKAGES]) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the live-mode fault tests cannot run: ${missing}`);
  console.warn(`Skipping the live-mode fault tests: ${missing}.`);
  return false;
}

const TAG = 'concertina';
let sshd: Sshd;
let slurm: SlurmCluster;
let dir: string;
let world: LiveWorld;
let options: LiveWorldOptions;
const events: SchedulerEvent[] = [];
/** Every connection state seen per cluster, in order (repeats collapsed). */
const seen = new Map<string, LiveClusterState['connection'][]>();
let watcher: NodeJS.Timeout | undefined;

const of = <T extends SchedulerEvent['type']>(type: T, jobId: string) =>
  events.filter(
    (e): e is Extract<SchedulerEvent, { type: T }> => e.type === type && (e as { jobId?: string }).jobId === jobId,
  );

async function waitEvent<T extends SchedulerEvent['type']>(type: T, jobId: string, timeoutMs = 30_000) {
  await waitFor(`${type} of ${jobId}`, () => of(type, jobId).length > 0, timeoutMs, 100);
  return of(type, jobId)[0]!;
}

function submit(spec: JobSpecInput): void {
  const r = world.act((s, now) => s.submit(spec, now));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

const state = (name: string) => world.clusters().find((c) => c.name === name)!;
/** The run's tag: the scheduler's and the run's id (the restarts below restore the same run). */
const tag = () => runTag(TAG, world.persistentState().runId);
const jobDir = (cluster: string, jobId: string) => path.join(dir, cluster, 'jobs', jobDirName(tag(), jobId));

/** A PATH with every command of /usr/bin and /usr/sbin but `missing` (on merged-/usr Debian /bin is /usr/bin). */
function pathWithout(missing: string): string {
  const bin = path.join(dir, `path-without-${missing}`);
  mkdirSync(bin);
  for (const folder of ['/usr/bin', '/usr/sbin']) {
    for (const name of readdirSync(folder)) {
      if (name === missing) continue;
      try {
        symlinkSync(path.join(folder, name), path.join(bin, name));
      } catch {
        // the same name in both folders: the first wins, as on a PATH
      }
    }
  }
  return bin;
}

describe.skipIf(!ready)('live-mode faults on loopback Slurm over SSH', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-faults-'));
    [sshd, slurm] = await Promise.all([
      startSshd(),
      startSlurm({ clusterName: 'cncfault', nodes: 2, cpusPerNode: 2, minJobAgeS: 2 }),
    ]);
    // `localhost` is known with another server's key: a changed host key. 127.0.0.1 is known with the right ones.
    const otherKey = path.join(dir, 'other_host_key');
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', otherKey]);
    const wrongLine = `[localhost]:${sshd.port} ${readFileSync(`${otherKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}`;
    const access = hostLogin(sshd, dir);
    appendFileSync(access.knownHostsFile, `${wrongLine}\n`);
    // A key the server does not authorise: authentication fails.
    const strangerKey = path.join(dir, 'stranger_key');
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', strangerKey]);
    const { login } = access;
    options = {
      clusters: [
        { name: 'slurm', login, system: 'slurm', env: slurm.env, workRoot: path.join(dir, 'slurm'), pollIntervalS: 1 },
        {
          name: 'nosbatch',
          login,
          system: 'slurm',
          env: { ...slurm.env, PATH: pathWithout('sbatch') },
          workRoot: path.join(dir, 'nosbatch'),
          pollIntervalS: 1,
        },
        {
          name: 'badkey',
          login: { ...login, host: 'localhost' },
          system: 'local',
          slots: 2,
          workRoot: path.join(dir, 'badkey'),
        },
        {
          name: 'badauth',
          login: { ...login, identityFile: strangerKey },
          system: 'local',
          slots: 2,
          workRoot: path.join(dir, 'badauth'),
        },
      ],
      scheduler: { approach: 'pra', policy: 'fpsma', tag: TAG },
      ...sshOptions(access),
      commandTimeoutMs: 15_000,
      idleWatchIntervalMs: 1_000,
      log: () => {},
    };
    world = createLiveWorld(options);
    world.on((e) => events.push(e));
    await world.start();
    watcher = setInterval(() => {
      for (const c of world.clusters()) {
        const list = seen.get(c.name) ?? [];
        if (list.at(-1) !== c.connection) list.push(c.connection);
        seen.set(c.name, list);
      }
    }, 50);
  }, 120_000);

  // Each case leaves what it found: sshd listening, its jobs cancelled and gone from Slurm, the cluster open again.
  afterEach(async () => {
    if (sshd.pid() < 0) await sshd.start();
    if (!world) return;
    for (const job of [...world.scheduler.jobs()])
      if (!FINAL_STATES.has(job.state)) world.act((s, now) => s.cancel(job.id, now));
    await waitFor(
      'slurm open and free',
      () => state('slurm').connection === 'open' && world.scheduler.snapshot()[0]!.nonPreemptible === 0,
      60_000,
      100,
    );
  }, 90_000);

  afterAll(async () => {
    if (watcher) clearInterval(watcher);
    await world?.stop();
    await Promise.all([slurm?.stop(), sshd?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('keeps a cluster with a wrong host key and one whose authentication fails unreachable, with their errors, and runs the rest', async () => {
    // Both are in the grid with their slots as placeholder sizes, unreachable: tried again, never placed on.
    expect(world.scheduler.grid.clusters.map((c) => [c.name, c.processors])).toEqual([
      ['slurm', 4],
      ['nosbatch', 4],
      ['badkey', 2],
      ['badauth', 2],
    ]);
    expect(
      world.scheduler
        .snapshot()
        .filter((c) => !c.reachable)
        .map((c) => c.name),
    ).toEqual(['badkey', 'badauth']);
    expect(state('slurm')).toMatchObject({ connection: 'open' });
    expect(state('badkey').connection).toBe('lost');
    expect(state('badkey').lastError).toMatch(/^badkey: .*host key/i);
    expect(state('badauth').connection).toBe('lost');
    expect(state('badauth').lastError).toMatch(/^badauth: .*authenticat/i);
    // A job for an unreachable cluster waits for it (see live-rejoin.test.ts); the grid's others take work.
    submit({ id: 'waits', kind: 'rigid', components: [{ processors: 1, cluster: 'badkey', program: '/bin/true' }] });
    submit({
      id: 'works',
      kind: 'rigid',
      components: [{ processors: 1, cluster: 'slurm', program: '/bin/sh', args: ['-c', 'echo ok > ok.txt'] }],
    });
    expect((await waitEvent('job.ended', 'works')).state).toBe('completed');
    expect(readFileSync(path.join(jobDir('slurm', 'works'), 'ok.txt'), 'utf8')).toBe('ok\n');
    expect(of('job.started', 'waits')).toEqual([]);
    expect(state('badkey').connection).toBe('lost');
    world.act((s, now) => s.cancel('waits', now));
  }, 60_000);

  it('fails a job whose batch command is missing with an error naming the command, never silently', async () => {
    submit({ id: 'nocmd', kind: 'rigid', components: [{ processors: 1, cluster: 'nosbatch', program: '/bin/true' }] });
    const ended = await waitEvent('job.ended', 'nocmd');
    expect(ended.state).toBe('failed');
    expect(ended.reason).toMatch(/sbatch/);
    expect(ended.reason).toMatch(/not found/);
    // It was never started, and the cluster itself stays usable for what does not need sbatch (its status).
    expect(of('job.started', 'nocmd')).toEqual([]);
    expect(state('nosbatch').connection).toBe('open');
  }, 60_000);

  it('keeps a job running on Slurm while sshd is stopped and started again, shows the cluster lost then open, and records its end once', async () => {
    // Each run of the program appends a line: a second submission would show as a second line.
    submit({
      id: 'through',
      kind: 'rigid',
      components: [
        {
          processors: 2,
          cluster: 'slurm',
          program: '/bin/sh',
          args: ['-c', 'echo run >> runs.txt; sleep 8; echo end >> runs.txt'],
        },
      ],
    });
    await waitEvent('job.started', 'through');
    seen.set('slurm', [state('slurm').connection]);
    await sshd.stop();
    await waitFor('slurm to be shown lost', () => state('slurm').connection === 'lost', 30_000, 50);
    await sleep(2_000);
    await sshd.start();
    await waitFor('slurm to be shown open again', () => state('slurm').connection === 'open', 60_000, 100);
    const ended = await waitEvent('job.ended', 'through', 60_000);
    expect(ended.state).toBe('completed');
    expect(seen.get('slurm')!.slice(0, 1)).toEqual(['open']);
    expect(seen.get('slurm')).toContain('lost');
    expect(seen.get('slurm')!.at(-1)).toBe('open');
    expect(readFileSync(path.join(jobDir('slurm', 'through'), 'runs.txt'), 'utf8')).toBe('run\nend\n');
    expect(of('job.started', 'through')).toHaveLength(1);
    expect(of('job.ended', 'through')).toHaveLength(1);
    expect(of('job.submitted', 'through')).toHaveLength(1);
  }, 120_000);

  it('after a restart with a cluster unreachable, keeps its running job for a later start instead of submitting it again', async () => {
    submit({
      id: 'kept',
      kind: 'rigid',
      components: [
        { processors: 1, cluster: 'slurm', program: '/bin/sh', args: ['-c', 'echo run >> runs.txt; sleep 300'] },
      ],
    });
    await waitEvent('job.started', 'kept');
    const slurmJobs = async () =>
      (await run('squeue', ['--noheader', '--all', '--format=%i|%j'], slurm.env))
        .split('\n')
        .filter((l) => l.includes(jobDirName(tag(), 'kept')));
    expect(await slurmJobs()).toHaveLength(1);
    const state = JSON.parse(JSON.stringify(world.persistentState()));
    await world.stop();
    // The same cluster, now reached by a name whose host key is wrong: unreachable at start.
    const clusters = options.clusters.map((c) =>
      (c as { name: string }).name === 'slurm'
        ? { ...(c as object), login: { ...(c as { login: object }).login, host: 'localhost' } }
        : c,
    );
    world = createLiveWorld({ ...options, clusters, restore: state });
    await world.start();
    expect(world.recovered().find((r) => r.jobId === 'kept')).toMatchObject({
      cluster: 'slurm',
      outcome: 'refused',
      detail: expect.stringMatching(/unreachable .*not submitted again/),
    });
    expect(world.scheduler.job('kept')).toBeUndefined();
    expect(world.persistentState().jobs.map((j) => j.spec.id)).toContain('kept');
    const kept = JSON.parse(JSON.stringify(world.persistentState()));
    await world.stop();
    // Reachable again: adopted, still the one local job that ran once.
    world = createLiveWorld({ ...options, restore: kept });
    await world.start();
    expect(world.recovered().find((r) => r.jobId === 'kept')).toMatchObject({ cluster: 'slurm', outcome: 'adopted' });
    expect(world.scheduler.job('kept')!.state).toBe('running');
    expect(await slurmJobs()).toHaveLength(1);
    expect(readFileSync(path.join(jobDir('slurm', 'kept'), 'runs.txt'), 'utf8')).toBe('run\n');
    world.act((s, now) => s.cancel('kept', now));
    await waitFor('kept to leave Slurm', async () => (await slurmJobs()).length === 0, 30_000, 250);
  }, 120_000);
});
