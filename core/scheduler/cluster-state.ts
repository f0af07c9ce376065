// The capacity model of one cluster as Concertina sees it: background load from the last poll, Concertina's
// non-preemptible and preemptible processors, pre-allocated but unused ones (CooRMv2), and what is earmarked.
import type { Cluster } from '../model/grid.js';
import type { PreallocationSharing } from '../plan/holding.js';
import type { CapacityBreakdown, ClusterSnapshot } from '../model/cluster-snapshot.js';
import type { JobRecord, ReadonlyJobRecord } from './job-record.js';
import type { ReusedList } from './reused-list.js';

/**
 * What a cluster's threshold caps. `all`: everything Concertina holds there, placements included. `growth`: only
 * growth — the paper's "never expands the total set of the jobs it manages" over the threshold — while a placement
 * may take what local users leave.
 */
export type ThresholdScope = 'all' | 'growth';

// The breakdown and the snapshot are defined once, with the schema the API checks them by.
export type { CapacityBreakdown, ClusterSnapshot } from '../model/cluster-snapshot.js';

/** A cluster's capacity model as policies see it (approaches, placement room): read-only. */
export interface ReadonlyClusterState {
  readonly cluster: Cluster;
  readonly reachable: boolean;
  readonly background: number;
  readonly nonPreemptible: number;
  readonly preemptible: number;
  readonly preallocatedUnused: number;
  readonly offered: number;
  /** Processors set aside for waiting jobs (PWA's shrink-to-place). */
  readonly reserved: number;
  readonly growDue: boolean;
  readonly malleableJobs: readonly ReadonlyJobRecord[];
  readonly evolvingJobs: readonly ReadonlyJobRecord[];
  readonly growRoom: number;
  readonly concertina: number;
  readonly free: number;
  readonly unfilledPreallocation: number;
  readonly sharedPreallocation: number;
  preallocationSharing(): PreallocationSharing | undefined;
  readonly overcommitted: number;
  readonly shrinkable: number;
  readonly shrinkableForPlacement: number;
  availableFor(jobId?: string): number;
  availableForGrowth(freeRoom?: number, allRoom?: number): number;
  availableForPreallocation(jobId: string | undefined, initial: number, max: number, shrinkExtras?: number): number;
  breakdown(): CapacityBreakdown;
}

