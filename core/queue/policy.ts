// The queue-policy extension point: which waiting jobs may start now, in queue order. A policy reads a read-only view
// of the waiting jobs and each cluster's plan (core/plan/availability.ts) and answers, job by job, how many
// processors the job may take on each cluster now; the scheduler's placement policy then chooses among them. Each
// policy is a file registered by name in registry.ts.
// Decision: one policy for the whole queue, not one per cluster: a waiting job may start on any cluster and its
// reservation goes where it starts earliest, so which jobs may pass which is a property of the one queue.
import type { AvailabilityProfile, Reservation } from '../plan/availability.js';
import type { FreedRegions } from '../plan/freed-regions.js';

export const QUEUE_POLICIES = ['koala', 'fcfs', 'easy', 'cbf'] as const;
export type QueuePolicyName = (typeof QUEUE_POLICIES)[number];

/** A waiting job as a queue policy sees it. */
export interface WaitingJob {
  readonly id: string;
  /** Processors it needs on one cluster to start (its minimum; an evolving job's pre-allocation). */
  readonly need: number;
  /** Its walltime in seconds; Infinity for a job without one (it would hold its processors with no end). */
  readonly walltime: number;
  /** The cluster it is pinned to (by index), or undefined when any cluster may take it. */
  readonly cluster: number | undefined;
  /**
   * Its reservation from earlier passes, already in the plans (under the job's id), for a policy whose reservations
   * persist (`promises`); undefined when it has none, or the plans could no longer hold it.
   */
  readonly promise?: { readonly cluster: number; readonly start: number } | undefined;
}

/** What a queue policy may look at at the start of a pass over the queue. */
export interface QueueView {
  readonly now: number;
  readonly clusterCount: number;
  /**
   * Cluster i's plan: what Concertina may use there now and ahead, minus what its placed jobs hold until their
   * estimated ends. The policy may reserve in it (it is its own copy for this pass).
   */
  plan(clusterIndex: number): AvailabilityProfile;
  /**
   * What plan(i).freeBetween(now, now + duration) answers, without building a plan the pass has not asked for (a
   * planned pass asks it of every cluster for every job); absent, the plan is asked.
   */
  freeFromNow?(clusterIndex: number, duration: number): number;
  /**
   * The first cluster with the most that `freeFromNow(i, duration)` answers (-1: no cluster), when the view keeps an
   * index of its clusters by what is free; absent, or undefined for this pass, every cluster is asked.
   */
  mostFreeFromNow?(duration: number): number | undefined;
  /**
   * For a policy whose reservations persist: whether cluster i's plan (its promises in) has more free anywhere from
   * now on than at the end of the last pass (a job ended before its walltime, a promise was dropped, capacity grew).
   * Always true for the other policies.
   */
  freed(clusterIndex: number): boolean;
  /**
   * Puts a placed job's holding in cluster i's plan, as `plan(i).reserve` does; the view may put it in at its next
   * question instead (a pass's last placement then builds no plan). Absent: `plan(i).reserve`.
   */
  hold?(clusterIndex: number, holding: Reservation): void;
  /** How many of the waiting jobs hold a promise in the plans (0 for a policy without promises). */
  readonly promised: number;
  /**
   * For a policy whose reservations persist: where the plans freed processors since each promised job was last
   * checked, kept from pass to pass (the policy logs what it frees and checks); absent, every freed cluster is searched.
   */
  readonly freedRegions?: FreedRegions;
}

/** How many processors a job may take on each cluster now. */
export interface ClusterRoom {
  /** On cluster i (0: not there). */
  on(clusterIndex: number): number;
  /** The first cluster with the most room, or -1 when no cluster has any. */
  readonly most: number;
}

/** Room given cluster by cluster (`values[i]`, missing: 0). */
export function roomOf(values: readonly number[]): ClusterRoom {
  let most = -1;
  for (let i = 0; i < values.length; i++) if (values[i]! > 0 && (most < 0 || values[i]! > values[most]!)) most = i;
  return new RoomByCluster(values, most);
}

// The rooms below are classes, not literals with an arrow: a pass makes one per job, and a literal's arrow is one
// more object each time.

class RoomByCluster implements ClusterRoom {
  constructor(
    private readonly values: readonly number[],
    readonly most: number,
  ) {}

