// Close-to-Files: favour clusters that already hold a component's input files, then those that get them soonest.
import type { Grid } from '../model/grid.js';
import type { PlacementPolicy } from './policy.js';
import { Ledger, placeComponents, type ClusterScore, type ScoreFor } from './sizing.js';

const ledger = new Ledger();

interface Transfers {
  readonly grid: Grid;
  readonly files: readonly string[];
  /** Seconds by cluster index; NaN until first needed. */
  readonly seconds: Float64Array;
}

// Transfer times depend only on the immutable grid and the file list, while a queued job is ranked again on every
// pass: keep them per input-file list (weakly, so they go with the job), each worked out when first needed. Keyed by
// the array itself, which relies on parsed specs not being edited in place.
const transfers = new WeakMap<readonly string[], Transfers>();
// The component being ranked. One score function reads it, rather than a closure per file list, so the call in the
// per-cluster loop stays monomorphic and cheap.
let current: Transfers | undefined;

function transfersFor(files: readonly string[], grid: Grid): Transfers {
  let t = transfers.get(files);
  if (!t || t.grid !== grid) {
    t = { grid, files, seconds: new Float64Array(grid.clusters.length).fill(NaN) };
    transfers.set(files, t);
  }
  return t;
}

const transferSeconds: ClusterScore = (clusterIndex) => {
  const t = current!;
  let s = t.seconds[clusterIndex]!;
  if (Number.isNaN(s)) s = t.seconds[clusterIndex] = t.grid.transferTime(t.files, t.grid.clusters[clusterIndex]!.name);
  return s;
};

// Seconds to stage the component's input files on a cluster (0 where all are present); without files every cluster
// is equal and the ranking is worst fit. Unknown files cost nothing here: parseJob rejects them before placement.
const byTransfer: ScoreFor = (l, componentIndex) => {
  const files = l.job.components[componentIndex]!.inputFiles;
  if (files.length === 0) return undefined;
  current = transfersFor(files, l.grid);
  return transferSeconds;
};

export const closeToFiles: PlacementPolicy = {
  name: 'cf',
  description:
    'Close-to-Files: each component on a feasible cluster holding its input files, else the one they reach fastest; ties to the most available.',
  place: (job, context) => placeComponents(ledger.begin(job, context), byTransfer),
};
