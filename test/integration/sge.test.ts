// The Grid Engine adapter and the generic manager against a real Grid Engine cell on loopback (qmaster and execd,
// 16 slots, parallel environment smp), started once for this file by the project's harness and stopped by PID.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchLocalManager, type BatchLocalManagerOptions } from '../../runners/managers/batch-local-manager.js';
import { jobDirName, tagPrefix } from '../../runners/managers/naming.js';
import { SgeSystem } from '../../runners/managers/sge.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { GateRunner } from '../support/gate-runner.js';
import { MessageLog } from '../support/manager-messages.js';
import { requireDaemons, run, waitFor } from './harness/common.js';
import { SGE_PACKAGES, startSge, type SgeCell } from './harness/sge.js';

const ready = requireDaemons('the Grid Engine integration tests', SGE_PACKAGES);

let cell: SgeCell;
let work: string;
let runner: LocalRunner;
const managers: BatchLocalManager[] = [];

/** Every job of every user, read from `qstat -xml` with plain patterns (independently of the adapter's parser). */
async function qstat(): Promise<Array<{ id: string; name: string; state: string; slots: number }>> {
  const out = await run('qstat', ['-xml', '-u', '*'], cell.env);
  return [...out.matchAll(/<job_list[^>]*>([\s\S]*?)<\/job_list>/g)].map((m) => {
    const field = (tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(m[1]!)?.[1] ?? '';
    return { id: field('JB_job_number'), name: field('JB_name'), state: field('state'), slots: Number(field('slots')) };
  });
}

const runningNamed = async (prefix: string) => (await qstat()).filter((j) => j.name.startsWith(prefix) && j.state === 'r').length;

function manager(log: MessageLog, extra: Partial<BatchLocalManagerOptions> = {}): BatchLocalManager {
  const m = new BatchLocalManager({
    cluster: 'sge-lo',
    system: new SgeSystem(),
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

describe.skipIf(!ready)('Grid Engine on loopback', () => {
  beforeAll(async () => {
    cell = await startSge({ slots: 16 });
    work = mkdtempSync(path.join(os.tmpdir(), 'cnc-sge-work-'));
    runner = new LocalRunner({ env: cell.env, cwd: work });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(managers.map((m) => m.close()));
    await runner?.close();
    await cell?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  beforeEach(async () => {
    // Every test starts on an empty cell.
    if ((await qstat()).length) await run('qdel', ['-f', '-u', '*'], cell.env).catch(() => '');
    await waitFor('an empty cell', async () => (await qstat()).length === 0, 20_000, 200);
  }, 30_000);

  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.close()));
  });

  it('submits a tagged rigid job: started once it runs, then finished completed', async () => {
    const log = new MessageLog();
    const m = manager(log);
    m.submit({ jobId: 'rigid-1', component: 0, processors: 3, program: '/bin/sh', args: ['-c', 'sleep 3; echo "done with $NSLOTS slots"'], tag: 'concertina:rigid-1' });
    const started = await log.waitFor('started', (s) => s.jobId === 'rigid-1');
    expect(started).toMatchObject({ cluster: 'sge-lo', component: 0, processors: 3 });
    const name = `${tagPrefix('concertina')}rigid_2d1-0-r0`;
    expect((await qstat()).filter((j) => j.name === name).map((j) => j.slots)).toEqual([3]);
    const finished = await log.waitFor('finished', (f) => f.jobId === 'rigid-1');
    expect(finished.state).toBe('completed');
    expect(readFileSync(path.join(work, jobDirName('concertina', 'rigid-1'), `${name}.out`), 'utf8')).toBe('done with 3 slots\n');
  });

  it('cancels a running job: finished cancelled, and Grid Engine ends it', async () => {
    const log = new MessageLog();
    const m = manager(log);
    m.submit(sleeper('cancel-me', 2, 120));
    await log.waitFor('started', (s) => s.jobId === 'cancel-me');
    m.cancel('cancel-me');
    const finished = await log.waitFor('finished', (f) => f.jobId === 'cancel-me');
    expect(finished).toMatchObject({ state: 'cancelled', reason: 'cancelled by Concertina' });
    await waitFor('the job to leave qstat', async () => !(await qstat()).some((j) => j.name.startsWith(`${tagPrefix('concertina')}cancel`)), 15_000);
  });

  it('sees a job submitted directly with qsub (untagged) as background load, and not its own jobs', async () => {
    const log = new MessageLog();
    const m = manager(log);
    m.submit(sleeper('mine', 4, 120));
    await log.waitFor('started', (s) => s.jobId === 'mine');
    await run('qsub', ['-terse', '-b', 'y', '-o', '/dev/null', '-e', '/dev/null', '-pe', 'smp', '5', '-N', 'someone-else', 'sleep', '120'], cell.env, 10_000);
    await waitFor('the direct job to run', async () => (await qstat()).some((j) => j.name === 'someone-else' && j.state === 'r'), 15_000);
    m.poll();
    const status = await log.waitFor('status', (s) => s.status.background > 0);
    expect(status.status).toEqual({ processors: 16, background: 5, reachable: true });
    const direct = (await qstat()).find((j) => j.name === 'someone-else')!;
    await run('qdel', [direct.id], cell.env);
    await waitFor('the direct job to end', async () => !(await qstat()).some((j) => j.name === 'someone-else'), 15_000);
    const before = log.of('status').length;
    m.poll();
    await log.waitFor('status', () => log.of('status').length > before);
    expect(log.of('status').at(-1)!.status).toEqual({ processors: 16, background: 0, reachable: true });
  });

  it('grows a malleable job from 1 to 4 local jobs and shrinks it back to 1 (counted with qstat)', async () => {
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
    await waitFor('qstat to show 1 member', async () => (await qstat()).filter((j) => j.name.startsWith(prefix)).length === 1, 15_000);
    expect((await qstat()).find((j) => j.name.startsWith(prefix))!.name).toBe(`${prefix}0`);
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
    const before = (await qstat()).filter((j) => j.name.startsWith(`${tagPrefix('concertina')}rec`)).map((j) => j.id).sort();
    expect(before).toHaveLength(3);

    const log2 = new MessageLog();
    const second = manager(log2, { isMalleable: (r) => r.jobId === 'rec-m' });
    const found = await second.recover();
    expect(found.map((f) => [f.jobId, f.kind, f.members, f.running, f.state]).sort()).toEqual([
      ['rec-m', 'malleable', 2, 2, 'running'],
      ['rec-r', 'rigid', 1, 1, 'running'],
    ]);
    second.submit(sleeper('rec-r', 2, 120));
    second.submit(sleeper('rec-m', 2, 120));
    expect((await log2.waitFor('started', (s) => s.jobId === 'rec-r')).processors).toBe(2);
    expect((await log2.waitFor('started', (s) => s.jobId === 'rec-m')).processors).toBe(2);
    await second.refresh();
    expect((await qstat()).filter((j) => j.name.startsWith(`${tagPrefix('concertina')}rec`)).map((j) => j.id).sort()).toEqual(before);
    second.grow('rec-m', 1);
    expect((await log2.waitFor('grown', (g) => g.jobId === 'rec-m')).processors).toBe(1);
    second.cancel('rec-r');
    expect((await log2.waitFor('finished', (f) => f.jobId === 'rec-r')).state).toBe('cancelled');
  });

  it('records a job that left qstat as ended: by its exit status, or failed when none was written', async () => {
    const log = new MessageLog();
    const gate = new GateRunner(runner);
    const m = manager(log, { runner: gate });
    m.submit({ jobId: 'quiet', component: 0, processors: 1, program: '/bin/sh', args: ['-c', 'sleep 1; exit 4'], tag: 'concertina:quiet' });
    m.submit(sleeper('killed', 1, 120));
    await log.waitFor('started', (s) => s.jobId === 'quiet');
    await log.waitFor('started', (s) => s.jobId === 'killed');
    gate.pause();
    const killed = (await qstat()).find((j) => j.name === `${tagPrefix('concertina')}killed-0-r0`)!;
    await run('qdel', ['-f', killed.id], cell.env);
    await waitFor('both jobs to leave qstat', async () => (await qstat()).length === 0, 20_000);
    gate.resume();
    const quiet = await log.waitFor('finished', (f) => f.jobId === 'quiet');
    expect(quiet.state).toBe('failed');
    expect(quiet.reason).toContain('exit status 4 (the job has left qstat)');
    const gone = await log.waitFor('finished', (f) => f.jobId === 'killed');
    expect(gone.state).toBe('failed');
    expect(gone.reason).toContain('vanished from qstat with no exit status recorded');
  }, 40_000);
});
