// The placement queue (KOALA paper, IV-A): jobs not yet placed, in order. A job that fails to be placed goes to the
// tail and counts a try; past the threshold its submission fails.
import type { JobRecord } from '../scheduler/job-record.js';

export const TRIES_EXHAUSTED = 'placement tries exhausted';

export type TryOutcome = 'placed' | 'kept' | 'exhausted';

export class PlacementQueue {
  private jobs: JobRecord[] = [];
  private scanning = false;
  private arrivedDuringScan: JobRecord[] = [];

  constructor(public triesThreshold: number) {}

  get length(): number {
    return this.jobs.length + this.arrivedDuringScan.length;
  }


  /** Jobs in queue order (not while a scan runs). */
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
   * With `passOver`, a job tried already in its poll round whose `passOver` is above what `limit()` says (asked again
   * after each visit) is kept without a visit: the caller promises such a visit would keep it and change nothing.
   * Returns the smallest `passOver` of the jobs kept so (+Infinity for none). Once `closed()` says so after a visit,
   * the jobs not visited yet are kept, in order, without a visit.
   */
  scan(visit: (job: JobRecord) => TryOutcome, passOver?: PassOver, closed?: () => boolean): number {
    let smallest = Number.POSITIVE_INFINITY;
    if (this.scanning) return smallest;
    this.scanning = true;
    // Kept jobs move up in place: a job is written only over one already visited.
    const jobs = this.jobs;
    const n = jobs.length;
    const round = passOver ? passOver.round : Number.NaN;
    let limit = Number.NaN;
    let kept = 0;
    let i = 0;
    try {
      for (; i < n; i++) {
        const job = jobs[i]!;
        if (job.state !== 'queued') continue;
        if (job.triedInRound === round && job.passOver >= 0) {
          if (Number.isNaN(limit)) limit = passOver!.limit();
          if (job.passOver > limit) {
            jobs[kept++] = job;
            if (job.passOver < smallest) smallest = job.passOver;
            continue;
          }
        }
        const outcome = visit(job);
        limit = Number.NaN;
        if (outcome === 'kept') jobs[kept++] = job;
        if (closed?.()) {
          i++;
          // Nothing left the queue before this point: the jobs behind stay where they are.
          if (kept === i) {
            kept = n;
            i = n;
          }
          break;
        }
      }
    } finally {
      // After a throw, the jobs not visited stay (and the one being visited, if it is still queued).
      for (; i < n; i++) if (jobs[i]!.state === 'queued') jobs[kept++] = jobs[i]!;
      if (kept < n) jobs.length = kept;
      if (this.arrivedDuringScan.length > 0) {
        for (const job of this.arrivedDuringScan) jobs.push(job);
        this.arrivedDuringScan = [];
      }
      this.scanning = false;
    }
    return smallest;
  }
}

/** Jobs a scan keeps without a visit: those tried in poll round `round` whose `passOver` is above `limit()`. */
export interface PassOver {
  readonly round: number;
  limit(): number;
}
