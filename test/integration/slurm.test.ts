// The Slurm adapter and the generic manager against a real Slurm cluster on loopback (munge, slurmctld, two
// slurmd of 8 CPUs), started once for this file by the project's harness and stopped by PID afterwards.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchLocalManager, type BatchLocalManagerOptions } from '../../runners/managers/batch-local-manager.js';
import { jobDirName, tagPrefix } from '../../runners/managers/naming.js';
import { SlurmSystem } from '../../runners/managers/slurm.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { GateRunner } from '../support/gate-runner.js';
import { MessageLog } from '../support/manager-messages.js';
import { requireDaemons, run, waitFor } from './harness/common.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';

const ready = requireDaemons('the Slurm integration tests', SLURM_PACKAGES);

let cluster: SlurmCluster;
let work: string;
let runner: LocalRunner;
const managers: BatchLocalManager[] = [];

/** squeue for this cluster: `id|state|cpus|name` of every job of every user. */
async function squeue(): Promise<Array<{ id: string; state: string; cpus: number; name: string }>> {
  const out = await run('squeue', ['--noheader', '--all', '--states=all', '--format=%i|%T|%C|%j'], cluster.env);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, state, cpus, ...name] = line.split('|');
      return { id: id!, state: state!, cpus: Number(cpus), name: name.join('|') };
    });
}

const runningNamed = async (prefix: string) => (await squeue()).filter((j) => j.name.startsWith(prefix) && j.state === 'RUNNING').length;

function manager(log: MessageLog, extra: Partial<BatchLocalManagerOptions> = {}): BatchLocalManager {
  const m = new BatchLocalManager({
    cluster: 'slurm-lo',
    system: new SlurmSystem(),
    runner,
    onMessage: log.onMessage,
    workRoot: work,
    watchIntervalMs: 250,
    idleWatchIntervalMs: 500,
    log: () => {},
    ...extra,
  });
  managers.push(m);
  return m;
}

const sleeper = (jobId: string, processors: number, seconds: number) => ({ jobId, component: 0, processors, program: '/bin/sh', args: ['-c', `sleep ${seconds}`], tag: `concertina:${jobId}` });

