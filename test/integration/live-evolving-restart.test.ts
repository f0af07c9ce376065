// A console restart in the middle of an evolving job's run, on a real Slurm cluster on loopback reached over SSH
// (issue 4's recovery with issue 5's evolving jobs): the AMR demo grows inside its pre-allocation beside a malleable
// GADGET demo filling the rest; the live world is stopped mid-run and a new one started on the state the first one
// persisted. The evolving job must be adopted once (nothing submitted twice), hold its pre-allocation again, have its
// updates served (those written while the console was away too) and end with its self-check ok, having computed with
// the sizes the scheduler's events say.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import type { ClusterSnapshot } from '../../core/scheduler/scheduler.js';
import { createLiveWorld, repositoryAssetsDir, runTag, type LiveWorldOptions } from '../../runners/live/live-world.js';
import type { LiveAppEvent, LiveWorld } from '../../runners/live/types.js';
import { jobDirName, parseLocalJobName } from '../../runners/managers/naming.js';
import { completeLines, requireDaemons, run, sleep, waitFor } from './harness/common.js';
import { hostLogin, sshOptions } from './harness/host-login.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready = requireDaemons('the live evolving-job restart test', ['openssh-server', ...SLURM_PACKAGES]) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the live evolving-job restart test cannot run: ${missing}`);
  console.warn(`Skipping the live evolving-job restart test: ${missing}.`);
  return false;
}

const NODE = process.execPath;
const APPS = path.join(repositoryAssetsDir(), 'apps');
const TAG = 'concertina';
const PROCESSORS = 8;
const PREALLOCATION = 6;

let sshd: Sshd;
let slurm: SlurmCluster;
let dir: string;
let options: LiveWorldOptions;
let world: LiveWorld | undefined;
const events: SchedulerEvent[] = [];
const appEvents: LiveAppEvent[] = [];
/** Every Slurm job id seen per local job name of this tag (sampled from squeue). */
const slurmIds = new Map<string, Set<string>>();
let sampler: NodeJS.Timeout | undefined;

const of = <T extends SchedulerEvent['type']>(type: T, jobId: string, list: readonly SchedulerEvent[] = events) =>
  list.filter(
    (e): e is Extract<SchedulerEvent, { type: T }> => e.type === type && (e as { jobId?: string }).jobId === jobId,
  );

async function waitEvent<T extends SchedulerEvent['type']>(type: T, jobId: string, timeoutMs = 30_000) {
  await waitFor(`${type} of ${jobId}`, () => of(type, jobId).length > 0, timeoutMs, 100);
  return of(type, jobId)[0]!;
}

function follow(w: LiveWorld): void {
  w.on((e) => events.push(e));
  w.onApplication((e) => appEvents.push(e));
}

