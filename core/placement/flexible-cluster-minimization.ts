// Flexible Cluster Minimization: a rigid job's processors are re-split over the clusters with the most idle
// processors, so it starts on the fewest clusters as soon as the grid as a whole has room.
import type { PlacedComponent } from '../events.js';
import type { PlacementPolicy } from './policy.js';
import { clusterMinimization } from './cluster-minimization.js';
import { hasPinnedComponent, Ledger } from './sizing.js';

const ledger = new Ledger();

export const flexibleClusterMinimization: PlacementPolicy = {
  name: 'fcm',
  description:
    'Flexible Cluster Minimization: a rigid job is split by idle processors over the fewest clusters (largest first); others are placed as with cm.',
  place(job, context) {
    // Decision: only rigid jobs are split (malleable/moldable ones run in one cluster), and pinned components keep
    // their spec, since splitting would move processors off the cluster the user named.
    if (job.kind !== 'rigid' || hasPinnedComponent(job)) return clusterMinimization.place(job, context);
    const { grid } = context;
    let total = 0;
    for (const c of job.components) total += c.processors!;
    let available = 0;
    for (let c = 0; c < grid.clusters.length; c++) available += context.available(c);
    if (available < total) {
      return {
        ok: false,
        reason: `the grid has ${available} processors available in all, ${total - available} short of the ${total} this job needs`,
      };
    }
    ledger.begin(job, context);
    const placed: PlacedComponent[] = [];
    // Taking the largest idle blocks first gives the fewest clusters; a drained cluster has 0 left and drops out.
    // Decision: the last piece also comes from the largest remaining cluster (not the tightest fit), and pieces have no
    // minimum size, so a split may leave a 1-processor component.
    for (let remaining = total; remaining > 0;) {
      let best = -1;
      let bestLeft = 0;
      for (let c = 0; c < grid.clusters.length; c++) {
        const left = ledger.left(c);
        if (left > bestLeft) {
          best = c;
          bestLeft = left;
        }
      }
      // The total check above guarantees a cluster with processors left while some remain.
      const size = Math.min(bestLeft, remaining);
      ledger.take(best, size);
      placed.push({ cluster: grid.clusters[best]!.name, processors: size });
      remaining -= size;
    }
    return { ok: true, components: placed };
  },
};
