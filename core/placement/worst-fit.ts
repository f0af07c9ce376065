// Worst Fit: every component goes where the most processors are idle, which spreads load over the clusters.
import type { PlacementPolicy } from './policy.js';
import { Ledger, placeComponents } from './sizing.js';

const ledger = new Ledger();

export const worstFit: PlacementPolicy = {
  name: 'wf',
  description:
    'Worst Fit: each component, in order, on the cluster with the most available processors (balances load).',
  // With no score, chooseCluster ranks feasible clusters by processors left, then index: exactly Worst Fit.
  place: (job, context) => placeComponents(ledger.begin(job, context)),
};
