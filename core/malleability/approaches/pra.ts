// PRA — Precedence to Running Applications: processors that come free go to the running malleable jobs first;
// waiting jobs get what those jobs do not take. Jobs are never shrunk.
import type { JobManagementApproach } from '../approach.js';

export const pra: JobManagementApproach = {
  name: 'pra',
  description: 'Precedence to running applications: grow running malleable jobs first, never shrink.',
  pass(context) {
    // Decision: "waiting jobs" wait for growth whatever their kind, rigid ones included.
    for (const cluster of context.growthDue) context.growRunning(cluster);
    context.scanQueue({ shrinkToPlace: false });
  },
};
