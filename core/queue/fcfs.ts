// FCFS: jobs start in queue order only; the first that cannot start now blocks every job behind it.
import {
  candidateClusters,
  freeFromNow,
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

/** A pass: a class, not a literal with four arrows (a replay runs a pass per arrival and end). */
class FcfsPass implements QueuePass {
  /** What every job behind the blocked head is told, made once it blocks; undefined while none has. */
  private behindHead: string | undefined = undefined;

  constructor(private readonly view: QueueView) {}

  admit(job: WaitingJob): Admission {
    if (this.behindHead !== undefined) return { room: NO_ROOM, reason: this.behindHead };
    const view = this.view;
    const free = new Array<number>(view.clusterCount).fill(0);
    // Decision: the head needs its processors now only, whatever its walltime (FCFS plans nothing ahead).
    for (const c of candidateClusters(job, view)) free[c] = freeFromNow(view, c, 0);
    const room = roomOf(free);
    if (!hasRoom(room, job.need)) {
      this.blockBehind(job);
      return { room: NO_ROOM, reason: `at the head of the queue, waiting for ${job.need} processors (fcfs)` };
    }
    // Every admission has one shape (reason set or undefined): in a replay whose queue first blocks late, the other
    // shape reached the pass's optimized `visit` and deoptimized it, which was then compiled again.
    return { room, reason: undefined };
  }

  placed(job: WaitingJob, processors: ReadonlyArray<{ readonly cluster: number; readonly processors: number }>): void {
    holdInPlans(job, this.view, processors);
  }

  closed(): string | undefined {
    return this.behindHead;
  }

  // Decision: an admitted head its placement policy did not place still blocks (strict order).
  notPlaced(job: WaitingJob): void {
    this.blockBehind(job);
  }

  private blockBehind(head: WaitingJob): void {
    this.behindHead = `waiting behind job ${head.id} (fcfs)`;
  }
}

export const fcfs: QueuePolicy = {
  name: 'fcfs',
  description: 'First come, first served: strict queue order, the head blocks the jobs behind it.',
  begin: (view: QueueView): QueuePass => new FcfsPass(view),
};
