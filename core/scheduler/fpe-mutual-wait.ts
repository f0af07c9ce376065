// A mutual wait among running profiled jobs on one cluster (fpe-jobs.ts): every job that holds processors there is
// stalled at a step boundary, nothing is in flight, and none of them can go on — each waits for processors the others
// hold (its step needs more than is free), or yields what is free to an earlier one of them (takesFromEarlier). The
// wait-for graph over them is then one knot: nothing but one of them letting go ends it. This module decides, from the
// jobs' figures alone, who lets go and how; fpe-jobs.ts gathers the figures and applies the decision.

/** A stalled profiled job of the wait, as fpe-jobs.ts sees it now. */
export interface StalledStep {
  readonly id: string;
  readonly seq: number;
  /** Processors it holds. */
  readonly held: number;
  /** More processors its next step needs. */
  readonly more: number;
  /** More processors its steps from the next one to its end need at their peak (>= more). */
  readonly rest: number;
  /** Processors free for it now. */
  readonly free: number;
}

export type MutualWaitBreak =
  /** The job takes its next step from what is free, no longer yielding to earlier ones: no work is lost. */
  | { readonly action: 'stepTaken'; readonly job: StalledStep }
  /** The job ends, failed, and what it holds lets the others go on. */
  | { readonly action: 'ended'; readonly job: StalledStep };

/**
 * What breaks the wait of `stalled` (every job holding processors on the cluster, each stalled; by submission), or
 * undefined when it is no mutual wait. Decision: a job whose step would fit once the local users' `background` load
 * left waits on them, not on the others: nothing is broken while the load may yet leave.
 * Decision: first, the earliest job that can run to its end from what is free takes its next step (it yielded those
 * processors to an earlier job of the wait, which cannot use them): it loses nothing, and its end frees all it holds.
 * Decision: else, the latest-submitted job whose processors let another job of the wait run to its end is ended
 * ('evolution deadlock'), the latest of all when none does: a profiled job cannot give back processors of the step it
 * holds (its application runs on them), and arrival order decides, as everywhere between profiled jobs.
 */
export function breakMutualWait(stalled: readonly StalledStep[], background: number): MutualWaitBreak | undefined {
  if (stalled.length < 2) return undefined;
  for (const j of stalled) if (j.more > j.free && j.more <= j.free + background) return undefined;
  for (const j of stalled) if (j.rest <= j.free) return { action: 'stepTaken', job: j };
  for (let v = stalled.length - 1; v >= 0; v--) {
    const victim = stalled[v]!;
    if (stalled.some((x) => x !== victim && x.rest <= x.free + victim.held)) return { action: 'ended', job: victim };
  }
  return { action: 'ended', job: stalled[stalled.length - 1]! };
}
