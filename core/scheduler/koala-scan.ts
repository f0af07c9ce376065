// KOALA's placement queue scan (paper IV-A), the `koala` queue policy: every waiting job is tried head to tail at each
// pass, a job that does not fit goes to the tail and counts one try per poll round; with PWA, a job that fits only
// once malleable jobs are shrunk starts those shrinks (shrink-to-place.ts). On a full grid most jobs are refused in
// O(1) from upper bounds of what any cluster has free, and a long queue is visited once a poll round.
import type { PlacedComponent } from '../events.js';
import type { Grid } from '../model/grid.js';
import type { PlacementQueue, TryOutcome } from '../queue/placement-queue.js';
import type { ClusterState } from './cluster-state.js';
import type { JobRecord } from './job-record.js';
import type { CapacityLedger } from './ledger.js';
import { roomFor } from './room.js';
import type { ShrinkToPlace } from './shrink-to-place.js';

/** What the scan needs of the scheduler. */
export interface KoalaScanHost {
  readonly grid: Grid;
  readonly clusters: readonly ClusterState[];
  readonly queue: PlacementQueue;
  readonly ledger: CapacityLedger;
  readonly pwa: ShrinkToPlace;
  readonly malleability: {
    /** Whether an operation runs on the cluster. */
    busy(cluster: ClusterState): boolean;
  };
  /** The poll round now (a job counts one failed try per round). */
  round(): number;
  /** Commands and polls so far: what was measured at an earlier epoch is stale. */
  epoch(): number;
  /**
   * The first cluster with the most `availableFor()` (-1: none), when the host keeps them indexed; absent, the scan
   * looks at every cluster.
   */
  mostAvailableCluster?(): number;
  place(job: JobRecord, components: PlacedComponent[], policy: string, now: number): void;
  /** Counts a failed try (`reason` undefined: already recorded on the job); the job may end, its tries exhausted. */
  failedTry(job: JobRecord, reason: string | undefined, now: number): TryOutcome;
}

export class KoalaScan {
  /** The poll round of the last full scan of the queue. */
  private scannedInRound = -1;
  /** The fewest processors any queued job could be placed with on one cluster (a lower bound). */
  private queueSmallest = Number.POSITIVE_INFINITY;
  /** Whether an evolving job was ever submitted. */
  private sawEvolving = false;
  /**
   * While the queue is scanned: the most any cluster has available for a job without reservations now, and the first
   * cluster with it; known since the last visit that may have changed any cluster (a placement, a shrink, a job
   * ended), and for the commands so far (`roomEpoch`).
   */
  private roomMost = 0;
  private roomAt = 0;
  private roomKnown = false;
  private roomEpoch = -1;

  constructor(private readonly host: KoalaScanHost) {}

  /** A job joined the queue (submitted, or back from a failed claim). */
  queued(job: JobRecord): void {
    if (job.evolving) this.sawEvolving = true;
    this.queueSmallest = Math.min(this.queueSmallest, smallestNeed(job));
  }

  /** Scans the queue; `only`: tries just these newly submitted jobs. */
  scan(shrinkToPlace: boolean, now: number, only?: readonly JobRecord[]): void {
    // Upper bounds of what any job may get, to refuse most jobs in O(1) when the grid is full.
    let mostFree = 0;
    let mostWithShrink = 0;
    // What measureRoom would find now, measured on the way.
    let most = Number.NEGATIVE_INFINITY;
    let at = 0;
    const clusters = this.host.clusters;
    const indexed = shrinkToPlace ? undefined : this.host.mostAvailableCluster?.();
    if (indexed !== undefined) {
      // What the loop below finds, from the host's index (availableFor is never negative).
      if (indexed >= 0) {
        at = indexed;
        most = clusters[indexed]!.availableFor();
        mostFree = Math.max(0, most);
      }
    } else {
      for (let i = 0; i < clusters.length; i++) {
        const s = clusters[i]!;
        const free = s.availableFor();
        if (free > most) {
          most = free;
          at = i;
        }
        mostFree = Math.max(mostFree, free);
        if (shrinkToPlace && !this.host.malleability.busy(s))
          mostWithShrink = Math.max(mostWithShrink, free + s.shrinkableForPlacement);
      }
    }
    // Decision: between polls, when no cluster has room for the smallest queued job, nothing can be placed and no try
    // counts: the queue is not visited (a long queue is scanned once a poll then, not at every operation). Not with
    // a job owed reserved processors, nor once an evolving job (whose pre-allocation may overlap malleable extras)
    // has been seen.
    const smallest = this.queueSmallest;
    if (
      !only &&
      this.scannedInRound === this.host.round() &&
      mostFree < smallest &&
      mostWithShrink < smallest &&
      !this.sawEvolving &&
      this.host.clusters.every((c) => c.reserved === 0)
    )
      return;
    if (!only) {
      this.scannedInRound = this.host.round();
      this.queueSmallest = Number.POSITIVE_INFINITY;
    }
    this.roomMost = most;
    this.roomAt = at;
    this.roomKnown = true;
    this.roomEpoch = this.host.epoch();
    const visit = (job: JobRecord): TryOutcome => {
      const outcome = this.visit(job, shrinkToPlace, mostFree, mostWithShrink, now);
      if (outcome === 'kept') this.queueSmallest = Math.min(this.queueSmallest, smallestNeed(job));
      else this.roomKnown = false;
      return outcome;
    };
    if (only) return this.host.queue.scanOnly(only, visit);
    // A job tried already in this round that fits nowhere now would only be kept again (no try counts, nothing is
    // said, its reason stays): the scan passes over it without a visit while its minimum is above what is free.
    const round = this.host.round();
    const limit = (): number => {
      if (this.host.round() !== round) return Number.POSITIVE_INFINITY;
      if (!this.roomKnown || this.roomEpoch !== this.host.epoch()) this.measureRoom();
      const most = Math.min(mostFree, this.roomMost);
      return shrinkToPlace ? Math.max(most, mostWithShrink) : most;
    };
    const passedOver = this.host.queue.scan(visit, { round, limit });
    this.queueSmallest = Math.min(this.queueSmallest, passedOver);
  }

