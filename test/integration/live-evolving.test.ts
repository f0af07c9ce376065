// An evolving job in live mode on a real Slurm cluster on loopback, reached over SSH: the AMR demo application
// (assets/apps/amr-demo.mjs) grows and shrinks inside its pre-allocation on its own initiative, through `update`
// lines in its from-app.jsonl, while a malleable GADGET demo fills what the pre-allocation leaves unused and is shrunk
// mandatorily to make room. What both applications report is checked against what Concertina gave them. Without
// the daemons, the protocol leg alone (the application, its files, the runner's port) runs on this machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import type { ApplicationMessage } from '../../core/ports.js';
import { createLiveWorld, repositoryAssetsDir, runTag } from '../../runners/live/live-world.js';
import type { LiveAppEvent, LiveWorld } from '../../runners/live/types.js';
import { jobDirName } from '../../runners/managers/naming.js';
import { RemoteApplications, type AppEvent, type ProtocolViolation } from '../../runners/protocol/application-port.js';
import { AppChannel } from '../../runners/protocol/channel.js';
import { decodeFromApp, decodeToApp } from '../../runners/protocol/messages.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { completeLines, requireDaemons, waitFor } from './harness/common.js';
import { hostLogin, sshOptions } from './harness/host-login.js';
import { SLURM_PACKAGES, startSlurm, type SlurmCluster } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready =
  requireDaemons('the live evolving-job integration test', ['openssh-server', ...SLURM_PACKAGES]) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the live evolving-job integration test cannot run: ${missing}`);
  console.warn(`Skipping the live evolving-job integration test: ${missing}.`);
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
let world: LiveWorld;
const events: SchedulerEvent[] = [];
const appEvents: LiveAppEvent[] = [];

const of = <T extends SchedulerEvent['type']>(type: T, jobId?: string) =>
  events.filter(
    (e): e is Extract<SchedulerEvent, { type: T }> =>
      e.type === type && (jobId === undefined || (e as { jobId?: string }).jobId === jobId),
  );

async function waitEvent<T extends SchedulerEvent['type']>(type: T, jobId: string, timeoutMs = 30_000) {
  await waitFor(`${type} of ${jobId}`, () => of(type, jobId).length > 0, timeoutMs, 100);
  return of(type, jobId)[0]!;
}

function submit(spec: JobSpecInput): void {
  const r = world.act((s, now) => s.submit(spec, now));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

/** The run's tag: the scheduler's and the run's id. */
const tag = () => runTag(TAG, world.persistentState().runId);
const jobDir = (jobId: string) => path.join(dir, 'slurm', 'jobs', jobDirName(tag(), jobId));
const fromApp = (jobId: string) =>
  completeLines(path.join(jobDir(jobId), 'from-app.jsonl')).map((line) => {
    const d = decodeFromApp(line);
    if (!d.ok) throw new Error(`${jobId}: bad from-app line ${line}: ${d.reason}`);
    return d.message;
  });
const toApp = (jobId: string) =>
  completeLines(path.join(jobDir(jobId), 'to-app.jsonl')).map((line) => {
    const d = decodeToApp(line);
    if (!d.ok) throw new Error(`${jobId}: bad to-app line ${line}: ${d.reason}`);
    return d.message;
  });

/** Consecutive repeats collapsed. */
const collapse = (values: readonly number[]) => values.filter((v, i) => i === 0 || v !== values[i - 1]);

/** Whether `part` appears in `whole` in order (not necessarily next to each other). */
function subsequence(part: readonly number[], whole: readonly number[]): boolean {
  let i = 0;
  for (const v of whole) if (i < part.length && part[i] === v) i++;
  return i === part.length;
}

/** A job's sizes as the scheduler's events say, in order. */
function sizesOf(jobId: string): number[] {
  const out: number[] = [];
  for (const e of events) {
    if ((e as { jobId?: string }).jobId !== jobId) continue;
    if (e.type === 'job.started' || e.type === 'job.grown' || e.type === 'job.shrunk' || e.type === 'job.evolved')
      out.push(e.size);
  }
  return collapse(out);
}

describe.skipIf(!ready)('an evolving job in live mode on loopback Slurm, over SSH', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-evolving-'));
    [sshd, slurm] = await Promise.all([
      startSshd(),
      startSlurm({ clusterName: 'cncevo', nodes: 2, cpusPerNode: PROCESSORS / 2, minJobAgeS: 2 }),
    ]);
    const access = hostLogin(sshd, dir);
    world = createLiveWorld({
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
      // CooRMv2's rule for the preemptible processors, with precedence to running jobs (they grow into free room).
      // The paper's trigger: the processors left idle beside the malleable job stay for the evolving job submitted
      // next (under PRA, growth at a poll would give them to the running job first, and PRA never shrinks it back).
      scheduler: { approach: 'pra', policy: 'equipartition', tag: TAG, growthAtPoll: 'freed' },
      ...sshOptions(access),
      graceMs: 10_000,
      // The evolving application's updates are read every 250 ms, not every second.
      appPollIntervalMs: 250,
      idleWatchIntervalMs: 1_000,
      log: () => {},
    });
    world.on((e) => events.push(e));
    world.onApplication((e) => appEvents.push(e));
    await world.start();
  }, 90_000);

  afterAll(async () => {
    await world?.stop();
    await Promise.all([slurm?.stop(), sshd?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /**
   * The AMR run (`amrArgs` after its steps, cells per processor and step time) beside a GADGET run that fills what
   * the pre-allocation leaves; checks what the evolving application computed with against Concertina's events, then
   * cancels the malleable one. Returns what the checks looked at, for further ones.
   */
  async function evolvingBesideMalleable(amr: string, gadget: string, amrArgs: readonly string[]) {
    // Local jobs of an earlier case may linger in Slurm for a moment (seen as background load): wait them out.
    await waitFor(
      'an idle cluster',
      () => world.scheduler.snapshot().every((c) => c.background === 0 && c.nonPreemptible + c.preemptible === 0),
      30_000,
      100,
    );
    const from = events.length;
    // The malleable job runs first with all but the evolving job's initial size: its minimum is non-preemptible,
    // its extras are preemptible, so the evolving job's pre-allocation may be placed over them.
    submit({
      id: gadget,
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
    expect(await waitEvent('job.started', gadget)).toMatchObject({ size: PROCESSORS - 2 });
    submit({
      id: amr,
      kind: 'evolving',
      components: [
        {
          min: 1,
          max: PREALLOCATION,
          initial: 2,
          cluster: 'slurm',
          program: NODE,
          args: [path.join(APPS, 'amr-demo.mjs'), ...amrArgs],
        },
      ],
    });
    const started = await waitEvent('job.started', amr).catch((error: Error) => {
      throw new Error(
        `${error.message}\nevents: ${JSON.stringify(events.slice(from).filter((e) => e.type !== 'cluster.polled'))}`,
      );
    });
    expect(started).toMatchObject({ cluster: 'slurm', size: 2, preallocation: PREALLOCATION });
    // The malleable job fills what the pre-allocation leaves unused.
    expect(sizesOf(gadget).at(-1)).toBeGreaterThan(PROCESSORS - PREALLOCATION);

    const done = await waitFor(
      `done from ${amr}`,
      () => appEvents.some((e) => e.type === 'done' && e.jobId === amr),
      150_000,
      250,
    )
      .then(() =>
        appEvents.find((e): e is Extract<LiveAppEvent, { type: 'done' }> => e.type === 'done' && e.jobId === amr)!,
      )
      .catch((error: Error) => {
        throw new Error(
          `${error.message}\nevents: ${JSON.stringify(
            events
              .slice(from)
              .filter((e) => e.type !== 'cluster.polled')
              .slice(-40),
          )}\nto-app: ${JSON.stringify(toApp(amr).slice(-10))}`,
        );
      });
    expect((await waitEvent('job.ended', amr)).state).toBe('completed');

    // It computed correctly, and with the sizes Concertina gave it, in that order.
    expect(done.ok).toBe(true);
    const reported = /sizes ([\d>]+),/
      .exec(done.note ?? '')?.[1]
      ?.split('>')
      .map(Number);
    expect(reported).toBeDefined();
    expect(collapse(reported!)).toEqual(sizesOf(amr));
    // It grew to its pre-allocation and came back down, through its own updates only.
    expect(Math.max(...reported!)).toBe(PREALLOCATION);
    expect(reported!.at(-1)).toBeLessThan(PREALLOCATION);
    const updates = fromApp(amr).flatMap((m) => (m.type === 'update' ? [m] : []));
    // Every update it wrote reached the scheduler, served or refused (the SDK may ask again after a refusal).
    const requested = of('evolve.requested', amr).map((e) => e.processors);
    expect(requested.length + of('evolve.refused', amr).length).toBe(updates.length);
    expect(
      subsequence(
        requested,
        updates.map((u) => u.processors),
      ),
    ).toBe(true);
    const counted = Number(/(\d+) updates/.exec(done.note ?? '')?.[1]);
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThanOrEqual(updates.length);
    expect(of('job.evolved', amr).every((e) => e.preallocation === PREALLOCATION && e.size <= PREALLOCATION)).toBe(
      true,
    );

    // The malleable job was shrunk mandatorily while the evolving one grew (after one of its updates asked for more).
    const firstGrowAsked = events.findIndex(
      (e) => e.type === 'evolve.requested' && e.jobId === amr && e.processors > 2,
    );
    const shrinks = events
      .slice(firstGrowAsked)
      .filter(
        (e): e is Extract<SchedulerEvent, { type: 'job.shrunk' }> =>
          e.type === 'job.shrunk' && e.jobId === gadget && !e.voluntary,
      );
    expect(firstGrowAsked).toBeGreaterThan(0);
    expect(shrinks.length).toBeGreaterThan(0);

    // At no time did the two hold more than the cluster, nor the evolving job more than its pre-allocation.
    const size = new Map<string, number>();
    for (const e of events.slice(from)) {
      if (e.type === 'job.started' || e.type === 'job.grown' || e.type === 'job.shrunk' || e.type === 'job.evolved')
        size.set(e.jobId, e.size);
      if (e.type === 'job.ended') size.delete(e.jobId);
      expect((size.get(amr) ?? 0) + (size.get(gadget) ?? 0)).toBeLessThanOrEqual(PROCESSORS);
      expect(size.get(amr) ?? 0).toBeLessThanOrEqual(PREALLOCATION);
    }

    // The malleable application computed with sizes Concertina gave it (its progress notes say which, at most once a
    // second): never more than it was given, more than the pre-allocation leaves at first, less after the shrinks.
    // Decision: not compared step by step: a shrink is released by the application before Concertina counts it, so
    // it may compute at a size between two of Concertina's (a grow and the release crossing each other).
    const gadgetSizes = collapse(
      fromApp(gadget).flatMap((m) =>
        m.type === 'progress' && /^size (\d+):/.test(m.note ?? '') ? [Number(/^size (\d+):/.exec(m.note!)![1])] : [],
      ),
    );
    const given = sizesOf(gadget);
    expect(Math.max(...gadgetSizes)).toBeLessThanOrEqual(Math.max(...given));
    expect(gadgetSizes[0]).toBeGreaterThan(PROCESSORS - PREALLOCATION);
    expect(Math.min(...gadgetSizes)).toBeLessThan(gadgetSizes[0]!);

    // Once the evolving job is over, the malleable one may have the whole cluster; it is then cancelled.
    world.act((s, now) => s.cancel(gadget, now));
    await waitFor(
      'the cluster to be free',
      () => world.scheduler.snapshot().every((c) => c.nonPreemptible + c.preemptible === 0),
      30_000,
      100,
    );
    return { reported: reported!, updates, gadgetShrinks: toApp(gadget).filter((m) => m.type === 'shrink') };
  }

  /** A failed case leaves nothing running for the next one. */
  afterEach(async () => {
    const running = [...world.scheduler.jobs()].filter((j) => !j.ended);
    if (running.length === 0) return;
    world.act((s, now) => running.forEach((j) => s.cancel(j.id, now)));
    await waitFor(
      'the cluster to be free',
      () => world.scheduler.snapshot().every((c) => c.nonPreemptible + c.preemptible === 0),
      30_000,
      100,
    );
  }, 40_000);

  it('grows and shrinks the evolving application inside its pre-allocation while the malleable one fills the rest and makes room', async () => {
    // Its mesh needs 2 processors at first, up to 8 at its peak (capped by its pre-allocation of 6), then 2 again:
    // 300 steps of at least 200 ms, spontaneous updates.
    const { updates, gadgetShrinks } = await evolvingBesideMalleable('amr', 'gadget', ['300', '150', '200']);
    expect(updates.every((u) => u.announceS === undefined)).toBe(true);
    expect(gadgetShrinks.every((m) => m.type === 'shrink' && m.mandatory && m.deadline === undefined)).toBe(true);
  }, 240_000);

  it('announces its grows ahead: the malleable one is asked to shrink with a deadline, and the grow comes at its time', async () => {
    const { updates, gadgetShrinks } = await evolvingBesideMalleable('amr-announced', 'gadget-2', [
      '200',
      '150',
      '200',
      '3',
    ]);
    const announced = updates.filter((u) => u.announceS === 3);
    expect(announced.length).toBeGreaterThan(0);
    // The shrinks made for announced grows carry their deadline, which lies ahead of when they were written.
    const withDeadline = gadgetShrinks.filter((m) => m.type === 'shrink' && m.deadline !== undefined);
    expect(withDeadline.length).toBeGreaterThan(0);
    // An announced grow takes effect no sooner than announced (scheduler seconds), unless a spontaneous update
    // asked for processors at once meanwhile.
    let checked = 0;
    for (const asked of of('evolve.requested', 'amr-announced').filter((e) => e.announceS === 3)) {
      const after = events.slice(events.indexOf(asked) + 1);
      const grown = after.findIndex(
        (e) => e.type === 'job.evolved' && e.jobId === 'amr-announced' && e.size >= asked.processors,
      );
      if (
        grown < 0 ||
        after
          .slice(0, grown)
          .some((e) => e.type === 'evolve.requested' && e.jobId === 'amr-announced' && e.announceS === 0)
      )
        continue;
      expect(after[grown]!.t - asked.t).toBeGreaterThanOrEqual(3 - 1e-6);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  }, 240_000);
});

describe('the evolving demo over the protocol on this machine (application, files, runner)', () => {
  it('asks for what its mesh needs, computes with what it is granted, obeys a mandatory shrink and checks its result', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'cnc-evolving-local-'));
    const runner = new LocalRunner({ defaultTimeoutMs: 20_000 });
    const child = spawn(NODE, [path.join(APPS, 'amr-demo.mjs'), '150', '150', '40'], {
      env: {
        ...process.env,
        CONCERTINA_JOB_DIR: path.join(root, 'job'),
        CONCERTINA_SIZE: '2',
        CONCERTINA_MIN: '1',
        CONCERTINA_MAX: String(PREALLOCATION),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const channel = new AppChannel(runner);
      const jobDir = path.join(root, 'job');
      await channel.create(jobDir);
      // A scheduler that grants every update inside 1..6 at once, as Concertina does inside a pre-allocation.
      let size = 2;
      const granted = [size];
      const messages: ApplicationMessage[] = [];
      const appEventsHere: AppEvent[] = [];
      const violations: ProtocolViolation[] = [];
      const port: RemoteApplications = new RemoteApplications({
        deliver: (m) => {
          messages.push(m);
          if (m.type === 'update') {
            size = m.processors;
            granted.push(size);
            port.resized('amr', size);
          } else if (m.type === 'released') {
            size -= m.processors;
            granted.push(size);
            port.resized('amr', size);
          }
        },
        onEvent: (e) => appEventsHere.push(e),
        onViolation: (v) => violations.push(v),
        graceMs: 30_000,
        jobs: [['amr', { channel, jobDir }]],
      });
      const until = async (what: string, check: () => boolean) => {
        await waitFor(
          what,
          async () => {
            await port.poll();
            return check();
          },
          60_000,
          30,
        ).catch((error: Error) => {
          throw new Error(`${error.message}; messages ${JSON.stringify(messages.slice(-8))}; output ${output}`);
        });
      };
      await until('a grow to 4', () => size >= 4);
      // Like the malleable demos, it gives back what a mandatory shrink asks (never below its minimum).
      port.requestShrink(1, 'amr', 2, true);
      await until('the release of shrink 1', () => messages.some((m) => m.type === 'released' && m.offerId === 1));
      expect(messages.find((m) => m.type === 'shrinkAnswer')).toEqual({
        type: 'shrinkAnswer',
        offerId: 1,
        jobId: 'amr',
        accepted: 2,
      });
      await until('done', () => appEventsHere.some((e) => e.type === 'done'));
      const done = appEventsHere.find((e): e is Extract<AppEvent, { type: 'done' }> => e.type === 'done')!;
      expect(done.ok).toBe(true);
      const reported = /sizes ([\d>]+),/
        .exec(done.note ?? '')![1]!
        .split('>')
        .map(Number);
      // It computed with every size it was granted, in order, and asked again after the shrink.
      expect(collapse(reported)).toEqual(collapse(granted));
      expect(Math.max(...reported)).toBe(PREALLOCATION);
      expect(violations).toEqual([]);
      expect(
        await new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', resolve))),
      ).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await runner.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 90_000);
});