export class ClusterState implements ReadonlyClusterState {
  readonly cluster: Cluster;
  /**
   * Whether a value the pass state key reads changed since `stateValues` last read them (state-key.ts); on becoming
   * stale the cluster joins `#keyWatch`, so the key is made again from the clusters that changed only.
   */
  #keyStale = true;
  #keyWatch: ReusedList<ClusterState> | undefined;
  /** Likewise for what `availableFor` reads: whether it may have changed since `availabilitySeen`, and who is told. */
  #availabilityStale = true;
  #availabilityWatch: ReusedList<ClusterState> | undefined;
  #touch(): void {
    if (!this.#keyStale) {
      this.#keyStale = true;
      this.#keyWatch?.push(this);
    }
    if (!this.#availabilityStale) {
      this.#availabilityStale = true;
      this.#availabilityWatch?.push(this);
    }
  }
  get background(): number {
    return this.#background;
  }
  set background(value: number) {
    if (value !== this.#background) this.#touch();
    this.#background = value;
  }
  #background: number = 0;
  get reachable(): boolean {
    return this.#reachable;
  }
  set reachable(value: boolean) {
    if (value !== this.#reachable) this.#touch();
    this.#reachable = value;
  }
  #reachable = true;
  lastPoll = Number.NEGATIVE_INFINITY;
  /** Rigid and moldable jobs, malleable minimums, and what evolving jobs use (or were promised) of their pre-allocations. */
  get nonPreemptible(): number {
    return this.#nonPreemptible;
  }
  set nonPreemptible(value: number) {
    if (value !== this.#nonPreemptible) this.#touch();
    this.#nonPreemptible = value;
  }
  #nonPreemptible: number = 0;
  /** Malleable extras: processors above their jobs' minimums. */
  get preemptible(): number {
    return this.#preemptible;
  }
  set preemptible(value: number) {
    if (value !== this.#preemptible) this.#touch();
    this.#preemptible = value;
  }
  #preemptible: number = 0;
  /**
   * Pre-allocated by evolving jobs and not in use by them. Never given non-preemptibly to another job; malleable
   * extras may fill them (preemptibly: they are shrunk when the evolving job grows).
   */
  get preallocatedUnused(): number {
    return this.#preallocatedUnused;
  }
  set preallocatedUnused(value: number) {
    if (value !== this.#preallocatedUnused) this.#touch();
    this.#preallocatedUnused = value;
  }
  #preallocatedUnused: number = 0;
  /** Processors offered in grow offers awaiting an answer. */
  get offered(): number {
    return this.#offered;
  }
  set offered(value: number) {
    if (value !== this.#offered) this.#touch();
    this.#offered = value;
  }
  #offered: number = 0;
  /** Processors set aside for queued jobs waiting for a mandatory shrink here, by job id. */
  readonly reservations = new Map<string, number>();
  get reserved(): number {
    return this.#reserved;
  }
  set reserved(value: number) {
    if (value !== this.#reserved) this.#touch();
    this.#reserved = value;
  }
  #reserved: number = 0;
  /** Running malleable jobs here, in start order (ties by arrival). */
  readonly malleableJobs: JobRecord[] = [];
  /** Evolving jobs placed here and not ended, in placement order. */
  readonly evolvingJobs: JobRecord[] = [];
  /** Processors freed since growth last ran here: the trigger for growing running jobs. */
  get growDue(): boolean {
    return this.#growDue;
  }
  set growDue(value: boolean) {
    if (value !== this.#growDue) this.#touch();
    this.#growDue = value;
  }
  #growDue: boolean = false;
  /**
   * What the last policy grow here started from: processors free for growth, and what its jobs could still take.
   * A poll that finds the same offers nothing again (the jobs declined those very processors).
   */
  get lastGrowFree(): number {
    return this.#lastGrowFree;
  }
  set lastGrowFree(value: number) {
    if (value !== this.#lastGrowFree) this.#touch();
    this.#lastGrowFree = value;
  }
  #lastGrowFree: number = -1;
  get lastGrowRoom(): number {
    return this.#lastGrowRoom;
  }
  set lastGrowRoom(value: number) {
    if (value !== this.#lastGrowRoom) this.#touch();
    this.#lastGrowRoom = value;
  }
  #lastGrowRoom: number = -1;

  /**
   * Writes this cluster's part of the pass state key (state-key.ts) into `out`, STATE_VALUES of them: its capacity
   * classes, growth flag, malleable jobs and last growth. It joins the key's watch again at the next change.
   */
  stateValues(out: Float64Array): void {
    out[0] = this.#background;
    out[1] = this.#nonPreemptible;
    out[2] = this.#preemptible;
    out[3] = this.#preallocatedUnused;
    out[4] = this.#offered;
    out[5] = this.#reserved;
    out[6] = (this.#growDue ? 1 : 0) + this.malleableJobs.length * 2;
    out[7] = this.#lastGrowFree + this.#lastGrowRoom * 0x10001;
    this.#keyStale = false;
  }

  /** From now on, joins `stale` whenever a value `stateValues` reads changes; joins it now, its values not yet read. */
  watchStateHash(stale: ReusedList<ClusterState>): void {
    this.#keyWatch = stale;
    this.#keyStale = true;
    stale.push(this);
  }

  /**
   * From now on (`stale` given), joins `stale` whenever a value `availableFor` reads changes, once until
   * `availabilitySeen`; joins it now. Without `stale`, stops.
   */
  watchAvailability(stale: ReusedList<ClusterState> | undefined): void {
    this.#availabilityWatch = stale;
    this.#availabilityStale = true;
    stale?.push(this);
  }

  /** What `availableFor` reads was looked at: the next change joins the watch again. */
  availabilitySeen(): void {
    this.#availabilityStale = false;
  }

  /** A running malleable job placed here: the pass state key counts them. */
  addMalleable(job: JobRecord): void {
    this.malleableJobs.push(job);
    this.#touch();
  }

  /** A malleable job placed here ended or left. */
  removeMalleable(job: JobRecord): void {
    const i = this.malleableJobs.indexOf(job);
    if (i < 0) return;
    this.malleableJobs.splice(i, 1);
    this.#touch();
  }

  /** Processors its running malleable jobs could still take (up to their caps). */
  get growRoom(): number {
    let room = 0;
    for (const j of this.malleableJobs) room += j.growable;
    return room;
  }

  constructor(
    cluster: Cluster,
    /** What the threshold caps: everything Concertina holds (`all`), or only what growth adds (`growth`). */
    readonly thresholdScope: ThresholdScope = 'all',
  ) {
    this.cluster = cluster;
  }

  /**
   * Processors Concertina holds here, pre-allocations whole: malleable extras fill unused pre-allocated processors
   * before they take any others, so the two overlap.
   */
  get concertina(): number {
    return this.nonPreemptible + Math.max(this.preallocatedUnused, this.preemptible);
  }

  /** What Concertina may have here at most: the threshold (unless it caps growth only), and what local users leave. */
  private get capacity(): number {
    if (!this.reachable) return 0;
    const left = this.cluster.processors - this.background;
    return this.thresholdScope === 'all' ? Math.min(left, this.cluster.threshold) : left;
  }

  /** What Concertina may have here once its jobs have grown: always within the threshold. */
  private get growthCapacity(): number {
    return this.reachable ? Math.min(this.cluster.processors - this.background, this.cluster.threshold) : 0;
  }

  /** Malleable extras, with processors offered for growth and not yet answered. */
  private get extras(): number {
    return this.preemptible + this.offered;
  }

  /** What Concertina may still take here non-preemptibly, before reservations for waiting jobs. */
  get free(): number {
    return Math.max(0, this.capacity - this.nonPreemptible - Math.max(this.preallocatedUnused, this.extras));
  }

  /** What a job may take here now; a job with a reservation here also gets what is set aside for it. */
  availableFor(jobId?: string): number {
    return Math.max(0, this.free - this.reservedForOthers(jobId));
  }

  private reservedForOthers(jobId: string | undefined): number {
    if (this.#reserved === 0) return 0;
    const own = jobId === undefined ? 0 : (this.reservations.get(jobId) ?? 0);
    return this.reserved - own;
  }

  /**
   * Pre-allocated processors filled by malleable extras (or offered for growth): `free` counts them once, while a
   * plan's holdings count them twice, in the evolving job's pre-allocation and in the malleable job's extras.
   */
  get sharedPreallocation(): number {
    return Math.min(this.preallocatedUnused, this.extras);
  }

  /** sharedPreallocation's two sides job by job (core/plan/holding.ts); undefined when nothing is shared. */
  preallocationSharing(): PreallocationSharing | undefined {
    if (this.sharedPreallocation <= 0) return undefined;
    const byJob: Array<{ id: string; unused: number; extras: number }> = [];
    for (const j of this.evolvingJobs)
      byJob.push({ id: j.id, unused: Math.max(0, j.preallocation - j.held), extras: 0 });
    for (const j of this.malleableJobs) byJob.push({ id: j.id, unused: 0, extras: Math.max(0, j.held - j.min) });
    return { unused: this.preallocatedUnused, extras: this.extras, byJob };
  }

  /** Pre-allocated processors neither used by their evolving job nor filled by malleable extras. */
  get unfilledPreallocation(): number {
    return Math.max(0, this.preallocatedUnused - this.extras);
  }

  /**
   * What running malleable jobs may grow into (preemptibly): what is free, without what waiting jobs have set
   * aside, and at most `freeRoom` of it, and the unfilled pre-allocated processors; at most `allRoom` in all.
   */
  availableForGrowth(freeRoom = Number.POSITIVE_INFINITY, allRoom = Number.POSITIVE_INFINITY): number {
    const physical = this.growthCapacity - this.nonPreemptible - this.extras;
    const free = Math.max(0, Math.min(this.free - this.reserved, freeRoom));
    return Math.max(0, Math.min(physical, free + this.unfilledPreallocation, allRoom));
  }

  /**
   * The largest pre-allocation an evolving job starting with `initial` of it could be placed with here: room outside
   * every non-preemptible use and other pre-allocation, with `initial` of it not held by malleable extras.
   */
  availableForPreallocation(jobId: string | undefined, initial: number, max: number, shrinkExtras = 0): number {
    const others = this.reservedForOthers(jobId);
    const nonPreemptibleRoom = this.capacity - this.nonPreemptible - this.preallocatedUnused - others;
    const physicalRoom = this.capacity - this.nonPreemptible - Math.max(0, this.extras - shrinkExtras) - others;
    return Math.max(0, Math.min(nonPreemptibleRoom, physicalRoom + (max - initial)));
  }

  reserve(jobId: string, processors: number): void {
    this.release(jobId);
    this.reservations.set(jobId, processors);
    this.reserved += processors;
  }

  release(jobId: string): void {
    const had = this.reservations.get(jobId);
    if (had === undefined) return;
    this.reservations.delete(jobId);
    this.reserved -= had;
  }

  /** How far what Concertina's jobs use or were promised here goes over what it may have (malleable extras to shrink). */
  get overcommitted(): number {
    return Math.max(0, this.nonPreemptible + this.extras - this.capacity);
  }

  /** What running malleable jobs here could give back without going below their minimums. */
  get shrinkable(): number {
    let sum = 0;
    for (const job of this.malleableJobs) sum += job.shrinkable;
    return sum;
  }

  /** What mandatory shrinks could free here for a non-preemptible placement: extras filling pre-allocations free nothing. */
  get shrinkableForPlacement(): number {
    return Math.min(this.shrinkable, Math.max(0, this.extras - this.preallocatedUnused));
  }

  /**
   * Records a poll's answer (its background load bounded by the cluster's size). Says whether processors came free
   * (local users gave some back, or the cluster came back) and whether it changed what Concertina knows.
   * Decision: a poll is an event only when it changes what Concertina knows (load or reachability); the time of the
   * last poll is in the snapshot.
   */
  recordPoll(
    status: { readonly background: number; readonly reachable: boolean },
    now: number,
  ): { freed: boolean; changed: boolean } {
    const background = Math.max(0, Math.min(status.background, this.cluster.processors));
    const freed = background < this.background || (status.reachable && !this.reachable);
    const changed =
      background !== this.background ||
      status.reachable !== this.reachable ||
      this.lastPoll === Number.NEGATIVE_INFINITY;
    this.background = background;
    this.reachable = status.reachable;
    this.lastPoll = now;
    return { freed, changed };
  }

  snapshot(): ClusterSnapshot {
    return {
      name: this.cluster.name,
      reachable: this.reachable,
      lastPoll: Number.isFinite(this.lastPoll) ? this.lastPoll : null,
      runningMalleable: this.malleableJobs.length,
      ...this.breakdown(),
    };
  }

  breakdown(): CapacityBreakdown {
    const earmarked = this.offered;
    const unfilled = this.unfilledPreallocation;
    const idle = Math.max(
      0,
      this.cluster.processors - this.background - this.nonPreemptible - this.preemptible - earmarked - unfilled,
    );
    return {
      processors: this.cluster.processors,
      threshold: this.cluster.threshold,
      background: this.background,
      nonPreemptible: this.nonPreemptible,
      preallocatedUnused: unfilled,
      preemptible: this.preemptible,
      earmarked,
      idle,
    };
  }
}