  private visit(
    job: JobRecord,
    shrinkToPlace: boolean,
    mostFree: number,
    mostWithShrink: number,
    now: number,
  ): TryOutcome {
    job.passOver = -1;
    // An evolving job's pre-allocation may overlap malleable extras: it is not bounded by what is free.
    if (
      job.waitingOn.length === 0 &&
      job.singleCluster &&
      !job.evolving &&
      !(shrinkToPlace && job.min <= mostWithShrink)
    ) {
      const unpinned = job.spec.components[0]!.cluster === undefined;
      // The common case on a full grid, kept short: a single-cluster job larger than what any cluster had free when
      // the scan began.
      if (job.min > mostFree) {
        if (job.triedInRound !== this.host.round()) job.tooLarge(job.min, mostFree);
        if (unpinned) job.passOver = job.min;
        return this.host.failedTry(job, undefined, now);
      }
      // Placements earlier in this scan may have taken that room: a job that fits on no cluster now fails as its
      // placement policy would (each one places a single unpinned component on a cluster with room for its
      // minimum, and says the same), without asking it to look at every cluster.
      if (unpinned) {
        if (!this.roomKnown || this.roomEpoch !== this.host.epoch()) this.measureRoom();
        if (job.min > this.roomMost) {
          if (job.triedInRound !== this.host.round())
            job.fitsNowhere(job.min, this.roomMost, this.host.clusters[this.roomAt]!.cluster.name);
          job.passOver = job.min;
          return this.host.failedTry(job, undefined, now);
        }
      }
    }
    const outcome = this.tryPlace(job, shrinkToPlace, mostFree, mostWithShrink, now);
    this.roomKnown = false;
    return outcome;
  }

  /** The most a job without reservations may have on one cluster now, and the first cluster with it. */
  private measureRoom(): void {
    let most = Number.NEGATIVE_INFINITY;
    let at = 0;
    const indexed = this.host.mostAvailableCluster?.();
    if (indexed !== undefined) {
      if (indexed >= 0) {
        at = indexed;
        most = this.host.clusters[indexed]!.availableFor();
      }
    } else {
      for (let i = 0; i < this.host.clusters.length; i++) {
        const free = this.host.clusters[i]!.availableFor();
        if (free > most) {
          most = free;
          at = i;
        }
      }
    }
    this.roomMost = most;
    this.roomAt = at;
    this.roomKnown = true;
    this.roomEpoch = this.host.epoch();
  }

  /** The first cluster with the most a job without reservations may have now. */
  private mostRoomCluster(): number {
    if (!this.roomKnown || this.roomEpoch !== this.host.epoch()) this.measureRoom();
    return this.roomAt;
  }

  /** Asks the job's placement policy to place it with what is free (and, with PWA, what shrinks would free). */
  private tryPlace(
    job: JobRecord,
    shrinkToPlace: boolean,
    mostFree: number,
    mostWithShrink: number,
    now: number,
  ): TryOutcome {
    const policy = job.placementPolicy;
    const need = job.need;
    const waiting = job.waitingOn.length > 0;
    if (this.host.pwa.waits(job)) return 'kept';

    let reason: string | undefined;
    if (!waiting && need > mostFree && job.singleCluster && !job.evolving) {
      if (job.triedInRound !== this.host.round()) job.tooLarge(need, mostFree);
      reason = undefined;
    } else {
      // A job with no reservation, neither malleable nor evolving, has availableFor() as its room on every cluster:
      // the most of it is what measureRoom keeps.
      const plain = !waiting && !job.malleable && !job.evolving;
      const placement = policy.place(job.spec, {
        grid: this.host.grid,
        available: (i) => roomFor(job, this.host.clusters[i]!, false),
        mostAvailableCluster: plain ? () => this.mostRoomCluster() : undefined,
      });
      if (placement.ok) {
        this.host.place(job, placement.components, policy.name, now);
        return 'placed';
      }
      reason = placement.reason;
    }
    if (waiting) this.host.ledger.dropReservations(job);

    // PWA: a job that fits only once running malleable jobs are shrunk has processors set aside and shrinks started.
    if (shrinkToPlace && (need <= mostWithShrink || !job.singleCluster || job.evolving))
      reason = this.host.pwa.tryWithShrinks(job, now) ?? reason;
    return this.host.failedTry(job, reason, now);
  }
}

/** A lower bound of what a queued job needs free on one cluster: its minimum, or 1 for a job split over clusters. */
function smallestNeed(job: JobRecord): number {
  return job.singleCluster && !job.evolving ? job.need : 1;
}
