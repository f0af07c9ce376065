// The job-management extension point (KOALA paper, V-B): when running malleable jobs are grown or shrunk relative
// to placing waiting jobs. PRA and PWA are the two approaches; each is a file registered in approaches/index.ts.
import type { ReadonlyClusterState } from '../scheduler/cluster-state.js';

/** What an approach sees of a pass: the clusters read-only, and the two things it may set going. */
export interface PassContext {
  readonly clusters: readonly ReadonlyClusterState[];
  /** The clusters where processors came free since growth last ran there, in grid order. */
  readonly growthDue: readonly ReadonlyClusterState[];
  /** Grows the running malleable jobs of a cluster with what is free there, if growth is due; true if it started. */
  growRunning(cluster: ReadonlyClusterState): boolean;
  /** Scans the placement queue head to tail; with `shrinkToPlace`, a job that does not fit triggers mandatory shrinks. */
  scanQueue(options: { shrinkToPlace: boolean }): void;
}

export interface JobManagementApproach {
  readonly name: string;
  readonly description: string;
  /** One scheduling pass. */
  pass(context: PassContext): void;
}
