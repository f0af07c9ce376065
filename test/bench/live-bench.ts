// Live-mode latencies on the loopback Slurm cluster and Grid Engine cell, reached through SSH to the harness's sshd:
// grow (offer sent → the application has accepted it and its new processors are active: the `resources` message
// with the new size is written) and shrink (request → the application has released the processors and their local
// jobs are cancelled: the `resources` message with the smaller size is written), p50 and p95; and local-job
// submissions per second through one SSH connection. Null figures with a reason when the daemons are missing.
// LIVE_BENCH_TRACE=1 prints each operation's steps (offer, answer, grown or shrunk, resources) with their times.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SchedulerEvent } from '../../core/events.js';
import { createLiveWorld, repositoryAssetsDir, runTag } from '../../runners/live/live-world.js';
import type { LiveClusterConfig, LiveWorld } from '../../runners/live/types.js';
import { BatchLocalManager } from '../../runners/managers/batch-local-manager.js';
import { createBatchSystem } from '../../runners/managers/index.js';
import { jobDirName } from '../../runners/managers/naming.js';
import { EnvRunner } from '../../runners/live/env-runner.js';
import type { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { openSshRunner } from '../../runners/ssh/ssh-runner.js';
import { missingPackages, waitFor } from '../integration/harness/common.js';
import { hostLogin, sshOptions, type HostLogin } from '../integration/harness/host-login.js';
import { SGE_PACKAGES, startSge } from '../integration/harness/sge.js';
import { SLURM_PACKAGES, startSlurm } from '../integration/harness/slurm.js';
import { sshdMissing, startSshd } from '../integration/harness/sshd.js';

const IDLE_APP = `(async () => {
  const { connect } = await import(process.argv[1]);
  const app = await connect();
  while (!app.stopRequested) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await app.sync();
  }
  app.done(true);
})();`;

export interface ResizeLatency {
  readonly grow_p50_ms: number;
  readonly grow_p95_ms: number;
  /**
   * Grows that follow no other batch-system event for 1.5 s: Grid Engine's scheduler runs at most once a second, so
   * a grow right after a shrink's cancel waits for its next run, and one on a quiet cell does not.
   */
  readonly grow_quiet_p50_ms: number;
  readonly shrink_p50_ms: number;
  readonly shrink_p95_ms: number;
  readonly samples: number;
  readonly submissions_per_s: number;
}

export type LiveBench = { slurm: ResizeLatency | null; sge: ResizeLatency | null; skipped_reason?: string };

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]!);
}

