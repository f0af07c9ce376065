// Live mode on this machine alone (no daemons needed, so it runs everywhere): one `local` cluster reached with the
// local runner, a demo application grown and shrunk through the application control protocol, the cluster's
// environment reaching its commands, and a restart that adopts the running job and queues again the one never
// launched.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { FINAL_STATES } from '../../core/model/job.js';
import { createLiveWorld, repositoryAssetsDir, runTag, type LiveWorldOptions } from '../../runners/live/live-world.js';
import type { LiveAppEvent, LiveWorld } from '../../runners/live/types.js';
import { jobDirName } from '../../runners/managers/naming.js';
import { completeLines, waitFor } from './harness/common.js';
import { localCluster } from './harness/local-cluster.js';
import { isAlive, ledger, waitForWorkers } from './harness/recruited.js';

let dir: string;
let options: LiveWorldOptions;
let world: LiveWorld;
const events: SchedulerEvent[] = [];
const appEvents: LiveAppEvent[] = [];

const of = (type: SchedulerEvent['type'], jobId: string) =>
  events.filter((e) => e.type === type && (e as { jobId?: string }).jobId === jobId);
const waitEvent = (type: SchedulerEvent['type'], jobId: string, timeoutMs = 20_000) =>
  waitFor(`${type} of ${jobId}`, () => of(type, jobId).length > 0, timeoutMs, 50);
/** The run's tag: the scheduler's and the run's id (the restart below restores the same run). */
const tag = (w: LiveWorld) => runTag('concertina', w.persistentState().runId);
const jobDir = (jobId: string) => path.join(dir, 'work', 'jobs', jobDirName(tag(world), jobId));

function act(command: Parameters<LiveWorld['act']>[0]): void {
  const r = world.act(command) as { ok: boolean; errors?: unknown };
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

function sizesSeen(jobId: string): number[] {
  const out: number[] = [];
  for (const line of completeLines(path.join(jobDir(jobId), 'from-app.jsonl'))) {
    const size = /"note":"size (\d+):/.exec(line)?.[1];
    if (size !== undefined && Number(size) !== out.at(-1)) out.push(Number(size));
  }
  return out;
}

/** Processes the local batch system started and that still run (its state directory holds one folder per job). */
function localJobsAlive(): number {
  const state = path.join(dir, 'work', 'local');
  let alive = 0;
  for (const entry of readdirSync(state)) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      process.kill(Number(readFileSync(path.join(state, entry, 'pid'), 'utf8').trim()), 0);
      alive++;
    } catch {
      // ended, or never started
    }
  }
  return alive;
}

function follow(w: LiveWorld): void {
  w.on((e) => events.push(e));
  w.onApplication((e) => appEvents.push(e));
}

