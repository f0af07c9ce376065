// Conservative backfilling (Mu'alem and Feitelson): every waiting job, in priority order, gets a reservation at its
// earliest start over the clusters it may run on; a job starts now only when its earliest start is now, so it delays
// no reservation. Reservations persist between passes: a job is never planned later than it was promised. When the
// plan frees processors (a job ended before its walltime), reservations are re-made in order, each at its earliest
// start but never later than before (compression). With a reservation depth N (Maui's ReservationDepth) only N jobs
// hold reservations at once; the others start only when they fit now without delaying any.
import {
  hasRoom,
  roomOf,
  type ClusterRoom,
  holdInPlans,
  NO_ROOM,
  roomOverWalltime,
  type Admission,
  type QueuePass,
  type QueuePolicy,
  type QueuePolicyName,
  type QueueView,
  type WaitingJob,
} from './policy.js';
import type { FreedRegions } from '../plan/freed-regions.js';

// Decision: as pyss's ConservativeScheduler and Batsim's batsched conservative_bf do, a new job is put at its earliest
// start among the reservations already made, and when a job has ended the waiting jobs are taken again, in queue
// order, each removed and put back at its earliest start with the others in place (so it never moves later).
// Decision: otherwise compression looks only at clusters whose plan freed something since the last pass or during
// this pass (a reservation moved off them or earlier on them): on any other cluster no earliest start can improve.
// Decision: at equal starts, a reservation keeps its cluster; a new one goes to the first cluster (lowest index); a
// job that can start now is offered every cluster where it fits now, and its placement policy chooses.
// Decision: a cluster that freed something is searched for a promised job only where core/plan/freed-regions.ts says a
// search may find an earlier start (a region freed since the job's last check reaches its size); the others cannot.
// Decision: reservations read walltimes, never run times; a job without a walltime is planned with no end.
// Decision (OAR's rule for moldable jobs: the size that ends first): a job has one walltime whatever its size, so
// every size of a moldable job is planned to end at its start plus that walltime and the size that ends first is the
// one that starts first: its minimum is reserved; when it can start now it is offered what is free over its walltime
// without delaying any reservation, and sizing.ts gives it the most of that up to its max (which, with any speed-up,
// also ends first in fact).

/** A backfilling policy keeping reservations for at most `depth` waiting jobs at once (Infinity: every job). */
export function backfilling(name: QueuePolicyName, depth: number, description: string): QueuePolicy {
  return {
    name,
    description,
    promises: true,
    begin: (view) => new BackfillingPass(view, name, depth),
  };
}

export const cbf: QueuePolicy = backfilling(
  'cbf',
  Number.POSITIVE_INFINITY,
  'Conservative backfilling: every waiting job gets a reservation; a job starts early only if it delays none.',
);

/** The clusters a job may start on, as a range (its pinned one, or all): no array per job and pass. */
function clusterRange(job: WaitingJob, view: QueueView): [number, number] {
  return job.cluster === undefined ? [0, view.clusterCount] : [job.cluster, job.cluster + 1];
}

interface Slot {
  cluster: number;
  start: number;
}

class BackfillingPass implements QueuePass {
  private readonly dirty: boolean[];
  private anyDirty: boolean;
  /** Jobs holding a reservation now (promised earlier, or reserved in this pass). */
  private held = 0;
  /** Where each job admitted to start now had its reservation in this pass's plans (released when it starts). */
  private readonly startingFrom = new Map<string, number>();
  /** Where the plans freed processors since each promised job's last check (absent: every freed cluster is searched). */
  private readonly regions: FreedRegions | undefined;

  constructor(
    private readonly view: QueueView,
    private readonly name: string,
    private readonly depth: number,
  ) {
    // A loop rather than Array.from and includes: a pass is made per event, most of them cold (issue 17).
    const dirty: boolean[] = [];
    let anyDirty = false;
    for (let c = 0; c < view.clusterCount; c++) {
      const freed = view.freed(c);
      dirty.push(freed);
      if (freed) anyDirty = true;
    }
    this.dirty = dirty;
    this.anyDirty = anyDirty;
    this.held = view.promised;
    this.regions = view.freedRegions;
    this.regions?.beginPass(this.anyDirty);
  }

