// Live mode: the scheduler over real clusters, in wall-clock time. Per cluster a CommandRunner (SSH to its login
// node, or this machine), its batch-system adapter, a BatchLocalManager and the application control protocol's
// channel; one Scheduler whose ApplicationPort routes each job to its cluster's applications. Wired as the
// simulator wires its world (core/sim/world.ts): messages from managers and applications reach the scheduler in
// arrival order through one inbox, and a timer follows the scheduler's next wakeup. It also holds the malleable
// runner's glue (paper V-A): the application learns its size from its environment and from `resources` messages,
// and a mandatory shrink not honoured in the grace period kills the job.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SchedulerEvent } from '../../core/events.js';
import { buildGrid } from '../../core/model/grid.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import type { ApplicationPort, ClusterStatus, InboundMessage, LocalJobRequest, LocalManager } from '../../core/ports.js';
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler, type SchedulerOptions } from '../../core/scheduler/scheduler.js';
import { BatchLocalManager, type RecoveredJob } from '../managers/batch-local-manager.js';
import { createBatchSystem } from '../managers/index.js';
import { batchSystemSettings } from './batch-settings.js';
import { openClusterRunner } from './cluster-runner.js';
import { jobDirName, localJobName } from '../managers/naming.js';
import { AppChannel } from '../protocol/channel.js';
import { RemoteApplications, type AppEvent, type ProtocolViolation } from '../protocol/application-port.js';
import type { CommandRunner } from '../shell/command-runner.js';
import { sh } from '../shell/quote.js';
import { defaultKnownHostsFile, KnownHosts } from '../ssh/known-hosts.js';
import type { SecretSource } from '../ssh/secrets.js';
import { backoffDelayMs, LOGIN_RETRY_MAX_MS } from '../ssh/connection.js';
import { SshError } from '../ssh/errors.js';
import { SshRunner } from '../ssh/ssh-runner.js';
import { expandAssets } from './assets-placeholder.js';
import { collectAssets, stageAssets, type AssetFile, type StagingResult } from './asset-staging.js';
import { EnvRunner } from './env-runner.js';
import {
  liveClusterSchema,
  livePersistentStateSchema,
  type LiveAppEvent,
  type LiveClusterConfig,
  type LiveClusterState,
  type LivePersistentJob,
  type LivePersistentState,
  type LiveWorld,
  type RecoveryOutcome,
} from './types.js';

export interface LiveWorldOptions {
  /** The clusters (checked with liveClusterSchema; a bad one throws naming its field). */
  readonly clusters: readonly unknown[];
  readonly scheduler?: Partial<SchedulerOptions>;
  /** Host keys (default: Concertina's own file plus the user's and the system's). */
  readonly knownHosts?: KnownHosts;
  readonly secrets?: SecretSource;
  /** Default ~/.ssh/config. */
  readonly sshConfigFile?: string;
  /** The scheduler's time in seconds; default: wall-clock seconds since the run's epoch (kept across restarts). */
  readonly clock?: () => number;
  /**
   * Where the SDK and the demo applications already are on the clusters (a folder holding `sdk/` and `apps/`):
   * given, nothing is staged. Decision: by default they are staged (copied when they differ, by sha256) into
   * `<workRoot>/assets/` on each cluster at start(), so that a cluster need not share this machine's file system.
   */
  readonly assetsDir?: string | ((cluster: string) => string);
  /** The local folder staged to the clusters (default: this repository's assets/). */
  readonly assetsSource?: string;
  /** Grace period of mandatory shrinks (default 60 s). */
  readonly graceMs?: number;
  /** How often the applications' from-app.jsonl files are read, per cluster (default 250 ms). */
  readonly appPollIntervalMs?: number;
  /** The managers' status rounds while something waits to start, grow or be cancelled (default 250 ms)... */
  readonly watchIntervalMs?: number;
  /** ...and while every job just runs (default 10 s). */
  readonly idleWatchIntervalMs?: number;
  /** Per remote command (default 30 s). */
  readonly commandTimeoutMs?: number;
  /** Backoff between attempts to reach a cluster not reached at start (default 1 s doubling up to 60 s). */
  readonly rejoin?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  /** Replaces how a cluster's runner is opened (tests); the world still applies the cluster's `env`. */
  readonly runnerFor?: (config: LiveClusterConfig) => CommandRunner | Promise<CommandRunner>;
  /** What an earlier world's persistentState() returned: its jobs are recovered, not submitted again. */
  readonly restore?: unknown;
  /** Diagnostics (default: stderr). */
  readonly log?: (text: string) => void;
}

/** Per cluster: how it is reached, managed and talked to. */
interface ClusterRuntime {
  readonly config: LiveClusterConfig;
  readonly runner: CommandRunner;
  readonly workRoot: string;
  readonly jobsRoot: string;
  readonly assetsDir: string;
  /** The assets are copied into assetsDir (not given by the options). */
  readonly staged: boolean;
  readonly manager: BatchLocalManager;
  readonly channel: AppChannel;
  readonly apps: RemoteApplications;
  processors: number;
  /** What the cluster last reported, once it differs from the grid's size (see toGridStatus). */
  reported?: { processors: number; threshold: number; background: number };
  lastError?: string;
  closed: boolean;
  /** Until then (performance.now()), the applications' files are read often: an answer is awaited. */
  eagerUntil: number;
  appTimer?: NodeJS.Timeout;
  appPolling?: boolean;
}

/**
 * Decision: applications' files are read every second, and every 50 ms while an offer or a shrink request awaits
 * its answer (for at most 10 s); the managers' status rounds run every 100 ms while something waits (a start, a
 * grow, a cancel). A grow or shrink waits on both, and at 1 s each they made most of its latency (see
 * test/bench/live-bench.ts). Each is one remote script per cluster; idle clusters keep the managers' 10 s rounds.
 */
