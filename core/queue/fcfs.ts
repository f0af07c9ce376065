// FCFS: jobs start in queue order only; the first that cannot start now blocks every job behind it.
import {
  candidateClusters,
  hasRoom,
  holdInPlans,
  NO_ROOM,
  roomOf,
  type Admission,
  type QueuePass,
  type QueuePolicy,
  type QueueView,
  type WaitingJob,
} from './policy.js';

/**
 * What cluster c's plan has free now: plan(c).freeAt(now), asked as `freeFromNow(c, 0)` (freeBetween(now, now) is
 * the instant now) where the view answers it, so that a pass builds no plan: FCFS plans nothing ahead, and a planned
 * pass answers it from what is available while every placed job is held the plain way (no holdings kept).
 */
function freeNow(view: QueueView, c: number): number {
  return view.freeFromNow !== undefined ? view.freeFromNow(c, 0) : view.plan(c).freeAt(view.now);
}

/** A pass: a class, not a literal with four arrows (a replay runs a pass per arrival and end). */
class FcfsPass implements QueuePass {
  private blockedBy: string | undefined = undefined;

  constructor(private readonly view: QueueView) {}

  admit(job: WaitingJob): Admission {
    if (this.blockedBy !== undefined) return { room: NO_ROOM, reason: `waiting behind job ${this.blockedBy} (fcfs)` };
    const view = this.view;
    const free = new Array<number>(view.clusterCount).fill(0);
    // Decision: the head needs its processors now only, whatever its walltime (FCFS plans nothing ahead).
    for (const c of candidateClusters(job, view)) free[c] = freeNow(view, c);
    const room = roomOf(free);
    if (!hasRoom(room, job.need)) {
      this.blockedBy = job.id;
      return { room: NO_ROOM, reason: `at the head of the queue, waiting for ${job.need} processors (fcfs)` };
    }
    return { room };
  }

  placed(job: WaitingJob, processors: ReadonlyArray<{ readonly cluster: number; readonly processors: number }>): void {
    holdInPlans(job, this.view, processors);
  }

  closed(): boolean {
    return this.blockedBy !== undefined;
  }

  // Decision: an admitted head its placement policy did not place still blocks (strict order).
  notPlaced(job: WaitingJob): void {
    this.blockedBy = job.id;
  }
}

export const fcfs: QueuePolicy = {
  name: 'fcfs',
  description: 'First come, first served: strict queue order, the head blocks the jobs behind it.',
  begin: (view: QueueView): QueuePass => new FcfsPass(view),
};