  /** Logs that cluster c's plan rose over [from, to) (from before now read as now). */
  private freedOn(c: number, from: number, to: number): void {
    if (this.regions === undefined || !(to > from)) return;
    this.regions.freed(c, from, to, this.view.plan(c).mostFreeBetween(from, to));
  }

  // Every admission has one shape, each field set or undefined (as EASY's: with some left out, the planned pass's
  // optimized `visit` met a shape it had not seen and was deoptimized).
  admit(job: WaitingJob): Admission {
    const view = this.view;
    const p = job.promise;
    if (p !== undefined) return this.keep(job, p);
    if (this.held < this.depth) {
      const best = this.earliest(job);
      if (best === undefined) {
        // Decision: a job the plan can never fit (larger than the cluster, or waiting for jobs without a walltime)
        // takes no reservation and does not count towards the depth: it starts when processors come free.
        return {
          room: roomOverWalltime(job, view),
          reason: `waiting for ${job.need} processors: the plan cannot say when (${this.name})`,
          reserved: undefined,
        };
      }
      if (best.start <= view.now) return { room: roomOverWalltime(job, view), reason: undefined, reserved: undefined };
      view.plan(best.cluster).reserve({ id: job.id, n: job.need, start: best.start, duration: job.walltime });
      this.regions?.checked(job.id);
      this.held++;
      return { room: NO_ROOM, reason: `reserved to start at ${best.start} (${this.name})`, reserved: best };
    }
    const room = roomOverWalltime(job, view);
    if (hasRoom(room, job.need)) return { room, reason: undefined, reserved: undefined };
    return {
      room,
      reason: `waiting: cannot start now without delaying a reservation (${this.name}, ${this.depth} held)`,
      reserved: undefined,
    };
  }

  /** A job promised earlier: compressed when the plans freed something, started when its start is now. */
  private keep(job: WaitingJob, p: Slot): Admission {
    const view = this.view;
    let slot: Slot = p;
    if (this.anyDirty) {
      // Searched as if its old slot were free again (it is, once it moves), so no cluster gives a later start than
      // the promise. Decision: a job that keeps its slot keeps its reservation as it is (not taken out and put back).
      const [from, to] = clusterRange(job, view);
      const regions = this.regions;
      // Whether every cluster it may run on was searched or proven unable to start it earlier.
      let everywhere = true;
      for (let c = from; c < to; c++) {
        if (!this.dirty[c]) {
          everywhere = false;
          continue;
        }
        // The starts worth trying there: [searchFrom, searchUntil].
        let searchFrom = view.now;
        let searchUntil = slot.start;
        if (regions !== undefined) {
          if (!regions.narrow(job.id, c, job.need, job.walltime, p.start)) continue;
          if (regions.from > searchFrom) searchFrom = regions.from;
          if (regions.until < searchUntil) searchUntil = regions.until;
        }
        const plan = view.plan(c);
        const start =
          c === p.cluster
            ? plan.earliestStartWithout(job.id, job.need, job.walltime, searchFrom, searchUntil)
            : plan.earliestStart(job.need, job.walltime, searchFrom, searchUntil);
        if (start < slot.start || (start === slot.start && c === p.cluster)) slot = { cluster: c, start };
      }
      if (slot.cluster !== p.cluster || slot.start !== p.start) {
        view.plan(p.cluster).unreserve(job.id);
        view.plan(slot.cluster).reserve({ id: job.id, n: job.need, start: slot.start, duration: job.walltime });
        // Its old slot is free now: jobs after it may move there.
        this.dirty[p.cluster] = true;
        this.anyDirty = true;
        this.freedOn(p.cluster, p.start, p.start + job.walltime);
      }
      if (everywhere) regions?.checked(job.id);
    }
    if (slot.start <= view.now) {
      // It starts now: it may take what is free over its walltime, wherever, its reservation's processors included.
      // The reservation stays in the plan until the job is placed (see placed): over [now, now + walltime) it holds
      // the job's processors evenly, so its own cluster has them free besides.
      this.regions?.forget(job.id);
      this.held--;
      const room = this.roomStarting(job, slot.cluster);
      if (room !== undefined) {
        this.startingFrom.set(job.id, slot.cluster);
        return { room, reason: undefined, reserved: undefined };
      }
      // Cannot happen on a plan that held its promise; kept as a guard (it waits, planned again at the next pass).
      view.plan(slot.cluster).unreserve(job.id);
      this.freedOn(slot.cluster, view.now, view.now + job.walltime);
      return {
        room: roomOverWalltime(job, view),
        reason: `waiting: its reservation at ${slot.start} no longer fits (${this.name})`,
        reserved: undefined,
      };
    }
    // A promise kept as it was keeps the reason it was given with (no new string per job and pass).
    if (slot === p) return { room: NO_ROOM, reason: undefined, reserved: slot };
    return { room: NO_ROOM, reason: `reserved to start at ${slot.start} (${this.name})`, reserved: slot };
  }

