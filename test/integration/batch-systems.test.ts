// The batch-system adapters and the generic manager against real daemons on loopback, one suite run on each: a
// Slurm cluster (munge, slurmctld, two slurmd of 8 CPUs) and a Grid Engine cell (qmaster and execd, 16 slots,
// parallel environment smp), each started once by the project's harness and stopped by PID afterwards. What differs
// between them is in SYSTEMS: how the test itself lists, submits and deletes jobs (independently of the adapters),
// and what a job sees of its batch system.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchLocalManager, type BatchLocalManagerOptions } from '../../runners/managers/batch-local-manager.js';
import type { BatchSystem } from '../../runners/managers/batch-system.js';
import { jobDirName, tagPrefix } from '../../runners/managers/naming.js';
import { SgeSystem } from '../../runners/managers/sge.js';
import { SlurmSystem } from '../../runners/managers/slurm.js';
import type { CommandRunner } from '../../runners/shell/command-runner.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { GateRunner } from '../support/gate-runner.js';
import { MessageLog } from '../support/manager-messages.js';
import { requireDaemons, run, waitFor } from './harness/common.js';
import { SGE_PACKAGES, startSge } from './harness/sge.js';
import { SLURM_PACKAGES, startSlurm } from './harness/slurm.js';

type Env = Readonly<Record<string, string>>;

/** A job as the batch system's own listing shows it; `ended` ones are still listed (Slurm, for MinJobAge). */
interface ListedJob {
  readonly id: string;
  readonly name: string;
  readonly state: 'pending' | 'running' | 'ending' | 'ended';
  readonly slots: number;
}

interface SystemUnderTest {
  readonly title: string;
  readonly packages: readonly string[];
  /** The cluster's name in the manager's messages. */
  readonly cluster: string;
  start(): Promise<{ readonly env: Env; stop(): Promise<void> }>;
  system(): BatchSystem;
  /** Every job of every user. */
  list(env: Env): Promise<ListedJob[]>;
  /** Deletes jobs at once, their job scripts killed (no exit status written). */
  kill(env: Env, ids: readonly string[]): Promise<void>;
  /** Submits a job of `slots` processors directly, bypassing Concertina (a local user's). */
  submitDirect(env: Env, name: string, slots: number): Promise<void>;
  /** A rigid job's shell command printing what it sees of its batch system, and what its output must be (3 processors). */
  readonly rigid: { readonly script: string; readonly output: RegExp };
  /** An environment in which the status commands cannot run. */
  brokenEnv(env: Env, work: string): Env;
}

const SLURM_STATES: Record<string, ListedJob['state']> = {
  PENDING: 'pending',
  CONFIGURING: 'pending',
  RUNNING: 'running',
  COMPLETING: 'ending',
};

const SYSTEMS: readonly SystemUnderTest[] = [
  {
    title: 'Slurm on loopback',
    packages: SLURM_PACKAGES,
    cluster: 'slurm-lo',
    // Ended jobs leave squeue 2 s after their end (about 6 s in all), so that a test can see one vanish.
    start: () => startSlurm({ clusterName: 'cncslurm', nodes: 2, cpusPerNode: 8, minJobAgeS: 2 }),
    system: () => new SlurmSystem(),
    async list(env) {
      const out = await run('squeue', ['--noheader', '--all', '--states=all', '--format=%i|%T|%C|%j'], env);
      return out
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [id, state, cpus, ...name] = line.split('|');
          return { id: id!, state: SLURM_STATES[state!] ?? 'ended', slots: Number(cpus), name: name.join('|') };
        });
    },
    kill: async (env, ids) => void (ids.length && (await run('scancel', ['--full', '--signal=KILL', ...ids], env))),
    submitDirect: async (env, name, slots) =>
      void (await run(
        'sbatch',
        ['--parsable', '--output=/dev/null', '-n', String(slots), '-J', name, '--wrap', 'sleep 120'],
        env,
        10_000,
      )),
    rigid: { script: 'echo "done on $SLURM_JOB_NODELIST"', output: /^done on cncslurmn\d/ },
    brokenEnv: (_env, work) => ({ SLURM_CONF: path.join(work, 'no-such-slurm.conf') }),
  },
  {
    title: 'Grid Engine on loopback',
    packages: SGE_PACKAGES,
    cluster: 'sge-lo',
    start: () => startSge({ slots: 16 }),
    system: () => new SgeSystem(),
    // Read from `qstat -xml` with plain patterns (independently of the adapter's parser); ended jobs are not listed.
    async list(env) {
      const out = await run('qstat', ['-xml', '-u', '*'], env);
      return [...out.matchAll(/<job_list[^>]*>([\s\S]*?)<\/job_list>/g)].map((m) => {
        const field = (tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(m[1]!)?.[1] ?? '';
        const state = field('state');
        return {
          id: field('JB_job_number'),
          name: field('JB_name'),
          state: state === 'r' ? 'running' : state === 'qw' ? 'pending' : 'ending',
          slots: Number(field('slots')),
        };
      });
    },
    kill: async (env, ids) => void (ids.length && (await run('qdel', ['-f', ...ids], env))),
    submitDirect: async (env, name, slots) =>
      void (await run(
        'qsub',
        [
          '-terse',
          '-b',
          'y',
          '-o',
          '/dev/null',
          '-e',
          '/dev/null',
          '-pe',
          'smp',
          String(slots),
          '-N',
          name,
          'sleep',
          '120',
        ],
        env,
        10_000,
      )),
    rigid: { script: 'echo "done with $NSLOTS slots"', output: /^done with 3 slots\n$/ },
    brokenEnv: (env, work) => ({ ...env, SGE_ROOT: path.join(work, 'no-such-sge-root') }),
  },
];

