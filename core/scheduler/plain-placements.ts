// Whether every placed job holds its processors the plain way (core/plan/holding.ts): a rigid job's processors from
// its placement until an estimated end still ahead of now, nothing set aside for grow offers. While so, what each
// cluster's plan has free from now on, before a pass reserves anything, is exactly what is available there now, and a
// planned pass needs no holdings to answer whether a job may start now (core/queue/planned-pass.ts).
// Kept by the ledger as jobs are placed, started and removed: a count of the placed jobs held otherwise, and the
// started ones' estimated ends as a heap (an entry of a job since removed or started again is skipped).

/** What it reads of a job (the scheduler's records satisfy it). */
export interface PlainJob {
  readonly spec: { readonly walltime?: number | undefined };
  /** NaN until its local jobs start. */
  readonly startTime: number;
  readonly malleable: boolean;
  readonly evolving: boolean;
}

export class PlainPlacements {
  /** Placed jobs held otherwise: malleable or evolving ones, or with a walltime not above zero. */
  #notPlain = 0;
  /** Processors set aside for grow offers, over all clusters. */
  #offered = 0;
  /** Jobs placed. */
  #placed = 0;
  /** Whether the ends below are kept: from the first `plainAt` on (a queue policy that plans nothing never asks). */
  #tracking = false;
  /** Started plain jobs' estimated ends (start plus walltime), a binary heap on end, with the job of each. */
  readonly #ends: number[] = [];
  readonly #jobs: PlainJob[] = [];

  /** `placedJobs`: the jobs placed now (an end of a job no longer placed is skipped). */
  constructor(private readonly placedJobs: ReadonlySet<PlainJob>) {}

  /** A job was placed (it may have started already: an adopted one). */
  place(job: PlainJob): void {
    this.#placed++;
    if (!isPlain(job)) this.#notPlain++;
    else this.started(job);
  }

  /** A placed job left the plans (ended or back in the queue). */
  remove(job: PlainJob): void {
    this.#placed--;
    if (!isPlain(job)) this.#notPlain--;
  }

  /** A placed job's local jobs all started: its estimated end is fixed from now on. */
  started(job: PlainJob): void {
    const walltime = job.spec.walltime;
    if (!this.#tracking || walltime === undefined || !isPlain(job)) return;
    const end = job.startTime + walltime;
    if (!Number.isFinite(end)) return;
    this.#push(end, job);
    // The ends of jobs since removed wait until they pass (most jobs end before their walltime): past twice the jobs
    // placed, they are taken out, so that the heap keeps no ended job's record alive for long.
    if (this.#ends.length > 2 * this.#placed + 64) this.#compact();
  }

  /** Processors set aside for grow offers changed by `delta`. */
  offered(delta: number): void {
    this.#offered += delta;
  }

  /**
   * Whether every placed job is held the plain way at `now` (never earlier than the last call): none is malleable or
   * evolving, none has passed its estimated end, and no grow offer holds processors.
   */
  plainAt(now: number): boolean {
    if (!this.#tracking) {
      this.#tracking = true;
      for (const job of this.placedJobs) this.started(job);
    }
    if (this.#notPlain > 0 || this.#offered !== 0) return false;
    const ends = this.#ends;
    while (ends.length > 0 && ends[0]! <= now) {
      const job = this.#jobs[0]!;
      // Still placed with this end: past it, it holds nothing in the plans while it is placed (not plain).
      if (this.#live(ends[0]!, job)) return false;
      this.#pop();
    }
    return true;
  }

  #live(end: number, job: PlainJob): boolean {
    return this.placedJobs.has(job) && job.startTime + job.spec.walltime! === end;
  }

  #compact(): void {
    const ends = this.#ends.splice(0);
    const jobs = this.#jobs.splice(0);
    for (let k = 0; k < ends.length; k++) if (this.#live(ends[k]!, jobs[k]!)) this.#push(ends[k]!, jobs[k]!);
  }

  #push(end: number, job: PlainJob): void {
    const ends = this.#ends;
    const jobs = this.#jobs;
    let i = ends.length;
    ends.push(end);
    jobs.push(job);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (ends[parent]! <= end) break;
      ends[i] = ends[parent]!;
      jobs[i] = jobs[parent]!;
      i = parent;
    }
    ends[i] = end;
    jobs[i] = job;
  }

  #pop(): void {
    const ends = this.#ends;
    const jobs = this.#jobs;
    const lastEnd = ends.pop()!;
    const lastJob = jobs.pop()!;
    if (ends.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= ends.length) break;
      const r = l + 1;
      const c = r < ends.length && ends[r]! < ends[l]! ? r : l;
      if (ends[c]! >= lastEnd) break;
      ends[i] = ends[c]!;
      jobs[i] = jobs[c]!;
      i = c;
    }
    ends[i] = lastEnd;
    jobs[i] = lastJob;
  }
}

/**
 * Held the plain way: neither malleable nor evolving, and without a walltime or with one above zero (a job not started
 * holds until now plus its walltime: after now only if that is above zero).
 */
function isPlain(job: PlainJob): boolean {
  const walltime = job.spec.walltime;
  return !job.malleable && !job.evolving && (walltime === undefined || walltime > 0);
}
