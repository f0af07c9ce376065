// The generic manager's behaviour under faults, on real shells: a submission interrupted after it ran (nothing
// submitted twice), a submission the batch system refuses, status output that does not parse, and the rate limit.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchLocalManager, type BatchLocalManagerOptions } from '../../../runners/managers/batch-local-manager.js';
import type { ClusterReport, SectionOutput } from '../../../runners/managers/batch-system.js';
import { LocalSystem } from '../../../runners/managers/local.js';
import { jobDirName } from '../../../runners/managers/naming.js';
import { PbsSystem } from '../../../runners/managers/pbs.js';
import { SlurmSystem } from '../../../runners/managers/slurm.js';
import type { CommandResult, CommandRunner, RunOptions } from '../../../runners/shell/command-runner.js';
import { LocalRunner } from '../../../runners/shell/local-runner.js';
import { sh, type ShellFragment } from '../../../runners/shell/quote.js';
import { MessageLog } from '../../support/manager-messages.js';
import { fixturesDir } from './fixtures.js';

let root: string;
let local: LocalRunner;
const managers: BatchLocalManager[] = [];

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'cnc-manager-'));
  local = new LocalRunner({ cwd: root });
});
afterEach(async () => {
  for (const m of managers.splice(0)) {
    for (const t of m.tracked()) m.cancel(t.jobId);
    await m.close();
  }
});
afterAll(async () => {
  await local.close();
  rmSync(root, { recursive: true, force: true });
});

