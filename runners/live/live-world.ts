// Live mode: the scheduler over real clusters, in wall-clock time. This file orchestrates the parts: per cluster a
// runtime (cluster-runtime.ts: its runner, batch-system adapter, BatchLocalManager and application channel), opened,
// tried again and closed by cluster-connections.ts; one Scheduler fed through one inbox (scheduler-inbox.ts) as the
// simulator's world is (core/sim/world.ts); the malleable runner's glue around each cluster's manager
// (live-cluster.ts); the applications' files read by app-polling.ts; and an earlier run's jobs recovered by
// restart-recovery.ts.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SchedulerEvent } from '../../core/events.js';
import { buildGrid } from '../../core/model/grid.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import type { ApplicationPort, InboundMessage } from '../../core/ports.js';
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler, type SchedulerOptions } from '../../core/scheduler/scheduler.js';
import { jobDirName } from '../managers/naming.js';
import type { AppEvent, ProtocolViolation, RemoteApplications } from '../protocol/application-port.js';
import type { CommandRunner } from '../shell/command-runner.js';
import { defaultKnownHostsFile, KnownHosts } from '../ssh/known-hosts.js';
import type { SecretSource } from '../ssh/secrets.js';
import { collectAssets, stageAssets, type AssetFile, type StagingResult } from './asset-staging.js';
import { ClusterConnections } from './cluster-connections.js';
import { openClusterRunner } from './cluster-runner.js';
import { resizable, type ClusterRuntime } from './cluster-runtime.js';
import { LiveCluster, unreachableStatus } from './live-cluster.js';
import { RestartRecovery } from './restart-recovery.js';
import { SchedulerInbox } from './scheduler-inbox.js';
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

/** Decision: the managers' status rounds run every 100 ms while something waits (see app-polling.ts). */
const DEFAULT_WATCH_MS = 100;
/**
 * Decision: a cluster not reached at start is in the grid from the start, unreachable, with a placeholder size (its
 * slots, else this); once it joins, what it lacks against the placeholder counts as background, so the scheduler
 * never sees more than it has. Jobs naming it are accepted and wait for it.
 */
