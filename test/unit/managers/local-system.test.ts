// The `local` adapter under the generic manager, for real: /bin/sh through the LocalRunner, processes started in
// the background, a slot limit, cancel, a malleable job grown and shrunk, recovery, and hostile values.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchLocalManager, type BatchLocalManagerOptions } from '../../../runners/managers/batch-local-manager.js';
import { LocalSystem } from '../../../runners/managers/local.js';
import { jobDirName } from '../../../runners/managers/naming.js';
import { framedScript, splitSections } from '../../../runners/managers/sections.js';
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

const request = (jobId: string, processors: number, script: string) => ({
  jobId,
  component: 0,
  processors,
  program: '/bin/sh',
  args: ['-c', script],
  tag: `concertina:${jobId}`,
});

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
    const order = log.messages
      .filter((x) => x.type === 'started' || x.type === 'finished')
      .map((x) => `${x.type}:${'jobId' in x ? x.jobId : ''}`);
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
    await expect
      .poll(
        async () => {
          await m.refresh();
          return runningLocalJobs(m, 'mall');
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(log.of('finished', 'mall')).toEqual([]);
  });

  it('passes hostile names and arguments through intact and executes nothing in them', async () => {
    const log = new MessageLog();
    const m = manager(4, log);
    const hostile = [
      "it's",
      '$(touch pwned)',
      '; touch pwned2',
      'a\nb',
      '`touch pwned3`',
      'naïve ünïcødé ☃',
      '"quoted"',
      '\\back',
    ];
    const id = `j'"; $(touch x) \n ü`;
    m.submit({
      jobId: id,
      component: 0,
      processors: 1,
      program: '/bin/sh',
      args: ['-c', 'for a in "$@"; do printf "%s\\0" "$a"; done > args.bin', 'sh', ...hostile],
      tag: 'concertina:x',
    });
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
    expect(
      found
        .filter((f) => f.jobId === 'rr' || f.jobId === 'rm')
        .map((f) => [f.jobId, f.kind, f.members, f.running])
        .sort(),
    ).toEqual([
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
  return m
    .tracked()
    .filter((t) => jobIds.includes(t.jobId))
    .reduce((n, t) => n + t.ids.length, 0);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('local adapter on a host without setsid', () => {
  let bin: string;
  let bare: LocalRunner;
  beforeAll(() => {
    // Every command of this machine but setsid (as on macOS): jobs start under nohup, in the caller's process group.
    bin = mkdtempSync(path.join(root, 'no-setsid-'));
    for (const dir of ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir))
        if (name !== 'setsid' && !existsSync(path.join(bin, name)))
          symlinkSync(path.join(dir, name), path.join(bin, name));
    }
    bare = new LocalRunner({ cwd: root, env: { PATH: bin } });
  });
  afterAll(() => bare.close());

  it('cancels a running job: its program, below the job script, is gone too', async () => {
    const log = new MessageLog();
    const m = manager(4, log, {
      runner: bare,
      system: new LocalSystem({ slots: 4, stateDir: path.join(root, 'state-no-setsid') }),
    });
    m.submit(request('no-setsid', 1, 'echo $$ > pid; exec sleep 60'));
    await log.waitFor('started', (s) => s.jobId === 'no-setsid');
    const pidFile = path.join(root, 'jobs', 'cnc-concertina-no_2dsetsid', 'pid');
    await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n')).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      m.cancel('no-setsid');
      expect((await log.waitFor('finished', (f) => f.jobId === 'no-setsid')).state).toBe('cancelled');
      await expect.poll(() => alive(pid), { timeout: 8_000 }).toBe(false);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});

describe("the local status round's look at a job", () => {
  it('reads a job that ends between its two looks as ended with its status, not lost', async () => {
    // The job's wrapper writes its exit status, then exits: a round that found no status yet and then no process
    // (it ended in between, as a short job on a loaded host does) must look for the status again. `kill` stands in
    // for the job ending at that moment: alive at the round's first two looks (its dispatch and its count of the slots
    // in use), gone with its status written at the third, the job's own.
    const state = mkdtempSync(path.join(root, 'race-state-'));
    const job = path.join(state, '1');
    mkdirSync(job);
    const files = { started: '', pid: '999999\n', slots: '2\n', name: 'cnc-race\n' };
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(job, file), text);
    const system = new LocalSystem({ slots: 2, stateDir: state });
    const looks = path.join(state, 'looks');
    const endsBetweenLooks = `kill() {
  if [ "$1" = -0 ]; then
    t_looks=$(( $(cat '${looks}' 2>/dev/null || echo 0) + 1 )); echo "$t_looks" > '${looks}'
    [ "$t_looks" -lt 3 ] && return 0
    printf '0\\n' > '${job}/exit'; return 1
  fi
  command kill "$@"
}
`;
    const result = await runner.run(endsBetweenLooks + framedScript('n0nce', system.statusCommands('n0nce')).text, {
      timeoutMs: 30_000,
    });
    const report = system.parseStatus(splitSections(result.stdout, 'n0nce'), 'n0nce');
    expect(readFileSync(looks, 'utf8').trim()).toBe('3');
    expect(report.jobs).toEqual([expect.objectContaining({ id: '1', state: 'completed', exitCode: 0 })]);
  });
});

describe("the local queue's lock", () => {
  const stateDir = () => mkdtempSync(path.join(root, 'lock-state-'));
  /** A status round of a local system whose lock is held by `pid` (a holder that wrote its pid in it). */
  function heldBy(pid: number): { system: LocalSystem; state: string } {
    const state = stateDir();
    mkdirSync(path.join(state, 'lock'));
    writeFileSync(path.join(state, 'lock', 'pid'), `${pid}\n`);
    return { system: new LocalSystem({ slots: 2, stateDir: state }), state };
  }
  const statusScript = (system: LocalSystem) => framedScript('n0nce', system.statusCommands('n0nce')).text;

  it('is taken over at once when its holder has died', async () => {
    const dead = spawnSync('/bin/sh', ['-c', 'echo $$']);
    const { system } = heldBy(Number(dead.stdout.toString().trim()));
    // Well within the ~10 s after which any lock used to be broken.
    const result = await runner.run(statusScript(system), { timeoutMs: 5_000 });
    expect(system.parseStatus(splitSections(result.stdout, 'n0nce'), 'n0nce').nodes).toEqual({
      total: 2,
      idle: 2,
      unavailable: 0,
    });
  });

  it('is never broken while its holder lives, and is taken once it has gone', async () => {
    const holder = spawn('/bin/sh', ['-c', 'exec sleep 120'], { stdio: 'ignore' });
    const { system, state } = heldBy(holder.pid!);
    let done = false;
    const round = runner.run(statusScript(system), { timeoutMs: 60_000 }).finally(() => (done = true));
    try {
      // Past the ~10 s after which the lock used to be broken whoever held it.
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      expect(done).toBe(false);
      expect(readFileSync(path.join(state, 'lock', 'pid'), 'utf8')).toBe(`${holder.pid}\n`);
    } finally {
      holder.kill('SIGKILL');
    }
    const result = await round;
    expect(system.parseStatus(splitSections(result.stdout, 'n0nce'), 'n0nce').nodes.total).toBe(2);
    // Released again after the round.
    expect(existsSync(path.join(state, 'lock'))).toBe(false);
  }, 40_000);
});