const DEFAULT_APP_POLL_MS = 1000;
const EAGER_APP_POLL_MS = 50;
const EAGER_FOR_MS = 10_000;
/** Decision: each read while an answer is awaited waits up to 1 s on the cluster for it (one round trip saved). */
const EAGER_WAIT_MS = 1000;
const DEFAULT_WATCH_MS = 100;
/**
 * Decision: a cluster not reached at start is in the grid from the start, unreachable, with a placeholder size (its
 * slots, else this); once it joins, what it lacks against the placeholder counts as background, so the scheduler
 * never sees more than it has. Jobs naming it are accepted and wait for it.
 */
const PLACEHOLDER_PROCESSORS = 65_536;
const REJOIN_INITIAL_MS = 1000;
const REJOIN_MAX_MS = 60_000;

/** The app wrapper: exports the protocol's variables, then runs the program with its arguments (all quoted words). */
const APP_WRAPPER = 'CONCERTINA_JOB_DIR=$1 CONCERTINA_SIZE=$2 CONCERTINA_MIN=$3 CONCERTINA_MAX=$4 CONCERTINA_ASSETS=$5; export CONCERTINA_JOB_DIR CONCERTINA_SIZE CONCERTINA_MIN CONCERTINA_MAX CONCERTINA_ASSETS; shift 5; exec "$@"';
/** The holder of each extra processor: the slot stub, in the job's directory (where the job script runs). */
const HOLDER = 'exec /bin/sh "$0" "$PWD" "m$CONCERTINA_MEMBER"';

/** Malleable and evolving jobs change size while they run: a collection of size-1 local jobs, and a protocol channel. */
function resizable(job: { readonly kind: string } | undefined): boolean {
  return job?.kind === 'malleable' || job?.kind === 'evolving';
}

/**
 * The tag of a live run's local jobs: the scheduler's tag and the run's id. Decision: every run has its own, so that
 * a new run never takes an earlier run's jobs (still running, numbered from job-1 as its own are) for its own: they
 * count as background load, as other users' jobs do.
 */
export function runTag(tag: string, runId: string | undefined): string {
  return runId === undefined ? tag : `${tag}-${runId}`;
}

/** A run's id: 6 random base-36 digits (2 billion values; a run's names stay short, see naming.ts). */
function newRunId(): string {
  let id = '';
  for (const byte of randomBytes(6)) id += (byte % 36).toString(36);
  return id;
}

export function createLiveWorld(options: LiveWorldOptions): LiveWorld {
  return new LiveWorldImpl(options);
}

/** This repository's assets/ folder (from dist/ or from the sources). */
export function repositoryAssetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'assets', 'sdk', 'concertina-app.mjs'))) return path.join(dir, 'assets');
    dir = path.dirname(dir);
  }
  throw new Error('cannot find the assets/ folder with the SDK; pass assetsDir');
}

class LiveWorldImpl implements LiveWorld {
  private readonly configs: LiveClusterConfig[];
  private readonly restore: LivePersistentState | undefined;
  private readonly epochMs: number;
  private readonly clock: () => number;
  /** This run's id (undefined for a run restored from a state stored before run ids) and its local jobs' tag. */
  private readonly runId: string | undefined;
  private readonly tag: string;
  private readonly log: (text: string) => void;
  private readonly runtimes = new Map<string, ClusterRuntime>();
  private schedulerValue: Scheduler | undefined;
  private readonly inbox: InboundMessage[] = [];
  private draining = false;
  private readonly firstStatus = new Map<string, (status: ClusterStatus) => void>();
  private readonly listeners = new Set<(event: SchedulerEvent) => void>();
  private readonly appListeners = new Set<(event: LiveAppEvent) => void>();
  private readonly timers: NodeJS.Timeout[] = [];
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.NaN;
  private running = false;
  /** Messages reach the scheduler only once the earlier run's jobs are recovered. */
  private accepting = false;
  private outcomes: RecoveryOutcome[] = [];
  private assetFiles: AssetFile[] | undefined;
  /** Clusters left out of the grid at start(), with why. */
  private readonly unreachable = new Map<string, string>();
  /** Launched jobs of the restored state on an unreachable cluster: adopted when it joins, never submitted again. */
  private readonly stranded: LivePersistentJob[] = [];
  /** Pending attempts to reach clusters left out at start. */
  private readonly rejoinTimers = new Map<string, NodeJS.Timeout>();
  /** Why each cluster out of the run was left out, last time. */
  private readonly dropCauses = new Map<string, unknown>();
  /** The secrets' revision each cluster's last try to open it began with. */
  private readonly triedRevisions = new Map<string, number | undefined>();
  /** The highest `job-<n>` of jobs found by tag but unknown to the restored state: generated ids go past it. */
  private unknownJobNumber = 0;

