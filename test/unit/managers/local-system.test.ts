// The `local` adapter under the generic manager, for real: /bin/sh through the LocalRunner, processes started in
// the background, a slot limit, cancel, a malleable job grown and shrunk, recovery, and hostile values.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchLocalManager, type BatchLocalManagerOptions } from '../../../runners/managers/batch-local-manager.js';
import { LocalSystem } from '../../../runners/managers/local.js';
import { jobDirName } from '../../../runners/managers/naming.js';
import { LocalRunner } from '../../../runners/shell/local-runner.js';
import { MessageLog } from '../../support/manager-messages.js';

let root: string;
let runner: LocalRunner;
const managers: BatchLocalManager[] = [];

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'cnc-local-'));
  runner = new LocalRunner({ cwd: root });
});

afterEach(async () => {
  // Cancel whatever a test left running, through the adapter itself.
  for (const m of managers.splice(0)) {
    for (const t of m.tracked()) m.cancel(t.jobId);
    await m.close();
  }
});

afterAll(async () => {
  await runner.close();
  rmSync(root, { recursive: true, force: true });
});

function manager(slots: number, log: MessageLog, extra: Partial<BatchLocalManagerOptions> = {}): BatchLocalManager {
  const m = new BatchLocalManager({
    cluster: 'here',
    system: new LocalSystem({ slots, stateDir: path.join(root, 'state') }),
    runner,
    onMessage: log.onMessage,
    workRoot: path.join(root, 'jobs'),
    watchIntervalMs: 100,
    idleWatchIntervalMs: 200,
    log: () => {},
    ...extra,
  });
  managers.push(m);
  return m;
}

const request = (jobId: string, processors: number, script: string) => ({ jobId, component: 0, processors, program: '/bin/sh', args: ['-c', script], tag: `concertina:${jobId}` });

