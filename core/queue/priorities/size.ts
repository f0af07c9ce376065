// Size: the largest job first (Maui's resource factor with a positive weight), which lets small jobs backfill around
// the large ones that would otherwise starve.
import type { QueuePriority } from '../priority.js';

// Decision: size is the processors a job needs to start (a moldable or malleable job's minimum, an evolving job's
// pre-allocation); equal sizes keep submission order.
export const size: QueuePriority = {
  name: 'size',
  description: 'Largest job first (processors needed to start).',
  score: (job) => job.need,
};
