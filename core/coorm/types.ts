// Vocabulary of the CooRMv2 resource manager: request types and constraints, views, messages to applications.
import type { StepFunction } from '../time/step-function.js';

/** PA: pre-allocation (marks resources, no node IDs); NP: non-preemptible; P: preemptible. */
export type RequestType = 'PA' | 'NP' | 'P';
export type RelatedHow = 'FREE' | 'COALLOC' | 'NEXT';

export const REQUEST_TYPES: readonly RequestType[] = ['PA', 'NP', 'P'];
export const RELATED_HOWS: readonly RelatedHow[] = ['FREE', 'COALLOC', 'NEXT'];

/** Cluster id -> availability profile over absolute time. A cluster missing from a view has nothing available. */
export type View = ReadonlyMap<string, StepFunction>;

/** What an application sends with request(). */
export interface RequestSpec {
  cid: string;
  n: number;
  /** Seconds; may be Infinity. */
  duration: number;
  type: RequestType;
  /** Default FREE. */
  relatedHow?: RelatedHow;
  /** Id of an earlier request of the same session; required for COALLOC and NEXT. */
  relatedTo?: number;
}

/** A request as the RMS keeps it: the application's attributes plus those the scheduler sets. */
export interface CoormRequest {
  readonly id: number;
  readonly session: number;
  readonly cid: string;
  readonly n: number;
  /** Shortened to (now - startedAt) by done(). */
  duration: number;
  readonly type: RequestType;
  readonly relatedHow: RelatedHow;
  /** The request this one is constrained to (kept even after it ended, so NEXT/COALLOC can still read it). */
  readonly parent: CoormRequest | undefined;
  /** Children in the same request set (same type), in submission order. */
  readonly children: CoormRequest[];
  /** Node count the schedule gives it (preemptible requests may get fewer than n). */
  nAlloc: number;
  scheduledAt: number;
  fixed: boolean;
  earliestScheduleAt: number;
  /** NaN until started. */
  startedAt: number;
  nodeIds: number[];
  /** Node IDs the application released with done(), for its NEXT successor. */
  releasedIds: number[] | undefined;
  /** Started, but its node IDs are not all free yet (holders of preemptible nodes have not released them). */
  awaitingIds: boolean;
  /** Ended (done, elapsed or cancelled) and out of its request set. */
  removed: boolean;
  /** NP only: served from the application's pre-allocation on its cluster (false: wrapped in an implicit one). */
  insidePA: boolean;
}

export type RmsMessage =
  | { type: 'views'; session: number; nonPreemptive: View; preemptive: View }
  | { type: 'started'; session: number; request: number; nodeIds: readonly number[] }
  | { type: 'killed'; session: number; reason: string };

/** A cluster as CooRMv2 sees it: an id and a number of nodes (the grid's ClusterSpec is core/model/schemas.ts). */
export interface CoormCluster {
  cid: string;
  nodes: number;
}

/**
 * How preemptible resources are shared. 'fill' (CooRMv2): equal partitions, and an application may fill what the
 * others leave unused. 'strict': each application is offered its equal partition only (the strict
 * equi-partitioning the paper compares CooRMv2 with in its Figure 11).
 */
export type PreemptibleSharing = 'fill' | 'strict';

export interface CoormOptions {
  /** Minimum time between two passes triggered by messages (seconds). Default 1. */
  reschedulingIntervalS?: number;
  /** Time an application has to release preemptible nodes its pushed view no longer covers. Default: the interval. */
  violationGraceS?: number;
  /** Default 'fill'. */
  preemptibleSharing?: PreemptibleSharing;
}

export const started = (r: CoormRequest): boolean => r.startedAt === r.startedAt;

/** End of a request's allocation (Infinity while unbounded or not scheduled). */
export const endOf = (r: CoormRequest): number => r.scheduledAt + r.duration;
