// The placement extension point: one small interface; each policy is a file registered by name in registry.ts.
import type { PlacedComponent } from '../events.js';
import type { Grid } from '../model/grid.js';
import type { JobSpec } from '../model/schemas.js';

/** What a placement policy may look at: the grid and what Concertina may take on each cluster now. */
export interface PlacementContext {
  readonly grid: Grid;
  /** Processors Concertina may take now on a cluster (by cluster index): never negative. */
  available(clusterIndex: number): number;
  /**
   * The first cluster with the most available, when the caller keeps it already: a policy that ranks clusters by
   * what is available alone need not look at every cluster for a job's first component.
   */
  mostAvailableCluster?(): number;
}

export type Placement =
  { readonly ok: true; readonly components: PlacedComponent[] } | { readonly ok: false; readonly reason: string };

export interface PlacementPolicy {
  readonly name: string;
  readonly description: string;
  /**
   * Chooses a cluster and a size for every component of the job, or says why it cannot now.
   * Rigid components get their processors; a moldable one the most available up to max; a malleable one is placed
   * when a cluster has at least its min, with its initial size bounded by what is available.
   */
  place(job: JobSpec, context: PlacementContext): Placement;
}
