// Waiting time as Maui weighs it: the expansion factor, (wait + walltime) / walltime, highest first, so a short job
// that has waited long overtakes a long one that has waited as long.
import type { QueuePriority } from '../priority.js';

// Decision: `wait` is Maui's XFactor, not the bare queue time (ordering by queue time alone is submission order
// again). A job without a walltime has an expansion factor of 1 (it never expands); equal factors keep submission
// order. The walltime is floored at 1 s so that a zero walltime does not divide by zero.
export const wait: QueuePriority = {
  name: 'wait',
  description: 'Expansion factor (wait + walltime) / walltime, highest first (Maui XFactor).',
  score: (job, now) => {
    if (!Number.isFinite(job.walltime)) return 1;
    const walltime = Math.max(1, job.walltime);
    return (Math.max(0, now - job.submitTime) + walltime) / walltime;
  },
};