  on(i: number): number {
    return this.values[i] ?? 0;
  }
}

/**
 * No room on any cluster. Of the class roomOf gives, not a literal of its own (nor frozen, which changes its map too): a
 * pass that meets both kinds late in a replay deoptimized where it reads a room (hasRoom inlined in its visit).
 */
export const NO_ROOM: ClusterRoom = roomOf([]);

/** Room on one cluster only. */
class RoomOnOne implements ClusterRoom {
  constructor(
    readonly most: number,
    private readonly room: number,
  ) {}

  on(i: number): number {
    return i === this.most ? this.room : 0;
  }
}

/** Room read from the view cluster by cluster when asked (`most` named by the view's index). */
class RoomFromView implements ClusterRoom {
  constructor(
    private readonly job: WaitingJob,
    private readonly view: QueueView,
    readonly most: number,
  ) {}

  on(c: number): number {
    const room = freeOverWalltime(this.job, this.view, c);
    return room >= this.job.need ? room : 0;
  }
}

/** Whether some cluster has room for `need`. */
export function hasRoom(room: ClusterRoom, need: number): boolean {
  return (room.most >= 0 ? room.on(room.most) : 0) >= need;
}

/** How many processors a job may take on each cluster now (0: not there); `reason` says why it waits when all are 0. */
export interface Admission {
  readonly room: ClusterRoom;
  readonly reason?: string;
  /** The reservation this job took in the plans at this admission (EASY's head): where and when it will start. */
  readonly reserved?: { readonly cluster: number; readonly start: number };
}

/** One pass over the queue: the scheduler asks `admit` for every waiting job in queue order, then says what came of it. */
export interface QueuePass {
  admit(job: WaitingJob): Admission;
  /**
   * Optional, for a long queue: why a job on no particular cluster needing `need` processors waits, when the pass can
   * tell from its need alone (admit would answer it no room, no reservation and this reason); undefined: admit it.
   * The scheduler then spares making such a job a WaitingJob.
   */
  waits?(need: number): string | undefined;
  /**
   * Optional, with `waits`: the need above which `waits` answers (+Infinity while it answers none). Once finite it
   * never rises in the pass, and `waits` answers one reason for every need above it until the pass ends, so that the
   * scan may keep the jobs needing more without a visit (the queue's index by need, never touching them) and the pass
   * tells them that reason once at its end (the queue's ClosedScan, as for the jobs behind a closed pass).
   */
  waitsAbove?(): number;
  /**
   * Optional, with `waitsAbove`: false only where a job on no particular cluster needing `need` processors for
   * `walltime` seconds would be admitted no room, no reservation and the reason `waits` gives above `waitsAbove`;
   * monotone (a job needing no more for no longer fits whenever this one does), so that the scan steps over the runs
   * of jobs that do not, as it does over those needing more than `waitsAbove`.
   */
  mayFit?(need: number, walltime: number): boolean;
  /** The job was placed now with these processors on these clusters (by index). */
  placed(job: WaitingJob, processors: ReadonlyArray<{ readonly cluster: number; readonly processors: number }>): void;
  /** The job was admitted but its placement policy did not place it. */
  notPlaced(job: WaitingJob): void;
  /**
   * Once no job later in the queue may start in this pass (FCFS's head blocks them all; under EASY no processor is free
   * now): the reason admit would give each of them (the same for all), and the pass keeps them without asking; until
   * then undefined. The queue keeps that reason once for them all (ClosedScan), so that a long queue behind a blocked
   * head costs nothing per pass, and each reads it until it is visited again.
   * Decision: a pass closes only with a reason to give the jobs behind: a policy that cannot say one reason for them
   * all does not close (its scan visits them), so that no waiting job reads a reason its visit would not give it.
   */
  closed?(): string | undefined;
}

export interface QueuePolicy {
  readonly name: QueuePolicyName;
  readonly description: string;
  /**
   * Starts a pass over the queue, or undefined for the scheduler's own head-to-tail scan (KOALA's placement queue:
   * every job tried, those that fail go to the tail and count a try).
   */
  begin(view: QueueView): QueuePass | undefined;
  /** Its reservations persist between passes (each waiting job keeps its promise, in the plans it is shown). */
  readonly promises?: boolean;
}