describe('local adapter with the generic manager', () => {
  it('runs a job to completion: started, then finished completed, with its output in its directory', async () => {
    const log = new MessageLog();
    const m = manager(4, log);
    m.submit(request('ok-1', 2, 'sleep 0.3; echo "hello from $CONCERTINA_JOB_ID"'));
    const started = await log.waitFor('started', (s) => s.jobId === 'ok-1');
    expect(started.processors).toBe(2);
    const finished = await log.waitFor('finished', (f) => f.jobId === 'ok-1');
    expect(finished.state).toBe('completed');
    const out = path.join(root, 'jobs', 'cnc-concertina-ok_2d1', 'cnc-concertina-ok_2d1-0-r0.out');
    expect(readFileSync(out, 'utf8')).toBe('hello from ok-1\n');
  });

  it('reports a failing program as failed with its exit status', async () => {
    const log = new MessageLog();
    const m = manager(4, log);
    m.submit(request('bad', 1, 'exit 3'));
    const finished = await log.waitFor('finished', (f) => f.jobId === 'bad');
    expect(finished).toMatchObject({ state: 'failed' });
    expect(finished.reason).toContain('exit status 3');
  });

  it('never runs more than its slots: a third job of 2 waits until one of 4 slots frees', async () => {
    const log = new MessageLog();
    const m = manager(4, log);
    m.submit(request('a', 2, 'sleep 1'));
    m.submit(request('b', 2, 'sleep 30'));
    m.submit(request('c', 2, 'sleep 0.2'));
    await log.waitFor('started', (s) => s.jobId === 'b');
    await log.waitFor('finished', (f) => f.jobId === 'a');
    await log.waitFor('finished', (f) => f.jobId === 'c');
    const order = log.messages.filter((x) => x.type === 'started' || x.type === 'finished').map((x) => `${x.type}:${'jobId' in x ? x.jobId : ''}`);
    // c starts only after a has finished.
    expect(order.indexOf('started:c')).toBeGreaterThan(order.indexOf('finished:a'));
    m.poll();
    const status = await log.waitFor('status');
    expect(status.status).toMatchObject({ processors: 4, reachable: true, background: 0 });
  });

  it('cancels a running job: finished cancelled, and its processes are gone', async () => {
    const log = new MessageLog();
    const m = manager(4, log);
    m.submit(request('long', 1, 'echo $$ > pid-of-long; sleep 60'));
    await log.waitFor('started', (s) => s.jobId === 'long');
    const pidFile = path.join(root, 'jobs', 'cnc-concertina-long', 'pid-of-long');
    await expect.poll(() => existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    m.cancel('long');
    const finished = await log.waitFor('finished', (f) => f.jobId === 'long');
    expect(finished.state).toBe('cancelled');
    await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  });

  it('grows a malleable job from 1 to 4 members and shrinks it back, counting running local jobs', async () => {
    const log = new MessageLog();
    const m = manager(8, log, { isMalleable: () => true });
    m.submit(request('mall', 1, 'sleep 60'));
    expect((await log.waitFor('started', (s) => s.jobId === 'mall')).processors).toBe(1);
    m.grow('mall', 3);
    await expect.poll(() => log.of('grown', 'mall').reduce((n, g) => n + g.processors, 0), { timeout: 10_000 }).toBe(3);
    expect(m.tracked().find((t) => t.jobId === 'mall')?.running).toBe(4);
    m.shrink('mall', 3);
    await expect.poll(async () => {
      await m.refresh();
      return runningLocalJobs(m, 'mall');
    }, { timeout: 10_000 }).toBe(1);
    expect(log.of('finished', 'mall')).toEqual([]);
  });

  it('passes hostile names and arguments through intact and executes nothing in them', async () => {
    const log = new MessageLog();
    const m = manager(4, log);
    const hostile = ["it's", '$(touch pwned)', '; touch pwned2', 'a\nb', '`touch pwned3`', 'naïve ünïcødé ☃', '"quoted"', '\\back'];
    const id = `j'"; $(touch x) \n ü`;
    m.submit({ jobId: id, component: 0, processors: 1, program: '/bin/sh', args: ['-c', 'for a in "$@"; do printf "%s\\0" "$a"; done > args.bin', 'sh', ...hostile], tag: 'concertina:x' });
    const finished = await log.waitFor('finished', (f) => f.jobId === id);
    expect(finished.state).toBe('completed');
    const dir = path.join(root, 'jobs', jobDirName('concertina', id));
    expect(readFileSync(path.join(dir, 'args.bin'), 'utf8').split('\0').slice(0, -1)).toEqual(hostile);
    for (const f of ['pwned', 'pwned2', 'pwned3', 'x']) {
      expect(existsSync(path.join(dir, f))).toBe(false);
      expect(existsSync(path.join(root, f))).toBe(false);
    }
  });

  it('recovers its running jobs by tag in a fresh manager, and a repeated submit starts nothing new', async () => {
    const log = new MessageLog();
    const first = manager(8, log, { isMalleable: (r) => r.jobId === 'rm' });
    first.submit(request('rr', 2, 'sleep 60'));
    first.submit(request('rm', 2, 'sleep 60'));
    await log.waitFor('started', (s) => s.jobId === 'rr');
    await log.waitFor('started', (s) => s.jobId === 'rm');
    await first.close();
    managers.splice(managers.indexOf(first), 1);

    const log2 = new MessageLog();
    const second = manager(8, log2, { isMalleable: (r) => r.jobId === 'rm' });
    const found = await second.recover();
    expect(found.filter((f) => f.jobId === 'rr' || f.jobId === 'rm').map((f) => [f.jobId, f.kind, f.members, f.running]).sort()).toEqual([
      ['rm', 'malleable', 2, 2],
      ['rr', 'rigid', 1, 1],
    ]);
    const before = await localJobCount(second, ['rr', 'rm']);
    second.submit(request('rr', 2, 'sleep 60'));
    expect((await log2.waitFor('started', (s) => s.jobId === 'rr')).processors).toBe(2);
    await second.refresh();
    expect(await localJobCount(second, ['rr', 'rm'])).toBe(before);
    expect(before).toBe(3);
    // The recovered malleable job still grows.
    second.grow('rm', 1);
    expect((await log2.waitFor('grown', (g) => g.jobId === 'rm')).processors).toBe(1);
  });
});

function runningLocalJobs(m: BatchLocalManager, jobId: string): number {
  return m.tracked().find((t) => t.jobId === jobId)?.running ?? 0;
}

/** Local jobs tracked for these Concertina jobs. */
async function localJobCount(m: BatchLocalManager, jobIds: readonly string[]): Promise<number> {
  await m.refresh();
  return m.tracked().filter((t) => jobIds.includes(t.jobId)).reduce((n, t) => n + t.ids.length, 0);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
