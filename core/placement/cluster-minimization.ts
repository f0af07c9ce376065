// Cluster Minimization: keep a co-allocated job on as few clusters as possible, to cut inter-cluster messages.
import type { JobSpec } from '../model/schemas.js';
import type { PlacementPolicy } from './policy.js';
import { Ledger, needFor, placeComponents, type ScoreFor } from './sizing.js';

const ledger = new Ledger();

// Clusters this job already uses come first; chooseCluster then prefers the most processors left, then the index.
// Before the first take no cluster is used, so there is nothing to score.
const usedScore = (clusterIndex: number) => (ledger.taken(clusterIndex) > 0 ? 0 : 1);
const usedFirst: ScoreFor = (l) => (l.tookAny ? usedScore : undefined);

/** Largest components first, so the big ones pick clusters and the small ones fill in beside them. */
function placingOrder(job: JobSpec): number[] {
  const order = job.components.map((_, i) => i);
  // Decision: pinned components go first (they have no choice), so free components can join their clusters.
  const pinned = (i: number) => (job.components[i]!.cluster !== undefined ? 0 : 1);
  // Decision: equal sizes keep spec order.
  return order.sort((a, b) => pinned(a) - pinned(b) || needFor(job, b) - needFor(job, a) || a - b);
}

export const clusterMinimization: PlacementPolicy = {
  name: 'cm',
  description:
    'Cluster Minimization: largest components first, each on a cluster the job already uses if it fits, else on the unused cluster with the most available.',
  place(job, context) {
    // A single component needs no ordering (the common case on the hot path).
    const order = job.components.length > 1 ? placingOrder(job) : undefined;
    return placeComponents(ledger.begin(job, context), usedFirst, order);
  },
};