describe('live mode on a plain host (this machine)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-local-'));
    options = {
      // The cluster's environment reaches its commands and so the jobs they start (checked by `waits`).
      clusters: [localCluster(path.join(dir, 'work'), { env: { CNC_PROBE: `it's "$(nothing)"` } })],
      // The paper's trigger: sizes change here only by the operator's commands (idle growth: live-operator.test.ts).
      scheduler: { approach: 'pra', policy: 'fpsma', growthAtPoll: 'freed' },
      graceMs: 5_000,
      idleWatchIntervalMs: 500,
      log: () => {},
    };
    world = createLiveWorld(options);
    follow(world);
    await world.start();
  }, 30_000);

  // Whatever a case left running is cancelled and gone before the next starts (one failure does not cause another).
  afterEach(async () => {
    if (!world) return;
    for (const job of [...world.scheduler.jobs()])
      if (!FINAL_STATES.has(job.state)) act((s, now) => s.cancel(job.id, now));
    await waitFor('no local job left running', () => localJobsAlive() === 0, 30_000, 100);
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('grows and shrinks a demo application, which computes with the sizes Concertina gives it', async () => {
    expect(world.scheduler.grid.clusters.map((c) => [c.name, c.processors])).toEqual([['here', 4]]);
    // The demo application runs from the copy staged into the cluster's workRoot, not from this repository.
    const staged = world.assetsDir!('here')!;
    expect(staged).toBe(path.join(dir, 'work', 'assets'));
    expect(readFileSync(path.join(staged, 'apps', 'gadget-demo.mjs'))).toEqual(
      readFileSync(path.join(repositoryAssetsDir(), 'apps', 'gadget-demo.mjs')),
    );
    act((s, now) =>
      s.submit(
        {
          id: 'g',
          kind: 'malleable',
          components: [
            {
              min: 1,
              max: 4,
              initial: 1,
              program: process.execPath,
              args: [path.join(staged, 'apps', 'gadget-demo.mjs'), '200', '12000'],
            },
          ],
        },
        now,
      ),
    );
    await waitEvent('job.started', 'g');
    await waitFor('hello', () => appEvents.some((e) => e.type === 'hello' && e.jobId === 'g'), 20_000, 50);
    act((s, now) => s.resize('g', 2, now));
    await waitEvent('job.grown', 'g');
    await waitFor('size 3 in use', () => sizesSeen('g').includes(3), 20_000, 100);
    // The grown processors compute: a worker runs inside each extra local job, below its slot stub (KOALA V-A).
    const [m1, m2] = await waitForWorkers(jobDir('g'), ['m1', 'm2']);
    act((s, now) => s.resize('g', -1, now));
    await waitEvent('job.shrunk', 'g');
    // The application stopped the worker of the slot it gave back before releasing it.
    expect(isAlive(m2!.pid)).toBe(false);
    await waitFor('done', () => appEvents.some((e) => e.type === 'done' && e.jobId === 'g'), 60_000, 100);
    const done = appEvents.find((e) => e.type === 'done' && e.jobId === 'g');
    expect(done).toMatchObject({
      ok: true,
      cluster: 'here',
      note: expect.stringMatching(/^12000\/12000 steps of 200 bodies/),
    });
    await waitEvent('job.ended', 'g');
    expect(of('job.ended', 'g')[0]).toMatchObject({ state: 'completed' });
    expect(sizesSeen('g')).toEqual([1, 3, 2]);
    // Who computed what matches what it reports: every body's forces at every step, some of them on m1 and m2.
    const work = ledger(jobDir('g'));
    expect(work.reduce((sum, e) => sum + e.items, 0)).toBe(200 * 12_001);
    // (In the order units first answered.)
    expect(
      work
        .filter((e) => e.unit !== 'm0')
        .map((e) => [e.unit, e.pid])
        .sort(),
    ).toEqual([
      ['m1', m1!.pid],
      ['m2', m2!.pid],
    ]);
    expect(work.every((e) => e.tasks > 0)).toBe(true);
    // The stub of each extra processor announced its slot while it held it, and goes once the job has ended.
    await waitFor(
      'the slot stubs to go',
      () => readdirSync(path.join(jobDir('g'), 'slots')).length === 0 && localJobsAlive() === 0,
      10_000,
      100,
    );
  }, 90_000);

  it('after a restart adopts the running job, queues again the one never launched, and starts nothing twice', async () => {
    // The first case's cancelled stubs count as background until a poll no longer lists them.
    await waitFor('every slot idle at a poll', () => world.scheduler.snapshot()[0]!.idle === 4, 30_000, 50);
    act((s, now) =>
      s.submit(
        {
          id: 'sleeper',
          kind: 'malleable',
          components: [{ min: 1, max: 4, initial: 3, program: '/bin/sh', args: ['-c', 'exec sleep 300'] }],
        },
        now,
      ),
    );
    await waitEvent('job.started', 'sleeper');
    act((s, now) =>
      s.submit(
        {
          id: 'waits',
          kind: 'rigid',
          components: [{ processors: 2, program: '/bin/sh', args: ['-c', 'printf %s "$CNC_PROBE" > probe.txt'] }],
        },
        now,
      ),
    );
    await waitFor('waits to be queued', () => world.scheduler.job('waits')?.state === 'queued', 5_000, 20);
    const alive = localJobsAlive();
    expect(alive).toBe(3);
    const state = JSON.parse(JSON.stringify(world.persistentState()));
    await world.stop();

    world = createLiveWorld({ ...options, restore: state });
    follow(world);
    await world.start();
    expect([...world.recovered()].sort((a, b) => a.jobId.localeCompare(b.jobId))).toEqual([
      { jobId: 'sleeper', cluster: 'here', outcome: 'adopted', detail: 'running with 3 processors' },
      { jobId: 'waits', outcome: 'requeued', detail: 'never launched: queued again' },
    ]);
    expect(world.scheduler.job('sleeper')).toMatchObject({ state: 'running', size: 3 });
    // The restarted world found the staged assets unchanged: staging again copies nothing.
    expect((await world.stageAssets!()).map((r) => r.copied)).toEqual([[]]);
    // Ids generated from now on go on after the earlier run's.
    const fresh = world.act((s, now) =>
      s.submit({ kind: 'rigid', components: [{ processors: 1, program: '/bin/true' }] }, now),
    );
    expect(fresh.ok && fresh.value.id).toBe(`job-${state.submitted + 1}`);
    expect(localJobsAlive()).toBeGreaterThanOrEqual(3);
    act((s, now) => s.cancel('sleeper', now));
    await waitEvent('job.ended', 'sleeper');
    await waitEvent('job.ended', 'waits', 30_000);
    expect(of('job.ended', 'waits').at(-1)).toMatchObject({ state: 'completed' });
    expect(readFileSync(path.join(jobDir('waits'), 'probe.txt'), 'utf8')).toBe(`it's "$(nothing)"`);
    await waitFor('every local job to end', () => localJobsAlive() === 0, 20_000, 100);
  }, 60_000);
});