/** The clusters a job may start on: its pinned one, or all. */
export function candidateClusters(job: WaitingJob, view: QueueView): number[] {
  if (job.cluster !== undefined) return [job.cluster];
  const all = new Array<number>(view.clusterCount);
  for (let i = 0; i < all.length; i++) all[i] = i;
  return all;
}

/** Up to this many clusters, a job's room is asked of every cluster (see roomOverWalltime): no index pays there. */
export const FEW_CLUSTERS = 8;

/** Room now on each cluster for a job: what its plan has free over the job's whole walltime from now, or 0. */
export function roomOverWalltime(job: WaitingJob, view: QueueView): ClusterRoom {
  if (job.cluster !== undefined) {
    const pinned = job.cluster;
    const room = freeOverWalltime(job, view, pinned);
    return room >= job.need ? new RoomOnOne(pinned, room) : NO_ROOM;
  }
  // Decision: on a few clusters, asking each costs no more than the index (and asks the one it names only once).
  const most = view.clusterCount > FEW_CLUSTERS ? view.mostFreeFromNow?.(job.walltime) : undefined;
  if (most !== undefined) {
    // Read cluster by cluster when asked: what the index says is the most is enough to tell whether any has room.
    if (most < 0 || freeOverWalltime(job, view, most) < job.need) return NO_ROOM;
    return new RoomFromView(job, view, most);
  }
  // Made at the first cluster with room: behind EASY's head most jobs asked have none (NO_ROOM answers the same as
  // all zeros), and a pass asks hundreds of thousands of them in a long replay.
  let room: number[] | undefined;
  for (let c = 0; c < view.clusterCount; c++) {
    const f = freeOverWalltime(job, view, c);
    if (f >= job.need) (room ??= new Array<number>(view.clusterCount).fill(0))[c] = f;
  }
  return room === undefined ? NO_ROOM : roomOf(room);
}

/** What cluster c's plan has free over the job's whole walltime from now. */
function freeOverWalltime(job: WaitingJob, view: QueueView, c: number): number {
  return freeFromNow(view, c, job.walltime);
}

/**
 * What cluster c's plan has free over [now, now + duration) (duration 0: at now), asked of the view where it answers
 * it, so that a pass that plans nothing ahead builds no plan.
 */
export function freeFromNow(view: QueueView, c: number, duration: number): number {
  return view.freeFromNow !== undefined
    ? view.freeFromNow(c, duration)
    : view.plan(c).freeBetween(view.now, view.now + duration);
}

/**
 * The most any cluster's plan has free over [now, now + duration) (duration 0: at now; -Infinity: no cluster). A job on
 * no particular cluster needing at least one processor has room now (roomOverWalltime) exactly when it needs no more
 * than this over its walltime; and no job needing more than at now has room on any cluster: what is free over a
 * walltime from now is the least over it, never more than at now.
 */
export function mostFreeOver(view: QueueView, duration: number): number {
  const most = view.clusterCount > FEW_CLUSTERS ? view.mostFreeFromNow?.(duration) : undefined;
  if (most !== undefined) return most < 0 ? Number.NEGATIVE_INFINITY : freeFromNow(view, most, duration);
  let free = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < view.clusterCount; c++) free = Math.max(free, freeFromNow(view, c, duration));
  return free;
}

/** Records a placed job in the plans: it holds its processors from now until now + its walltime. */
export function holdInPlans(
  job: WaitingJob,
  view: QueueView,
  processors: ReadonlyArray<{ readonly cluster: number; readonly processors: number }>,
): void {
  for (let i = 0; i < processors.length; i++) {
    const p = processors[i]!;
    const holding = new PlacedHolding(job.id, i, p.processors, view.now, job.walltime);
    if (view.hold !== undefined) view.hold(p.cluster, holding);
    else view.plan(p.cluster).reserve(holding);
  }
}

/**
 * A placed job's component held in the plans, its id made when asked: a pass whose last question came before its
 * last placement (most passes) puts it in no plan, and reads no id.
 */
class PlacedHolding implements Reservation {
  #id: string | undefined = undefined;

  constructor(
    private readonly jobId: string,
    private readonly component: number,
    readonly n: number,
    readonly start: number,
    readonly duration: number,
  ) {}

  get id(): string {
    return (this.#id ??= `${this.jobId}#${this.component}`);
  }
}
