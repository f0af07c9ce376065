// Submission order: the queue's own order (first come, first served).
import type { QueuePriority } from '../priority.js';

// Decision: the queue's order is kept as it is, unsorted: a job whose claim failed rejoins at the tail, as in KOALA's
// placement queue.
export const submit: QueuePriority = {
  name: 'submit',
  description: 'Submission order (first come, first served).',
};
