// The order a planning queue policy (fcfs, easy, cbf) takes waiting jobs in: who is shown to the policy first, so who
// is reserved first. Submission order by default; the others are options an operator chooses per run. Each order is
// a file in priorities/ registered by name here.
import { size } from './priorities/size.js';
import { submit } from './priorities/submit.js';
import { wait } from './priorities/wait.js';

export const QUEUE_PRIORITIES = ['submit', 'wait', 'size'] as const;
export type QueuePriorityName = (typeof QUEUE_PRIORITIES)[number];

/** A waiting job as a priority reads it. */
export interface PrioritizedJob {
  /** Order of submission (lower: earlier). */
  readonly seq: number;
  readonly submitTime: number;
  /** Processors it needs to start. */
  readonly need: number;
  /** Seconds; Infinity without one. */
  readonly walltime: number;
}

export interface QueuePriority {
  readonly name: QueuePriorityName;
  readonly description: string;
  /**
   * The job's priority at `now`: higher goes first; equal priorities keep submission order. Undefined for the
   * submission order itself (the queue's own order is kept: no sort).
   */
  readonly score?: (job: PrioritizedJob, now: number) => number;
}

export const queuePriorities: Readonly<Record<QueuePriorityName, QueuePriority>> = Object.freeze({
  submit,
  wait,
  size,
});

/** The priority with this name, or undefined. */
export function queuePriority(name: string): QueuePriority | undefined {
  return Object.hasOwn(queuePriorities, name) ? queuePriorities[name as QueuePriorityName] : undefined;
}

/** `jobs` in the priority's order (a new array; the input when the priority keeps queue order). */
export function prioritized<T>(
  jobs: readonly T[],
  priority: QueuePriority,
  now: number,
  read: (job: T) => PrioritizedJob,
): readonly T[] {
  const score = priority.score;
  if (score === undefined) return jobs;
  const keyed = jobs.map((job) => {
    const p = read(job);
    return { job, key: score(p, now), seq: p.seq };
  });
  keyed.sort((a, b) => b.key - a.key || a.seq - b.seq);
  return keyed.map((k) => k.job);
}