describe('consecutive live runs on one plain host', () => {
  let root: string;
  const worlds: LiveWorld[] = [];
  const runEvents = new Map<LiveWorld, SchedulerEvent[]>();

  async function startRun(restore?: unknown): Promise<LiveWorld> {
    const w = createLiveWorld({
      clusters: [localCluster(path.join(root, 'work'))],
      // The paper's trigger: sizes change here only by the operator's commands (idle growth: live-operator.test.ts).
      scheduler: { approach: 'pra', policy: 'fpsma', growthAtPoll: 'freed' },
      idleWatchIntervalMs: 500,
      log: () => {},
      ...(restore !== undefined && { restore }),
    });
    const seen: SchedulerEvent[] = [];
    w.on((e) => seen.push(e));
    runEvents.set(w, seen);
    worlds.push(w);
    await w.start();
    return w;
  }
  const started = (w: LiveWorld, jobId: string) =>
    waitFor(
      `${jobId} to start`,
      () => runEvents.get(w)!.some((e) => e.type === 'job.started' && e.jobId === jobId),
      20_000,
      50,
    );
  /** Runs of the local batch system's jobs, by their run's job directory. */
  const runsIn = (w: LiveWorld, jobId: string) =>
    readFileSync(path.join(root, 'work', 'jobs', jobDirName(tag(w), jobId), 'runs.txt'), 'utf8');
  const sleeper = (processors: number) => ({
    kind: 'rigid',
    components: [{ processors, program: '/bin/sh', args: ['-c', 'echo run >> runs.txt; exec sleep 300'] }],
  });

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-runs-'));
  });
  afterAll(async () => {
    for (const w of worlds) await w.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("a new run submits its own job-1 while the earlier run's job-1 still runs, and counts that one as background", async () => {
    const first = await startRun();
    const r1 = first.act((s, now) => s.submit(sleeper(2), now));
    expect(r1.ok && r1.value.id).toBe('job-1');
    await started(first, 'job-1');
    const firstState = JSON.parse(JSON.stringify(first.persistentState()));
    await first.stop(); // the switch off: its job goes on running

    const second = await startRun();
    expect(second.recovered()).toEqual([]);
    await waitFor(
      "the first run's job as background",
      () => second.scheduler.snapshot()[0]!.background === 2,
      10_000,
      50,
    );
    const r2 = second.act((s, now) => s.submit(sleeper(1), now));
    expect(r2.ok && r2.value.id).toBe('job-1');
    await started(second, 'job-1');
    // Submitted for real, in a directory of its own; the first run's job-1 untouched.
    expect(runsIn(second, 'job-1')).toBe('run\n');
    expect(runsIn(first, 'job-1')).toBe('run\n');
    expect(tag(second)).not.toBe(tag(first));
    expect(second.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 1, background: 2 });
    await second.stop();

    // The first run, resumed, still knows its job (its run id is in its state) and ends it.
    const resumed = await startRun(firstState);
    expect(tag(resumed)).toBe(tag(first));
    expect(resumed.recovered()).toEqual([
      { jobId: 'job-1', cluster: 'here', outcome: 'adopted', detail: 'running with 2 processors' },
    ]);
    await waitFor(
      "the second run's job as background",
      () => resumed.scheduler.snapshot()[0]!.background === 1,
      10_000,
      50,
    );
    resumed.act((s, now) => s.cancel('job-1', now));
    await waitFor(
      'job-1 of the first run to end',
      () => runEvents.get(resumed)!.some((e) => e.type === 'job.ended' && e.jobId === 'job-1'),
      20_000,
      50,
    );
    await resumed.stop();
    const last = await startRun(JSON.parse(JSON.stringify(second.persistentState())));
    last.act((s, now) => s.cancel('job-1', now));
    await waitFor(
      'job-1 of the second run to end',
      () => runEvents.get(last)!.some((e) => e.type === 'job.ended' && e.jobId === 'job-1'),
      20_000,
      50,
    );
  }, 90_000);

  it('a job of its own run found by tag but missing from the restored state counts as background, and its id is not used again', async () => {
    const run = await startRun();
    for (const processors of [1, 2]) run.act((s, now) => s.submit(sleeper(processors), now));
    await started(run, 'job-1');
    await started(run, 'job-2');
    // A state taken before job-2 was submitted (the console died before it was stored).
    const state = JSON.parse(JSON.stringify(run.persistentState()));
    state.jobs = state.jobs.filter((j: { spec: { id: string } }) => j.spec.id === 'job-1');
    state.submitted = 1;
    await run.stop();

    const resumed = await startRun(state);
    expect([...resumed.recovered()].sort((a, b) => a.jobId.localeCompare(b.jobId))).toEqual([
      { jobId: 'job-1', cluster: 'here', outcome: 'adopted', detail: 'running with 1 processors' },
      {
        jobId: 'job-2',
        cluster: 'here',
        outcome: 'refused',
        detail:
          'found on the cluster (1 of 1 local jobs running) but unknown to the restored state: left running, counted as background load',
      },
    ]);
    // Its 2 processors are not Concertina's for the scheduler: 1 is left, not 3.
    await waitFor('job-2 as background', () => resumed.scheduler.snapshot()[0]!.background === 2, 10_000, 50);
    expect(resumed.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 1, background: 2, idle: 1 });
    // The next generated id goes past it, so that nothing is tied to its local jobs.
    const next = resumed.act((s, now) => s.submit(sleeper(1), now));
    expect(next.ok && next.value.id).toBe('job-3');
    await started(resumed, 'job-3');
    expect(runsIn(resumed, 'job-2')).toBe('run\n');
    for (const id of ['job-1', 'job-3']) resumed.act((s, now) => s.cancel(id, now));
    await waitFor(
      'its jobs to end',
      () =>
        ['job-1', 'job-3'].every((id) => runEvents.get(resumed)!.some((e) => e.type === 'job.ended' && e.jobId === id)),
      20_000,
      50,
    );
    await resumed.stop();
    // job-2 is left to an operator: ended here by the pid the local batch system recorded.
    killLocalJobs(path.join(root, 'work', 'local'));
  }, 90_000);
});

/** Kills what the local batch system in `state` still runs (the processes this test started, by their pids). */
function killLocalJobs(state: string): void {
  for (const entry of readdirSync(state)) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      process.kill(-Number(readFileSync(path.join(state, entry, 'pid'), 'utf8').trim()), 'SIGKILL');
    } catch {
      // ended already, or never started
    }
  }
}
