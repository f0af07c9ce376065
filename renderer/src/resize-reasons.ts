// Why a job grew or shrank, from its own events: a DBES expansion names its step and the waiting job it serves
// (grow.offered/grow.answered `step`, `forJob`), a DBES shrink its phase and whom it serves (shrink.requested
// `phase`, `forJob`, `fromStep`, `fromFor`). A DBES job.grown names its step and job too; other job.grown events and
// job.shrunk are paired with the request they carry out, in order, by processors (a grant may arrive a few at a time;
// a job.growFailed takes its processors off the latest grants).
import type { SchedulerEvent } from './api/types.js';

type Grown = Extract<SchedulerEvent, { type: 'job.grown' }>;
type Shrunk = Extract<SchedulerEvent, { type: 'job.shrunk' }>;
type ShrinkAsked = Extract<SchedulerEvent, { type: 'shrink.requested' }>;

export type GrowReason = { kind: 'grow'; step?: 1 | 2; forJob?: string; operator?: true };
export type ShrinkReason = {
  kind: 'shrink';
  phase?: ShrinkAsked['phase'];
  forJob?: string;
  fromStep?: 1 | 2;
  fromFor?: string;
  operator?: true;
};
export type ResizeReason = GrowReason | ShrinkReason;

/** A resize event's key within its job's events (the same event from the stream and from jobs.events gives the same key). */
export function resizeKey(e: Grown | Shrunk): string {
  return `${e.type}:${e.t}:${e.processors}:${e.size}`;
}

/**
 * Each job.grown and requested job.shrunk of one job's events (oldest first), by resizeKey, with the reason of the
 * request it carries out: granted grows and agreed shrinks queue up, and each resize takes its processors from the
 * oldest. A voluntary shrink (the job let go on its own) has none.
 */
export function resizeReasons(events: readonly SchedulerEvent[]): Map<string, ResizeReason> {
  const out = new Map<string, ResizeReason>();
  const grows: Array<{ reason: GrowReason; left: number }> = [];
  const shrinks: Array<{ reason: ShrinkReason; left: number }> = [];
  const asked = new Map<number, ShrinkAsked>();
  const take = <R>(queue: Array<{ reason: R; left: number }>, n: number): R | undefined => {
    const head = queue[0];
    if (!head) return undefined;
    let left = n;
    while (left > 0 && queue.length > 0) {
      const used = Math.min(left, queue[0]!.left);
      queue[0]!.left -= used;
      left -= used;
      if (queue[0]!.left <= 0) queue.shift();
    }
    return head.reason;
  };
  for (const e of events) {
    if (e.type === 'grow.answered' && e.accepted > 0) {
      grows.push({
        reason: {
          kind: 'grow',
          ...(e.step ? { step: e.step } : {}),
          ...(e.forJob ? { forJob: e.forJob } : {}),
          ...(e.operator ? { operator: true as const } : {}),
        },
        left: e.accepted,
      });
    } else if (e.type === 'shrink.requested') asked.set(e.offerId, e);
    else if (e.type === 'shrink.answered' && e.accepted > 0) {
      const r = asked.get(e.offerId);
      asked.delete(e.offerId);
      const reason: ShrinkReason = { kind: 'shrink' };
      if (r?.phase) reason.phase = r.phase;
      if (r?.forJob) reason.forJob = r.forJob;
      if (r?.fromStep) reason.fromStep = r.fromStep;
      if (r?.fromFor) reason.fromFor = r.fromFor;
      if (r?.operator || e.operator) reason.operator = true;
      shrinks.push({ reason, left: e.accepted });
    } else if (e.type === 'job.grown') {
      const reason = take(grows, e.processors);
      // A DBES expansion's job.grown names its step and job itself (the pairing stays in step for the others).
      if (e.step) out.set(resizeKey(e), { kind: 'grow', step: e.step, ...(e.forJob ? { forJob: e.forJob } : {}) });
      else if (reason) out.set(resizeKey(e), reason);
    } else if (e.type === 'job.growFailed') {
      // The processors that failed are the latest granted (core/scheduler/job-sizes.ts): they leave the queue's tail.
      for (let left = e.processors; left > 0 && grows.length > 0;) {
        const last = grows[grows.length - 1]!;
        const used = Math.min(left, last.left);
        last.left -= used;
        left -= used;
        if (last.left <= 0) grows.pop();
      }
    } else if (e.type === 'job.shrunk' && !e.voluntary) {
      const reason = take(shrinks, e.processors);
      if (reason) out.set(resizeKey(e), reason);
    }
  }
  return out;
}

