// The static schedule DBES reads (Algorithm 2, lines 8, 25 and 35): the waiting jobs in priority order become StartNow
// jobs (they fit now) or StartLater jobs (reserved at their earliest start, ReservationDepth of them); the rest are
// left to backfilling. And the dependency analysis: the running job(s) after whose end all of a StartLater job's
// processors are free.
import { AvailabilityProfile } from '../plan/availability.js';
import { earliestStart } from '../time/profile.js';
import type { DbesCluster, DbesRunningJob, DbesWaitingJob } from './model.js';

export interface StaticSchedule {
  readonly plan: AvailabilityProfile;
  readonly startNow: DbesWaitingJob[];
  readonly startLater: Array<{ readonly job: DbesWaitingJob; readonly start: number }>;
}

/**
 * The plan of the running jobs: each holds its size until its estimated end (a profiled job: its current step's end),
 * and the profiled jobs' steps ahead are held after that.
 * Decision: profiled steps go in before every waiting job, whatever its priority or arrival: a running job's steps are
 * its own, and a waiting one's fit was made around the reservations of the jobs submitted before it
 * (core/scheduler/fpe-jobs.ts), so they keep their room.
 */
export function runningPlan(
  state: Pick<DbesCluster, 'now' | 'capacity' | 'profiledSteps'>,
  running: readonly DbesRunningJob[],
): AvailabilityProfile {
  const holdings = running.map((j) => ({ id: j.id, n: j.size, end: j.end }));
  const steps = state.profiledSteps;
  if (steps === undefined || steps.length === 0)
    return AvailabilityProfile.build({ now: state.now, capacity: state.capacity, running: holdings });
  return AvailabilityProfile.build({
    now: state.now,
    capacity: state.capacity,
    running: holdings,
    reservations: steps,
  });
}

/**
 * Decision: in priority order, a job that fits now over its walltime around the reservations made so far is a
 * StartNow job (reserved at now), one that does not is a StartLater job reserved at its earliest start; once
 * ReservationDepth StartLater jobs exist, the remaining jobs get no reservation and are left to backfilling (line 45).
 * A job the plan can never fit (larger than the cluster) takes no reservation and does not count towards the depth.
 */
export function staticSchedule(
  state: DbesCluster,
  running: readonly DbesRunningJob[],
  skip?: ReadonlySet<string>,
): StaticSchedule {
  const plan = runningPlan(state, running);
  const now = state.now;
  const startNow: DbesWaitingJob[] = [];
  const startLater: Array<{ job: DbesWaitingJob; start: number }> = [];
  for (const job of state.waiting) {
    if (skip?.has(job.id)) continue;
    if (startLater.length >= state.reservationDepth) break;
    if (plan.freeBetween(now, now + job.walltime) >= job.need) {
      plan.reserve({ id: job.id, n: job.need, start: now, duration: job.walltime });
      startNow.push(job);
      continue;
    }
    // Infinity: it never fits (larger than the capacity, or never free for long enough). One forward scan of the
    // free processors: the plan's indexed search would index them again after every reservation made here.
    const start = job.need === 0 ? now : earliestStart(plan.free, now, job.walltime, job.need);
    if (start === Number.POSITIVE_INFINITY) continue;
    plan.reserve({ id: job.id, n: job.need, start, duration: job.walltime });
    startLater.push({ job, start });
  }
  return { plan, startNow, startLater };
}

/**
 * The running jobs a StartLater job depends on: among the running jobs whose release its reservation needs, those
 * that end exactly at its start (after their end all its processors are free). Several when they end together.
 * Decision: a reservation that starts later than every running job it needs (it waits for another reservation's end)
 * depends on no running job: expanding one would not bring it earlier.
 */
export function dependenciesOf(plan: AvailabilityProfile, jobId: string, running: readonly DbesRunningJob[]): string[] {
  const r = plan.reservation(jobId);
  if (r === undefined) return [];
  const needed = plan.reservationWaitsFor(jobId);
  if (needed.length === 0) return [];
  // Ending at its start first: few jobs do, and only they are looked up among the needed.
  const out: string[] = [];
  for (const j of running) if (j.end === r.start && needed.includes(j.id)) out.push(j.id);
  return out;
}

/**
 * A job's estimated end once resized to `size` now: the plan's rule when the job carries it (DbesRunningJob.endAt),
 * else the work left runs at the new size's speed.
 */
export function endAfterResize(state: Pick<DbesCluster, 'now' | 'runtime'>, job: DbesRunningJob, size: number): number {
  if (!Number.isFinite(job.end) || size === job.size) return job.end;
  if (job.endAt !== undefined) return job.endAt(size);
  const left = Math.max(0, job.end - state.now);
  const runtime = (s: number): number => {
    const r = state.runtime?.(job.id, s);
    return r !== undefined && Number.isFinite(r) && r > 0 ? r : 1 / Math.max(1, s);
  };
  return state.now + (left * runtime(size)) / runtime(job.size);
}
