// The placement queue (KOALA paper, IV-A): jobs not yet placed, in order. A job that fails to be placed goes to the
// tail and counts a try; past the threshold its submission fails.
import type { JobRecord } from '../scheduler/job-record.js';

export const TRIES_EXHAUSTED = 'placement tries exhausted';

export type TryOutcome = 'placed' | 'kept' | 'exhausted';

export class PlacementQueue {
  private jobs: JobRecord[] = [];
  /** The list a scan fills with the jobs it keeps, then swaps with `jobs` (a long queue is scanned often). */
  private spare: JobRecord[] = [];
  private scanning = false;
  private arrivedDuringScan: JobRecord[] = [];

  constructor(public triesThreshold: number) {}

  get length(): number {
    return this.jobs.length + this.arrivedDuringScan.length;
  }


  /** Jobs in queue order (read it at once: a later scan reuses the list). */
  list(): readonly JobRecord[] {
    return this.arrivedDuringScan.length ? [...this.jobs, ...this.arrivedDuringScan] : this.jobs;
  }

  push(job: JobRecord): number {
    if (this.scanning) this.arrivedDuringScan.push(job);
    else this.jobs.push(job);
    return this.length - 1;
  }

  remove(job: JobRecord): boolean {
    // During a scan the job list is being walked: an ended job is left out when the scan rebuilds it.
    for (const list of this.scanning ? [this.arrivedDuringScan] : [this.jobs, this.arrivedDuringScan]) {
      const i = list.indexOf(job);
      if (i >= 0) {
        list.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /**
   * Counts a failed try (the reason already recorded on the job when not given); true when tries are exhausted.
   * `round`: the poll round the try belongs to; a job counts at most one try per round (paper IV-A: a try per scan
   * of the queue at each poll), however many passes the round has. Undefined counts it whatever the round.
   */
  countTry(job: JobRecord, reason?: string, round?: number): boolean {
    if (reason !== undefined) job.lastFailure = reason;
    if (round !== undefined) {
      if (job.triedInRound === round) return false;
      job.triedInRound = round;
    }
    job.tries++;
    return job.tries >= this.triesThreshold;
  }

  /** Visits only `jobs` (newly submitted, at the tail), in order; those placed or exhausted leave the queue. */
  scanOnly(jobs: readonly JobRecord[], visit: (job: JobRecord) => TryOutcome): void {
    for (const job of jobs) {
      if (job.state !== 'queued') continue;
      if (visit(job) === 'kept') continue;
      const i = this.jobs.lastIndexOf(job);
      if (i >= 0) this.jobs.splice(i, 1);
    }
  }

  /**
   * Visits the queue head to tail. `visit` places the job (it leaves), keeps it (it goes to the tail, after the
   * jobs behind it, so the relative order of kept jobs holds), or drops it (exhausted). Jobs submitted while the
   * scan runs join the tail afterwards.
   */
  scan(visit: (job: JobRecord) => TryOutcome): void {
    if (this.scanning) return;
    this.scanning = true;
    const jobs = this.jobs;
    const kept = this.spare;
    try {
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i]!;
        if (job.state !== 'queued') continue;
        if (visit(job) === 'kept') kept.push(job);
      }
    } finally {
      for (const job of this.arrivedDuringScan) kept.push(job);
      if (this.arrivedDuringScan.length > 0) this.arrivedDuringScan = [];
      jobs.length = 0;
      this.spare = jobs;
      this.jobs = kept;
      this.scanning = false;
    }
  }
}
