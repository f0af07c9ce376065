// A cluster as the scheduler reports it now and as the Grid's cards show it: its capacity model, its interactive
// worker nodes, and for a live cluster its SSH link. The one definition: the scheduler builds it, the host adds the
// parts it knows, and the API checks it with this schema.
import { z } from 'zod';

/** How a cluster's processors are held now (core/scheduler/cluster-state.ts); the classes partition the cluster. */
const capacityBreakdownSchema = z.object({
  processors: z.number(),
  threshold: z.number(),
  /** Held by users who bypass Concertina (last poll). */
  background: z.number(),
  /** Concertina's rigid and moldable jobs and malleable minimums. */
  nonPreemptible: z.number(),
  /**
   * Pre-allocated by evolving jobs and idle: neither in use by their job nor lent to malleable extras (so that the
   * classes of the breakdown partition the cluster).
   */
  preallocatedUnused: z.number(),
  /** Malleable processors above their jobs' minimums (some of them may fill pre-allocated processors). */
  preemptible: z.number(),
  /** Offered to jobs or waiting for a claim, not yet theirs. */
  earmarked: z.number(),
  idle: z.number(),
});
export type CapacityBreakdown = Readonly<z.infer<typeof capacityBreakdownSchema>>;

/** A worker node as a Grid card shows it. */
const interactiveNodeSampleSchema = z.object({
  node: z.number(),
  tasks: z.number(),
  utilization: z.number(),
  /** S (ms); null when the node hosts nothing (its slack is unbounded). */
  slackMs: z.number().nullable(),
});

/**
 * A cluster's interactive partition now (core/scheduler/interactive-jobs.ts): each node's EDF utilization and slack,
 * the interactive jobs there, and admissions, misses and re-placements so far.
 */
const interactiveClusterSampleSchema = z.object({
  nodes: z.array(interactiveNodeSampleSchema),
  jobs: z.number(),
  admitted: z.number(),
  misses: z.number(),
  replacements: z.number(),
});
export type InteractiveClusterSample = Readonly<z.infer<typeof interactiveClusterSampleSchema>>;

export const clusterSnapshotSchema = capacityBreakdownSchema.extend({
  name: z.string(),
  reachable: z.boolean(),
  /** The scheduler's time of its last poll; null before the first. */
  lastPoll: z.number().nullable(),
  runningMalleable: z.number(),
  /** A cluster with interactive worker nodes. */
  interactive: interactiveClusterSampleSchema.optional(),
  /** Live clusters only: the SSH link's state and its last error. */
  connection: z.enum(['connecting', 'open', 'lost', 'closed']).optional(),
  lastError: z.string().optional(),
});
export type ClusterSnapshot = Readonly<z.infer<typeof clusterSnapshotSchema>>;