export async function liveBench(log: (text: string) => void, samples = 8): Promise<LiveBench> {
  const missing = missingPackages(['openssh-server', ...SLURM_PACKAGES, ...SGE_PACKAGES]);
  const why =
    sshdMissing() ??
    (missing.length
      ? `Debian packages missing: ${missing.join(' ')}`
      : process.getuid?.() !== 0
        ? 'the loopback daemons must be started as root'
        : undefined);
  if (why) {
    log(`live bench skipped: ${why}`);
    return { slurm: null, sge: null, skipped_reason: why };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-bench-'));
  const sshd = await startSshd();
  try {
    const ssh = hostLogin(sshd, dir);
    const slurm = await startSlurm({ clusterName: 'cncbench', nodes: 2, cpusPerNode: 8, minJobAgeS: 2 });
    let slurmFigures: ResizeLatency;
    try {
      slurmFigures = await measure('slurm', slurm.env, dir, ssh, samples, log);
    } finally {
      await slurm.stop();
    }
    const sge = await startSge({ slots: 16 });
    let sgeFigures: ResizeLatency;
    try {
      sgeFigures = await measure('sge', sge.env, dir, ssh, samples, log);
    } finally {
      await sge.stop();
    }
    return { slurm: slurmFigures, sge: sgeFigures };
  } finally {
    await sshd.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(
  system: 'slurm' | 'sge',
  env: Readonly<Record<string, string>>,
  dir: string,
  ssh: HostLogin,
  samples: number,
  log: (text: string) => void,
): Promise<ResizeLatency> {
  const workRoot = path.join(dir, system);
  const config: LiveClusterConfig = {
    name: system,
    login: { ...ssh.login, keepaliveS: 20 },
    system,
    env: { ...env },
    workRoot,
    threshold: 1,
    pollIntervalS: 10,
    batch: {},
  };
  const { knownHosts, sshConfigFile } = sshOptions(ssh);
  // The world's own defaults (intervals included): these are the figures an operator sees.
  const world = createLiveWorld({ clusters: [config], knownHosts, sshConfigFile, log: () => {} });
  const events: Array<{ at: number; event: SchedulerEvent }> = [];
  world.on((event) => events.push({ at: performance.now(), event }));
  await world.start();
  const grow: number[] = [];
  const quietGrow: number[] = [];
  const shrink: number[] = [];
  try {
    const jobId = 'bench';
    // An application on the SDK that reaches a safe point every 20 ms and computes nothing: the figures are
    // Concertina's and the batch system's, not a busy application's (the demo apps would take both cores here).
    // Max 2: the operator's resizes move it between 1 and 2, so the policy's own growth (what the job declines of an
    // operator's offer goes to the policy) has nothing left to race them with.
    const r = world.act((s, now) =>
      s.submit(
        {
          id: jobId,
          kind: 'malleable',
          components: [
            {
              min: 1,
              max: 2,
              initial: 1,
              program: process.execPath,
              args: ['-e', IDLE_APP, path.join(repositoryAssetsDir(), 'sdk', 'concertina-app.mjs')],
            },
          ],
        },
        now,
      ),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    await waitFor('the benchmark job to start', () => events.some((e) => e.event.type === 'job.started'), 60_000, 20);
    const toApp = path.join(
      workRoot,
      'jobs',
      jobDirName(runTag('concertina', world.persistentState().runId), jobId),
      'to-app.jsonl',
    );
    const sizes = () =>
      (existsSync(toApp) ? readFileSync(toApp, 'utf8') : '')
        .split('\n')
        .flatMap((l) => /"type":"resources","size":(\d+)/.exec(l)?.[1] ?? [])
        .map(Number);
    // Back to back first (each grow right after the shrink before it), then each grow after a quiet 1.5 s.
    for (let i = 0; i < 2 * samples + 1; i++) {
      const quiet = i > samples;
      if (quiet) await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const [delta, into] of [
        [1, quiet ? quietGrow : grow],
        [-1, quiet ? [] : shrink],
      ] as const) {
        const before = sizes().length;
        const size = world.scheduler.job(jobId)!.size;
        const t0 = performance.now();
        await resizeWhenFree(world, jobId, delta);
        await waitFor(
          `${system}: resources ${size + delta}`,
          () => sizes().length > before && sizes().at(-1) === size + delta,
          30_000,
          5,
        ).catch((e: Error) => {
          const from = path.join(path.dirname(toApp), 'from-app.jsonl');
          throw new Error(
            `${e.message}; events: ${JSON.stringify(events.map((x) => x.event))}; to-app: ${existsSync(toApp) ? readFileSync(toApp, 'utf8') : '-'}; from-app: ${existsSync(from) ? readFileSync(from, 'utf8').slice(0, 2000) : '-'}`,
          );
        });
        // The first round warms the connection and the JIT up.
        if (i > 0) into.push(performance.now() - t0);
        if (process.env.LIVE_BENCH_TRACE) {
          const steps = events.filter((e) => e.at >= t0).map((e) => `${e.event.type} +${Math.round(e.at - t0)}`);
          log(
            `${system} ${delta > 0 ? 'grow' : 'shrink'}: ${steps.join(', ')}, resources +${Math.round(performance.now() - t0)}`,
          );
        }
      }
    }
    world.act((s, now) => s.cancel(jobId, now));
  } finally {
    await world.stop();
  }
  const submissions = await submissionRate(config, env, knownHosts, sshConfigFile, workRoot);
  const figures = {
    grow_p50_ms: quantile(grow, 0.5),
    grow_p95_ms: quantile(grow, 0.95),
    grow_quiet_p50_ms: quantile(quietGrow, 0.5),
    shrink_p50_ms: quantile(shrink, 0.5),
    shrink_p95_ms: quantile(shrink, 0.95),
    samples,
    submissions_per_s: submissions,
  };
  log(
    `live ${system}: grow p50 ${figures.grow_p50_ms} ms, p95 ${figures.grow_p95_ms} ms (after a quiet 1.5 s: p50 ${figures.grow_quiet_p50_ms} ms); shrink p50 ${figures.shrink_p50_ms} ms, p95 ${figures.shrink_p95_ms} ms (${samples} each); ${submissions} submissions/s through one SSH connection`,
  );
  return figures;
}

/** The operator's resize, retried while the cluster is busy with another operation. */
async function resizeWhenFree(world: LiveWorld, jobId: string, delta: number): Promise<void> {
  let error = '';
  await waitFor(
    `resize ${jobId} by ${delta}`,
    () => {
      const r = world.act((s, now) => s.resize(jobId, delta, now));
      if (!r.ok) error = JSON.stringify(r.errors);
      if (!r.ok && !error.includes('busy')) throw new Error(error);
      return r.ok;
    },
    10_000,
    5,
  ).catch((e: Error) => {
    throw new Error(`${e.message}: ${error}`);
  });
}

/** Local jobs submitted per second through one SSH connection (rate limit lifted), 100 one-processor jobs. */
async function submissionRate(
  config: LiveClusterConfig,
  env: Readonly<Record<string, string>>,
  knownHosts: KnownHosts,
  sshConfigFile: string,
  workRoot: string,
): Promise<number> {
  const login = config.login as Extract<LiveClusterConfig['login'], { via: 'ssh' }>;
  const raw = await openSshRunner({
    destination: login.host,
    overrides: { port: login.port!, user: login.user!, identityFile: login.identityFile! },
    sshConfigFile,
    knownHosts,
    name: config.name,
  });
  const runner = new EnvRunner(raw, env);
  const manager = new BatchLocalManager({
    cluster: config.name,
    system: createBatchSystem({ kind: config.system as 'slurm' | 'sge' }),
    runner,
    onMessage: () => {},
    tag: 'bench',
    workRoot: `${workRoot}/submissions`,
    rateLimit: { burst: 1000, perSecond: 1000 },
    log: () => {},
  });
  try {
    await runner.run('true');
    const n = 100;
    const t0 = performance.now();
    for (let i = 0; i < n; i++)
      manager.submit({
        jobId: `s${i}`,
        component: 0,
        processors: 1,
        program: '/bin/sleep',
        args: ['600'],
        tag: `bench:s${i}`,
      });
    await waitFor(
      'every submission to be answered',
      () => manager.tracked().reduce((k, t) => k + t.ids.length, 0) >= n,
      120_000,
      5,
    );
    const seconds = (performance.now() - t0) / 1000;
    for (let i = 0; i < n; i++) manager.cancel(`s${i}`);
    await manager.cancelsSent();
    return Math.round(n / seconds);
  } finally {
    await manager.close();
    await runner.close();
  }
}