const sleeper = (jobId: string, processors: number, seconds: number) => ({
  jobId,
  component: 0,
  processors,
  program: '/bin/sh',
  args: ['-c', `sleep ${seconds}`],
  tag: `concertina:${jobId}`,
});

for (const sut of SYSTEMS) {
  const ready = requireDaemons(`the ${sut.title} integration tests`, sut.packages);

  describe.skipIf(!ready)(sut.title, () => {
    let env: Env;
    let stopDaemons: (() => Promise<void>) | undefined;
    let work: string;
    let runner: LocalRunner;
    const managers: BatchLocalManager[] = [];
    const listing = () => sut.system().listing;
    const list = () => sut.list(env);
    const active = async () => (await list()).filter((j) => j.state !== 'ended');
    const runningNamed = async (prefix: string) =>
      (await list()).filter((j) => j.name.startsWith(prefix) && j.state === 'running').length;
    const activeNamed = async (prefix: string) => (await active()).filter((j) => j.name.startsWith(prefix));

    function manager(log: MessageLog, extra: Partial<BatchLocalManagerOptions> = {}): BatchLocalManager {
      const m = new BatchLocalManager({
        cluster: sut.cluster,
        system: sut.system(),
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

    beforeAll(async () => {
      const daemons = await sut.start();
      env = daemons.env;
      stopDaemons = () => daemons.stop();
      work = mkdtempSync(path.join(os.tmpdir(), `cnc-${sut.cluster}-work-`));
      runner = new LocalRunner({ env, cwd: work });
    }, 60_000);

    afterAll(async () => {
      await Promise.all(managers.map((m) => m.close()));
      await runner?.close();
      await stopDaemons?.();
      if (work) rmSync(work, { recursive: true, force: true });
    }, 60_000);

    beforeEach(async () => {
      // Every test starts on an idle cluster.
      await sut
        .kill(
          env,
          (await active()).map((j) => j.id),
        )
        .catch(() => undefined);
      await waitFor('an idle cluster', async () => (await active()).length === 0, 20_000, 200);
    }, 30_000);

    afterEach(async () => {
      await Promise.all(managers.splice(0).map((m) => m.close()));
    });

    it('submits a tagged rigid job: started once it runs, then finished completed', async () => {
      const log = new MessageLog();
      const m = manager(log);
      m.submit({
        jobId: 'rigid-1',
        component: 0,
        processors: 3,
        program: '/bin/sh',
        args: ['-c', `sleep 3; ${sut.rigid.script}`],
        tag: 'concertina:rigid-1',
      });
      const started = await log.waitFor('started', (s) => s.jobId === 'rigid-1');
      expect(started).toMatchObject({ cluster: sut.cluster, component: 0, processors: 3 });
      const name = `${tagPrefix('concertina')}rigid_2d1-0-r0`;
      expect((await list()).filter((j) => j.name === name).map((j) => j.slots)).toEqual([3]);
      const finished = await log.waitFor('finished', (f) => f.jobId === 'rigid-1');
      expect(finished.state).toBe('completed');
      expect(readFileSync(path.join(work, jobDirName('concertina', 'rigid-1'), `${name}.out`), 'utf8')).toMatch(
        sut.rigid.output,
      );
    });

    it('runs a job whose id and arguments hold `#$`, `#PBS` and `#SBATCH` lines once, as one job, its arguments intact', async () => {
      // Each value ends its directive line with a newline, so that the option would parse if it were read.
      const hostile = [
        'x\n#$ -t 1-5\n',
        '#$ -N renamed\n',
        'y\n#PBS -J 1-5\n',
        'z\n#SBATCH --array=1-5\n#SBATCH --job-name=renamed\n',
      ];
      const jobId = 'inj\n#$ -t 1-4\n#SBATCH --array=1-4\n';
      const log = new MessageLog();
      const m = manager(log);
      const probe = 'echo ran >> runs.txt; printf "%s\\0" "$@" > args.bin; printf %s "$CONCERTINA_JOB_ID" > id.txt';
      m.submit({
        jobId,
        component: 0,
        processors: 1,
        program: '/bin/sh',
        args: ['-c', probe, 'sh', ...hostile],
        tag: `concertina:${jobId}`,
      });
      const finished = await log.waitFor('finished', (f) => f.jobId === jobId);
      expect(finished.state, finished.reason).toBe('completed');
      // Under any name (an injected -N would rename it): the cluster was idle before.
      await waitFor('no job left', async () => (await active()).length === 0, 15_000);
      const jobDir = path.join(work, jobDirName('concertina', jobId));
      expect(readFileSync(path.join(jobDir, 'runs.txt'), 'utf8')).toBe('ran\n');
      expect(readFileSync(path.join(jobDir, 'args.bin'), 'utf8').split('\0').slice(0, -1)).toEqual(hostile);
      expect(readFileSync(path.join(jobDir, 'id.txt'), 'utf8')).toBe(jobId);
    });

    it('cancels a running job: finished cancelled, and the batch system ends it', async () => {
      const log = new MessageLog();
      const m = manager(log);
      m.submit(sleeper('cancel-me', 2, 120));
      await log.waitFor('started', (s) => s.jobId === 'cancel-me');
      m.cancel('cancel-me');
      const finished = await log.waitFor('finished', (f) => f.jobId === 'cancel-me');
      expect(finished).toMatchObject({ state: 'cancelled', reason: 'cancelled by Concertina' });
      await waitFor(
        'the job to end in the batch system',
        async () => (await activeNamed(`${tagPrefix('concertina')}cancel`)).length === 0,
        15_000,
      );
    });

    it('sees a job submitted directly (untagged) as background load, and not its own jobs', async () => {
      const log = new MessageLog();
      const m = manager(log);
      m.submit(sleeper('mine', 4, 120));
      await log.waitFor('started', (s) => s.jobId === 'mine');
      await sut.submitDirect(env, 'someone-else', 5);
      await waitFor(
        'the direct job to run',
        async () => (await list()).some((j) => j.name === 'someone-else' && j.state === 'running'),
        15_000,
      );
      m.poll();
      const status = await log.waitFor('status', (s) => s.status.background > 0);
      expect(status.status).toEqual({ processors: 16, background: 5, reachable: true });
      await sut.kill(
        env,
        (await activeNamed('someone-else')).map((j) => j.id),
      );
      await waitFor('the direct job to end', async () => (await activeNamed('someone-else')).length === 0, 15_000);
      const before = log.of('status').length;
      m.poll();
      await log.waitFor('status', () => log.of('status').length > before);
      expect(log.of('status').at(-1)!.status).toEqual({ processors: 16, background: 0, reachable: true });
    });

    it(`grows a malleable job from 1 to 4 local jobs and shrinks it back to 1 (counted with ${listing()})`, async () => {
      const log = new MessageLog();
      const m = manager(log, { isMalleable: () => true });
      const prefix = `${tagPrefix('concertina')}elastic-0-m`;
      m.submit(sleeper('elastic', 1, 120));
      expect((await log.waitFor('started', (s) => s.jobId === 'elastic')).processors).toBe(1);
      expect(await runningNamed(prefix)).toBe(1);
      m.grow('elastic', 3);
      await waitFor(
        '3 processors grown',
        () => log.of('grown', 'elastic').reduce((n, g) => n + g.processors, 0) === 3,
        15_000,
      );
      expect(await runningNamed(prefix)).toBe(4);
      m.shrink('elastic', 3);
      await waitFor(`${listing()} to show 1 member`, async () => (await activeNamed(prefix)).length === 1, 15_000);
      // The member left is the one running the program.
      expect(await activeNamed(prefix)).toMatchObject([{ name: `${prefix}0`, state: 'running' }]);
      await m.refresh();
      expect(log.of('finished', 'elastic')).toEqual([]);
    });

    it('recovers its running jobs by tag after a restart, submits nothing twice, and goes on managing them', async () => {
      const log = new MessageLog();
      const first = manager(log, { isMalleable: (r) => r.jobId === 'rec-m' });
      first.submit(sleeper('rec-r', 2, 120));
      first.submit(sleeper('rec-m', 2, 120));
      await log.waitFor('started', (s) => s.jobId === 'rec-r');
      await log.waitFor('started', (s) => s.jobId === 'rec-m');
      await first.close();
      const ours = async () => (await activeNamed(`${tagPrefix('concertina')}rec`)).map((j) => j.id).sort();
      const before = await ours();
      expect(before).toHaveLength(3);

      const log2 = new MessageLog();
      const second = manager(log2, { isMalleable: (r) => r.jobId === 'rec-m' });
      const found = await second.recover();
      // Tagged jobs of earlier tests that ended a moment ago may be listed too, with their end state.
      expect(
        found
          .filter((f) => f.jobId.startsWith('rec'))
          .map((f) => [f.jobId, f.kind, f.members, f.running, f.state])
          .sort(),
      ).toEqual([
        ['rec-m', 'malleable', 2, 2, 'running'],
        ['rec-r', 'rigid', 1, 1, 'running'],
      ]);
      // The restarted scheduler asks again: the answer is `started`, and no new local job.
      second.submit(sleeper('rec-r', 2, 120));
      second.submit(sleeper('rec-m', 2, 120));
      expect((await log2.waitFor('started', (s) => s.jobId === 'rec-r')).processors).toBe(2);
      expect((await log2.waitFor('started', (s) => s.jobId === 'rec-m')).processors).toBe(2);
      await second.refresh();
      expect(await ours()).toEqual(before);
      // The malleable one grows and shrinks, the rigid one is cancelled.
      second.grow('rec-m', 1);
      expect((await log2.waitFor('grown', (g) => g.jobId === 'rec-m')).processors).toBe(1);
      second.shrink('rec-m', 2);
      await waitFor(
        'rec-m down to 1',
        async () => (await activeNamed(`${tagPrefix('concertina')}rec_2dm-0-m`)).length === 1,
        15_000,
      );
      second.cancel('rec-r');
      expect((await log2.waitFor('finished', (f) => f.jobId === 'rec-r')).state).toBe('cancelled');
    });

    it(`records a job that left ${listing()} as ended: by its exit status, or failed when none was written`, async () => {
      const log = new MessageLog();
      const gate = new GateRunner(runner);
      const m = manager(log, { runner: gate });
      // These two end only once told to (after the manager has lost sight), however slow the machine.
      const untilTold = (status: number) => ['-c', `while [ ! -e end-now ]; do sleep 0.2; done; exit ${status}`];
      m.submit({
        jobId: 'quiet',
        component: 0,
        processors: 1,
        program: '/bin/sh',
        args: untilTold(0),
        tag: 'concertina:quiet',
      });
      m.submit({
        jobId: 'quiet4',
        component: 0,
        processors: 1,
        program: '/bin/sh',
        args: untilTold(4),
        tag: 'concertina:quiet4',
      });
      // This one, once told to, kills the job script around it, which so never writes an exit status.
      m.submit({
        jobId: 'killed',
        component: 0,
        processors: 1,
        program: '/bin/sh',
        args: ['-c', 'while [ ! -e kill-me ]; do sleep 0.2; done; kill -KILL $PPID'],
        tag: 'concertina:killed',
      });
      // And this one is deleted on the cluster by someone else.
      m.submit(sleeper('deleted', 1, 120));
      for (const id of ['quiet', 'quiet4', 'killed', 'deleted']) await log.waitFor('started', (s) => s.jobId === id);
      // The manager loses sight of the cluster; meanwhile the jobs end and the batch system forgets them.
      gate.pause();
      for (const id of ['quiet', 'quiet4']) writeFileSync(path.join(work, jobDirName('concertina', id), 'end-now'), '');
      writeFileSync(path.join(work, jobDirName('concertina', 'killed'), 'kill-me'), '');
      await sut.kill(
        env,
        (await activeNamed(`${tagPrefix('concertina')}deleted-0-r0`)).map((j) => j.id),
      );
      const names = ['quiet', 'quiet4', 'killed', 'deleted'].map((id) => `${tagPrefix('concertina')}${id}-0-r0`);
      await waitFor(
        `the jobs to leave ${listing()}`,
        async () => !(await list()).some((j) => names.includes(j.name)),
        30_000,
        500,
      );
      gate.resume();
      const quiet = await log.waitFor('finished', (f) => f.jobId === 'quiet');
      expect(quiet).toMatchObject({
        state: 'completed',
        reason: expect.stringContaining(`exit status 0 (the job has left ${listing()})`),
      });
      const quiet4 = await log.waitFor('finished', (f) => f.jobId === 'quiet4');
      expect(quiet4).toMatchObject({
        state: 'failed',
        reason: expect.stringContaining(`exit status 4 (the job has left ${listing()})`),
      });
      const killed = await log.waitFor('finished', (f) => f.jobId === 'killed');
      expect(killed).toMatchObject({
        state: 'failed',
        reason: expect.stringContaining(`vanished from ${listing()} with no exit status recorded`),
      });
      // A deletion signals the job script and its program together: whichever ends first decides whether the script
      // still records the program's status (killed by SIGTERM) or leaves none. Either way it failed, and says so.
      const deleted = await log.waitFor('finished', (f) => f.jobId === 'deleted');
      expect(deleted.state).toBe('failed');
      expect(deleted.reason).toMatch(
        new RegExp(
          `vanished from ${listing()} with no exit status recorded|exit status 143 \\(killed by signal 15\\) \\(the job has left ${listing()}\\)`,
        ),
      );
    }, 60_000);

    it('does not submit again a job whose submission answer was lost and that ran and ended before it was seen', async () => {
      const log = new MessageLog();
      const jobId = 'lost-short';
      const jobDir = path.join(work, jobDirName('concertina', jobId));
      const name = `${tagPrefix('concertina')}lost_2dshort-0-r0`;
      const exitFile = path.join(jobDir, `${name}.exit`);
      let submissions = 0;
      // The link drops after qsub/sbatch ran; by the time it is back the job has run and ended (Grid Engine no
      // longer lists it; Slurm still does, for MinJobAge).
      const losing: CommandRunner = {
        target: 'losing',
        async run(script, options) {
          const result = await runner.run(script, options);
          if (/\| (qsub|sbatch) /.test(script) && submissions++ === 0) {
            await waitFor(
              'the job to end',
              async () => existsSync(exitFile) && !(await list()).some((j) => j.name === name && j.state !== 'ended'),
              20_000,
              100,
            );
            throw new Error('connection lost');
          }
          return result;
        },
        close: () => Promise.resolve(),
      };
      const m = manager(log, { runner: losing });
      m.submit({
        jobId,
        component: 0,
        processors: 1,
        program: '/bin/sh',
        args: ['-c', 'echo ran >> runs.txt'],
        tag: `concertina:${jobId}`,
      });
      expect(await log.waitFor('finished', (f) => f.jobId === jobId, 30_000)).toMatchObject({ state: 'completed' });
      for (let i = 0; i < 3; i++) await m.refresh();
      expect(submissions).toBe(1);
      expect(readFileSync(path.join(jobDir, 'runs.txt'), 'utf8')).toBe('ran\n');
    }, 60_000);

    it('reports the cluster unreachable when its status commands cannot run', async () => {
      const log = new MessageLog();
      const broken = new LocalRunner({ env: sut.brokenEnv(env, work), cwd: work, defaultTimeoutMs: 5_000 });
      const m = manager(log, { runner: broken, commandTimeoutMs: 5_000 });
      m.poll();
      const status = await log.waitFor('status', undefined, 15_000);
      expect(status.status.reachable).toBe(false);
      await broken.close();
    }, 40_000);
  });
}