  /** A new reservation: the earliest start over the job's clusters (the first cluster at a tie), or undefined. */
  private earliest(job: WaitingJob): Slot | undefined {
    const view = this.view;
    let best: Slot | undefined;
    const [from, to] = clusterRange(job, view);
    for (let c = from; c < to; c++) {
      // Bounded by the best start so far: a cluster is searched no further than it could win.
      const start = view
        .plan(c)
        .earliestStart(job.need, job.walltime, view.now, best === undefined ? Number.POSITIVE_INFINITY : best.start);
      if (start < (best?.start ?? Number.POSITIVE_INFINITY)) best = { cluster: c, start };
    }
    return best;
  }

  /**
   * The room now of a promised job starting now, its reservation on cluster `own` still in the plan (its processors
   * counted free there), or undefined when it fits nowhere.
   */
  private roomStarting(job: WaitingJob, own: number): ClusterRoom | undefined {
    const view = this.view;
    // A reservation of no length holds nothing: its processors are not to be added back.
    if (!(job.walltime > 0)) {
      view.plan(own).unreserve(job.id);
      const room = roomOverWalltime(job, view);
      if (hasRoom(room, job.need)) return room;
      view.plan(own).reserve({ id: job.id, n: job.need, start: view.now, duration: job.walltime });
      return undefined;
    }
    const room = new Array<number>(view.clusterCount).fill(0);
    const [from, to] = clusterRange(job, view);
    let fits = false;
    for (let c = from; c < to; c++) {
      const free = view.plan(c).freeBetween(view.now, view.now + job.walltime) + (c === own ? job.need : 0);
      if (free >= job.need) {
        room[c] = free;
        fits = true;
      }
    }
    return fits ? roomOf(room) : undefined;
  }

  placed(job: WaitingJob, processors: ReadonlyArray<{ readonly cluster: number; readonly processors: number }>): void {
    const from = this.startingFrom.get(job.id);
    this.startingFrom.delete(job.id);
    if (from === undefined) {
      holdInPlans(job, this.view, processors);
      return;
    }
    // A promised job started where it was reserved, with what it reserved, holds what its reservation held: the
    // reservation becomes its holding as it is, nothing freed. Otherwise it is given back, which may free processors.
    const same = processors.length === 1 && processors[0]!.cluster === from && processors[0]!.processors === job.need;
    const plan = this.view.plan(from);
    if (same && plan.renameReservation(job.id, `${job.id}#0`)) return;
    plan.unreserve(job.id);
    holdInPlans(job, this.view, processors);
    this.freedOn(from, this.view.now, this.view.now + job.walltime);
  }

  notPlaced(job: WaitingJob): void {
    // Decision: a job admitted to start now that its placement policy did not place keeps no promise; it is planned
    // afresh at the next pass (its processors stay free for the jobs behind it in this one).
    const from = this.startingFrom.get(job.id);
    if (from === undefined) return;
    this.startingFrom.delete(job.id);
    this.view.plan(from).unreserve(job.id);
    this.freedOn(from, this.view.now, this.view.now + job.walltime);
  }
}