  constructor(private readonly options: LiveWorldOptions) {
    this.configs = options.clusters.map((c, i) => {
      const parsed = liveClusterSchema.safeParse(c);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new Error(`clusters[${i}]${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message}`);
      }
      return parsed.data;
    });
    const names = new Set<string>();
    for (const [i, c] of this.configs.entries()) {
      if (names.has(c.name)) throw new Error(`clusters[${i}].name: duplicates cluster "${c.name}"`);
      names.add(c.name);
    }
    if (options.restore !== undefined) {
      const parsed = livePersistentStateSchema.safeParse(options.restore);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new Error(`restore.${issue.path.join('.')}: ${issue.message}`);
      }
      this.restore = parsed.data;
    }
    this.epochMs = this.restore?.epochMs ?? Date.now();
    this.clock = options.clock ?? (() => (Date.now() - this.epochMs) / 1000);
    this.runId = this.restore ? this.restore.runId : newRunId();
    this.tag = runTag(options.scheduler?.tag ?? DEFAULT_SCHEDULER_OPTIONS.tag, this.runId);
    this.log = options.log ?? ((text) => process.stderr.write(`${text}\n`));
  }

  get scheduler(): Scheduler {
    if (!this.schedulerValue) throw new Error('the live world has not started (call start() first)');
    return this.schedulerValue;
  }

  now(): number {
    return this.clock();
  }

  // ---- start and stop ---------------------------------------------------------------------------------------------

  async start(): Promise<void> {
    if (this.running || this.schedulerValue) throw new Error('the live world has already started');
    this.running = true;
    try {
      // The grid is known once each cluster's first status gives its processor count. Decision: a cluster that
      // cannot be reached or read at start (connection, host key, authentication, status commands) is left out of
      // this run's grid and shown as lost with its error; the others run. Only when none can be reached does
      // start() fail.
      const statuses = await Promise.all(
        this.configs.map(async (c) => {
          try {
            await this.openCluster(c);
            return await this.firstPoll(this.runtimes.get(c.name)!);
          } catch (error) {
            await this.dropCluster(c.name, error);
            return undefined;
          }
        }),
      );
      if (!statuses.some((s) => s)) throw new Error(`no cluster can be reached: ${[...this.unreachable.values()].join('; ')}`);
      const grid = buildGrid(
        gridSpecSchema.parse({
          name: 'live',
          clusters: this.configs.map((c, i) => {
            const processors = Math.max(1, statuses[i]?.processors ?? c.slots ?? PLACEHOLDER_PROCESSORS);
            return { name: c.name, processors, threshold: Math.max(1, Math.floor(processors * c.threshold)), ...(c.interactive && { interactive: c.interactive }) };
          }),
        }),
      );
      const applications: ApplicationPort = {
        offerGrow: (offerId, jobId, processors) => {
          this.awaitAnswer(jobId);
          this.appsOf(jobId)?.offerGrow(offerId, jobId, processors);
        },
        requestShrink: (offerId, jobId, processors, mandatory, deadline) => {
          this.awaitAnswer(jobId);
          this.appsOf(jobId)?.requestShrink(offerId, jobId, processors, mandatory, deadline);
        },
        resized: (jobId, size) => this.appsOf(jobId)?.resized(jobId, size),
        updateRefused: (jobId, reason) => this.appsOf(jobId)?.updateRefused(jobId, reason),
        interactiveTasks: (jobId, tasks) => this.appsOf(jobId)?.interactiveTasks(jobId, tasks),
      };
      const managers = this.configs.map((c) => new LiveManager(this, c.name));
      const scheduler = new Scheduler(grid, managers, applications, { ...this.options.scheduler, tag: this.tag });
      this.schedulerValue = scheduler;
      scheduler.on((event) => this.onEvent(event));
      // The clusters not reached are unreachable before the first pass: nothing is placed there until they join.
      for (const name of this.unreachable.keys()) scheduler.receive(this.unreachableStatus(name), this.now());
      await this.recover(scheduler);
      this.accepting = true;
      this.drain();
      this.startTimers();
      for (const name of this.unreachable.keys()) this.scheduleRejoin(name, 1);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.accepting = false;
    for (const t of this.timers.splice(0)) clearInterval(t);
    for (const t of this.rejoinTimers.values()) clearTimeout(t);
    this.rejoinTimers.clear();
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    await Promise.all(
      [...this.runtimes.values()].map(async (r) => {
        r.closed = true;
        if (r.appTimer) clearTimeout(r.appTimer);
        await r.manager.close();
        await r.runner.close();
      }),
    );
  }

  /** A cluster that cannot be reached or read at start: closed, out of this run's grid, its error kept. */
  private async dropCluster(name: string, error: unknown): Promise<void> {
    this.dropCauses.set(name, error);
    const message = error instanceof Error ? error.message : String(error);
    this.unreachable.set(name, message.startsWith(`${name}: `) ? message : `${name}: ${message}`);
    this.log(this.unreachable.get(name)!);
    const runtime = this.runtimes.get(name);
    this.runtimes.delete(name);
    if (runtime) {
      runtime.closed = true;
      await runtime.manager.close().catch(() => undefined);
      await runtime.runner.close().catch(() => undefined);
    }
  }

  private async openCluster(config: LiveClusterConfig): Promise<void> {
    // The secrets this try logs in with: any set while it is under way are new to the next try.
    this.triedRevisions.set(config.name, this.options.secrets?.revision?.());
    const raw = await (this.options.runnerFor ? this.options.runnerFor(config) : this.openRunner(config));
    const runner = Object.keys(config.env).length ? new EnvRunner(raw, config.env) : raw;
    const timeoutMs = this.options.commandTimeoutMs ?? 30_000;
    // The login directory anchors a relative workRoot: the protocol's job directories must be absolute.
    const probe = await runner.run('cd && pwd && (getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)', { timeoutMs }).catch(async (error: unknown) => {
      await runner.close().catch(() => undefined);
      throw error;
    });
    const [home, cores] = probe.stdout.trim().split('\n');
    if (probe.code !== 0 || !home?.startsWith('/')) throw new Error(`${config.name}: cannot find the login directory on ${runner.target}: ${probe.stderr.trim() || `exit status ${probe.code}`}`);
    const workRoot = config.workRoot.startsWith('/') ? config.workRoot.replace(/\/+$/, '') : `${home}/${config.workRoot}`;
    const system = batchSystemSettings(config, { cores: Number(cores) || 1, workRoot });
    const assets = this.options.assetsDir;
    const assetsDir = typeof assets === 'function' ? assets(config.name) : (assets ?? `${workRoot}/assets`);
    const jobsRoot = `${workRoot}/jobs`;
    const runtime: ClusterRuntime = {
      config,
      runner,
      workRoot,
      jobsRoot,
      assetsDir,
      staged: assets === undefined,
      processors: 0,
      closed: false,
      eagerUntil: 0,
      manager: new BatchLocalManager({
        cluster: config.name,
        system: createBatchSystem(system),
        runner,
        onMessage: (message) => this.deliver(message),
        clock: () => this.now(),
        tag: this.tag,
        workRoot: jobsRoot,
        // Decision: on a real batch system an evolving job's pre-allocation is Concertina's accounting, not a
        // reservation held at the cluster: like a malleable job it runs as size-1 local jobs, grown and shrunk.
        isMalleable: (request) => resizable(this.schedulerValue?.job(request.jobId)),
        holder: { program: '/bin/sh', args: ['-c', HOLDER, `${assetsDir}/apps/slot-stub.sh`] },
        commandTimeoutMs: timeoutMs,
        log: (text) => {
          runtime.lastError = text;
          this.log(text);
        },
        watchIntervalMs: this.options.watchIntervalMs ?? DEFAULT_WATCH_MS,
        ...(this.options.idleWatchIntervalMs !== undefined && { idleWatchIntervalMs: this.options.idleWatchIntervalMs }),
      }),
      channel: new AppChannel(runner, { timeoutMs }),
      apps: new RemoteApplications({
        deliver: (message) => this.deliver(message),
        onViolation: (violation) => this.violation(violation),
        onEvent: (event) => this.appEvent(config.name, event),
        onProblem: (problem) => this.log(`${config.name}: ${problem.message}`),
        ...(this.options.graceMs !== undefined && { graceMs: this.options.graceMs }),
        // A shrink's deadline (scheduler seconds) as the wall-clock ms the application compares with Date.now().
        schedulerTimeToMs: (t) => Date.now() + (t - this.now()) * 1000,
      }),
    };
    this.runtimes.set(config.name, runtime);
    if (runtime.staged) await this.stageOn(runtime);
  }

  /** Copies the SDK and the applications to the cluster where its copy differs; read locally once per world. */
  private async stageOn(runtime: ClusterRuntime): Promise<StagingResult> {
    this.assetFiles ??= collectAssets(this.options.assetsSource ?? repositoryAssetsDir());
    const result = await stageAssets(runtime.runner, runtime.assetsDir, this.assetFiles, { timeoutMs: this.options.commandTimeoutMs ?? 30_000 });
    if (result.copied.length > 0) this.log(`${runtime.config.name}: staged ${result.copied.length} asset file(s) into ${result.dir}`);
    return result;
  }

  async stageAssets(cluster?: string): Promise<StagingResult[]> {
    this.assetFiles = undefined;
    // Only clusters in the run (a cluster still being tried again stages when it joins).
    const runtimes = [...this.runtimes.values()].filter((r) => r.staged && !r.closed && this.joined(r.config.name) && (cluster === undefined || r.config.name === cluster));
    return Promise.all(runtimes.map((r) => this.stageOn(r)));
  }

  assetsDir(cluster: string): string | undefined {
    return this.runtimes.get(cluster)?.assetsDir;
  }

  private openRunner(config: LiveClusterConfig): Promise<CommandRunner> {
    return openClusterRunner(config, {
      knownHosts: this.options.knownHosts ?? new KnownHosts(defaultKnownHostsFile()),
      ...(this.options.secrets ? { secrets: this.options.secrets } : {}),
      ...(this.options.sshConfigFile !== undefined ? { sshConfigFile: this.options.sshConfigFile } : {}),
      timeoutMs: this.options.commandTimeoutMs ?? 30_000,
    });
  }

  /** The cluster's first status: its processors (the grid is built from them). */
  private firstPoll(runtime: ClusterRuntime): Promise<ClusterStatus> {
    const name = runtime.config.name;
    return new Promise((resolve, reject) => {
      this.firstStatus.set(name, (status) => {
        this.firstStatus.delete(name);
        if (!status.reachable || status.processors < 1) reject(new Error(`${name}: the cluster's status cannot be read${runtime.lastError ? `: ${runtime.lastError}` : ''}`));
        else {
          runtime.processors = status.processors;
          resolve(status);
        }
      });
      runtime.manager.poll();
    });
  }

  private startTimers(): void {
    for (const runtime of this.runtimes.values()) this.startClusterTimers(runtime);
    this.rearm();
  }

  private startClusterTimers(runtime: ClusterRuntime): void {
    const poll = setInterval(() => runtime.manager.poll(), runtime.config.pollIntervalS * 1000);
    poll.unref?.();
    this.timers.push(poll);
    this.pollApps(runtime);
  }

  // ---- clusters joining after start -------------------------------------------------------------------------------

  unreachableStatus(cluster: string): InboundMessage {
    return { type: 'status', cluster, status: { processors: 0, background: 0, reachable: false } };
  }

  /**
   * Tries again to reach a cluster left out at start, after the SSH layer's backoff for its `failures`-th try.
   * Decision: a refused login is tried no more often than the SSH layer tries one (up to 5 min apart), so that a
   * wrong password does not lock the account; new secrets (their source's revision) try at once.
   */
  private scheduleRejoin(name: string, failures: number): void {
    if (!this.running) return;
    const cause = this.dropCauses.get(name);
    const refused = cause instanceof SshError && cause.kind === 'auth-failed';
    const maxMs = this.options.rejoin?.maxDelayMs ?? (refused ? LOGIN_RETRY_MAX_MS : REJOIN_MAX_MS);
    const due = Date.now() + backoffDelayMs(failures + 1, this.options.rejoin?.initialDelayMs ?? REJOIN_INITIAL_MS, maxMs);
    const revision = this.triedRevisions.get(name);
    const wait = () => {
      const left = due - Date.now();
      const timer = setTimeout(() => {
        this.rejoinTimers.delete(name);
        if (refused && this.options.secrets?.revision?.() !== revision) {
          this.log(`${name}: its secrets changed: trying to log in again now`);
          void this.tryRejoin(name, failures);
        } else if (Date.now() >= due) void this.tryRejoin(name, failures);
        else wait();
      }, refused ? Math.min(left, this.options.rejoin?.initialDelayMs ?? REJOIN_INITIAL_MS) : left);
      timer.unref?.();
      this.rejoinTimers.set(name, timer);
    };
    wait();
  }

  private async tryRejoin(name: string, failures: number): Promise<void> {
    const config = this.configs.find((c) => c.name === name)!;
    try {
      await this.openCluster(config);
      const runtime = this.runtimes.get(name)!;
      await this.firstPoll(runtime);
      if (!this.running) return await this.closeAfterStop(name);
      await this.join(runtime);
      if (!this.running) return await this.closeAfterStop(name);
    } catch (error) {
      if (!this.running) return await this.closeAfterStop(name);
      await this.dropCluster(name, error);
      this.scheduleRejoin(name, failures + 1);
    }
  }

  /** A try that was under way when the world stopped: its connection is closed too (stop closed those it saw). */
  private async closeAfterStop(name: string): Promise<void> {
    const runtime = this.runtimes.get(name);
    if (!runtime || runtime.closed) return;
    runtime.closed = true;
    if (runtime.appTimer) clearTimeout(runtime.appTimer);
    await runtime.manager.close().catch(() => undefined);
    await runtime.runner.close().catch(() => undefined);
  }

  /**
   * A cluster reached after start joins the run as it would have at start: its jobs are read by tag, the restored
   * state's jobs stranded there are adopted (never submitted again), then it is polled and placed on.
   */
  private async join(runtime: ClusterRuntime): Promise<void> {
    const name = runtime.config.name;
    const scheduler = this.scheduler;
    const found = await runtime.manager.recover();
    if (!this.running) return;
    this.unreachable.delete(name);
    runtime.lastError = undefined;
    const stranded = this.stranded.filter((j) => j.cluster === name);
    this.refuseUnknown(name, found);
    for (const job of stranded) {
      this.stranded.splice(this.stranded.indexOf(job), 1);
      await this.adoptJob(scheduler, runtime, job, found);
    }
    scheduler.skipJobNumbers(this.unknownJobNumber);
    this.log(`${name}: reached: joins the run`);
    this.startClusterTimers(runtime);
    runtime.manager.poll();
    this.rearm();
  }

  /**
   * A status as the scheduler's fixed grid sees it: when the cluster reports another size than the grid's (it
   * joined after start with a placeholder size, or its size changed), what it lacks counts as background.
   */
  private toGridStatus(message: Extract<InboundMessage, { type: 'status' }>): InboundMessage {
    const runtime = this.runtimes.get(message.cluster);
    const gridSize = this.schedulerValue?.grid.cluster(message.cluster)?.processors;
    const status = message.status;
    if (!runtime || gridSize === undefined || !status.reachable || status.processors === gridSize) return message;
    const threshold = Math.max(1, Math.floor(status.processors * runtime.config.threshold));
    runtime.reported = { processors: status.processors, threshold, background: status.background };
    const usable = Math.max(0, Math.min(status.processors - status.background, threshold));
    return { ...message, status: { ...status, background: Math.max(0, gridSize - usable) } };
  }

  /** Reads the cluster's applications' files, then again after the interval (short while an answer is awaited). */
  private pollApps(runtime: ClusterRuntime): void {
    if (!this.running) return;
    runtime.appTimer = undefined;
    runtime.appPolling = true;
    // While an answer is awaited the read waits on the cluster for the files to grow (see AppChannel.poll).
    void runtime.apps.poll(performance.now() < runtime.eagerUntil ? { waitMs: EAGER_WAIT_MS } : {}).finally(() => {
      runtime.appPolling = false;
      if (!this.running || runtime.closed) return;
      const eager = performance.now() < runtime.eagerUntil;
      runtime.appTimer = setTimeout(() => this.pollApps(runtime), eager ? EAGER_APP_POLL_MS : (this.options.appPollIntervalMs ?? DEFAULT_APP_POLL_MS));
      runtime.appTimer.unref?.();
    });
  }

  /** An offer or a shrink request went to the job's application: read its answers soon. */
  private awaitAnswer(jobId: string): void {
    const cluster = this.schedulerValue?.job(jobId)?.components[0]?.cluster;
    const runtime = cluster === undefined ? undefined : this.runtimes.get(cluster);
    if (!runtime) return;
    runtime.eagerUntil = performance.now() + EAGER_FOR_MS;
    // A poll under way re-arms with the short interval when it ends; a waiting one is brought forward.
    if (runtime.appTimer && !runtime.appPolling) {
      clearTimeout(runtime.appTimer);
      runtime.appTimer = setTimeout(() => this.pollApps(runtime), EAGER_APP_POLL_MS);
      runtime.appTimer.unref?.();
    }
  }

  // ---- recovery ---------------------------------------------------------------------------------------------------

  /**
   * Jobs of the earlier run: the launched ones are looked up on their cluster by tag and adopted (running or
   * starting), or recorded as ended with how they ended; the ones never launched are queued again.
   */
  private async recover(scheduler: Scheduler): Promise<void> {
    const found = new Map<string, RecoveredJob[]>();
    await Promise.all(
      [...this.runtimes.values()].map(async (r) => {
        found.set(r.config.name, await r.manager.recover());
      }),
    );
    // Unknown ones are disowned before the statuses are read again (they are background).
    for (const [cluster, jobs] of found) this.refuseUnknown(cluster, jobs);
    // The first statuses were read before the managers knew the earlier run's local jobs, which they counted as
    // background (a cluster full of it: malleable jobs shrunk at once); they are read again now.
    const withJobs = new Set([...found].filter(([, jobs]) => jobs.length > 0).map(([name]) => name));
    if (withJobs.size > 0) {
      const kept = this.inbox.filter((m) => !(m.type === 'status' && withJobs.has(m.cluster)));
      this.inbox.splice(0, this.inbox.length, ...kept);
      await Promise.all([...withJobs].map((name) => this.firstPoll(this.runtimes.get(name)!).catch(() => undefined)));
    }
    const restore = this.restore;
    if (!restore) {
      scheduler.skipJobNumbers(this.unknownJobNumber);
      return;
    }
    const now = this.now();
    for (const job of [...restore.jobs].sort((a, b) => a.submitTime - b.submitTime)) {
      const id = job.spec.id!;
      const runtime = job.cluster === undefined ? undefined : this.runtimes.get(job.cluster);
      const unreachable = job.cluster === undefined ? undefined : this.unreachable.get(job.cluster);
      if (job.launched && unreachable !== undefined) {
        this.stranded.push(job);
        this.outcomes.push({ jobId: id, cluster: job.cluster!, outcome: 'refused', detail: `its cluster is unreachable (${unreachable}): adopted once it is reached, not submitted again` });
        continue;
      }
      if (!job.launched || !runtime) {
        const r = scheduler.submitSpec({ ...job.spec, id }, now);
        this.outcomes.push(r.ok ? { jobId: id, outcome: 'requeued', detail: 'never launched: queued again' } : { jobId: id, outcome: 'refused', detail: r.errors.map((e) => `${e.path}: ${e.message}`).join('; ') });
        continue;
      }
      await this.adoptJob(scheduler, runtime, job, found.get(runtime.config.name)!);
    }
    // Generated ids go on after the earlier run's (the jobs above keep theirs), and after unknown ones found.
    scheduler.skipJobNumbers(Math.max(restore.submitted, this.unknownJobNumber));
  }

  /**
   * Jobs found by tag that the restored state does not know (their spec is lost: submitted after the state was last
   * stored): the manager disowns them, and generated ids go on past theirs.
   */
  private refuseUnknown(cluster: string, found: readonly RecoveredJob[]): void {
    const known = new Set(this.restore?.jobs.map((j) => j.spec.id!) ?? []);
    for (const f of found) {
      if (known.has(f.jobId) || (f.state !== 'running' && f.state !== 'pending')) continue;
      // Decision: such a job is left running and counted as background load (not Concertina's, as the scheduler
      // cannot manage it; not cancelled, as nothing says it is unwanted: that is an operator's call).
      this.runtimes.get(cluster)?.manager.disown(f.jobId);
      const number = /^job-([1-9]\d{0,8})$/.exec(f.jobId)?.[1];
      if (number !== undefined) this.unknownJobNumber = Math.max(this.unknownJobNumber, Number(number));
      this.outcomes.push({ jobId: f.jobId, cluster, outcome: 'refused', detail: `found on the cluster (${f.running} of ${f.members} local jobs running) but unknown to the restored state: left running, counted as background load` });
      this.log(`${cluster}: job ${f.jobId} found by its tag but unknown to the restored state; left running, counted as background load`);
    }
  }

  /** A launched job of the earlier run, adopted on its cluster as the manager found it there (or recorded ended). */
  private async adoptJob(scheduler: Scheduler, runtime: ClusterRuntime, job: LivePersistentJob, found: readonly RecoveredJob[]): Promise<void> {
    const id = job.spec.id!;
    const cluster = runtime.config.name;
    const local = found.find((f) => f.jobId === id && f.component === 0);
    const adopted = await this.adoption(runtime, job, local);
    const r = scheduler.adopt({ ...job.spec, id }, { cluster, submitTime: job.submitTime, ...adopted, ...(job.cap !== undefined && { cap: job.cap }) }, this.now());
    if (!r.ok) {
      const detail = r.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
      this.outcomes.push({ jobId: id, cluster, outcome: 'refused', detail });
      this.log(`${cluster}: job ${id} cannot be adopted (${detail}); its local jobs are cancelled`);
      runtime.manager.cancel(id);
      return;
    }
    if (adopted.ended) {
      this.outcomes.push({ jobId: id, cluster, outcome: 'ended', detail: `${adopted.ended.state}: ${adopted.ended.reason}` });
      return;
    }
    this.outcomes.push({ jobId: id, cluster, outcome: 'adopted', detail: adopted.startTime === undefined ? `starting with ${adopted.processors} processors` : `running with ${adopted.processors} processors` });
    // An interactive job's driver reports its iterations through the protocol too (it learns its tasks again).
    if (!resizable(r.value) && r.value.kind !== 'interactive') return;
    runtime.apps.attach(id, { channel: runtime.channel, jobDir: this.jobDir(runtime, id), ...(job.lastSeq !== undefined && { lastSeq: job.lastSeq }) });
    // Decision: a running adopted application is told the size it is adopted with: a `resources` the earlier run
    // had not yet written when it stopped would otherwise be lost (the SDK ignores a size it already has).
    if (adopted.startTime === undefined) return;
    runtime.apps.resized(id, r.value.size);
    // Decision: an update the earlier run accepted but had not put in effect is asked again at once, on the
    // application's behalf (an announced one loses its notice); its later updates, read again, supersede it.
    if (job.updateTarget !== undefined && job.updateTarget !== r.value.size && job.updateTarget >= r.value.min && job.updateTarget <= r.value.max) {
      this.deliver({ type: 'update', jobId: id, processors: job.updateTarget });
    }
  }

  /** How a job of the earlier run stands on its cluster, from what the manager found there (or its exit file). */
  private async adoption(runtime: ClusterRuntime, job: LivePersistentJob, local: RecoveredJob | undefined): Promise<{ processors: number; startTime?: number; ended?: { state: 'completed' | 'failed' | 'cancelled'; reason: string } }> {
    const id = job.spec.id!;
    if (local && (local.state === 'running' || local.state === 'pending')) {
      const malleable = resizable(job.spec);
      const processors = malleable ? (local.state === 'running' ? local.running : local.members) : (job.processors ?? local.members);
      return local.state === 'running' ? { processors, startTime: job.startTime ?? this.now() } : { processors };
    }
    if (local && (local.state === 'completed' || local.state === 'cancelled')) return { processors: 0, ended: { state: local.state, reason: `${local.state} while Concertina was away` } };
    // Not listed any more (or failed): the program's exit-status file says how it ended.
    const kind = resizable(job.spec) ? 'malleable' : 'rigid';
    const exitFile = `${this.jobDir(runtime, id)}/${localJobName({ tag: this.tag, jobId: id, component: 0, kind, member: 0 })}.exit`;
    const read = await runtime.runner.run(sh`cat ${exitFile} 2>/dev/null`.text, { timeoutMs: this.options.commandTimeoutMs ?? 30_000 }).catch(() => undefined);
    const status = read && /^\d+\s*$/.test(read.stdout) ? Number(read.stdout.trim()) : undefined;
    if (status === undefined) return { processors: 0, ended: { state: 'failed', reason: 'ended while Concertina was away, with no exit status recorded' } };
    return { processors: 0, ended: status === 0 ? { state: 'completed', reason: 'ended while Concertina was away: exit status 0' } : { state: 'failed', reason: `ended while Concertina was away: exit status ${status}` } };
  }

  recovered(): readonly RecoveryOutcome[] {
    return this.outcomes;
  }

  persistentState(): LivePersistentState {
    const scheduler = this.scheduler;
    const jobs: LivePersistentJob[] = [];
    for (const job of scheduler.jobs()) {
      if (job.ended) continue;
      const cluster = job.components[0]?.cluster;
      const runtime = cluster === undefined ? undefined : this.runtimes.get(cluster);
      const lastSeq = resizable(job) ? runtime?.apps.lastSeq(job.id) : undefined;
      // An update handled (its seq is in lastSeq) but not yet in effect is not read again after a restart.
      const target = job.evolving && job.state === 'running' ? (job.announcedShrink?.processors ?? job.held) : undefined;
      const updateTarget = target !== undefined && target !== job.size ? target : undefined;
      jobs.push({
        spec: { ...job.spec, id: job.id },
        submitTime: job.transitions[0]!.time,
        launched: job.launched,
        ...(cluster !== undefined && { cluster }),
        processors: resizable(job) ? job.size + job.claimed : job.components.reduce((s, c) => s + c.processors, 0),
        ...(Number.isFinite(job.startTime) && { startTime: job.startTime }),
        ...(lastSeq !== undefined && { lastSeq }),
        ...(updateTarget !== undefined && { updateTarget }),
        ...(job.malleable && job.cap < job.max && { cap: job.cap }),
      });
    }
    return { version: 1, epochMs: this.epochMs, submitted: scheduler.jobNumber, ...(this.runId !== undefined && { runId: this.runId }), jobs: [...jobs, ...this.stranded] };
  }

  // ---- the scheduler's loop ---------------------------------------------------------------------------------------

  act<T>(command: (scheduler: Scheduler, now: number) => T): T {
    const scheduler = this.scheduler;
    const result = command(scheduler, this.now());
    this.rearm();
    return result;
  }

  on(listener: (event: SchedulerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onApplication(listener: (event: LiveAppEvent) => void): () => void {
    this.appListeners.add(listener);
    return () => this.appListeners.delete(listener);
  }

  clusters(): LiveClusterState[] {
    return this.configs.map((c) => {
      const unreachable = this.unreachable.get(c.name);
      if (unreachable !== undefined) return { name: c.name, connection: 'lost', lastError: unreachable, capacity: { processors: 0, threshold: 0, background: 0 } };
      const runtime = this.runtimes.get(c.name);
      const base = runtime?.runner instanceof EnvRunner ? runtime.runner.inner : runtime?.runner;
      let connection: LiveClusterState['connection'];
      if (!runtime) connection = this.running ? 'connecting' : 'closed';
      else if (runtime.closed) connection = 'closed';
      else if (base instanceof SshRunner) {
        const state = base.connection.state;
        connection = state === 'ready' ? 'open' : state === 'closed' ? 'closed' : state === 'reconnecting' || state === 'failed' ? 'lost' : 'connecting';
      } else connection = 'open';
      return { name: c.name, connection, ...(runtime?.lastError !== undefined && { lastError: runtime.lastError }), ...(runtime?.reported && { capacity: { ...runtime.reported } }) };
    });
  }

  /** A cluster's runtime once it has joined the run (reached at start, or later). */
  joined(cluster: string): ClusterRuntime | undefined {
    return this.unreachable.has(cluster) ? undefined : this.runtimes.get(cluster);
  }

  /**
   * A message from a manager or an application: queued, and handed to the scheduler in arrival order. `forUnjoined`:
   * the world's own answer for a cluster not joined (else such a cluster's messages are dropped).
   */
  deliver(message: InboundMessage, forUnjoined = false): void {
    if (message.type === 'status') {
      const first = this.firstStatus.get(message.cluster);
      if (first) first(message.status);
    }
    // A cluster not joined (a dropped manager's last words, or one being tried again) is not the scheduler's yet.
    if (!forUnjoined && 'cluster' in message && this.unreachable.has(message.cluster)) return;
    this.inbox.push(message.type === 'status' && !forUnjoined ? this.toGridStatus(message) : message);
    if (!this.draining && this.accepting) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    this.draining = false;
    const scheduler = this.schedulerValue;
    if (!scheduler || !this.running) return;
    for (let i = 0; i < this.inbox.length; i++) scheduler.receive(this.inbox[i]!, this.now());
    this.inbox.length = 0;
    this.rearm();
  }

  /** Arms the timer for the scheduler's next wakeup (at once when a pass is due). */
  private rearm(): void {
    const scheduler = this.schedulerValue;
    if (!scheduler || !this.running) return;
    const wake = scheduler.nextWakeup();
    if (!Number.isFinite(wake)) return;
    if (this.wakeTimer && wake === this.wakeAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = wake;
    const delayMs = Math.min(2 ** 31 - 1, Math.max(0, (wake - this.now()) * 1000));
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakeAt = Number.NaN;
      if (!this.running) return;
      scheduler.advance(this.now());
      this.rearm();
    }, delayMs);
  }

  // ---- the malleable runner's glue ------------------------------------------------------------------------------

  jobDir(runtime: ClusterRuntime, jobId: string): string {
    return `${runtime.jobsRoot}/${jobDirName(this.tag, jobId)}`;
  }

  /**
   * The local job request for the program of a malleable, evolving or interactive job: wrapped so that it finds the
   * protocol's variables (an interactive job's driver, one processor, learns its tasks and reports its iterations).
   */
  wrapApplication(runtime: ClusterRuntime, request: LocalJobRequest): LocalJobRequest {
    const job = this.schedulerValue?.job(request.jobId);
    if (!job || !(resizable(job) || job.kind === 'interactive')) return request;
    const jobDir = this.jobDir(runtime, request.jobId);
    runtime.apps.attach(request.jobId, { channel: runtime.channel, jobDir });
    return {
      ...request,
      program: '/bin/sh',
      args: ['-c', APP_WRAPPER, 'concertina-app', jobDir, String(request.processors), String(job.min), String(job.max), runtime.assetsDir, request.program, ...request.args],
    };
  }

  /** Released local jobs are cancelled: the application is told how many processors Concertina now holds. */
  afterShrink(runtime: ClusterRuntime, jobId: string): void {
    void runtime.manager.cancelsSent().then(() => {
      const job = this.schedulerValue?.job(jobId);
      if (job && !job.ended && this.running) runtime.apps.resized(jobId, job.size);
    });
  }

  private appsOf(jobId: string): RemoteApplications | undefined {
    const cluster = this.schedulerValue?.job(jobId)?.components[0]?.cluster;
    return cluster === undefined ? undefined : this.runtimes.get(cluster)?.apps;
  }

  /** A mandatory shrink not honoured in the grace period: the job is killed and its processors come back. */
  private violation(violation: ProtocolViolation): void {
    if (!this.running) return;
    this.act((scheduler, now) => {
      const job = scheduler.job(violation.jobId);
      if (job && !job.ended) scheduler.cancel(violation.jobId, now, `protocol violation: ${violation.reason}`);
    });
  }

  private appEvent(cluster: string, event: AppEvent): void {
    const stamped = { ...event, cluster, t: this.now() } as LiveAppEvent;
    for (const l of this.appListeners) l(stamped);
  }

  private onEvent(event: SchedulerEvent): void {
    if (event.type === 'job.ended') {
      const runtime = this.runtimes.get(this.schedulerValue?.job(event.jobId)?.components[0]?.cluster ?? '');
      // A last read picks up the application's final messages (its done), then the job is no longer polled.
      if (runtime) void runtime.apps.poll().finally(() => runtime.apps.detach(event.jobId));
    }
    for (const l of this.listeners) l(event);
  }
}

/** The scheduler's LocalManager for one cluster: the batch manager, with the malleable runner's glue around it. */
class LiveManager implements LocalManager {
  readonly supportsReservations = false;

  constructor(
    private readonly world: LiveWorldImpl,
    readonly cluster: string,
  ) {}

  /** Undefined until the cluster has joined the run (the scheduler sees it unreachable and places nothing there). */
  private get runtime(): ClusterRuntime | undefined {
    return this.world.joined(this.cluster);
  }

  submit(request: LocalJobRequest): void {
    const runtime = this.runtime;
    // `{assets}` names where this cluster's copy of the SDK and demo applications is.
    if (runtime) runtime.manager.submit(this.world.wrapApplication(runtime, expandAssets(request, runtime.assetsDir)));
    else this.world.deliver({ type: 'finished', cluster: this.cluster, jobId: request.jobId, state: 'failed', reason: `${this.cluster} is not reachable` }, true);
  }

  grow(jobId: string, processors: number): void {
    this.runtime?.manager.grow(jobId, processors);
  }

  shrink(jobId: string, processors: number): void {
    const runtime = this.runtime;
    if (!runtime) return;
    runtime.manager.shrink(jobId, processors);
    this.world.afterShrink(runtime, jobId);
  }

  cancel(jobId: string): void {
    const runtime = this.runtime;
    if (runtime) runtime.manager.cancel(jobId);
    else this.world.deliver({ type: 'finished', cluster: this.cluster, jobId, state: 'cancelled', reason: `cancelled while ${this.cluster} is not reachable` }, true);
  }

  poll(): void {
    const runtime = this.runtime;
    if (runtime) runtime.manager.poll();
    else this.world.deliver(this.world.unreachableStatus(this.cluster), true);
  }
}

