// EASY backfilling: jobs start in queue order while they fit; the first that does not (the head) gets a reservation
// at its earliest start on its cluster's plan; a job behind it starts now only if it fits now without delaying that
// reservation — it ends before the reservation starts, or it takes only processors the reservation leaves free.
import {
  candidateClusters,
  hasRoom,
  holdInPlans,
  mostFreeOver,
  NO_ROOM,
  roomOverWalltime,
  type Admission,
  type QueuePass,
  type QueuePolicy,
  type QueueView,
  type WaitingJob,
} from './policy.js';

// Decision: as in the textbook EASY (and pyss / Batsim's reference schedulers), reservations and backfilling read
// the walltime (the user's estimate), never the run time; running jobs are planned to end at start + walltime.
// Decision: a job without a walltime is planned as holding its processors with no end: it may backfill only into
// processors the head's reservation leaves free, and as the head its reservation lasts for ever.
// Decision: a backfilled job that ends exactly when the reservation starts does not delay it (the plan's spans are
// half-open [start, end)).
export const easy: QueuePolicy = {
  name: 'easy',
  description: 'EASY backfilling: a reservation for the head job; a later job starts now if it does not delay it.',
  begin: (view: QueueView): QueuePass => new EasyPass(view),
};

/**
 * One pass: once the head is reserved, what the jobs behind it are told. A class, so that a pass (one per event) makes
 * no closures. `askEveryRoom`: no shortcut, every job's room asked of the plans (for the property that compares both).
 */
export class EasyPass implements QueuePass {
  /** What every job behind the head that cannot start now is told (undefined until the head is reserved). */
  private behindHead: (Admission & { readonly reason: string }) | undefined;
  /** mostFreeOver(view, 0) as last read; undefined once a placement may have lowered it. */
  private freeNowBound: number | undefined;

  constructor(
    private readonly view: QueueView,
    private readonly askEveryRoom = false,
  ) {}

  waits(need: number): string | undefined {
    // A job needing nothing always has room.
    return need > 0 && need > this.waitsAbove() ? this.behindHead!.reason : undefined;
  }

  waitsAbove(): number {
    // Behind the head on a long queue most jobs need more than any cluster has free even now, whatever their
    // walltime: they are told so without asking their room over it. The bound only falls in a pass: placements and
    // the head's reservation take processors, none gives any back.
    if (this.behindHead === undefined || this.askEveryRoom) return Number.POSITIVE_INFINITY;
    this.freeNowBound ??= mostFreeOver(this.view, 0);
    return this.freeNowBound;
  }

  mayFit(need: number, walltime: number): boolean {
    // Behind the head a job with no room over its walltime is told behind's reason (admit), as those above the bound;
    // it has room exactly when it needs no more than some cluster has free over its walltime (mostFreeOver).
    if (this.behindHead === undefined || this.askEveryRoom) return true;
    return need <= mostFreeOver(this.view, walltime);
  }

  // Every admission has one shape, each field set or undefined: with some left out, the planned pass's optimized
  // `visit` met a shape it had not seen and deoptimized (in every NASA easy replay), then was compiled again.
  admit(job: WaitingJob): Admission {
    const view = this.view;
    const behind = this.behindHead;
    // A pinned job is asked its room (the bound reads every cluster, the job's room only its own).
    if (behind !== undefined && job.cluster === undefined && this.waits(job.need) !== undefined) return behind;
    const room = roomOverWalltime(job, view);
    if (behind !== undefined) {
      // Behind the head: its reservation is in the plans, so what is free over this job's walltime from now is
      // exactly what it may take without delaying it.
      return hasRoom(room, job.need) ? { room, reason: undefined, reserved: undefined } : behind;
    }
    // Every job ahead has started: this one starts now if it can, else it is the head and takes a reservation.
    if (hasRoom(room, job.need)) return { room, reason: undefined, reserved: undefined };
    const reserved = reserveHead(job, view);
    if (reserved === undefined) {
      // Decision: a head the plan can never fit (larger than what Concertina may use, or waiting for running jobs
      // without a walltime) takes no reservation: it waits, not tried, and the job behind it is planned as the
      // head (it starts when processors come free, as any job that fits).
      return {
        room: NO_ROOM,
        reason: `waiting for ${job.need} processors: the plan cannot say when (easy)`,
        reserved: undefined,
      };
    }
    this.setHead(reserved);
    return {
      room: NO_ROOM,
      reason: `reserved to start at ${reserved.start} (easy)`,
      reserved: { cluster: reserved.cluster, start: reserved.start },
    };
  }

  // Decision: once no cluster has a processor free now (every job needs one at least: the schemas' minimum), no job
  // behind the head can start in this pass: the scan stops there, and the jobs behind read the reason admit would
  // give them, behind the head (QueuePass.closed), so that a long queue behind a full machine costs nothing per pass.
  closed(): string | undefined {
    return this.waitsAbove() <= 0 ? this.behindHead!.reason : undefined;
  }

  placed(job: WaitingJob, processors: ReadonlyArray<{ readonly cluster: number; readonly processors: number }>): void {
    holdInPlans(job, this.view, processors);
    this.freeNowBound = undefined;
  }

  notPlaced(job: WaitingJob): void {
    // Decision: an admitted job its placement policy did not place, when no reservation is made yet, takes one.
    if (this.behindHead === undefined) this.setHead(reserveHead(job, this.view));
  }

  private setHead(head: { readonly id: string; readonly start: number; readonly cluster: number } | undefined): void {
    if (head === undefined) return;
    // A job behind the head with no room now has none on any cluster (every one is 0): NO_ROOM says the same.
    this.behindHead = {
      room: NO_ROOM,
      reason: `waiting: cannot start now without delaying job ${head.id}'s reservation at ${head.start} (easy)`,
      reserved: undefined,
    };
    this.freeNowBound = undefined;
  }
}

/** The head's reservation: its earliest start over the clusters it may run on (Decision: at a tie, the first). */
function reserveHead(job: WaitingJob, view: QueueView): { id: string; start: number; cluster: number } | undefined {
  let best: { id: string; start: number; cluster: number } | undefined;
  for (const c of candidateClusters(job, view)) {
    // earliestFit's start (Infinity where it never fits), without the running jobs it waits for: never read here.
    const start = view.plan(c).earliestStart(job.need, job.walltime, view.now);
    if (start < Infinity && (best === undefined || start < best.start)) best = { id: job.id, start, cluster: c };
  }
  if (best === undefined) return undefined;
  view.plan(best.cluster).reserve({ id: `${job.id}#head`, n: job.need, start: best.start, duration: job.walltime });
  return best;
}
