// The capacity ledger: the one owner of the capacity counters that placed jobs move — what a job holds on its
// cluster as non-preemptible, preemptible or pre-allocated processors, and what waiting jobs have set aside there —
// as jobs are placed, started, resized and ended, and what grow offers earmark and shrinks agree to release.
// ClusterState keeps the counters and answers from them; the malleability manager changes them only through here.
// It also keeps which jobs are placed on each cluster, and a version per cluster that moves whenever what they hold
// there may have changed, so that a plan built from them is made again only where it did (core/queue/planned-pass.ts).
import type { Grid } from '../model/grid.js';
import type { ClusterState } from './cluster-state.js';
import type { JobRecord } from './job-record.js';
import { PlainPlacements } from './plain-placements.js';

export class CapacityLedger {
  /** Evolving jobs holding a pre-allocation on some cluster (placed and not ended). */
  evolvingPlaced = 0;
  /** Jobs placed and not yet ended, in the order they were placed. */
  readonly placedJobs = new Set<JobRecord>();
  /** Per cluster index: the placed jobs with a component there, in the order they were placed. */
  private readonly placedOnCluster: Array<Set<JobRecord>>;
  /** Per cluster index: moves whenever what its placed jobs hold (processors, start, size) may have changed. */
  private readonly versions: number[];
  /** Placements and removals so far: moves whenever the set of placed jobs changes. */
  private membershipChanges = 0;
  /** Per cluster index, while someone watches (see watchChanges): the jobs whose holdings there may have changed. */
  private changed: Array<Set<JobRecord>> | undefined;
  /** While someone watches: the clusters whose version moved since the last drainMoved, each once. */
  private moved: number[] = [];
  private movedMark: Uint8Array;
  /** Whether moved clusters are noted (while changes or moves are watched). */
  private notingMoved = false;
  /** Whether every placed job is held the plain way (plain-placements.ts): a planned pass then needs no holdings. */
  readonly plain = new PlainPlacements(this.placedJobs);

  constructor(
    private readonly grid: Grid,
    private readonly clusters: readonly ClusterState[],
    /** Processors came free on a cluster (a placed job gave back what it held). */
    private readonly freed: (state: ClusterState) => void,
  ) {
    this.placedOnCluster = clusters.map(() => new Set<JobRecord>());
    this.versions = clusters.map(() => 0);
    this.movedMark = new Uint8Array(clusters.length);
  }

  /** The placed jobs with a component on cluster i. */
  placedOn(clusterIndex: number): ReadonlySet<JobRecord> {
    return this.placedOnCluster[clusterIndex]!;
  }

  /** Cluster i's version: equal between two reads, its placed jobs and what they hold there are the same. */
  version(clusterIndex: number): number {
    return this.versions[clusterIndex]!;
  }

  /**
   * Starts (or stops) noting, per cluster, the jobs whose holdings there may have changed (drainChanges takes them).
   * Off by default: nothing is kept for a queue policy that plans nothing.
   */
  watchChanges(on: boolean): void {
    this.changed = on ? this.clusters.map(() => new Set<JobRecord>()) : undefined;
    this.startNotingMoved(on);
  }

  /**
   * Starts (or stops) noting only the clusters whose version moved (drainMoved shows them), not which jobs changed:
   * what a planned pass needs while it keeps no holdings. Stops watching changes.
   */
  watchMoved(on: boolean): void {
    this.changed = undefined;
    this.startNotingMoved(on);
  }

  private startNotingMoved(on: boolean): void {
    this.notingMoved = on;
    this.moved.length = 0;
    this.movedMark.fill(0);
  }

  /** Shows each cluster whose version moved since the last drain (while watched), once, and forgets them. */
  drainMoved(visit: (clusterIndex: number) => void): void {
    const moved = this.moved;
    for (let k = 0; k < moved.length; k++) {
      this.movedMark[moved[k]!] = 0;
      visit(moved[k]!);
    }
    if (moved.length > 0) moved.length = 0;
  }

  /** Cluster i's version moves (and, while watched, it is noted as moved). */
  private bump(clusterIndex: number): void {
    this.versions[clusterIndex]!++;
    if (this.notingMoved && this.movedMark[clusterIndex] === 0) {
      this.movedMark[clusterIndex] = 1;
      this.moved.push(clusterIndex);
    }
  }

  /** Shows each job noted on cluster i since the last drain, once, and forgets them. */
  drainChanges(clusterIndex: number, visit: (job: JobRecord) => void): void {
    const set = this.changed?.[clusterIndex];
    if (set === undefined || set.size === 0) return;
    for (const job of set) visit(job);
    // A new set, not Set.clear, which makes the new table in the old one's generation (as the planned pass's promises
    // did, core/queue/planned-pass.ts): once a full collection had made these sets old, every drain made old garbage.
    this.changed![clusterIndex] = new Set();
  }

  /** How many times a job was placed or removed so far: equal between two reads, the placed jobs are the same. */
  get placements(): number {
    return this.membershipChanges;
  }

  /** A job is placed (its components set): the plans hold it from now on. */
  place(job: JobRecord): void {
    const fresh = !this.placedJobs.has(job);
    this.placedJobs.add(job);
    if (fresh) this.plain.place(job);
    this.membershipChanges++;
    for (const c of job.components) {
      const i = this.grid.cluster(c.cluster)!.index;
      this.placedOnCluster[i]!.add(job);
      this.bump(i);
      this.changed?.[i]!.add(job);
    }
  }

