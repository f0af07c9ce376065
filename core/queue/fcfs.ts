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

export const fcfs: QueuePolicy = {
  name: 'fcfs',
  description: 'First come, first served: strict queue order, the head blocks the jobs behind it.',
  begin(view: QueueView): QueuePass {
    let blockedBy: string | undefined;
    return {
      admit(job: WaitingJob): Admission {
        if (blockedBy !== undefined) return { room: NO_ROOM, reason: `waiting behind job ${blockedBy} (fcfs)` };
        const free = new Array<number>(view.clusterCount).fill(0);
        // Decision: the head needs its processors now only, whatever its walltime (FCFS plans nothing ahead).
        for (const c of candidateClusters(job, view)) free[c] = view.plan(c).freeAt(view.now);
        const room = roomOf(free);
        if (!hasRoom(room, job.need)) {
          blockedBy = job.id;
          return { room: NO_ROOM, reason: `at the head of the queue, waiting for ${job.need} processors (fcfs)` };
        }
        return { room };
      },
      placed: (job, processors) => holdInPlans(job, view, processors),
      closed: () => blockedBy !== undefined,
      // Decision: an admitted head its placement policy did not place still blocks (strict order).
      notPlaced(job) {
        blockedBy = job.id;
      },
    };
  },
};