const PLACEHOLDER_PROCESSORS = 65_536;

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
  private readonly connections: ClusterConnections;
  private readonly inbox: SchedulerInbox;
  private readonly recovery: RestartRecovery;
  private schedulerValue: Scheduler | undefined;
  private readonly listeners = new Set<(event: SchedulerEvent) => void>();
  private readonly appListeners = new Set<(event: LiveAppEvent) => void>();
  private readonly timers: NodeJS.Timeout[] = [];
  private running = false;
  private assetFiles: AssetFile[] | undefined;

  constructor(private readonly options: LiveWorldOptions) {
    this.configs = options.clusters.map((c, i) => {
      const parsed = liveClusterSchema.safeParse(c);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new Error(
          `clusters[${i}]${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message}`,
        );
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
    const commandTimeoutMs = options.commandTimeoutMs ?? 30_000;
    const isRunning = () => this.running;
    this.connections = new ClusterConnections(this.configs, {
      runtime: {
        openRunner: (config) => (options.runnerFor ? options.runnerFor(config) : this.openRunner(config)),
        assetsDir: options.assetsDir,
        tag: this.tag,
        commandTimeoutMs,
        watchIntervalMs: options.watchIntervalMs ?? DEFAULT_WATCH_MS,
        idleWatchIntervalMs: options.idleWatchIntervalMs,
        graceMs: options.graceMs,
        appPollIntervalMs: options.appPollIntervalMs,
        now: () => this.now(),
        running: isRunning,
        isResizable: (jobId) => resizable(this.schedulerValue?.job(jobId)),
        deliver: (message) => this.deliver(message),
        onViolation: (violation) => this.violation(violation),
        onAppEvent: (cluster, event) => this.appEvent(cluster, event),
        log: this.log,
      },
      secrets: options.secrets,
      rejoin: options.rejoin,
      running: isRunning,
      stage: (runtime) => this.stageOn(runtime),
      join: (runtime) => this.join(runtime),
      log: this.log,
    });
    this.inbox = new SchedulerInbox({
      scheduler: () => this.schedulerValue,
      running: isRunning,
      now: () => this.now(),
    });
    this.recovery = new RestartRecovery(this.restore, {
      tag: this.tag,
      commandTimeoutMs,
      now: () => this.now(),
      log: this.log,
      deliver: (message) => this.deliver(message),
      jobDir: (runtime, jobId) => this.jobDir(runtime, jobId),
    });
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
      const statuses = await Promise.all(this.configs.map((c) => this.connections.openAtStart(c)));
      const unreachable = this.connections.unreachable;
      if (!statuses.some((s) => s))
        throw new Error(`no cluster can be reached: ${[...unreachable.values()].join('; ')}`);
      const grid = buildGrid(
        gridSpecSchema.parse({
          name: 'live',
          clusters: this.configs.map((c, i) => {
            const processors = Math.max(1, statuses[i]?.processors ?? c.slots ?? PLACEHOLDER_PROCESSORS);
            return {
              name: c.name,
              processors,
              threshold: Math.max(1, Math.floor(processors * c.threshold)),
              ...(c.interactive && { interactive: c.interactive }),
            };
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
        growGranted: (offerId, jobId, granted, accepted) =>
          this.appsOf(jobId)?.growGranted(offerId, jobId, granted, accepted),
        resized: (jobId, size) => this.appsOf(jobId)?.resized(jobId, size),
        updateRefused: (jobId, reason) => this.appsOf(jobId)?.updateRefused(jobId, reason),
        interactiveTasks: (jobId, tasks) => this.appsOf(jobId)?.interactiveTasks(jobId, tasks),
      };
      const managerContext = {
        joined: (cluster: string) => this.connections.joined(cluster),
        deliver: (message: InboundMessage, forUnjoined: boolean) => this.deliver(message, forUnjoined),
        job: (jobId: string) => this.schedulerValue?.job(jobId),
        running: () => this.running,
        jobDir: (runtime: ClusterRuntime, jobId: string) => this.jobDir(runtime, jobId),
      };
      const managers = this.configs.map((c) => new LiveCluster(managerContext, c.name));
      const scheduler = new Scheduler(grid, managers, applications, { ...this.options.scheduler, tag: this.tag });
      this.schedulerValue = scheduler;
      scheduler.on((event) => this.onEvent(event));
      // The clusters not reached are unreachable before the first pass: nothing is placed there until they join.
      for (const name of unreachable.keys()) scheduler.receive(unreachableStatus(name), this.now());
      await this.recovery.recover(
        scheduler,
        new Map(this.connections.all().map((r) => [r.config.name, r])),
        unreachable,
        (clusters) => this.readStatusesAgain(clusters),
      );
      this.inbox.accept();
      for (const runtime of this.connections.all()) this.startClusterTimers(runtime);
      this.inbox.rearm();
      for (const name of unreachable.keys()) this.connections.scheduleRejoin(name, 1);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.inbox.stop();
    for (const t of this.timers.splice(0)) clearInterval(t);
    await this.connections.closeAll();
  }

  /** The statuses of clusters where the earlier run's jobs were found, read again now the managers know them. */
  private async readStatusesAgain(clusters: ReadonlySet<string>): Promise<void> {
    this.inbox.dropStatuses(clusters);
    await Promise.all(
      [...clusters].map((name) => this.connections.firstPoll(this.connections.runtime(name)!).catch(() => undefined)),
    );
  }

  private openRunner(config: LiveClusterConfig): Promise<CommandRunner> {
    return openClusterRunner(config, {
      knownHosts: this.options.knownHosts ?? new KnownHosts(defaultKnownHostsFile()),
      ...(this.options.secrets ? { secrets: this.options.secrets } : {}),
      ...(this.options.sshConfigFile !== undefined ? { sshConfigFile: this.options.sshConfigFile } : {}),
      timeoutMs: this.options.commandTimeoutMs ?? 30_000,
    });
  }

  private startClusterTimers(runtime: ClusterRuntime): void {
    const poll = setInterval(() => runtime.manager.poll(), runtime.config.pollIntervalS * 1000);
    poll.unref?.();
    this.timers.push(poll);
    runtime.appPolling.start();
  }

  /**
   * A cluster reached after start joins the run as it would have at start: its jobs are read by tag, the restored
   * state's jobs stranded there are adopted (never submitted again), then it is polled and placed on.
   */
  private async join(runtime: ClusterRuntime): Promise<void> {
    const scheduler = this.scheduler;
    const found = await runtime.manager.recover();
    if (!this.running) return;
    this.connections.admit(runtime);
    await this.recovery.joined(scheduler, runtime, found);
    this.log(`${runtime.config.name}: reached: joins the run`);
    this.startClusterTimers(runtime);
    runtime.manager.poll();
    this.inbox.rearm();
  }

  // ---- assets -----------------------------------------------------------------------------------------------------

  /** Copies the SDK and the applications to the cluster where its copy differs; read locally once per world. */
  private async stageOn(runtime: ClusterRuntime): Promise<StagingResult> {
    this.assetFiles ??= collectAssets(this.options.assetsSource ?? repositoryAssetsDir());
    const result = await stageAssets(runtime.runner, runtime.assetsDir, this.assetFiles, {
      timeoutMs: this.options.commandTimeoutMs ?? 30_000,
    });
    if (result.copied.length > 0)
      this.log(`${runtime.config.name}: staged ${result.copied.length} asset file(s) into ${result.dir}`);
    return result;
  }

  async stageAssets(cluster?: string): Promise<StagingResult[]> {
    this.assetFiles = undefined;
    // Only clusters in the run (a cluster still being tried again stages when it joins).
    const runtimes = this.connections
      .all()
      .filter(
        (r) =>
          r.staged &&
          !r.closed &&
          this.connections.joined(r.config.name) &&
          (cluster === undefined || r.config.name === cluster),
      );
    return Promise.all(runtimes.map((r) => this.stageOn(r)));
  }

  assetsDir(cluster: string): string | undefined {
    return this.connections.runtime(cluster)?.assetsDir;
  }

  // ---- what the host reads and stores -----------------------------------------------------------------------------

  recovered(): readonly RecoveryOutcome[] {
    return this.recovery.outcomes;
  }

  persistentState(): LivePersistentState {
    const scheduler = this.scheduler;
    const jobs: LivePersistentJob[] = [];
    for (const job of scheduler.jobs()) {
      if (job.ended) continue;
      const cluster = job.components[0]?.cluster;
      const runtime = cluster === undefined ? undefined : this.connections.runtime(cluster);
      const lastSeq = resizable(job) ? runtime?.apps.lastSeq(job.id) : undefined;
      // An update handled (its seq is in lastSeq) but not yet in effect is not read again after a restart.
      const target =
        job.evolving && job.state === 'running' ? (job.announcedShrink?.processors ?? job.held) : undefined;
      const updateTarget = target !== undefined && target !== job.size ? target : undefined;
      const fpe = job.state === 'running' ? scheduler.fpeSchedule(job.id) : undefined;
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
        ...(fpe !== undefined &&
          fpe.step >= 0 && {
            step: {
              index: fpe.step,
              start: fpe.stepStart,
              planned: fpe.planned.map((s) => ({ durationS: s.duration, processors: s.nodes })),
              ...(fpe.growFailures > 0 && { growFailures: fpe.growFailures }),
              // Decision: stored with the failures it follows; once a grow brings its step, neither is.
              ...(fpe.growFailures > 0 && Number.isFinite(fpe.retryAt) && { retryAt: fpe.retryAt }),
            },
          }),
      });
    }
    return {
      version: 1,
      epochMs: this.epochMs,
      submitted: scheduler.jobNumber,
      ...(this.runId !== undefined && { runId: this.runId }),
      jobs: [...jobs, ...this.recovery.stranded],
    };
  }

  clusters(): LiveClusterState[] {
    return this.connections.states(this.running);
  }

  // ---- the scheduler's loop ---------------------------------------------------------------------------------------

  act<T>(command: (scheduler: Scheduler, now: number) => T): T {
    const scheduler = this.scheduler;
    const result = command(scheduler, this.now());
    this.inbox.rearm();
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

  /**
   * A message from a manager or an application: queued, and handed to the scheduler in arrival order. `forUnjoined`:
   * the world's own answer for a cluster not joined (else such a cluster's messages are dropped).
   */
  private deliver(message: InboundMessage, forUnjoined = false): void {
    if (message.type === 'status') this.connections.statusArrived(message);
    // A cluster not joined (a dropped manager's last words, or one being tried again) is not the scheduler's yet.
    if (!forUnjoined && 'cluster' in message && this.connections.unreachable.has(message.cluster)) return;
    this.inbox.push(
      message.type === 'status' && !forUnjoined
        ? this.connections.gridStatus(message, this.schedulerValue?.grid.cluster(message.cluster)?.processors)
        : message,
    );
  }

  // ---- applications -----------------------------------------------------------------------------------------------

  private jobDir(runtime: ClusterRuntime, jobId: string): string {
    return `${runtime.jobsRoot}/${jobDirName(this.tag, jobId)}`;
  }

  private runtimeOf(jobId: string): ClusterRuntime | undefined {
    const cluster = this.schedulerValue?.job(jobId)?.components[0]?.cluster;
    return cluster === undefined ? undefined : this.connections.runtime(cluster);
  }

  private appsOf(jobId: string): RemoteApplications | undefined {
    return this.runtimeOf(jobId)?.apps;
  }

  /** An offer or a shrink request went to the job's application: read its answers soon. */
  private awaitAnswer(jobId: string): void {
    this.runtimeOf(jobId)?.appPolling.awaitAnswer();
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
      const runtime = this.connections.runtime(this.schedulerValue?.job(event.jobId)?.components[0]?.cluster ?? '');
      // A last read picks up the application's final messages (its done), then the job is no longer polled.
      if (runtime) void runtime.apps.poll().finally(() => runtime.apps.detach(event.jobId));
    }
    for (const l of this.listeners) l(event);
  }
}
