// What the host needs to run a live grid: how a LiveWorld is built from the stored cluster configurations (the
// factory: createLiveWorld in production, a fake in tests), and the live clusters' part of a grid snapshot.
import type { ClusterSnapshot, SchedulerOptions } from '../../core/scheduler/scheduler.js';
import type { KnownHosts } from '../../runners/ssh/known-hosts.js';
import type { SecretSource } from '../../runners/ssh/secrets.js';
import { createLiveWorld } from '../../runners/live/live-world.js';
import type { LiveClusterConfig, LiveClusterState, LiveWorld } from '../../runners/live/types.js';

export interface LiveWorldFactoryOptions {
  readonly clusters: readonly LiveClusterConfig[];
  readonly knownHosts: KnownHosts;
  /** The clusters' passwords and passphrases (asked only when a server or key needs one). */
  readonly secrets: SecretSource;
  /** Default ~/.ssh/config. */
  readonly sshConfigFile?: string;
  /** A resumed run: what the previous world's persistentState() returned (its jobs are recovered by tag). */
  readonly restore?: unknown;
  /** The queue settings the live world's scheduler starts with (the run's: Settings, or the stored run's). */
  readonly queue?: Pick<SchedulerOptions, 'queue' | 'reservationDepth' | 'priority'>;
}

export type LiveWorldFactory = (options: LiveWorldFactoryOptions) => LiveWorld;

export const createLiveWorldFromConfig: LiveWorldFactory = (options) =>
  createLiveWorld({
    clusters: options.clusters,
    knownHosts: options.knownHosts,
    secrets: options.secrets,
    ...(options.sshConfigFile !== undefined ? { sshConfigFile: options.sshConfigFile } : {}),
    ...(options.restore !== undefined ? { restore: options.restore } : {}),
    ...(options.queue !== undefined ? { scheduler: options.queue } : {}),
  });

/**
 * One source over every cluster's own: a request is answered by the source of the cluster whose connection asks
 * (each connection is named after its cluster), which decides what that hop may have (ClusterSecrets.sourceFor).
 * A request from a connection no cluster is named after gets no secret.
 */
export function clustersSecretSource(
  clusters: readonly LiveClusterConfig[],
  sourceFor: (c: LiveClusterConfig) => SecretSource,
): SecretSource {
  const sources = new Map(clusters.map((c) => [c.name, sourceFor(c)]));
  return {
    revision: () => [...sources.values()].reduce((sum, s) => sum + (s.revision?.() ?? 0), 0),
    get: async (request) =>
      request.connection === undefined ? undefined : sources.get(request.connection)?.get(request),
  };
}

/**
 * A cluster's own figures where the grid holds a placeholder size (it joined after start, or has not yet): idle is
 * the scheduler's, bounded by what the cluster really has.
 */
function ownCapacity(c: ClusterSnapshot, capacity: NonNullable<LiveClusterState['capacity']>) {
  const held = c.nonPreemptible + c.preemptible + c.preallocatedUnused + c.earmarked;
  return { ...capacity, idle: Math.min(c.idle, Math.max(0, capacity.processors - capacity.background - held)) };
}

/**
 * The scheduler's cluster snapshots with each live cluster's link state and last error added, then a card for each
 * cluster left out of the grid (unreachable when the world started): no processors, unreachable, with its error.
 */
export function liveClusterSnapshots(snapshots: readonly ClusterSnapshot[], states: readonly LiveClusterState[]) {
  const byName = new Map(states.map((s) => [s.name, s]));
  const inGrid = new Set(snapshots.map((c) => c.name));
  const cards = snapshots.map((c) => {
    const state = byName.get(c.name);
    return {
      ...c,
      ...(state?.capacity && ownCapacity(c, state.capacity)),
      lastPoll: Number.isFinite(c.lastPoll) ? c.lastPoll : null,
      ...(state
        ? { connection: state.connection, ...(state.lastError !== undefined ? { lastError: state.lastError } : {}) }
        : {}),
    };
  });
  const zero = {
    processors: 0,
    threshold: 0,
    background: 0,
    nonPreemptible: 0,
    preallocatedUnused: 0,
    preemptible: 0,
    earmarked: 0,
    idle: 0,
    runningMalleable: 0,
  };
  for (const state of states) {
    if (inGrid.has(state.name)) continue;
    cards.push({
      name: state.name,
      reachable: false,
      lastPoll: null,
      ...zero,
      connection: state.connection,
      ...(state.lastError !== undefined ? { lastError: state.lastError } : {}),
    });
  }
  return cards;
}
