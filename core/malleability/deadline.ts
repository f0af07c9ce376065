// What the deadline-ordered baselines (EDF, LDF: the DBES paper's V-B, after Utrera et al.) read of a job, and the
// procedures they share: offers go to jobs in one order, each offered all that is left; shrinks come in the reverse.
import type { PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

/**
 * A running job's deadline. Decision: its start plus its walltime (when the batch system would end it); a job
 * without a walltime has none (Infinity: latest of all).
 */
export function deadline(job: ReadonlyJobRecord): number {
  const w = job.spec.walltime;
  return Number.isFinite(job.startTime) && w !== undefined ? job.startTime + w : Number.POSITIVE_INFINITY;
}

/** `jobs` by deadline, earliest first (ties: the order given, which is start order). */
export function byDeadline<J extends ReadonlyJobRecord>(jobs: readonly J[]): J[] {
  return jobs
    .map((job, i) => ({ job, i, d: deadline(job) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .map((x) => x.job);
}

/** Offers the jobs, in order, all that is left to hand out. */
export function* growInOrder<J extends ReadonlyJobRecord>(
  ordered: readonly J[],
  growValue: number,
): PolicyProcedure<J> {
  for (const job of ordered) {
    if (growValue <= 0) break;
    if (job.growable <= 0) continue;
    growValue -= yield { kind: 'offerGrow', job, processors: growValue };
  }
}

/** Asks the jobs, in order, for all that is still to reclaim, each waited for before the next. */
export function* shrinkInOrder<J extends ReadonlyJobRecord>(
  ordered: readonly J[],
  shrinkValue: number,
): PolicyProcedure<J> {
  for (const job of ordered) {
    if (shrinkValue <= 0) break;
    if (job.shrinkable <= 0) continue;
    const accepted = yield { kind: 'requestShrink', job, processors: shrinkValue };
    if (accepted > 0) yield { kind: 'awaitRelease', jobs: [job] };
    shrinkValue -= accepted;
  }
}
