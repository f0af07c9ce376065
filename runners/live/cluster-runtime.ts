// One cluster of a live run once reached: its runner (with the cluster's environment), where its jobs and assets
// live, its BatchLocalManager, the application protocol's channel and its applications' reader. Opened by probing
// the login directory and core count; closed without cancelling anything (jobs keep running on the cluster).
import { BatchLocalManager } from '../managers/batch-local-manager.js';
import { createBatchSystem } from '../managers/index.js';
import type { InboundMessage, LocalJobRequest } from '../../core/ports.js';
import { AppChannel } from '../protocol/channel.js';
import { RemoteApplications, type AppEvent, type ProtocolViolation } from '../protocol/application-port.js';
import type { CommandRunner } from '../shell/command-runner.js';
import { ApplicationPolling, DEFAULT_APP_POLL_MS } from './app-polling.js';
import { batchSystemSettings } from './batch-settings.js';
import type { LiveClusterConfig } from './config.js';
import { EnvRunner } from './env-runner.js';

/** Per cluster: how it is reached, managed and talked to. */
export interface ClusterRuntime {
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
  readonly appPolling: ApplicationPolling;
  processors: number;
  /** What the cluster last reported, once it differs from the grid's size (see toGridStatus). */
  reported?: { processors: number; threshold: number; background: number };
  lastError?: string;
  closed: boolean;
}

/** What opening a cluster needs from the world. */
export interface ClusterRuntimeContext {
  /** The cluster's runner as its configuration names it (the world applies `env`). */
  readonly openRunner: (config: LiveClusterConfig) => CommandRunner | Promise<CommandRunner>;
  /** Where the SDK and demo applications already are (then nothing is staged); default `<workRoot>/assets`. */
  readonly assetsDir: string | ((cluster: string) => string) | undefined;
  readonly tag: string;
  readonly commandTimeoutMs: number;
  readonly watchIntervalMs: number;
  readonly idleWatchIntervalMs: number | undefined;
  readonly graceMs: number | undefined;
  readonly appPollIntervalMs: number | undefined;
  /** The scheduler's time in seconds. */
  readonly now: () => number;
  /** Whether the world runs (reads of applications' files stop with it). */
  readonly running: () => boolean;
  /** Whether a submitted job changes size while it runs (malleable or evolving). */
  readonly isResizable: (jobId: string) => boolean;
  readonly deliver: (message: InboundMessage) => void;
  readonly onViolation: (violation: ProtocolViolation) => void;
  readonly onAppEvent: (cluster: string, event: AppEvent) => void;
  readonly log: (text: string) => void;
}

/** Malleable and evolving jobs change size while they run: a collection of size-1 local jobs, and a protocol channel. */
export function resizable(job: { readonly kind: string } | undefined): boolean {
  return job?.kind === 'malleable' || job?.kind === 'evolving';
}

/** The holder of each extra processor: the slot stub, in the job's directory (where the job script runs). */
const HOLDER = 'exec /bin/sh "$0" "$PWD" "m$CONCERTINA_MEMBER"';

/** Opens the cluster's runner, finds its login directory and cores, and builds its manager and protocol channel. */
export async function openClusterRuntime(
  config: LiveClusterConfig,
  context: ClusterRuntimeContext,
): Promise<ClusterRuntime> {
  const raw = await context.openRunner(config);
  const runner = Object.keys(config.env).length ? new EnvRunner(raw, config.env) : raw;
  const timeoutMs = context.commandTimeoutMs;
  // The login directory anchors a relative workRoot: the protocol's job directories must be absolute.
  const probe = await runner
    .run('cd && pwd && (getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)', { timeoutMs })
    .catch(async (error: unknown) => {
      await runner.close().catch(() => undefined);
      throw error;
    });
  const [home, cores] = probe.stdout.trim().split('\n');
  if (probe.code !== 0 || !home?.startsWith('/'))
    throw new Error(
      `${config.name}: cannot find the login directory on ${runner.target}: ${probe.stderr.trim() || `exit status ${probe.code}`}`,
    );
  const workRoot = config.workRoot.startsWith('/') ? config.workRoot.replace(/\/+$/, '') : `${home}/${config.workRoot}`;
  const system = batchSystemSettings(config, { cores: Number(cores) || 1, workRoot });
  const assets = context.assetsDir;
  const assetsDir = typeof assets === 'function' ? assets(config.name) : (assets ?? `${workRoot}/assets`);
  const jobsRoot = `${workRoot}/jobs`;
  const apps = new RemoteApplications({
    deliver: (message) => context.deliver(message),
    onViolation: (violation) => context.onViolation(violation),
    onEvent: (event) => context.onAppEvent(config.name, event),
    onProblem: (problem) => context.log(`${config.name}: ${problem.message}`),
    ...(context.graceMs !== undefined && { graceMs: context.graceMs }),
    // A shrink's deadline (scheduler seconds) as the wall-clock ms the application compares with Date.now().
    schedulerTimeToMs: (t) => Date.now() + (t - context.now()) * 1000,
  });
  const runtime: ClusterRuntime = {
    config,
    runner,
    workRoot,
    jobsRoot,
    assetsDir,
    staged: assets === undefined,
    processors: 0,
    closed: false,
    manager: new BatchLocalManager({
      cluster: config.name,
      system: createBatchSystem(system),
      runner,
      onMessage: (message) => context.deliver(message),
      clock: () => context.now(),
      tag: context.tag,
      workRoot: jobsRoot,
      // Decision: on a real batch system an evolving job's pre-allocation is Concertina's accounting, not a
      // reservation held at the cluster: like a malleable job it runs as size-1 local jobs, grown and shrunk.
      isMalleable: (request: LocalJobRequest) => context.isResizable(request.jobId),
      holder: { program: '/bin/sh', args: ['-c', HOLDER, `${assetsDir}/apps/slot-stub.sh`] },
      commandTimeoutMs: timeoutMs,
      log: (text) => {
        runtime.lastError = text;
        context.log(text);
      },
      watchIntervalMs: context.watchIntervalMs,
      ...(context.idleWatchIntervalMs !== undefined && { idleWatchIntervalMs: context.idleWatchIntervalMs }),
    }),
    channel: new AppChannel(runner, { timeoutMs }),
    apps,
    appPolling: new ApplicationPolling(
      apps,
      context.appPollIntervalMs ?? DEFAULT_APP_POLL_MS,
      () => context.running() && !runtime.closed,
    ),
  };
  return runtime;
}

/** Closes the cluster's manager and runner (cancels already asked for are still sent); its jobs keep running. */
export async function closeClusterRuntime(
  runtime: ClusterRuntime,
  options: { readonly ignoreErrors?: boolean } = {},
): Promise<void> {
  runtime.closed = true;
  runtime.appPolling.stop();
  if (options.ignoreErrors) {
    await runtime.manager.close().catch(() => undefined);
    await runtime.runner.close().catch(() => undefined);
  } else {
    await runtime.manager.close();
    await runtime.runner.close();
  }
}