  /** A placed job ended or went back to the queue (before its components are cleared). */
  remove(job: JobRecord): void {
    if (!this.placedJobs.delete(job)) return;
    this.plain.remove(job);
    this.membershipChanges++;
    for (const c of job.components) {
      const i = this.grid.cluster(c.cluster)!.index;
      this.placedOnCluster[i]!.delete(job);
      this.bump(i);
      this.changed?.[i]!.add(job);
    }
  }

  /** A placed job's local jobs all started: its estimated end now counts from its start. */
  started(job: JobRecord): void {
    this.touch(job);
    if (this.placedJobs.has(job)) this.plain.started(job);
  }

  /** What a placed job holds may have changed: its clusters' versions move. */
  private touch(job: JobRecord): void {
    const components = job.components;
    if (components.length === 1 && job.clusterIndex >= 0) this.touchOn(job, job.clusterIndex);
    else for (const c of components) this.touchOn(job, this.grid.cluster(c.cluster)!.index);
  }

  private touchOn(job: JobRecord, clusterIndex: number): void {
    this.bump(clusterIndex);
    this.changed?.[clusterIndex]!.add(job);
  }

  /** Applies a change to a malleable or evolving job's processors and moves the difference between the capacity classes. */
  account(job: JobRecord, change: () => void): void {
    const state = this.clusters[job.clusterIndex]!;
    this.touchOn(job, job.clusterIndex);
    const before = job.held;
    change();
    const after = job.held;
    if (job.evolving && !job.preallocating) {
      // Without a pre-allocation, what an evolving job holds is its own, as a rigid job's.
      state.nonPreemptible += after - before;
      return;
    }
    if (job.evolving) {
      // What an evolving job holds moves between its pre-allocation's unused part and non-preemptible use.
      state.nonPreemptible += after - before;
      state.preallocatedUnused -= after - before;
      return;
    }
    state.nonPreemptible += Math.min(after, job.min) - Math.min(before, job.min);
    state.preemptible += Math.max(0, after - job.min) - Math.max(0, before - job.min);
  }

  /** Holds a rigid or moldable job's processors on a cluster. */
  holdRigid(state: ClusterState, processors: number): void {
    state.nonPreemptible += processors;
    this.bump(state.cluster.index);
  }

  /** Holds an evolving job's whole pre-allocation on its cluster, all of it unused so far. */
  holdPreallocation(job: JobRecord): void {
    if (!job.preallocating) return;
    const state = this.clusters[job.clusterIndex]!;
    this.touchOn(job, job.clusterIndex);
    state.preallocatedUnused += job.preallocation;
    state.evolvingJobs.push(job);
    this.evolvingPlaced++;
  }

  /** Gives back everything a placed job holds. */
  unaccount(job: JobRecord): void {
    this.touch(job);
    if (job.evolving) {
      this.account(job, () => {
        job.claimed = 0;
        job.size = 0;
        job.pendingGrow = 0;
        job.promised = 0;
      });
      job.evolveDemands.length = 0;
      const state = this.clusters[job.clusterIndex]!;
      if (job.preallocating) state.preallocatedUnused -= job.preallocation;
      const i = state.evolvingJobs.indexOf(job);
      if (i >= 0) {
        state.evolvingJobs.splice(i, 1);
        this.evolvingPlaced--;
      }
    } else if (job.malleable) {
      this.account(job, () => {
        job.claimed = 0;
        job.size = 0;
        job.pendingGrow = 0;
        job.releasing = 0;
      });
      job.growReasons.length = 0;
      job.releasingByDeadline = 0;
      this.clusters[job.clusterIndex]!.removeMalleable(job);
    } else {
      for (const c of job.components) this.clusterOf(c.cluster).nonPreemptible -= c.processors;
    }
    for (const c of job.components) this.freed(this.clusterOf(c.cluster));
  }

  /** Sets `processors` of a cluster aside for a waiting job (until it is placed or drops them). */
  reserve(job: JobRecord, state: ClusterState, processors: number): void {
    state.reserve(job.id, processors);
    job.waitingOn.push(state.cluster.index);
  }

  /** Sets `processors` of a cluster aside for a grow operation's offers, so that nothing else takes them meanwhile. */
  earmark(state: ClusterState, processors: number): void {
    state.offered += processors;
    this.plain.offered(processors);
  }

  /** Processors set aside for grow offers stop being so: a job took them (now pending), or the operation ended. */
  unearmark(state: ClusterState, processors: number): void {
    state.offered -= processors;
    this.plain.offered(-processors);
  }

  /** A job agreed to give back `processors`: at once, or by `deadline` (ahead of an evolving job's announced update). */
  agreeToRelease(job: JobRecord, processors: number, deadline: number | undefined): void {
    job.releasing += processors;
    if (processors > 0 && deadline !== undefined) {
      job.releasingByDeadline += processors;
      job.releaseBy = Math.min(Number.isNaN(job.releaseBy) ? Infinity : job.releaseBy, deadline);
    }
  }

  /** Gives back what was set aside for a waiting job. */
  dropReservations(job: JobRecord): void {
    // Most jobs set nothing aside: their empty list is kept, not replaced by a new one at every placement and end.
    if (job.waitingOn.length === 0) return;
    for (const i of job.waitingOn) this.clusters[i]!.release(job.id);
    job.waitingOn = [];
  }

  private clusterOf(name: string): ClusterState {
    return this.clusters[this.grid.cluster(name)!.index]!;
  }
}
