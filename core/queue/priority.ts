// The order a planning queue policy (fcfs, easy, cbf) takes waiting jobs in. Submission order by default; the others
// are options an operator chooses per run.
export const QUEUE_PRIORITIES = ['submit', 'wait', 'size'] as const;
export type QueuePriorityName = (typeof QUEUE_PRIORITIES)[number];
