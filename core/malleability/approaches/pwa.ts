// PWA — Precedence to Waiting Applications: a queued job that does not fit makes running malleable jobs shrink
// (mandatory) to make room; only where no waiting job needs room are running jobs grown.
import type { JobManagementApproach } from '../approach.js';

export const pwa: JobManagementApproach = {
  name: 'pwa',
  description:
    'Precedence to waiting applications: shrink running malleable jobs to place waiting ones, grow otherwise.',
  pass(context) {
    context.scanQueue({ shrinkToPlace: true });
    // Decision: a cluster where a waiting job is owed released processors is not grown until that job is placed.
    for (const cluster of context.growthDue) if (cluster.reserved === 0) context.growRunning(cluster);
  },
};
