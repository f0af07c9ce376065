// The capacity model of one cluster as Concertina sees it: background load from the last poll, Concertina's
// non-preemptible and preemptible processors, pre-allocated but unused ones (CooRMv2), and what is earmarked.
import type { Cluster } from '../model/grid.js';

export interface CapacityBreakdown {
  readonly processors: number;
  readonly threshold: number;
  /** Held by users who bypass Concertina (last poll). */
  readonly background: number;
  /** Concertina's rigid and moldable jobs and malleable minimums. */
  readonly nonPreemptible: number;
  /** Pre-allocated by an evolving job but not in use (CooRMv2; zero until pre-allocations exist). */
  readonly preallocatedUnused: number;
  /** Malleable processors above their jobs' minimums. */
  readonly preemptible: number;
  /** Offered to jobs or waiting for a claim, not yet theirs. */
  readonly earmarked: number;
  readonly idle: number;
}

export class ClusterState {
  readonly cluster: Cluster;
  background = 0;
  reachable = true;
  lastPoll = Number.NEGATIVE_INFINITY;
  nonPreemptible = 0;
  preemptible = 0;
  preallocatedUnused = 0;
  /** Processors offered in grow offers awaiting an answer. */
  offered = 0;
  /** Processors set aside for queued jobs waiting for a mandatory shrink here, by job id. */
  readonly reservations = new Map<string, number>();
  reserved = 0;
  /** Running malleable jobs here, in start order (ties by arrival). */
  readonly malleableJobs: import('./job-record.js').JobRecord[] = [];
  /** Processors freed since growth last ran here: the trigger for growing running jobs. */
  growDue = false;

  constructor(cluster: Cluster) {
    this.cluster = cluster;
  }

  get concertina(): number {
    return this.nonPreemptible + this.preemptible + this.preallocatedUnused;
  }

  /** What Concertina may still take here, before reservations for waiting jobs. */
  get free(): number {
    if (!this.reachable) return 0;
    const used = this.concertina + this.offered;
    return Math.max(0, Math.min(this.cluster.processors - this.background - used, this.cluster.threshold - used));
  }

  /** What a job may take here now; a job with a reservation here also gets what is set aside for it. */
  availableFor(jobId?: string): number {
    const own = jobId === undefined ? 0 : (this.reservations.get(jobId) ?? 0);
    return Math.max(0, this.free - (this.reserved - own));
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

  /** What running malleable jobs here could give back without going below their minimums. */
  get shrinkable(): number {
    let sum = 0;
    for (const job of this.malleableJobs) sum += job.shrinkable;
    return sum;
  }

  breakdown(): CapacityBreakdown {
    const earmarked = this.offered;
    const idle = Math.max(0, this.cluster.processors - this.background - this.concertina - earmarked);
    return {
      processors: this.cluster.processors,
      threshold: this.cluster.threshold,
      background: this.background,
      nonPreemptible: this.nonPreemptible,
      preallocatedUnused: this.preallocatedUnused,
      preemptible: this.preemptible,
      earmarked,
      idle,
    };
  }
}