/** Runs every script for real and records it; can lose the answer of the next submission (as a cut connection). */
class RecordingRunner implements CommandRunner {
  readonly target = 'recording';
  readonly scripts: string[] = [];
  loseNextSubmitAnswer = false;
  /** Awaited before the lost answer's error is thrown (what happens on the cluster while the link is down). */
  whileLost: () => Promise<void> = () => Promise.resolve();
  /** When set, a submission's answer waits for it (its script has run on the cluster: a slow link's answer). */
  submitAnswerHeld: Promise<void> | undefined;
  constructor(private readonly inner: CommandRunner) {}
  async run(script: string, options?: RunOptions): Promise<CommandResult> {
    this.scripts.push(script);
    const result = await this.inner.run(script, options);
    if (this.submitAnswerHeld && isSubmit(script)) await this.submitAnswerHeld;
    if (this.loseNextSubmitAnswer && isSubmit(script)) {
      this.loseNextSubmitAnswer = false;
      await this.whileLost();
      throw new Error('connection lost');
    }
    return result;
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Whether the local batch system of the manager whose job directory is `jobDir` has no live process left. */
function localJobsGone(jobDir: string): boolean {
  const state = path.join(jobDir, '..', '..', 'state');
  for (const entry of existsSync(state) ? readdirSync(state) : []) {
    if (!/^\d+$/.test(entry) || !existsSync(path.join(state, entry, 'pid'))) continue;
    if (!existsSync(path.join(state, entry, 'exit'))) return false;
  }
  return true;
}

const isSubmit = (script: string) => script.includes('> "$J/job.sh"') || script.includes('| sbatch');
const sectionsIn = (script: string) => (script.match(/:begin:%s>>/g) ?? []).length;

function manager(
  log: MessageLog,
  options: Partial<BatchLocalManagerOptions> & { runner: CommandRunner },
): BatchLocalManager {
  const dir = mkdtempSync(path.join(root, 'm-'));
  const m = new BatchLocalManager({
    cluster: 'c1',
    system: new LocalSystem({ slots: 8, stateDir: path.join(dir, 'state') }),
    onMessage: log.onMessage,
    workRoot: path.join(dir, 'jobs'),
    watchIntervalMs: 100,
    idleWatchIntervalMs: 200,
    log: () => {},
    ...options,
  });
  managers.push(m);
  return m;
}

const sleeper = (jobId: string, seconds = 60) => ({
  jobId,
  component: 0,
  processors: 1,
  program: '/bin/sh',
  args: ['-c', `sleep ${seconds}`],
  tag: `concertina:${jobId}`,
});

/** Status rounds of `m` until `read` gives `expected` (waits at most 10 s). */
async function refreshUntil<T>(m: BatchLocalManager, read: () => T, expected: T): Promise<void> {
  await expect
    .poll(
      async () => {
        await m.refresh();
        return read();
      },
      { timeout: 10_000 },
    )
    .toBe(expected);
}

/**
 * A malleable job `mall` of `processors` started on `system` by a manager whose monotonic clock the test moves
 * (`clock.ms`, settleMs 60 s); `status()` asks for the cluster's status and returns it.
 */
async function malleableStarted(system: LocalSystem, workRoot: string, processors: number) {
  const log = new MessageLog();
  const clock = { ms: 0 };
  const m = manager(log, {
    runner: local,
    system,
    workRoot,
    isMalleable: () => true,
    monotonicMs: () => clock.ms,
    settleMs: 60_000,
    watchIntervalMs: 600_000,
    idleWatchIntervalMs: 600_000,
  });
  const status = async () => {
    const before = log.of('status').length;
    m.poll();
    await expect.poll(() => log.of('status').length, { timeout: 10_000 }).toBe(before + 1);
    return log.of('status').at(-1)!.status;
  };
  m.submit({ ...sleeper('mall'), processors });
  await refreshUntil(m, () => log.of('started', 'mall').length, 1);
  return { m, clock, status };
}

describe('BatchLocalManager under faults', () => {
  it('finds a submission whose answer was lost by its name, and submits nothing twice', async () => {
    const log = new MessageLog();
    const runner = new RecordingRunner(local);
    const logged: string[] = [];
    const m = manager(log, { runner, log: (t) => logged.push(t) });
    runner.loseNextSubmitAnswer = true;
    m.submit(sleeper('lost'));
    const started = await log.waitFor('started', (s) => s.jobId === 'lost');
    expect(started.processors).toBe(1);
    expect(logged.join('\n')).toContain('interrupted: connection lost');
    expect(runner.scripts.filter(isSubmit)).toHaveLength(1);
    await m.refresh();
    expect(m.tracked()).toEqual([
      { jobId: 'lost', component: 0, kind: 'rigid', ids: [expect.any(String)], running: 1 },
    ]);
  });

  describe('a submission whose answer was lost, on a batch system that forgets ended jobs at once (as Grid Engine)', () => {
    class ForgetfulLocalSystem extends LocalSystem {
      override parseStatus(sections: ReadonlyMap<string, SectionOutput>, nonce: string): ClusterReport {
        const report = super.parseStatus(sections, nonce);
        return { ...report, jobs: report.jobs.filter((j) => j.state === 'pending' || j.state === 'running') };
      }
    }

    /** Submits `script` with its answer lost until the job has ended on the cluster (`ended` finds that out). */
    async function lostWhileItRan(jobId: string, script: string, ended: (jobDir: string) => boolean) {
      const log = new MessageLog();
      const runner = new RecordingRunner(local);
      const dir = mkdtempSync(path.join(root, 'm-'));
      const jobDir = path.join(dir, 'jobs', jobDirName('concertina', jobId));
      runner.loseNextSubmitAnswer = true;
      runner.whileLost = () => expect.poll(() => ended(jobDir), { timeout: 10_000, interval: 20 }).toBe(true);
      const m = manager(log, {
        runner,
        system: new ForgetfulLocalSystem({ slots: 2, stateDir: path.join(dir, 'state') }),
        workRoot: path.join(dir, 'jobs'),
      });
      m.submit({
        jobId,
        component: 0,
        processors: 1,
        program: '/bin/sh',
        args: ['-c', script],
        tag: `concertina:${jobId}`,
      });
      const finished = await log.waitFor('finished', (f) => f.jobId === jobId);
      // A few more rounds: nothing more is submitted.
      for (let i = 0; i < 3; i++) await m.refresh();
      return {
        finished,
        submissions: runner.scripts.filter(isSubmit).length,
        runs: readFileSync(path.join(jobDir, 'runs.txt'), 'utf8'),
      };
    }

    it('finds its exit status in its directory, and does not submit it again', async () => {
      const name = 'cnc-concertina-brief-0-r0';
      const out = await lostWhileItRan('brief', 'echo ran >> runs.txt', (jobDir) =>
        existsSync(path.join(jobDir, `${name}.exit`)),
      );
      expect(out.finished).toMatchObject({ state: 'completed', reason: expect.stringContaining('exit status 0') });
      expect(out.runs).toBe('ran\n');
      expect(out.submissions).toBe(1);
    });

    it('finds its output file when it left no exit status (killed), and does not submit it again', async () => {
      // The job script around the program is killed, so it writes no exit status.
      const out = await lostWhileItRan(
        'killed',
        'echo ran >> runs.txt; kill -KILL $PPID',
        (jobDir) => existsSync(path.join(jobDir, 'runs.txt')) && localJobsGone(jobDir),
      );
      expect(out.finished).toMatchObject({
        state: 'failed',
        reason: expect.stringContaining('no exit status recorded'),
      });
      expect(out.runs).toBe('ran\n');
      expect(out.submissions).toBe(1);
    });
  });

  it("answers finished failed, with the batch system's message, when it refuses a job", async () => {
    const bin = mkdtempSync(path.join(root, 'bin-'));
    writeFileSync(
      path.join(bin, 'sbatch'),
      "#!/bin/sh\ncat > /dev/null\necho 'sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified' >&2\nexit 1\n",
    );
    chmodSync(path.join(bin, 'sbatch'), 0o755);
    const log = new MessageLog();
    const runner = new LocalRunner({ cwd: root, env: { PATH: `${bin}:${process.env.PATH}` } });
    const m = manager(log, { runner, system: new SlurmSystem({ account: 'nope' }) });
    m.submit(sleeper('refused'));
    const finished = await log.waitFor('finished', (f) => f.jobId === 'refused');
    expect(finished.state).toBe('failed');
    expect(finished.reason).toContain(
      'slurm refused the job: sbatch: error: Batch job submission failed: Invalid account',
    );
    await m.close();
    await runner.close();
  });

  it("passes the job's walltime to the batch system, and says a job it ended for its time limit ran past its walltime", async () => {
    // A Slurm stand-in: sbatch records its arguments and the job's name; squeue then lists the job as TIMEOUT.
    const bin = mkdtempSync(path.join(root, 'bin-'));
    writeFileSync(
      path.join(bin, 'sbatch'),
      `#!/bin/sh\ncat > /dev/null\nprintf '%s\\n' "$@" > ${bin}/sbatch.args\nprintf '%s\\n' "$@" | sed -n 's/^--job-name=//p' > ${bin}/name\necho 77\n`,
    );
    writeFileSync(
      path.join(bin, 'squeue'),
      `#!/bin/sh\nformat=$(printf '%s\\n' "$@" | sed -n 's/^--format=\\([^|]*\\)|.*/\\1/p')\n[ -f ${bin}/name ] && [ -n "$format" ] && printf '%s|77|TIMEOUT|1|me|TimeLimit|%s\\n' "$format" "$(cat ${bin}/name)"\nexit 0\n`,
    );
    writeFileSync(
      path.join(bin, 'sinfo'),
      `#!/bin/sh\nformat=$(printf '%s\\n' "$@" | sed -n 's/^--format=\\([^|]*\\)|.*/\\1/p')\nprintf '%s|n1|1/7/0/8|mixed\\n' "$format"\n`,
    );
    for (const f of ['sbatch', 'squeue', 'sinfo']) chmodSync(path.join(bin, f), 0o755);
    const log = new MessageLog();
    const runner = new LocalRunner({ cwd: root, env: { PATH: `${bin}:${process.env.PATH}` } });
    const m = manager(log, { runner, system: new SlurmSystem() });
    m.submit({ ...sleeper('late'), walltimeS: 60 });
    const finished = await log.waitFor('finished', (f) => f.jobId === 'late');
    expect(readFileSync(path.join(bin, 'sbatch.args'), 'utf8')).toContain('--time=0-00:01:00\n');
    expect(finished.state).toBe('failed');
    expect(finished.reason).toBe(
      'local job 77 failed: killed by the batch system: walltime of 60 s exceeded (slurm state TIMEOUT (TimeLimit))',
    );
    await m.close();
    await runner.close();
  });

  it('reports the cluster unreachable when its status output does not parse, and says why', async () => {
    const bin = mkdtempSync(path.join(root, 'bin-'));
    writeFileSync(path.join(bin, 'squeue'), '#!/bin/sh\nexit 0\n');
    writeFileSync(path.join(bin, 'sinfo'), "#!/bin/sh\necho 'PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST'\n");
    for (const f of ['squeue', 'sinfo']) chmodSync(path.join(bin, f), 0o755);
    const log = new MessageLog();
    const logged: string[] = [];
    const runner = new LocalRunner({ cwd: root, env: { PATH: `${bin}:${process.env.PATH}` } });
    const m = manager(log, { runner, system: new SlurmSystem(), log: (t) => logged.push(t) });
    m.poll();
    const status = await log.waitFor('status');
    expect(status.status.reachable).toBe(false);
    expect(logged.join('\n')).toContain('sinfo listed no node: "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"');
    await m.close();
    await runner.close();
  });

  it("counts busy processors no listed job holds (a site hiding other users' jobs) once two rounds agree, on its partition only", async () => {
    // squeue lists one 2-CPU job, as PrivateData=jobs shows a user only their own; sinfo's nodes have 4 + 6 CPUs
    // allocated. The stand-ins record the partition they were asked for.
    const bin = mkdtempSync(path.join(root, 'bin-'));
    writeFileSync(
      path.join(bin, 'squeue'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> ${bin}/squeue.args\nformat=$(printf '%s\\n' "$@" | sed -n 's/^--format=\\([^|]*\\)|.*/\\1/p')\nprintf '%s|7|RUNNING|2|someone|None|mine\\n' "$format"\n`,
    );
    writeFileSync(
      path.join(bin, 'sinfo'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> ${bin}/sinfo.args\nformat=$(printf '%s\\n' "$@" | sed -n 's/^--format=\\([^|]*\\)|.*/\\1/p')\nprintf '%s|n1|4/4/0/8|mixed\\n%s|n2|6/2/0/8|mixed\\n' "$format" "$format"\n`,
    );
    for (const f of ['squeue', 'sinfo']) chmodSync(path.join(bin, f), 0o755);
    const log = new MessageLog();
    const runner = new LocalRunner({ cwd: root, env: { PATH: `${bin}:${process.env.PATH}` } });
    const m = manager(log, { runner, system: new SlurmSystem({ partition: 'short' }) });
    m.poll();
    // 10 allocated, 2 listed: 8 hidden, counted from the second round on (the first alone may be a job just started).
    expect((await log.waitFor('status')).status).toEqual({ processors: 16, background: 2, reachable: true });
    m.poll();
    await expect.poll(() => log.of('status').length).toBe(2);
    expect(log.of('status')[1]!.status).toEqual({ processors: 16, background: 10, reachable: true });
    for (const command of ['squeue', 'sinfo'])
      expect(readFileSync(path.join(bin, `${command}.args`), 'utf8')).toContain('--partition=short');
    await m.close();
    await runner.close();
  });

  it('refuses a job whose local job name would be too long for a batch system, and submits nothing', async () => {
    const log = new MessageLog();
    const runner = new RecordingRunner(local);
    const m = manager(log, { runner });
    const jobId = 'ü'.repeat(60); // 6 characters each once encoded
    m.submit(sleeper(jobId));
    const finished = await log.waitFor('finished', (f) => f.jobId === jobId);
    expect(finished.state).toBe('failed');
    expect(finished.reason).toMatch(
      /cannot be submitted: its local job name would have \d+ characters \(at most 236\): the job id is too long$/,
    );
    expect(runner.scripts.filter(isSubmit)).toEqual([]);
  });

  it('reads a PBS server whose qstat -F json prints JSON that does not parse from its qstat -f text, in the same poll', async () => {
    const bin = mkdtempSync(path.join(root, 'bin-'));
    writeFileSync(
      path.join(bin, 'qstat'),
      `#!/bin/sh\ncase "$*" in *json*) printf '%s\\n' '{"Jobs": {"1.srv": {"Job_Name": "a\\qb"}}}' ;; *) cat ${sh`${path.join(fixturesDir, 'pbs-torque-qstat-f.txt')}`.text} ;; esac\n`,
    );
    writeFileSync(
      path.join(bin, 'pbsnodes'),
      `#!/bin/sh\ncat ${sh`${path.join(fixturesDir, 'pbs-torque-pbsnodes-a.txt')}`.text}\n`,
    );
    for (const f of ['qstat', 'pbsnodes']) chmodSync(path.join(bin, f), 0o755);
    const log = new MessageLog();
    const logged: string[] = [];
    const runner = new LocalRunner({ cwd: root, env: { PATH: `${bin}:${process.env.PATH}` } });
    const m = manager(log, { runner, system: new PbsSystem(), log: (t) => logged.push(t) });
    m.poll();
    expect((await log.waitFor('status')).status).toEqual({ processors: 44, background: 31, reachable: true });
    expect(logged.join('\n')).toContain('malformed JSON');
    await m.close();
    await runner.close();
  });

  it('sends a burst of submissions within the rate limit: at most `burst` per command, all of them in the end', async () => {
    const log = new MessageLog();
    const runner = new RecordingRunner(local);
    const m = manager(log, { runner, rateLimit: { burst: 2, perSecond: 4 } });
    for (let i = 0; i < 5; i++) m.submit(sleeper(`burst-${i}`));
    for (let i = 0; i < 5; i++) await log.waitFor('started', (s) => s.jobId === `burst-${i}`);
    const batches = runner.scripts.filter(isSubmit).map(sectionsIn);
    expect(batches[0]).toBe(2);
    expect(Math.max(...batches)).toBeLessThanOrEqual(2);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(5);
    // In the order they were asked for.
    const order = log.of('started').map((s) => s.jobId);
    expect(order).toEqual(['burst-0', 'burst-1', 'burst-2', 'burst-3', 'burst-4']);
  });

  it('answers a grow from its submission script alone: it waits for the local jobs to start, then reads the status', async () => {
    // A local system that always calls one of the named jobs pending: the submission script waits its longest.
    class WaitingLocalSystem extends LocalSystem {
      pendingCommand(names: readonly string[]): ShellFragment {
        return sh`printf '%s\n' ${names} | grep -v -x -e ${names[0]!}`;
      }
    }
    const log = new MessageLog();
    const runner = new RecordingRunner(local);
    const dir = mkdtempSync(path.join(root, 'm-'));
    const m = manager(log, {
      runner,
      system: new WaitingLocalSystem({ slots: 8, stateDir: path.join(dir, 'state') }),
      isMalleable: () => true,
      watchIntervalMs: 600_000,
      idleWatchIntervalMs: 600_000,
    });
    m.submit(sleeper('mall'));
    await refreshUntil(m, () => log.of('started', 'mall').length, 1);
    const before = runner.scripts.length;
    m.grow('mall', 2);
    const grown = await log.waitFor('grown', (g) => g.jobId === 'mall', 10_000);
    expect(grown.processors).toBe(2);
    // One command: the submission with its wait and status sections; no status round of the watch loop.
    expect(runner.scripts.slice(before)).toHaveLength(1);
    expect(runner.scripts.at(-1)).toContain('cnc_wait');
    expect(m.tracked().find((t) => t.jobId === 'mall')?.running).toBe(3);
  });

  /** A manager on `slots` local slots, watched only when refreshed, running malleable `mall` and a rigid blocker. */
  async function malleableBesideBlocker(mall: string, slots: number) {
    const log = new MessageLog();
    const dir = mkdtempSync(path.join(root, 'm-'));
    const m = manager(log, {
      runner: local,
      system: new LocalSystem({ slots, stateDir: path.join(dir, 'state') }),
      isMalleable: (r) => r.jobId === mall,
      watchIntervalMs: 600_000,
      idleWatchIntervalMs: 600_000,
    });
    m.submit(sleeper(mall));
    m.submit(sleeper('blocker'));
    await refreshUntil(m, () => log.of('started').length, 2);
    return { log, m };
  }

  it('hands a grow over whole: no `grown` while one of its local jobs still waits, then one for all of them', async () => {
    const mall = 'whole';
    const { log, m } = await malleableBesideBlocker(mall, 3);
    m.grow(mall, 2); // three slots: one of the two new local jobs runs, the other waits for the blocker's slot
    await refreshUntil(m, () => m.tracked().find((t) => t.jobId === mall)?.running, 2);
    await m.refresh();
    expect(log.of('grown', mall)).toEqual([]);
    m.cancel('blocker');
    await refreshUntil(m, () => log.of('grown', mall).length, 1);
    expect(log.of('grown', mall)[0]!.processors).toBe(2);
  });

  it("withdraws a grow's local jobs still waiting (cancelGrow): growFailed for them, and they never come", async () => {
    const mall = 'withdrawn';
    const { log, m } = await malleableBesideBlocker(mall, 2);
    m.grow(mall, 2); // both slots are taken: the grow's two local jobs wait
    await m.refresh();
    m.cancelGrow(mall);
    expect(await log.waitFor('growFailed', (g) => g.jobId === mall)).toMatchObject({
      processors: 2,
      reason: 'withdrawn by Concertina before their local jobs ran',
    });
    m.cancel('blocker');
    await refreshUntil(m, () => m.tracked().find((t) => t.jobId === 'blocker'), undefined);
    await m.refresh();
    expect(log.of('grown', mall)).toEqual([]);
    expect(m.tracked().find((t) => t.jobId === mall)).toMatchObject({ running: 1 });
    expect(log.of('finished', mall)).toEqual([]);
  });

  it("answers growFailed for a grow's local job that fails before it runs; the job runs on", async () => {
    const log = new MessageLog();
    const mall = 'holderfails';
    const m = manager(log, {
      runner: local,
      isMalleable: (r) => r.jobId === mall,
      holder: { program: '/bin/sh', args: ['-c', 'exit 3'] },
    });
    m.submit(sleeper(mall));
    await log.waitFor('started', (s) => s.jobId === mall);
    m.grow(mall, 1);
    expect(await log.waitFor('growFailed', (g) => g.jobId === mall)).toMatchObject({
      processors: 1,
      reason: expect.stringContaining('exit status 3'),
    });
    await m.refresh();
    expect(log.of('grown', mall)).toEqual([]);
    expect(log.of('finished', mall)).toEqual([]);
  });

  it('counts a recovered job it is told to disown as background load, and refuses its id', async () => {
    const dir = mkdtempSync(path.join(root, 'm-'));
    const shared = {
      system: new LocalSystem({ slots: 8, stateDir: path.join(dir, 'state') }),
      workRoot: path.join(dir, 'jobs'),
    };
    const firstLog = new MessageLog();
    const before = manager(firstLog, { runner: local, ...shared });
    before.submit({ ...sleeper('orphan'), processors: 3 });
    await firstLog.waitFor('started', (s) => s.jobId === 'orphan');
    await before.close();

    const log = new MessageLog();
    const runner = new RecordingRunner(local);
    const m = manager(log, { runner, ...shared });
    expect((await m.recover()).map((f) => [f.jobId, f.state])).toEqual([['orphan', 'running']]);
    m.disown('orphan');
    expect(m.tracked()).toEqual([]);
    m.poll();
    expect((await log.waitFor('status')).status).toEqual({ processors: 8, background: 3, reachable: true });
    m.submit(sleeper('orphan'));
    expect(await log.waitFor('finished', (f) => f.jobId === 'orphan')).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('unknown to the scheduler, still runs on c1'),
    });
    expect(runner.scripts.filter(isSubmit)).toEqual([]);
    // Left running: ended here by hand (the afterEach cancels only what managers track).
    expect((await local.run(shared.system.cancelCommand(['1']).text)).code).toBe(0);
  });

  it('counts its own local jobs running before their submission has answered as its own, not as background load', async () => {
    // Live, a status round ran while a grow's submission script was still on its way back: its local jobs, running
    // but without ids yet, were counted as another user's load, and the scheduler saw processors vanish for a round.
    const dir = mkdtempSync(path.join(root, 'm-'));
    const stateDir = path.join(dir, 'state');
    const log = new MessageLog();
    const runner = new RecordingRunner(local);
    let answer!: () => void;
    runner.submitAnswerHeld = new Promise((resolve) => (answer = resolve));
    const m = manager(log, {
      runner,
      system: new LocalSystem({ slots: 8, stateDir }),
      workRoot: path.join(dir, 'jobs'),
    });
    m.submit({ ...sleeper('slow'), processors: 3 });
    await expect.poll(() => existsSync(path.join(stateDir, '1', 'pid')), { timeout: 10_000, interval: 20 }).toBe(true);
    for (let round = 0; round < 2; round++) {
      const before = log.of('status').length;
      m.poll();
      await expect.poll(() => log.of('status').length, { timeout: 10_000 }).toBe(before + 1);
      expect(log.of('status').at(-1)!.status).toEqual({ processors: 8, background: 0, reachable: true });
    }
    expect(log.of('started', 'slow')).toEqual([]);
    answer();
    expect((await log.waitFor('started', (s) => s.jobId === 'slow')).processors).toBe(3);
  });

  it('counts local jobs it gave back as its own while they are still listed, and as load once that outlasts the grace', async () => {
    // Live on Slurm, a shrink's local jobs stayed COMPLETING for a round or two and were counted as another user's
    // load: the grow offered right after on those processors was cut. Here the cancel leaves them listed, running.
    class LingeringLocalSystem extends LocalSystem {
      lingering = true;
      override cancelCommand(ids: readonly string[]): ShellFragment {
        return this.lingering ? sh`true` : super.cancelCommand(ids);
      }
    }
    const dir = mkdtempSync(path.join(root, 'm-'));
    const system = new LingeringLocalSystem({ slots: 8, stateDir: path.join(dir, 'state') });
    const { m, clock, status } = await malleableStarted(system, path.join(dir, 'jobs'), 3);
    m.shrink('mall', 2);
    await m.cancelsSent();
    clock.ms += 59_000;
    expect(await status()).toEqual({ processors: 8, background: 0, reachable: true });
    // Still listed a minute after they were given back: a cancel that did not take; their processors are load.
    clock.ms += 1_000;
    expect(await status()).toEqual({ processors: 8, background: 2, reachable: true });
    system.lingering = false;
    expect((await local.run(system.cancelCommand(['1', '2', '3']).text)).code).toBe(0);
  });

  it('does not take its own local jobs started between the listing and the node counts for load, for at most the settle time', async () => {
    // Live on Grid Engine during a grow, each status round caught another of the grow's local jobs started after the
    // listing and counted busy by the node counts: two rounds agreed on a processor of hidden load that was not there.
    class LateListingSystem extends LocalSystem {
      late = '';
      override parseStatus(sections: ReadonlyMap<string, SectionOutput>, nonce: string): ClusterReport {
        const report = super.parseStatus(sections, nonce);
        const listedBeforeItStarted = (name: string) => this.late !== '' && name.endsWith(this.late);
        return {
          ...report,
          jobs: report.jobs.map((j) => (listedBeforeItStarted(j.name) ? { ...j, state: 'pending', rawState: 'Q' } : j)),
        };
      }
    }
    const dir = mkdtempSync(path.join(root, 'm-'));
    const system = new LateListingSystem({ slots: 8, stateDir: path.join(dir, 'state') });
    const { m, clock, status } = await malleableStarted(system, path.join(dir, 'jobs'), 1);
    system.late = '-m1';
    m.grow('mall', 1);
    await expect.poll(() => m.tracked().find((t) => t.jobId === 'mall')?.ids.length, { timeout: 10_000 }).toBe(2);
    expect(await status()).toEqual({ processors: 8, background: 0, reachable: true });
    expect(await status()).toEqual({ processors: 8, background: 0, reachable: true });
    // Still not listed running a minute after its submission: what the nodes count busy is someone's load.
    clock.ms += 60_000;
    await status();
    expect(await status()).toEqual({ processors: 8, background: 1, reachable: true });
  });

  it('ignores grow and shrink for a job that is not malleable, and says so', async () => {
    const log = new MessageLog();
    const logged: string[] = [];
    const m = manager(log, { runner: local, log: (t) => logged.push(t) });
    m.submit(sleeper('rigid'));
    await log.waitFor('started', (s) => s.jobId === 'rigid');
    m.grow('rigid', 2);
    m.shrink('rigid', 1);
    m.grow('nobody', 1);
    expect(logged).toEqual([
      'c1: grow(rigid, 2) ignored: the job is not malleable',
      'c1: shrink(rigid, 1) ignored: the job is not malleable',
      'c1: grow(nobody, 1) ignored: no such job here',
    ]);
    await m.refresh();
    expect(log.of('grown')).toEqual([]);
    expect(m.tracked()).toEqual([
      { jobId: 'rigid', component: 0, kind: 'rigid', ids: [expect.any(String)], running: 1 },
    ]);
  });
});
