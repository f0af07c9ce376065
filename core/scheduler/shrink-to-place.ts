// PWA's shrink-to-place (KOALA paper, V-B): a waiting job that fits nowhere as things are, but would fit once running
// malleable jobs gave back their extras, has processors set aside for it and mandatory shrinks started where it would
// go; it is placed at a later pass, once the shrinks have released what it needs.
import type { PlacedComponent } from '../events.js';
import type { Grid } from '../model/grid.js';
import type { ClusterState } from './cluster-state.js';
import type { JobRecord } from './job-record.js';
import type { CapacityLedger } from './ledger.js';
import { roomFor } from './room.js';

/** What shrink-to-place needs of the malleability manager. */
export interface ShrinkOperations {
  /** Whether an operation runs on the cluster (a shrink waits for it to end). */
  busy(cluster: ClusterState): boolean;
  /** Starts the policy's shrink of the cluster's running malleable jobs. */
  shrink(cluster: ClusterState, shrinkValue: number, mandatory: boolean, now: number): void;
}

export class ShrinkToPlace {
  constructor(
    private readonly grid: Grid,
    private readonly clusters: readonly ClusterState[],
    private readonly ledger: CapacityLedger,
    private readonly operations: ShrinkOperations,
  ) {}

  /** Whether a job set processors aside and must wait: a shrink still runs on a cluster where it waits. */
  waits(job: JobRecord): boolean {
    return job.waitingOn.length > 0 && job.waitingOn.some((i) => this.operations.busy(this.clusters[i]!));
  }

  /**
   * For a job its placement policy could not place now: places it as if mandatory shrinks had reclaimed the malleable
   * extras of every cluster where no operation runs; where that works, sets its processors aside and starts the
   * shrinks. Returns why the job waits, or undefined when it would not fit even so.
   */
  tryWithShrinks(job: JobRecord, now: number): string | undefined {
    const busy = (i: number) => this.operations.busy(this.clusters[i]!);
    const withShrink = job.placementPolicy.place(job.spec, {
      grid: this.grid,
      available: (i) => roomFor(job, this.clusters[i]!, !busy(i)),
    });
    return withShrink.ok ? this.shrinkToPlace(job, withShrink.components, now) : undefined;
  }

  /** Reclaims processors from running malleable jobs for a job that fits only that way, and sets them aside. */
  private shrinkToPlace(job: JobRecord, components: readonly PlacedComponent[], now: number): string {
    const perCluster = new Map<number, number>();
    for (const c of components) {
      const i = this.grid.cluster(c.cluster)!.index;
      perCluster.set(i, (perCluster.get(i) ?? 0) + c.processors);
    }
    const asked: string[] = [];
    for (const [i, processors] of perCluster) {
      const state = this.clusters[i]!;
      const missing = processors - roomFor(job, state, false);
      this.ledger.reserve(job, state, processors);
      if (missing > 0) {
        this.operations.shrink(state, missing, true, now);
        asked.push(`${missing} on ${state.cluster.name}`);
      }
    }
    return asked.length
      ? `waiting for mandatory shrinks to release ${asked.join(', ')}`
      : 'processors set aside; placing at the next pass';
  }
}