describe.skipIf(!ready)('Slurm on loopback', () => {
  beforeAll(async () => {
    // Ended jobs leave squeue 2 s after their end (about 6 s in all), so that a test can see one vanish.
    cluster = await startSlurm({ clusterName: 'cncslurm', nodes: 2, cpusPerNode: 8, minJobAgeS: 2 });
    work = mkdtempSync(path.join(os.tmpdir(), 'cnc-slurm-work-'));
    runner = new LocalRunner({ env: cluster.env, cwd: work });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(managers.map((m) => m.close()));
    await runner?.close();
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  beforeEach(async () => {
    // Every test starts on an empty cluster.
    const ids = (await squeue()).filter((j) => ['PENDING', 'RUNNING', 'COMPLETING', 'CONFIGURING'].includes(j.state)).map((j) => j.id);
    if (ids.length) await run('scancel', ids, cluster.env);
    await waitFor('an idle cluster', async () => !(await squeue()).some((j) => ['RUNNING', 'COMPLETING', 'PENDING'].includes(j.state)), 20_000, 200);
  }, 30_000);

  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.close()));
  });

  it('submits a tagged rigid job: started once it runs, then finished completed', async () => {
    const log = new MessageLog();
    const m = manager(log);
    m.submit({ jobId: 'rigid-1', component: 0, processors: 3, program: '/bin/sh', args: ['-c', 'sleep 3; echo "done on $SLURM_JOB_NODELIST"'], tag: 'concertina:rigid-1' });
    const started = await log.waitFor('started', (s) => s.jobId === 'rigid-1');
    expect(started).toMatchObject({ cluster: 'slurm-lo', component: 0, processors: 3 });
    const listed = (await squeue()).filter((j) => j.name === `${tagPrefix('concertina')}rigid_2d1-0-r0`);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.cpus).toBe(3);
    const finished = await log.waitFor('finished', (f) => f.jobId === 'rigid-1');
    expect(finished.state).toBe('completed');
    const out = readFileSync(path.join(work, jobDirName('concertina', 'rigid-1'), `${tagPrefix('concertina')}rigid_2d1-0-r0.out`), 'utf8');
    expect(out).toMatch(/^done on cncslurmn\d/);
  });

  it('cancels a running job: finished cancelled, and Slurm ends it', async () => {
    const log = new MessageLog();
    const m = manager(log);
    m.submit(sleeper('cancel-me', 2, 120));
    await log.waitFor('started', (s) => s.jobId === 'cancel-me');
    m.cancel('cancel-me');
    const finished = await log.waitFor('finished', (f) => f.jobId === 'cancel-me');
    expect(finished).toMatchObject({ state: 'cancelled', reason: 'cancelled by Concertina' });
    await waitFor('the job to end in Slurm', async () => (await runningNamed(`${tagPrefix('concertina')}cancel`)) === 0, 10_000);
  });

  it('sees a job submitted directly with sbatch (untagged) as background load, and not its own jobs', async () => {
    const log = new MessageLog();
    const m = manager(log);
    m.submit(sleeper('mine', 4, 120));
    await log.waitFor('started', (s) => s.jobId === 'mine');
    await run('sbatch', ['--parsable', '--output=/dev/null', '-n', '5', '-J', 'someone-else', '--wrap', 'sleep 120'], cluster.env, 10_000);
    await waitFor('the direct job to run', async () => (await squeue()).some((j) => j.name === 'someone-else' && j.state === 'RUNNING'), 10_000);
    m.poll();
    const status = await log.waitFor('status', (s) => s.status.background > 0);
    expect(status.status).toEqual({ processors: 16, background: 5, reachable: true });
    await run('scancel', ['--name=someone-else'], cluster.env);
    await waitFor('the direct job to end', async () => !(await squeue()).some((j) => j.name === 'someone-else' && ['RUNNING', 'COMPLETING'].includes(j.state)), 10_000);
    const before = log.of('status').length;
    m.poll();
    await log.waitFor('status', () => log.of('status').length > before);
    expect(log.of('status').at(-1)!.status).toEqual({ processors: 16, background: 0, reachable: true });
  });

  it('grows a malleable job from 1 to 4 local jobs and shrinks it back to 1 (counted with squeue)', async () => {
    const log = new MessageLog();
    const m = manager(log, { isMalleable: () => true });
    const prefix = `${tagPrefix('concertina')}elastic-0-m`;
    m.submit(sleeper('elastic', 1, 120));
    expect((await log.waitFor('started', (s) => s.jobId === 'elastic')).processors).toBe(1);
    expect(await runningNamed(prefix)).toBe(1);
    m.grow('elastic', 3);
    await waitFor('3 processors grown', () => log.of('grown', 'elastic').reduce((n, g) => n + g.processors, 0) === 3, 15_000);
    expect(await runningNamed(prefix)).toBe(4);
    m.shrink('elastic', 3);
    await waitFor('squeue to show 1 running member', async () => (await runningNamed(prefix)) === 1, 15_000);
    // The member left is the one running the program.
    expect((await squeue()).find((j) => j.name.startsWith(prefix) && j.state === 'RUNNING')!.name).toBe(`${prefix}0`);
    await m.refresh();
    expect(log.of('finished', 'elastic')).toEqual([]);
  });

  it('recovers its running jobs by tag after a restart, and submits nothing twice', async () => {
    const log = new MessageLog();
    const first = manager(log, { isMalleable: (r) => r.jobId === 'rec-m' });
    first.submit(sleeper('rec-r', 2, 120));
    first.submit(sleeper('rec-m', 2, 120));
    await log.waitFor('started', (s) => s.jobId === 'rec-r');
    await log.waitFor('started', (s) => s.jobId === 'rec-m');
    await first.close();
    const before = (await squeue()).filter((j) => j.name.startsWith(`${tagPrefix('concertina')}rec`)).map((j) => j.id).sort();
    expect(before).toHaveLength(3);

    const log2 = new MessageLog();
    const second = manager(log2, { isMalleable: (r) => r.jobId === 'rec-m' });
    const found = await second.recover();
    // Tagged jobs of earlier tests that ended a moment ago are listed too, with their end state.
    expect(found.filter((f) => f.jobId.startsWith('rec')).map((f) => [f.jobId, f.kind, f.members, f.running, f.state]).sort()).toEqual([
      ['rec-m', 'malleable', 2, 2, 'running'],
      ['rec-r', 'rigid', 1, 1, 'running'],
    ]);
    // The restarted scheduler asks again: the answer is `started`, and no new local job.
    second.submit(sleeper('rec-r', 2, 120));
    second.submit(sleeper('rec-m', 2, 120));
    expect((await log2.waitFor('started', (s) => s.jobId === 'rec-r')).processors).toBe(2);
    expect((await log2.waitFor('started', (s) => s.jobId === 'rec-m')).processors).toBe(2);
    await second.refresh();
    const after = (await squeue()).filter((j) => j.name.startsWith(`${tagPrefix('concertina')}rec`)).map((j) => j.id).sort();
    expect(after).toEqual(before);
    // And it goes on managing them: the malleable one shrinks, the rigid one is cancelled.
    second.shrink('rec-m', 1);
    await waitFor('rec-m down to 1', async () => (await runningNamed(`${tagPrefix('concertina')}rec_2dm-0-m`)) === 1, 10_000);
    second.cancel('rec-r');
    expect((await log2.waitFor('finished', (f) => f.jobId === 'rec-r')).state).toBe('cancelled');
  });

  it('records a job that vanished from squeue as ended: by its exit status, or failed when none was written', async () => {
    const log = new MessageLog();
    const gate = new GateRunner(runner);
    const m = manager(log, { runner: gate });
    m.submit({ jobId: 'quiet', component: 0, processors: 1, program: '/bin/sh', args: ['-c', 'sleep 2'], tag: 'concertina:quiet' });
    // This one, once told to, kills the job script around it, which so never writes an exit status.
    m.submit({ jobId: 'killed', component: 0, processors: 1, program: '/bin/sh', args: ['-c', 'while [ ! -e kill-me ]; do sleep 0.2; done; kill -KILL $PPID'], tag: 'concertina:killed' });
    await log.waitFor('started', (s) => s.jobId === 'quiet');
    await log.waitFor('started', (s) => s.jobId === 'killed');
    // The manager loses sight of the cluster; meanwhile both jobs end and Slurm forgets them (MinJobAge).
    gate.pause();
    writeFileSync(path.join(work, jobDirName('concertina', 'killed'), 'kill-me'), '');
    const names = [`${tagPrefix('concertina')}quiet-0-r0`, `${tagPrefix('concertina')}killed-0-r0`];
    await waitFor('both jobs to leave squeue', async () => !(await squeue()).some((j) => names.includes(j.name)), 30_000, 500);
    gate.resume();
    const quiet = await log.waitFor('finished', (f) => f.jobId === 'quiet');
    expect(quiet.state).toBe('completed');
    expect(quiet.reason).toContain('has left squeue');
    const killed = await log.waitFor('finished', (f) => f.jobId === 'killed');
    expect(killed.state).toBe('failed');
    expect(killed.reason).toContain('vanished from squeue with no exit status recorded');
  }, 60_000);

  it('reports the cluster unreachable when its status commands cannot run', async () => {
    const log = new MessageLog();
    const broken = new LocalRunner({ env: { SLURM_CONF: path.join(work, 'no-such-slurm.conf') }, cwd: work, defaultTimeoutMs: 5_000 });
    const m = manager(log, { runner: broken, commandTimeoutMs: 5_000 });
    m.poll();
    const status = await log.waitFor('status', undefined, 15_000);
    expect(status.status.reachable).toBe(false);
    await broken.close();
  }, 40_000);
});
