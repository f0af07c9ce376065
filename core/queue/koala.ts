// KOALA's placement queue (paper IV-A): every waiting job is tried head to tail at each pass; a job that does not fit
// goes to the tail and counts a try. The scheduler's own scan does it (with its shortcuts on a full grid).
import type { QueuePolicy } from './policy.js';

export const koala: QueuePolicy = {
  name: 'koala',
  description: "KOALA's placement queue: every job tried head to tail, those that do not fit go to the tail.",
  begin: () => undefined,
};