/** Whom a DBES shrink serves and which expansion it takes back: "to start C, from its expansion for D"; '' without a phase. */
export function shrinkPurpose(r: Pick<ShrinkReason, 'phase' | 'forJob' | 'fromStep' | 'fromFor'>): string {
  if (!r.phase) return '';
  const whom = r.forJob ?? '?';
  const why =
    r.phase === 'evolving'
      ? `for evolving request of ${whom}`
      : r.phase === 'startLater'
        ? `to start ${whom}`
        : `to expand ${whom}`;
  const from =
    r.fromStep === 2
      ? ', from its second-step expansion'
      : r.fromStep === 1
        ? r.fromFor
          ? `, from its expansion for ${r.fromFor}`
          : ', from its first-step expansion'
        : '';
  return why + from;
}

/**
 * A reason in words: "expanded for job C (step 1)", "expanded (second step)", "shrunk for evolving request of E",
 * "shrunk to start C", "shrunk to expand D", "by the operator"; '' when the events say nothing (FPSMA, EGS...).
 */
export function reasonText(r: ResizeReason | undefined): string {
  if (!r) return '';
  if (r.operator) return 'by the operator';
  if (r.kind === 'grow') {
    if (r.step === 2) return 'expanded (second step)';
    return r.step === 1 ? `expanded ${expansionFor(r)}` : '';
  }
  const purpose = shrinkPurpose(r);
  return purpose ? `shrunk ${purpose}` : '';
}

/** A job's expansions, newest first, each with its reason. */
export interface Expansion {
  t: number;
  processors: number;
  size: number;
  /** Whom it served: "for job C (step 1)", "second step", or '' (no reason in the events). */
  reason: string;
}

/** What an expansion served, in a few words: "for job C (step 1)", "second step", "by the operator", or ''. */
export function expansionFor(r: Pick<GrowReason, 'step' | 'forJob' | 'operator'> | undefined): string {
  if (!r) return '';
  if (r.operator) return 'by the operator';
  if (r.step === 2) return 'second step';
  if (r.step === 1) return r.forJob ? `for job ${r.forJob} (step 1)` : 'step 1';
  return '';
}

const grownFor = (r: ResizeReason | undefined) => (r?.kind === 'grow' ? expansionFor(r) : '');

/** A job's expansions (its job.grown events), newest first, each with what it served. */
export function expansionsOf(events: readonly SchedulerEvent[]): Expansion[] {
  const reasons = resizeReasons(events);
  const out: Expansion[] = [];
  for (const e of events)
    if (e.type === 'job.grown')
      out.push({ t: e.t, processors: e.processors, size: e.size, reason: grownFor(reasons.get(resizeKey(e))) });
  return out.reverse();
}

/**
 * The expansions a running job still holds, by what they served ("for job C", "second step"), with how many
 * processors each: grows add to their reason, shrinks take back from the expansion they name (`fromStep`,
 * `fromFor`), else from the newest. Reasons without a DBES step are left out.
 */
export function heldExpansions(events: readonly SchedulerEvent[]): Array<{ label: string; processors: number }> {
  const reasons = resizeReasons(events);
  const held = new Map<string, number>();
  const label = (step: 1 | 2 | undefined, forJob: string | undefined) =>
    step === 2 ? 'second step' : forJob ? `for ${forJob}` : 'step 1';
  for (const e of events) {
    if (e.type === 'job.grown') {
      const r = reasons.get(resizeKey(e));
      if (r?.kind !== 'grow' || !r.step) continue;
      const key = label(r.step, r.forJob);
      held.set(key, (held.get(key) ?? 0) + e.processors);
    } else if (e.type === 'job.shrunk') {
      const r = reasons.get(resizeKey(e));
      let left = e.processors;
      const named = r?.kind === 'shrink' && r.fromStep ? label(r.fromStep, r.fromFor) : undefined;
      // Decision: a shrink that names no expansion (voluntary, operator, FPSMA...) takes from the newest first.
      const order = [...(named && held.has(named) ? [named] : []), ...[...held.keys()].reverse()];
      for (const key of order) {
        if (left <= 0) break;
        const have = held.get(key) ?? 0;
        const used = Math.min(have, left);
        left -= used;
        if (have - used > 0) held.set(key, have - used);
        else held.delete(key);
      }
    } else if (e.type === 'job.ended') held.clear();
  }
  return [...held].map(([l, processors]) => ({ label: l, processors }));
}
