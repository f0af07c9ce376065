// The dynamic fairness of evolving requests (the DBES paper's reference [11]): a grant to an evolving job may delay
// waiting static jobs, but only within an administrator's budget, per waiting job and accumulated per user.
// Decision (what is implemented, the policy being named but not spelled out in the DBES paper): a grant's delay to a
// waiting job is how much later its planned start (StartNow: now; StartLater: its reservation) becomes with the
// grant; it is admitted when every delayed job's delays so far plus this one stay within `perJob`, and the delays all
// grants to the requesting user's jobs have caused so far plus the sum of this one's stay within `perUser`. Granted
// delays are charged to both accounts, which the iteration keeps across passes.
import type { DbesWaitingJob, FairnessAccount, FairnessBudget } from './model.js';

export interface FairnessVerdict {
  readonly allowed: boolean;
  /** The delay, in seconds, each waiting job would suffer (only those delayed). */
  readonly delays: ReadonlyMap<string, number>;
  readonly total: number;
  readonly reason?: string;
}

/** `user`: the requesting evolving job's user (its own id when it names none). */
export function judge(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  user: string,
  budget: FairnessBudget,
  account: FairnessAccount,
): FairnessVerdict {
  const delays = new Map<string, number>();
  let total = 0;
  for (const [id, start] of before) {
    const d = (after.get(id) ?? Number.POSITIVE_INFINITY) - start;
    if (d > 0) {
      delays.set(id, d);
      total += d;
    }
  }
  for (const [id, d] of delays) {
    const so = account.byJob.get(id) ?? 0;
    if (so + d > budget.perJob)
      return {
        allowed: false,
        delays,
        total,
        reason: `it would delay job ${id} by ${fmt(d)} s (${fmt(so)} s so far, budget ${budget.perJob} s per job)`,
      };
  }
  const used = account.byUser.get(user) ?? 0;
  if (used + total > budget.perUser) {
    return {
      allowed: false,
      delays,
      total,
      reason: `it would delay waiting jobs by ${fmt(total)} s in all (user ${user}: ${fmt(used)} s so far, budget ${budget.perUser} s per user)`,
    };
  }
  return { allowed: true, delays, total };
}

/** Charges a granted request's delays. */
export function charge(verdict: FairnessVerdict, user: string, account: FairnessAccount): void {
  for (const [id, d] of verdict.delays) account.byJob.set(id, (account.byJob.get(id) ?? 0) + d);
  account.byUser.set(user, (account.byUser.get(user) ?? 0) + verdict.total);
}

/** The planned start of each waiting job a schedule reserves: StartNow jobs now, StartLater jobs at their reservation. */
export function plannedStarts(
  now: number,
  startNow: readonly DbesWaitingJob[],
  startLater: ReadonlyArray<{ readonly job: DbesWaitingJob; readonly start: number }>,
): Map<string, number> {
  const starts = new Map<string, number>();
  for (const j of startNow) starts.set(j.id, now);
  for (const { job, start } of startLater) starts.set(job.id, start);
  return starts;
}

function fmt(s: number): string {
  return Number.isFinite(s) ? String(Math.round(s)) : '∞';
}
