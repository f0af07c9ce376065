// The live run's clusters as connections: opened at start (a cluster that cannot be reached or read is left out,
// unreachable, with its error), tried again with a backoff until it joins, closed at stop. Holds each cluster's
// runtime once opened, and says how each one stands for the console.
import type { ClusterStatus, InboundMessage } from '../../core/ports.js';
import { backoffDelayMs, LOGIN_RETRY_MAX_MS } from '../ssh/connection.js';
import { SshError } from '../ssh/errors.js';
import type { SecretSource } from '../ssh/secrets.js';
import { SshRunner } from '../ssh/ssh-runner.js';
import {
  closeClusterRuntime,
  openClusterRuntime,
  type ClusterRuntime,
  type ClusterRuntimeContext,
} from './cluster-runtime.js';
import type { LiveClusterConfig } from './config.js';
import { EnvRunner } from './env-runner.js';
import type { LiveClusterState } from './types.js';

const REJOIN_INITIAL_MS = 1000;
const REJOIN_MAX_MS = 60_000;

export interface ClusterConnectionsContext {
  readonly runtime: ClusterRuntimeContext;
  readonly secrets: SecretSource | undefined;
  /** Backoff between attempts to reach a cluster not reached at start (default 1 s doubling up to 60 s). */
  readonly rejoin: { readonly initialDelayMs?: number; readonly maxDelayMs?: number } | undefined;
  /** Whether the world runs. */
  readonly running: () => boolean;
  /** Copies the assets to a cluster just opened whose assets are staged. */
  readonly stage: (runtime: ClusterRuntime) => Promise<unknown>;
  /** A cluster reached after start joins the run (its jobs read by tag, then polled and placed on). */
  readonly join: (runtime: ClusterRuntime) => Promise<void>;
  readonly log: (text: string) => void;
}

export class ClusterConnections {
  private readonly runtimes = new Map<string, ClusterRuntime>();
  /** Clusters left out of the grid, with why. */
  private readonly unreachableClusters = new Map<string, string>();
  private readonly firstStatus = new Map<string, (status: ClusterStatus) => void>();
  /** Pending attempts to reach clusters left out at start. */
  private readonly rejoinTimers = new Map<string, NodeJS.Timeout>();
  /** Why each cluster out of the run was left out, last time. */
  private readonly dropCauses = new Map<string, unknown>();
  /** The secrets' revision each cluster's last try to open it began with. */
  private readonly triedRevisions = new Map<string, number | undefined>();

  constructor(
    private readonly configs: readonly LiveClusterConfig[],
    private readonly context: ClusterConnectionsContext,
  ) {}

  /** Clusters left out of the grid, with why. */
  get unreachable(): ReadonlyMap<string, string> {
    return this.unreachableClusters;
  }

  /** Every cluster opened (joined or being tried again). */
  all(): ClusterRuntime[] {
    return [...this.runtimes.values()];
  }

  runtime(cluster: string): ClusterRuntime | undefined {
    return this.runtimes.get(cluster);
  }

  /** A cluster's runtime once it has joined the run (reached at start, or later). */
  joined(cluster: string): ClusterRuntime | undefined {
    return this.unreachableClusters.has(cluster) ? undefined : this.runtimes.get(cluster);
  }

  /** Opens a cluster at start and reads its first status; undefined (and left out) when it cannot be. */
  async openAtStart(config: LiveClusterConfig): Promise<ClusterStatus | undefined> {
    try {
      await this.open(config);
      return await this.firstPoll(this.runtimes.get(config.name)!);
    } catch (error) {
      await this.drop(config.name, error);
      return undefined;
    }
  }

  /** A status from a manager: the cluster's first one settles firstPoll. */
  statusArrived(message: Extract<InboundMessage, { type: 'status' }>): void {
    this.firstStatus.get(message.cluster)?.(message.status);
  }

  /** The cluster's first status: its processors (the grid is built from them). */
  firstPoll(runtime: ClusterRuntime): Promise<ClusterStatus> {
    const name = runtime.config.name;
    return new Promise((resolve, reject) => {
      this.firstStatus.set(name, (status) => {
        this.firstStatus.delete(name);
        if (!status.reachable || status.processors < 1)
          reject(
            new Error(
              `${name}: the cluster's status cannot be read${runtime.lastError ? `: ${runtime.lastError}` : ''}`,
            ),
          );
        else {
          runtime.processors = status.processors;
          resolve(status);
        }
      });
      runtime.manager.poll();
    });
  }

  /** A cluster that joined the run after start: no longer unreachable, its error forgotten. */
  admit(runtime: ClusterRuntime): void {
    this.unreachableClusters.delete(runtime.config.name);
    runtime.lastError = undefined;
  }

  /**
   * A status as the scheduler's fixed grid sees it: when the cluster reports another size than the grid's (it
   * joined after start with a placeholder size, or its size changed), what it lacks counts as background.
   */
  gridStatus(message: Extract<InboundMessage, { type: 'status' }>, gridSize: number | undefined): InboundMessage {
    const runtime = this.runtimes.get(message.cluster);
    const status = message.status;
    if (!runtime || gridSize === undefined || !status.reachable || status.processors === gridSize) return message;
    const threshold = Math.max(1, Math.floor(status.processors * runtime.config.threshold));
    runtime.reported = { processors: status.processors, threshold, background: status.background };
    const usable = Math.max(0, Math.min(status.processors - status.background, threshold));
    return { ...message, status: { ...status, background: Math.max(0, gridSize - usable) } };
  }

