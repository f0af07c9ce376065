// Live mode end to end against real daemons on loopback: a grid of a Slurm cluster and a Grid Engine cell (both
// reached through SSH to a private sshd) and a plain host (`local`, also over SSH), one scheduler over them
// (runners/live), and the demo applications grown and shrunk through the application control protocol.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { FINAL_STATES } from '../../core/model/job.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { createLiveWorld, repositoryAssetsDir, runTag, type LiveWorldOptions } from '../../runners/live/live-world.js';
import type { LiveAppEvent, LiveWorld } from '../../runners/live/types.js';
import { jobDirName } from '../../runners/managers/naming.js';
import { completeLines, requireDaemons, run, waitFor } from './harness/common.js';
import { hostLogin, sshOptions } from './harness/host-login.js';
import { isAlive, ledger, waitForWorkers } from './harness/recruited.js';
import { SGE_PACKAGES, startSge, type SgeCell } from './harness/sge.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready =
  requireDaemons('the live-mode integration tests', [
    ...new Set(['openssh-server', ...SLURM_PACKAGES, ...SGE_PACKAGES]),
  ]) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the live-mode integration tests cannot run: ${missing}`);
  console.warn(`Skipping the live-mode integration tests: ${missing}.`);
  return false;
}

const NODE = process.execPath;
const APPS = path.join(repositoryAssetsDir(), 'apps');
const TAG = 'concertina';

let sshd: Sshd;
let slurm: SlurmCluster;
let sge: SgeCell;
let dir: string;
let options: LiveWorldOptions;
let world: LiveWorld;
const events: SchedulerEvent[] = [];
const appEvents: LiveAppEvent[] = [];

function follow(w: LiveWorld): void {
  w.on((e) => events.push(e));
  w.onApplication((e) => appEvents.push(e));
}

const of = <T extends SchedulerEvent['type']>(type: T, jobId?: string) =>
  events.filter(
    (e): e is Extract<SchedulerEvent, { type: T }> =>
      e.type === type && (jobId === undefined || (e as { jobId?: string }).jobId === jobId),
  );

async function waitEvent<T extends SchedulerEvent['type']>(
  type: T,
  jobId: string,
  timeoutMs = 30_000,
  predicate: (e: Extract<SchedulerEvent, { type: T }>) => boolean = () => true,
) {
  await waitFor(`${type} of ${jobId}`, () => of(type, jobId).some(predicate), timeoutMs, 100);
  return of(type, jobId).find(predicate)!;
}

function submit(spec: JobSpecInput): void {
  const r = world.act((s, now) => s.submit(spec, now));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

function resize(jobId: string, delta: number): void {
  const r = world.act((s, now) => s.resize(jobId, delta, now));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

const workRoot = (cluster: string) => path.join(dir, cluster);
/** The run's tag: the scheduler's and the run's id (kept across the restart below). */
const tag = () => runTag(TAG, world.persistentState().runId);
const jobDir = (cluster: string, jobId: string) => path.join(workRoot(cluster), 'jobs', jobDirName(tag(), jobId));
/** The sizes an application reported in its progress notes ("size N: ..."), in order, repeats collapsed. */
function sizesSeen(cluster: string, jobId: string): number[] {
  const out: number[] = [];
  for (const line of completeLines(path.join(jobDir(cluster, jobId), 'from-app.jsonl'))) {
    const size = /"note":"size (\d+):/.exec(line)?.[1];
    if (size !== undefined && Number(size) !== out.at(-1)) out.push(Number(size));
  }
  return out;
}

async function squeueNames(): Promise<Array<{ id: string; state: string; name: string }>> {
  const out = await run('squeue', ['--noheader', '--all', '--format=%i|%T|%j'], slurm.env);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [id, state, ...name] = l.split('|');
      return { id: id!, state: state!, name: name.join('|') };
    });
}

async function qstatNames(): Promise<Array<{ id: string; state: string; name: string }>> {
  const out = await run('qstat', ['-xml', '-u', '*'], sge.env);
  return [...out.matchAll(/<job_list[^>]*>([\s\S]*?)<\/job_list>/g)].map((m) => {
    const field = (tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(m[1]!)?.[1] ?? '';
    return { id: field('JB_job_number'), state: field('state'), name: field('JB_name') };
  });
}

/** Local job names of a Concertina job start with this. */
const mine = (jobId: string) => `${jobDirName(tag(), jobId)}-`;

describe.skipIf(!ready)('live mode on loopback Slurm, Grid Engine and a plain host, over SSH', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-'));
    [sshd, slurm, sge] = await Promise.all([
      startSshd(),
      startSlurm({ clusterName: 'cnclive', nodes: 2, cpusPerNode: 6, minJobAgeS: 2 }),
      startSge({ slots: 8 }),
    ]);
    const access = hostLogin(sshd, dir);
    const { login } = access;
    options = {
      clusters: [
        { name: 'slurm', login, system: 'slurm', env: slurm.env, workRoot: workRoot('slurm'), pollIntervalS: 1 },
        { name: 'sge', login, system: 'sge', env: sge.env, workRoot: workRoot('sge'), pollIntervalS: 1 },
        { name: 'plain', login, system: 'local', slots: 4, workRoot: workRoot('plain'), pollIntervalS: 1 },
      ],
      // The paper's trigger: sizes change here only by the operator's commands and by releases, as each case expects
      // (growth at a poll that finds idle processors: live-operator.test.ts).
      scheduler: { approach: 'pra', policy: 'fpsma', tag: TAG, growthAtPoll: 'freed' },
      ...sshOptions(access),
      // Short, yet long enough for a loaded machine: the demo applications answer within a few hundred ms.
      graceMs: 6_000,
      // The world's own intervals, except idle status rounds (10 s by default), so that ends are seen sooner.
      idleWatchIntervalMs: 1_000,
      log: () => {},
    };
    world = createLiveWorld(options);
    follow(world);
    await world.start();
  }, 90_000);

  // Each test leaves the clusters as it found them, whether it passed or not: its jobs cancelled and gone from the
  // batch systems, other users' load removed, every processor back (so that one failure does not cause the next).
  afterEach(async () => {
    if (!world) return;
    for (const job of [...world.scheduler.jobs()]) {
      if (!FINAL_STATES.has(job.state)) world.act((s, now) => s.cancel(job.id, now));
    }
    await run('scancel', ['--name=someone-else'], slurm.env).catch(() => '');
    await run('qdel', ['someone-else'], sge.env).catch(() => '');
    await waitFor(
      'the grid to be free after the test',
      () => world.scheduler.snapshot().every((c) => c.nonPreemptible + c.preemptible + c.background === 0),
      60_000,
      200,
    );
    await waitFor(
      'no local job of ours left in Slurm',
      async () =>
        !(await squeueNames()).some(
          (j) => j.name.startsWith(jobDirName(tag(), '')) && ['RUNNING', 'PENDING', 'COMPLETING'].includes(j.state),
        ),
      30_000,
      250,
    );
  }, 120_000);

  afterAll(async () => {
    await world?.stop();
    await Promise.all([slurm?.stop(), sge?.stop(), sshd?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("builds its grid from the clusters' own processor counts, over open SSH connections", () => {
    expect(world.scheduler.grid.clusters.map((c) => [c.name, c.processors])).toEqual([
      ['slurm', 12],
      ['sge', 8],
      ['plain', 4],
    ]);
    expect(world.clusters().map((c) => c.connection)).toEqual(['open', 'open', 'open']);
  });

  it('runs demo applications on every cluster, each grown and shrunk, and the results match what they report', async () => {
    // Steps are fewer than threads would allow: each step of a worker on a slot is a round trip through files.
    // items: what the ledger's entries add up to (blocks verified; bodies whose forces were computed, at every step).
    const jobs = [
      {
        id: 'ft-slurm',
        cluster: 'slurm',
        app: 'ft-demo.mjs',
        args: ['12288', '12'],
        grow: 2,
        shrink: 2,
        sizes: [2, 4, 2],
        items: 12288,
      },
      {
        id: 'gadget-sge',
        cluster: 'sge',
        app: 'gadget-demo.mjs',
        args: ['300', '8000'],
        grow: 2,
        shrink: 1,
        sizes: [2, 4, 3],
        items: 300 * 8001,
      },
      {
        id: 'gadget-plain',
        cluster: 'plain',
        app: 'gadget-demo.mjs',
        args: ['300', '8000'],
        grow: 1,
        shrink: 2,
        sizes: [2, 3, 1],
        items: 300 * 8001,
      },
    ];
    for (const j of jobs) {
      submit({
        id: j.id,
        kind: 'malleable',
        components: [
          { min: 1, max: 4, initial: 2, cluster: j.cluster, program: NODE, args: [path.join(APPS, j.app), ...j.args] },
        ],
      });
    }
    await Promise.all(
      jobs.map(async (j) => {
        await waitEvent('job.started', j.id, 30_000);
        await waitFor(
          `hello from ${j.id}`,
          () => appEvents.some((e) => e.type === 'hello' && e.jobId === j.id),
          20_000,
          100,
        );
        // One operation at a time per cluster, each through offers and answers like the policies'.
        resize(j.id, j.grow);
        const grown = await waitEvent('job.grown', j.id, 30_000);
        expect(grown).toMatchObject({ cluster: j.cluster, size: 2 + j.grow });
        await waitFor(
          `${j.id} to work at size ${2 + j.grow}`,
          () => sizesSeen(j.cluster, j.id).includes(2 + j.grow),
          20_000,
          200,
        );
        // Its processors compute: a worker runs inside each extra local job (m1 from the start, the grown ones
        // after), below that job's slot stub, as the batch system started it (KOALA V-A).
        const slots = Array.from({ length: 1 + j.grow }, (_, i) => `m${i + 1}`);
        const workers = await waitForWorkers(jobDir(j.cluster, j.id), slots);
        resize(j.id, -j.shrink);
        const shrunk = await waitEvent('job.shrunk', j.id, 30_000).catch((error: Error) => {
          // What both sides said, to tell a slow application from a lost message.
          const file = (name: string) => readFileSync(path.join(jobDir(j.cluster, j.id), name), 'utf8');
          throw new Error(
            `${error.message}\nevents: ${JSON.stringify(events.filter((x) => (x as { jobId?: string }).jobId === j.id))}\nto-app: ${file('to-app.jsonl')}\nfrom-app (end): ${file('from-app.jsonl').slice(-1500)}`,
          );
        });
        expect(shrunk).toMatchObject({
          cluster: j.cluster,
          processors: j.shrink,
          size: 2 + j.grow - j.shrink,
          voluntary: false,
        });
        // The workers of the slots given back (the last ones) ended before they were released.
        expect(workers.slice(slots.length - j.shrink).map((w) => isAlive(w.pid))).toEqual(Array(j.shrink).fill(false));
        const done = await waitFor(
          `done from ${j.id}`,
          () => appEvents.some((e) => e.type === 'done' && e.jobId === j.id),
          90_000,
          250,
        ).then(() => appEvents.find((e) => e.type === 'done' && e.jobId === j.id)!);
        expect(done).toMatchObject({ cluster: j.cluster, ok: true });
        const ended = await waitEvent('job.ended', j.id, 30_000);
        expect(ended.state).toBe('completed');
        // What the application computed with, step by step, is what Concertina gave it.
        expect(sizesSeen(j.cluster, j.id)).toEqual(j.sizes);
        // And who computed it: the ledger adds up to the whole problem, with a share done by each slot's worker.
        const work = ledger(jobDir(j.cluster, j.id));
        expect(work.reduce((sum, e) => sum + e.items, 0)).toBe(j.items);
        // (In the order units first answered.)
        expect(
          work
            .filter((e) => e.unit !== 'm0')
            .map((e) => [e.unit, e.pid])
            .sort(),
        ).toEqual(workers.map((w) => [w.slot, w.pid]));
        expect(work.every((e) => e.tasks > 0 && e.items > 0)).toBe(true);
      }),
    );
    // Every processor is back.
    await waitFor(
      'the grid to be free',
      () => world.scheduler.snapshot().every((c) => c.nonPreemptible + c.preemptible === 0),
      10_000,
      100,
    );
  }, 120_000);

  it('sees a job submitted directly with sbatch as background load, and places elsewhere because of it', async () => {
    await run(
      'sbatch',
      ['--parsable', '--output=/dev/null', '-n', '10', '-J', 'someone-else', '--wrap', 'sleep 60'],
      slurm.env,
      10_000,
    );
    try {
      await waitFor('slurm background load of 10', () => world.scheduler.snapshot()[0]!.background === 10, 20_000, 100);
      expect(of('cluster.polled').some((e) => e.cluster === 'slurm' && e.background === 10)).toBe(true);
      // Worst fit: without that load Slurm (12) has the most free; with it, Grid Engine (8) does.
      submit({
        id: 'placed-by-load',
        kind: 'rigid',
        placement: 'wf',
        components: [{ processors: 3, program: '/bin/sh', args: ['-c', 'sleep 1'] }],
      });
      const placed = await waitEvent('job.placed', 'placed-by-load', 10_000);
      expect(placed.components).toEqual([{ cluster: 'sge', processors: 3 }]);
      expect((await waitEvent('job.ended', 'placed-by-load', 30_000)).state).toBe('completed');
    } finally {
      await run('scancel', ['--name=someone-else'], slurm.env);
    }
    await waitFor('slurm background load gone', () => world.scheduler.snapshot()[0]!.background === 0, 20_000, 100);
  }, 60_000);

  it('sees a job submitted directly with qsub as background load, and places elsewhere because of it', async () => {
    // Both batch systems busy with other users' work: Slurm 10 of 12, Grid Engine 6 of 8. Worst fit then chooses the
    // plain host (4 free); without Grid Engine's load it would choose Grid Engine (8).
    await run(
      'sbatch',
      ['--parsable', '--output=/dev/null', '-n', '10', '-J', 'someone-else', '--wrap', 'sleep 60'],
      slurm.env,
      10_000,
    );
    await run(
      'qsub',
      ['-b', 'y', '-pe', 'smp', '6', '-N', 'someone-else', '-o', '/dev/null', '-e', '/dev/null', '/bin/sleep', '60'],
      sge.env,
      10_000,
    );
    try {
      await waitFor(
        'Grid Engine background load of 6',
        () => world.scheduler.snapshot()[1]!.background === 6,
        20_000,
        100,
      );
      await waitFor('Slurm background load of 10', () => world.scheduler.snapshot()[0]!.background === 10, 20_000, 100);
      expect(of('cluster.polled').some((e) => e.cluster === 'sge' && e.background === 6)).toBe(true);
      submit({
        id: 'placed-by-qsub-load',
        kind: 'rigid',
        placement: 'wf',
        components: [{ processors: 3, program: '/bin/sh', args: ['-c', 'sleep 1'] }],
      });
      const placed = await waitEvent('job.placed', 'placed-by-qsub-load', 10_000);
      expect(placed.components).toEqual([{ cluster: 'plain', processors: 3 }]);
      expect((await waitEvent('job.ended', 'placed-by-qsub-load', 30_000)).state).toBe('completed');
    } finally {
      await run('scancel', ['--name=someone-else'], slurm.env);
      await run('qdel', ['someone-else'], sge.env).catch(() => '');
    }
    await waitFor(
      'the background load gone',
      () => world.scheduler.snapshot()[0]!.background === 0 && world.scheduler.snapshot()[1]!.background === 0,
      20_000,
      100,
    );
  }, 60_000);

  it('grows a demo application when processors come free and shrinks it for a waiting job, by the policies alone', async () => {
    // On Slurm (12): a rigid job holds 10 while the application starts with 2 of its 1..6. When that job ends,
    // FPSMA grows the application (PRA); under PWA a waiting rigid job of 8 then has it shrunk, mandatorily, to 4.
    submit({
      id: 'filler',
      kind: 'rigid',
      components: [{ processors: 10, cluster: 'slurm', program: '/bin/sh', args: ['-c', 'sleep 4'] }],
    });
    await waitEvent('job.started', 'filler', 30_000);
    submit({
      id: 'elastic',
      kind: 'malleable',
      components: [
        {
          min: 1,
          max: 6,
          initial: 2,
          cluster: 'slurm',
          program: NODE,
          args: [path.join(APPS, 'gadget-demo.mjs'), '200', '1000000'],
        },
      ],
    });
    await waitEvent('job.started', 'elastic', 30_000);
    await waitFor(
      'hello from elastic',
      () => appEvents.some((e) => e.type === 'hello' && e.jobId === 'elastic'),
      20_000,
      100,
    );
    try {
      await waitFor('elastic grown to 6 by the policy', () => world.scheduler.job('elastic')?.size === 6, 40_000, 100);
      expect(of('grow.offered', 'elastic').every((e) => e.operator === undefined)).toBe(true);
      await waitFor('elastic to work at size 6', () => sizesSeen('slurm', 'elastic').includes(6), 20_000, 200);
      world.act((s) => s.setApproach('pwa'));
      submit({
        id: 'waiter',
        kind: 'rigid',
        components: [{ processors: 8, cluster: 'slurm', program: '/bin/sh', args: ['-c', 'sleep 1'] }],
      });
      const shrunk = await waitEvent('job.shrunk', 'elastic', 30_000);
      // On failure, what the scheduler saw of Slurm and of these jobs (a shrink of more than needed means load it saw).
      const seen = () =>
        JSON.stringify(
          events
            .filter(
              (e) =>
                (e.type === 'cluster.polled' && e.cluster === 'slurm') ||
                ['elastic', 'waiter', 'filler'].includes((e as { jobId?: string }).jobId ?? ''),
            )
            .slice(-40),
        );
      expect(shrunk, seen()).toMatchObject({ cluster: 'slurm', processors: 2, size: 4, voluntary: false });
      expect(of('shrink.requested', 'elastic'), seen()).toEqual([
        expect.objectContaining({ processors: 2, mandatory: true }),
      ]);
      expect((await waitEvent('job.ended', 'waiter', 30_000)).state).toBe('completed');
      await waitFor('elastic to work at size 4', () => sizesSeen('slurm', 'elastic').at(-1) === 4, 20_000, 200);
      expect(sizesSeen('slurm', 'elastic').slice(0, 1)).toEqual([2]);
    } finally {
      world.act((s) => s.setApproach('pra'));
      world.act((s, now) => s.cancel('elastic', now));
    }
    expect((await waitEvent('job.ended', 'elastic', 30_000)).state).toBe('cancelled');
    await waitFor(
      'the grid to be free',
      () => world.scheduler.snapshot().every((c) => c.nonPreemptible + c.preemptible === 0),
      20_000,
      100,
    );
  }, 120_000);

  it('hands job names, ids and arguments with quotes, $(), ;, newlines, directive lines and non-ASCII to the application intact, executing nothing, running it once', async () => {
    const marker = path.join(dir, 'pwned');
    // Lines that qsub or sbatch would read as options (an array of three) if they scanned for them there.
    const directives = ['x\n#$ -t 1-3\n', 'y\n#PBS -J 1-3\n', 'z\n#SBATCH --array=1-3\n'];
    const evil = [
      `it's "quoted"`,
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `a; touch ${marker}`,
      'line one\nline two',
      'ünïcödé ✓ 日本',
      '--',
      '$HOME',
      '',
      ...directives,
    ];
    const probe = `require('fs').appendFileSync(require('path').join(process.env.CONCERTINA_JOB_DIR, 'runs.txt'), 'ran\\n'); require('fs').writeFileSync(require('path').join(process.env.CONCERTINA_JOB_DIR, 'probe.json'), JSON.stringify({ argv: process.argv.slice(1), dir: process.env.CONCERTINA_JOB_DIR, size: process.env.CONCERTINA_SIZE, min: process.env.CONCERTINA_MIN, max: process.env.CONCERTINA_MAX }))`;
    const clusters = ['slurm', 'sge', 'plain'];
    const ids = clusters.map((c) => `evil '${c}' $(touch ${marker}); \n#$ -t 1-2\n#PBS -J 1-2\n ✓`);
    clusters.forEach((cluster, i) =>
      submit({
        id: ids[i],
        name: `name "${cluster}" $(touch ${marker}); \n ü`,
        kind: 'malleable',
        components: [{ min: 1, max: 3, initial: 1, cluster, program: NODE, args: ['-e', probe, ...evil] }],
      }),
    );
    for (const [i, cluster] of clusters.entries()) {
      expect((await waitEvent('job.ended', ids[i]!, 30_000)).state).toBe('completed');
      const seen = JSON.parse(readFileSync(path.join(jobDir(cluster, ids[i]!), 'probe.json'), 'utf8'));
      expect(seen).toEqual({ argv: evil, dir: jobDir(cluster, ids[i]!), size: '1', min: '1', max: '3' });
      expect(readFileSync(path.join(jobDir(cluster, ids[i]!), 'runs.txt'), 'utf8')).toBe('ran\n');
    }
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it('kills an application that ignores a mandatory shrink after the grace period, and reclaims its processors', async () => {
    // It never touches the protocol: no from-app.jsonl, no answer.
    // At its max from the start, so that no policy grow (which it would never answer either) races the shrink below.
    submit({
      id: 'deaf',
      kind: 'malleable',
      components: [{ min: 1, max: 3, initial: 3, cluster: 'sge', program: '/bin/sh', args: ['-c', 'exec sleep 300'] }],
    });
    await waitEvent('job.started', 'deaf', 30_000);
    expect(world.scheduler.snapshot()[1]).toMatchObject({ nonPreemptible: 1, preemptible: 2 });
    resize('deaf', -2);
    const ended = await waitEvent('job.ended', 'deaf', 20_000);
    expect(ended.state).toBe('cancelled');
    expect(ended.reason).toMatch(
      /^protocol violation: job deaf did not answer mandatory shrink \d+ \(2 processors\) within the grace period of 6000 ms$/,
    );
    expect(existsSync(path.join(jobDir('sge', 'deaf'), 'from-app.jsonl'))).toBe(false);
    expect(world.scheduler.snapshot()[1]).toMatchObject({ nonPreemptible: 0, preemptible: 0 });
    await waitFor(
      'its local jobs to leave Grid Engine',
      async () => !(await qstatNames()).some((j) => j.name.startsWith(mine('deaf')) && !j.state.includes('d')),
      20_000,
      250,
    );
  }, 60_000);

  it('after a console restart, adopts the jobs still running, records the ones that ended, and submits nothing twice', async () => {
    submit({
      id: 'long',
      kind: 'malleable',
      components: [
        {
          min: 1,
          max: 4,
          initial: 2,
          cluster: 'slurm',
          program: NODE,
          args: [path.join(APPS, 'gadget-demo.mjs'), '200', '1000000'],
        },
      ],
    });
    submit({
      id: 'short',
      kind: 'rigid',
      components: [{ processors: 2, cluster: 'sge', program: '/bin/sh', args: ['-c', 'sleep 3'] }],
    });
    await waitEvent('job.started', 'long', 30_000);
    await waitEvent('job.started', 'short', 30_000);
    await waitFor(
      'hello from long',
      () => appEvents.some((e) => e.type === 'hello' && e.jobId === 'long'),
      20_000,
      100,
    );
    const state = JSON.parse(JSON.stringify(world.persistentState()));
    expect(state.jobs.map((j: { spec: { id: string } }) => j.spec.id).sort()).toEqual(['long', 'short']);
    const before = (await squeueNames()).filter((j) => j.name.startsWith(mine('long'))).map((j) => j.id);
    expect(before).toHaveLength(2);
    await world.stop();
    // While the console is away, the short job ends (Grid Engine forgets it at once).
    await waitFor(
      'short to leave Grid Engine',
      async () => !(await qstatNames()).some((j) => j.name.startsWith(mine('short'))),
      20_000,
      250,
    );

    world = createLiveWorld({ ...options, restore: state });
    const startedAt = events.length;
    follow(world);
    await world.start();
    expect([...world.recovered()].sort((a, b) => a.jobId.localeCompare(b.jobId))).toEqual([
      { jobId: 'long', cluster: 'slurm', outcome: 'adopted', detail: 'running with 2 processors' },
      {
        jobId: 'short',
        cluster: 'sge',
        outcome: 'ended',
        detail: 'completed: ended while Concertina was away: exit status 0',
      },
    ]);
    expect(world.scheduler.job('long')).toMatchObject({ state: 'running', size: 2 });
    expect(world.scheduler.job('short')!.state).toBe('completed');
    expect(world.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 1, preemptible: 1 });
    // The restarted world goes on managing the adopted job: a grow reaches the same application.
    resize('long', 1);
    await waitFor(
      'long grown',
      () => events.slice(startedAt).some((e) => e.type === 'job.grown' && e.jobId === 'long'),
      30_000,
      100,
    );
    await waitFor('long to work at size 3', () => sizesSeen('slurm', 'long').includes(3), 20_000, 200);
    const after = (await squeueNames())
      .filter((j) => j.name.startsWith(mine('long')) && j.state === 'RUNNING')
      .map((j) => j.id);
    // The two local jobs of before and the one grown: nothing was submitted twice.
    expect(after).toHaveLength(3);
    expect(after).toEqual(expect.arrayContaining(before));
    world.act((s, now) => s.cancel('long', now));
    await waitFor(
      'long to leave Slurm',
      async () =>
        !(await squeueNames()).some((j) => j.name.startsWith(mine('long')) && ['RUNNING', 'PENDING'].includes(j.state)),
      20_000,
      250,
    );
  }, 90_000);
});
