// Growth of running malleable jobs: which clusters have growth due — processors came free there, or a poll found
// idle processors its jobs could take — and a policy grow started there when a pass asks for it.
import type { ClusterState } from './cluster-state.js';

/**
 * When a poll makes growth due: `idle`, whenever processors are free for growth and a running malleable job could
 * take some; `freed`, only when local users gave processors back (the KOALA paper's trigger, section V-B).
 */
export type GrowthAtPoll = 'idle' | 'freed';
export const GROWTH_AT_POLL = ['idle', 'freed'] as const satisfies readonly GrowthAtPoll[];

/** What growth needs of the malleability manager. */
export interface GrowthOperations {
  /** Whether an operation runs on the cluster. */
  busy(cluster: ClusterState): boolean;
  /** Starts the policy's grow of the cluster's running malleable jobs with `free` processors. */
  grow(cluster: ClusterState, free: number, now: number): void;
}

/**
 * What growth may take on a cluster without delaying a waiting job's reservation there: `free`, of its free processors
 * (the least its plan has free until the malleable jobs' ends with the reservations in), and `all`, of free and
 * unfilled pre-allocated processors together (the least from the first such pre-allocation's end on); Infinity when
 * nothing is reserved there.
 */
export type ReservedRoom = (cluster: ClusterState, now: number) => GrowthRoom;

export interface GrowthRoom {
  readonly free: number;
  readonly all: number;
}

/** The room where nothing is reserved: growth is not limited. */
export const NO_ROOM_LIMIT: GrowthRoom = { free: Number.POSITIVE_INFINITY, all: Number.POSITIVE_INFINITY };

const NONE_DUE: readonly ClusterState[] = [];

export class GrowthTrigger {
  /** Clusters whose growth flag went up, in the order it did (duplicates and lowered flags dropped when read). */
  private dueList: ClusterState[] = [];
  /** Clusters polled since the last pass, whose idle processors may go to growth once that pass has run. */
  private readonly idlePolled: ClusterState[] = [];
  /** Which clusters are in `idlePolled`, by index. */
  private readonly isPolled: boolean[] = [];

  constructor(
    private readonly operations: GrowthOperations,
    private readonly reservedRoom: ReservedRoom = () => NO_ROOM_LIMIT,
  ) {}

  /** Processors came free on a cluster: its running malleable jobs may grow at the next pass. */
  due(state: ClusterState): void {
    if (state.growDue) return;
    state.growDue = true;
    this.dueList.push(state);
  }

  /** A poll found the cluster reachable: its idle processors are looked at after the next full pass. */
  polled(state: ClusterState): void {
    const i = state.cluster.index;
    if (this.isPolled[i]) return;
    this.isPolled[i] = true;
    this.idlePolled.push(state);
  }

  /** After a full pass: growth made due on the clusters polled meanwhile; true if any cluster has growth due. */
  afterFullPass(): boolean {
    if (this.idlePolled.length === 0) return false;
    const polled = this.idlePolled.splice(0);
    for (const state of polled) this.isPolled[state.cluster.index] = false;
    for (const state of polled) this.idleGrowthDue(state);
    return this.dueList.length > 0;
  }

  /** Clusters where growth is due, in grid order; each pass reads this rather than every cluster. */
  dueClusters(): readonly ClusterState[] {
    // The usual lists, none or one cluster, without the copies below (a pass reads this every time).
    if (this.dueList.length === 0) return NONE_DUE;
    if (this.dueList.length === 1) {
      if (this.dueList[0]!.growDue) return [this.dueList[0]!];
      this.dueList.length = 0;
      return NONE_DUE;
    }
    // A cluster stays listed while its flag is up (busy, or skipped by the approach); duplicates are dropped here.
    const due = this.dueList.filter((c, i, all) => c.growDue && all.indexOf(c) === i);
    due.sort((a, b) => a.cluster.index - b.cluster.index);
    this.dueList = due.slice();
    return due;
  }

  /** Grows the running malleable jobs of a cluster with what is free there, if growth is due; true if it started. */
  growRunning(state: ClusterState, now: number): boolean {
    if (!state.growDue || this.operations.busy(state)) return false;
    state.growDue = false;
    // Asked first: without a job that could take more there is nothing to grow, and the room below, a plan of the
    // cluster with its reservations in, is built for nothing (on a trace of rigid jobs, after every job's end).
    if (!state.malleableJobs.some((j) => j.growable > 0)) return false;
    // Decision: growth takes no free processor a reservation needs later (cbf's promises, easy's head): under the
    // planning queue policies nothing shrinks a malleable job for a reserved start, so the extra would delay it.
    const room = this.reservedRoom(state, now);
    const free = state.availableForGrowth(room.free, room.all);
    if (free <= 0) return false;
    state.lastGrowFree = free;
    state.lastGrowRoom = state.growRoom;
    this.operations.grow(state, free, now);
    return true;
  }

  /**
   * A poll found the cluster: growth is due when processors are free for growth and its running malleable jobs could
   * take some, as at a release. Decision: not again for the very processors its jobs were last offered and declined
   * (the same free count and the same room), so that a job that takes only some sizes (FT) is not asked at every poll.
   */
  private idleGrowthDue(state: ClusterState): void {
    if (state.growDue || state.malleableJobs.length === 0) return;
    const free = state.availableForGrowth();
    if (free <= 0) return;
    const room = state.growRoom;
    if (room > 0 && (free !== state.lastGrowFree || room !== state.lastGrowRoom)) this.due(state);
  }
}