  /** How each cluster stands: open, connecting, lost (with why) or closed, and what it last reported. */
  states(running: boolean): LiveClusterState[] {
    return this.configs.map((c) => {
      const unreachable = this.unreachableClusters.get(c.name);
      if (unreachable !== undefined)
        return {
          name: c.name,
          connection: 'lost',
          lastError: unreachable,
          capacity: { processors: 0, threshold: 0, background: 0 },
        };
      const runtime = this.runtimes.get(c.name);
      const base = runtime?.runner instanceof EnvRunner ? runtime.runner.inner : runtime?.runner;
      let connection: LiveClusterState['connection'];
      if (!runtime) connection = running ? 'connecting' : 'closed';
      else if (runtime.closed) connection = 'closed';
      else if (base instanceof SshRunner) {
        const state = base.connection.state;
        connection =
          state === 'ready'
            ? 'open'
            : state === 'closed'
              ? 'closed'
              : state === 'reconnecting' || state === 'failed'
                ? 'lost'
                : 'connecting';
      } else connection = 'open';
      return {
        name: c.name,
        connection,
        ...(runtime?.lastError !== undefined && { lastError: runtime.lastError }),
        ...(runtime?.reported && { capacity: { ...runtime.reported } }),
      };
    });
  }

  /** Stops the tries and closes every cluster opened (jobs keep running on the clusters). */
  async closeAll(): Promise<void> {
    for (const t of this.rejoinTimers.values()) clearTimeout(t);
    this.rejoinTimers.clear();
    await Promise.all([...this.runtimes.values()].map((r) => closeClusterRuntime(r)));
  }

  /**
   * Tries again to reach a cluster left out at start, after the SSH layer's backoff for its `failures`-th try.
   * Decision: a refused login is tried no more often than the SSH layer tries one (up to 5 min apart), so that a
   * wrong password does not lock the account; new secrets (their source's revision) try at once.
   */
  scheduleRejoin(name: string, failures: number): void {
    if (!this.context.running()) return;
    const rejoin = this.context.rejoin;
    const cause = this.dropCauses.get(name);
    const refused = cause instanceof SshError && cause.kind === 'auth-failed';
    const maxMs = rejoin?.maxDelayMs ?? (refused ? LOGIN_RETRY_MAX_MS : REJOIN_MAX_MS);
    const due = Date.now() + backoffDelayMs(failures + 1, rejoin?.initialDelayMs ?? REJOIN_INITIAL_MS, maxMs);
    const revision = this.triedRevisions.get(name);
    const wait = () => {
      const left = due - Date.now();
      const timer = setTimeout(
        () => {
          this.rejoinTimers.delete(name);
          if (refused && this.context.secrets?.revision?.() !== revision) {
            this.context.log(`${name}: its secrets changed: trying to log in again now`);
            void this.tryRejoin(name, failures);
          } else if (Date.now() >= due) void this.tryRejoin(name, failures);
          else wait();
        },
        refused ? Math.min(left, rejoin?.initialDelayMs ?? REJOIN_INITIAL_MS) : left,
      );
      timer.unref?.();
      this.rejoinTimers.set(name, timer);
    };
    wait();
  }

  private async open(config: LiveClusterConfig): Promise<void> {
    // The secrets this try logs in with: any set while it is under way are new to the next try.
    this.triedRevisions.set(config.name, this.context.secrets?.revision?.());
    const runtime = await openClusterRuntime(config, this.context.runtime);
    this.runtimes.set(config.name, runtime);
    if (runtime.staged) await this.context.stage(runtime);
  }

  /** A cluster that cannot be reached or read: closed, out of this run's grid, its error kept. */
  private async drop(name: string, error: unknown): Promise<void> {
    this.dropCauses.set(name, error);
    const message = error instanceof Error ? error.message : String(error);
    this.unreachableClusters.set(name, message.startsWith(`${name}: `) ? message : `${name}: ${message}`);
    this.context.log(this.unreachableClusters.get(name)!);
    const runtime = this.runtimes.get(name);
    this.runtimes.delete(name);
    if (runtime) await closeClusterRuntime(runtime, { ignoreErrors: true });
  }

  private async tryRejoin(name: string, failures: number): Promise<void> {
    const config = this.configs.find((c) => c.name === name)!;
    const running = this.context.running;
    try {
      await this.open(config);
      const runtime = this.runtimes.get(name)!;
      await this.firstPoll(runtime);
      if (!running()) return await this.closeAfterStop(name);
      await this.context.join(runtime);
      if (!running()) return await this.closeAfterStop(name);
    } catch (error) {
      if (!running()) return await this.closeAfterStop(name);
      await this.drop(name, error);
      this.scheduleRejoin(name, failures + 1);
    }
  }

  /** A try that was under way when the world stopped: its connection is closed too (stop closed those it saw). */
  private async closeAfterStop(name: string): Promise<void> {
    const runtime = this.runtimes.get(name);
    if (!runtime || runtime.closed) return;
    await closeClusterRuntime(runtime, { ignoreErrors: true });
  }
}