function submit(spec: JobSpecInput): void {
  const r = world!.act((s, now) => s.submit(spec, now));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

/** The run's tag: the scheduler's and the run's id (set once the first world has started; the restart keeps it). */
let tag = TAG;
const jobDir = (jobId: string) => path.join(dir, 'slurm', 'jobs', jobDirName(tag, jobId));
/** The application's from-app lines as written (seq and message). */
const fromAppLines = (jobId: string) =>
  completeLines(path.join(jobDir(jobId), 'from-app.jsonl')).map(
    (line) => JSON.parse(line) as { seq: number; type: string; processors?: number; note?: string },
  );

const collapse = (values: readonly number[]) => values.filter((v, i) => i === 0 || v !== values[i - 1]);

function subsequence(part: readonly number[], whole: readonly number[]): boolean {
  let i = 0;
  for (const v of whole) if (i < part.length && part[i] === v) i++;
  return i === part.length;
}

/** A job's sizes as the scheduler's events say (both worlds), in order; an adoption restates the size. */
function sizesOf(jobId: string): number[] {
  const out: number[] = [];
  for (const e of events) {
    if ((e as { jobId?: string }).jobId !== jobId) continue;
    if (
      e.type === 'job.started' ||
      e.type === 'job.grown' ||
      e.type === 'job.shrunk' ||
      e.type === 'job.evolved' ||
      e.type === 'job.adopted'
    )
      out.push(e.size);
  }
  return collapse(out);
}

async function sampleSqueue(): Promise<void> {
  const lines = await run('squeue', ['--noheader', '--all', '--format=%i|%j'], slurm.env, 10_000).catch(() => '');
  for (const line of lines.split('\n')) {
    const [id, name] = line.trim().split('|');
    if (!id || !name || !parseLocalJobName(name, tag)) continue;
    const ids = slurmIds.get(name) ?? new Set<string>();
    ids.add(id);
    slurmIds.set(name, ids);
  }
}

describe.skipIf(!ready)('an evolving job across a console restart, on loopback Slurm over SSH', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-evolving-restart-'));
    [sshd, slurm] = await Promise.all([
      startSshd(),
      startSlurm({ clusterName: 'cncevr', nodes: 2, cpusPerNode: PROCESSORS / 2, minJobAgeS: 2 }),
    ]);
    const access = hostLogin(sshd, dir);
    options = {
      clusters: [
        {
          name: 'slurm',
          login: access.login,
          system: 'slurm',
          env: slurm.env,
          workRoot: path.join(dir, 'slurm'),
          pollIntervalS: 1,
        },
      ],
      scheduler: { approach: 'pra', policy: 'equipartition', tag: TAG },
      ...sshOptions(access),
      graceMs: 10_000,
      appPollIntervalMs: 250,
      idleWatchIntervalMs: 1_000,
      log: () => {},
    };
    world = createLiveWorld(options);
    follow(world);
    await world.start();
    tag = runTag(TAG, world.persistentState().runId);
    let sampling = false;
    sampler = setInterval(() => {
      if (sampling) return;
      sampling = true;
      void sampleSqueue().finally(() => (sampling = false));
    }, 250);
  }, 90_000);

  afterAll(async () => {
    if (sampler) clearInterval(sampler);
    if (world) {
      const running = [...world.scheduler.jobs()].filter((j) => !j.ended);
      world.act((s, now) => running.forEach((j) => s.cancel(j.id, now)));
      await world.stop();
    }
    await Promise.all([slurm?.stop(), sshd?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('adopts the evolving job once, holds its pre-allocation again, serves its later updates and lets it finish correctly', async () => {
    submit({
      id: 'gadget',
      kind: 'malleable',
      components: [
        {
          min: 1,
          max: PROCESSORS,
          initial: PROCESSORS - 2,
          cluster: 'slurm',
          program: NODE,
          args: [path.join(APPS, 'gadget-demo.mjs'), '300', '100000000'],
        },
      ],
    });
    // Submitted before gadget runs: submitted after, a poll in between would let PRA grow gadget into the 2 idle
    // processors, and PRA never shrinks a running job for a waiting one, so amr would wait for gadget to end.
    // 300 steps of at least 200 ms: its mesh needs 2 processors at first, its pre-allocation's 6 at its peak.
    submit({
      id: 'amr',
      kind: 'evolving',
      components: [
        {
          min: 1,
          max: PREALLOCATION,
          initial: 2,
          cluster: 'slurm',
          program: NODE,
          args: [path.join(APPS, 'amr-demo.mjs'), '300', '150', '200'],
        },
      ],
    });
    expect(await waitEvent('job.started', 'gadget')).toMatchObject({ size: PROCESSORS - 2 });
    expect(await waitEvent('job.started', 'amr')).toMatchObject({
      cluster: 'slurm',
      size: 2,
      preallocation: PREALLOCATION,
    });

    // Mid-run: it asks to grow, and the malleable job is being shrunk to make room. As the host does, the state is
    // saved at each event; the world goes away at once, without saving again, the grow still under way.
    let saved:
      | {
          state: { jobs: { spec: { id: string }; lastSeq?: number; updateTarget?: number }[] };
          snapshot: ClusterSnapshot;
          sizes: { amr: number; gadget: number };
        }
      | undefined;
    let asked = 0;
    const first = world!;
    const unlisten = first.on((e) => {
      if (!saved && (e.type !== 'evolve.requested' || e.jobId !== 'amr' || e.processors <= 2)) return;
      if (!saved && e.type === 'evolve.requested') asked = e.processors;
      saved = {
        state: JSON.parse(JSON.stringify(first.persistentState())),
        snapshot: first.scheduler.snapshot()[0]!,
        sizes: { amr: first.scheduler.job('amr')!.held, gadget: first.scheduler.job('gadget')!.held },
      };
    });
    await waitFor('amr to ask for more', () => saved !== undefined, 60_000, 10);
    unlisten();
    const { state, snapshot: snapshotBefore, sizes: sizesBefore } = saved!;
    expect(state.jobs.map((j) => j.spec.id).sort()).toEqual(['amr', 'gadget']);
    const handledSeq = state.jobs.find((j) => j.spec.id === 'amr')!.lastSeq ?? 0;
    const pendingTarget = state.jobs.find((j) => j.spec.id === 'amr')!.updateTarget;
    const before = events.length;
    await world!.stop();
    world = undefined;
    // While the console is away the application goes on computing and asking (its mesh still grows).
    await waitFor(
      'an update written while the console is away',
      () => fromAppLines('amr').some((l) => l.type === 'update' && l.seq > handledSeq),
      30_000,
      100,
    );
    await sleep(1_500);
    const writtenAway = fromAppLines('amr').filter((l) => l.type === 'update' && l.seq > handledSeq);

    world = createLiveWorld({ ...options, restore: state });
    follow(world);
    await world.start();
    const restarted = events.slice(before);
    expect(world.recovered().find((r) => r.jobId === 'amr')).toMatchObject({ cluster: 'slurm', outcome: 'adopted' });
    expect(of('job.adopted', 'amr', restarted)).toHaveLength(1);
    const amrJob = world.scheduler.job('amr')!;
    expect(amrJob.state).toBe('running');
    // Its pre-allocation is held again: what it does not use is pre-allocated, not free nor given non-preemptibly.
    // The Grid's figures: its used part non-preemptible, the rest pre-allocated unless malleable extras fill it.
    const [cluster] = world.scheduler.snapshot();
    const gadgetJob = world.scheduler.job('gadget')!;
    expect(cluster).toMatchObject({ nonPreemptible: amrJob.held + 1, preemptible: gadgetJob.held - 1 });
    expect(cluster!.preallocatedUnused).toBe(
      Math.max(0, PREALLOCATION - amrJob.held - cluster!.preemptible - cluster!.earmarked),
    );
    // The earlier run's local jobs are Concertina's again, not background (at most a released one still listed).
    expect(cluster!.background).toBeLessThanOrEqual(1);
    // The same figures as before the stop when both jobs were found at the sizes they had then.
    if (amrJob.held === sizesBefore.amr && gadgetJob.held === sizesBefore.gadget) {
      const figures = (c: typeof cluster) => ({
        nonPreemptible: c!.nonPreemptible,
        preallocatedUnused: c!.preallocatedUnused,
        preemptible: c!.preemptible,
        earmarked: c!.earmarked,
      });
      expect(figures(cluster)).toEqual(figures(snapshotBefore));
    }
    // Nothing else gets the pre-allocation non-preemptibly: a rigid job needing more than lies outside it and the
    // malleable minimum (8 - 6 - 1 = 1) waits for the evolving job to end, even though shrinking the malleable
    // extras could make room for it.
    submit({
      id: 'probe',
      kind: 'rigid',
      components: [
        { processors: PROCESSORS - PREALLOCATION, cluster: 'slurm', program: '/bin/sh', args: ['-c', 'sleep 1'] },
      ],
    });

    // The grow under way at the stop is asked again at once (it is not in from-app.jsonl past the saved seq).
    expect(pendingTarget).toBe(asked);
    await waitFor(
      'the pending grow asked again',
      () => of('evolve.requested', 'amr', events.slice(before)).length > 0,
      10_000,
      50,
    );
    expect(of('evolve.requested', 'amr', events.slice(before))[0]!.processors).toBe(pendingTarget);
    // The updates written while it was away are served, and so are the later ones.
    await waitFor(
      'the away updates to reach the scheduler',
      () =>
        of('evolve.requested', 'amr').length > 0 &&
        subsequence(
          writtenAway.map((u) => u.processors!),
          of('evolve.requested', 'amr', events.slice(before)).map((e) => e.processors),
        ),
      30_000,
      100,
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\naway: ${JSON.stringify(writtenAway)}\nafter: ${JSON.stringify(
          events
            .slice(before)
            .filter((e) => e.type !== 'cluster.polled')
            .slice(-30),
        )}`,
      );
    });
    await waitFor(
      'done from amr',
      () => appEvents.some((e) => e.type === 'done' && e.jobId === 'amr'),
      150_000,
      250,
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\nevents: ${JSON.stringify(
          events
            .slice(before)
            .filter((e) => e.type !== 'cluster.polled')
            .slice(-40),
        )}`,
      );
    });
    expect((await waitEvent('job.ended', 'amr')).state).toBe('completed');
    const after = events.slice(before);
    expect(of('job.evolved', 'amr', after).length).toBeGreaterThan(0);
    const probeStarted = events.findIndex((e) => e.type === 'job.started' && e.jobId === 'probe');
    expect(
      probeStarted < 0 || probeStarted > events.findIndex((e) => e.type === 'job.ended' && e.jobId === 'amr'),
    ).toBe(true);

    // Nothing twice: one submission, one start, one adoption, one program (one hello, one Slurm job for member 0).
    expect(of('job.submitted', 'amr')).toHaveLength(1);
    expect(of('job.started', 'amr')).toHaveLength(1);
    expect(of('job.adopted', 'amr')).toHaveLength(1);
    expect(of('job.adopted', 'gadget')).toHaveLength(1);
    expect(appEvents.filter((e) => e.type === 'hello' && e.jobId === 'amr')).toHaveLength(1);
    expect(appEvents.filter((e) => e.type === 'hello' && e.jobId === 'gadget')).toHaveLength(1);
    for (const jobId of ['amr', 'gadget']) {
      const program = [...slurmIds].filter(
        ([name]) => parseLocalJobName(name, tag)?.jobId === jobId && parseLocalJobName(name, tag)?.member === 0,
      );
      expect(program.map(([name, ids]) => [name, ids.size])).toEqual([[expect.any(String), 1]]);
    }

    // It computed correctly, with the sizes Concertina gave it, in that order, up to its pre-allocation.
    const done = appEvents.find(
      (e): e is Extract<LiveAppEvent, { type: 'done' }> => e.type === 'done' && e.jobId === 'amr',
    )!;
    expect(done.ok).toBe(true);
    const reported = /sizes ([\d>]+),/
      .exec(done.note ?? '')?.[1]
      ?.split('>')
      .map(Number);
    expect(reported).toBeDefined();
    expect(collapse(reported!)).toEqual(sizesOf('amr'));
    expect(Math.max(...reported!)).toBe(PREALLOCATION);
    expect(of('job.evolved', 'amr').every((e) => e.preallocation === PREALLOCATION && e.size <= PREALLOCATION)).toBe(
      true,
    );

    // Across both worlds, the two never held more than the cluster, nor the evolving job more than its pre-allocation.
    const size = new Map<string, number>();
    for (const e of events) {
      if (
        e.type === 'job.started' ||
        e.type === 'job.grown' ||
        e.type === 'job.shrunk' ||
        e.type === 'job.evolved' ||
        e.type === 'job.adopted'
      )
        size.set(e.jobId, e.size);
      if (e.type === 'job.ended') size.delete(e.jobId);
      expect((size.get('amr') ?? 0) + (size.get('gadget') ?? 0)).toBeLessThanOrEqual(PROCESSORS);
      expect(size.get('amr') ?? 0).toBeLessThanOrEqual(PREALLOCATION);
    }
    world.act((s, now) => s.cancel('gadget', now));
    await waitFor(
      'the cluster to be free',
      () => world!.scheduler.snapshot().every((c) => c.nonPreemptible + c.preemptible === 0),
      30_000,
      100,
    );
  }, 300_000);
});
