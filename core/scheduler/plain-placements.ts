// Whether every placed job holds its processors the plain way (core/plan/holding.ts): a rigid job's processors from
// its placement until an estimated end still ahead of now, nothing set aside for grow offers. While so, what each
// cluster's plan has free from now on, before a pass reserves anything, is exactly what is available there now, and a
// planned pass needs no holdings to answer whether a job may start now (core/queue/planned-pass.ts).
// Kept by the ledger as jobs are placed, started and removed: a count of the placed jobs held otherwise, and the
// started ones' estimated ends as a heap (an end of a job since removed is skipped).

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
  /** Whether the ends below are kept: from the first `plainAt` on (a queue policy that plans nothing never asks). */
  #tracking = false;
  /**
   * Started plain jobs' estimated ends (start plus walltime), a binary heap; and, by end, how many of them are of jobs
   * since removed (most jobs end before their walltime). Ends only, no records: an ended job is kept alive by nothing
   * here, and ends that are equal stand for one another.
   */
  readonly #ends: number[] = [];
  readonly #removed = new Map<number, number>();

  /** `placedJobs`: the jobs placed now (what the ends are made from when first asked). */
  constructor(private readonly placedJobs: Iterable<PlainJob>) {}

  /** A job was placed (it may have started already: an adopted one). */
  place(job: PlainJob): void {
    if (!isPlain(job)) this.#notPlain++;
    else this.started(job);
  }

  /** A placed job left the plans (ended or back in the queue). */
  remove(job: PlainJob): void {
    if (!isPlain(job)) {
      this.#notPlain--;
      return;
    }
    const end = this.#end(job);
    if (end !== undefined) this.#removed.set(end, (this.#removed.get(end) ?? 0) + 1);
  }

  /** A placed job's local jobs all started: its estimated end is fixed from now on. */
  started(job: PlainJob): void {
    const end = isPlain(job) ? this.#end(job) : undefined;
    if (end !== undefined) this.#push(end);
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
      const end = ends[0]!;
      const removed = this.#removed.get(end) ?? 0;
      // An end of a job still placed: past it, the job holds nothing in the plans while it is placed (not plain).
      if (removed === 0) return false;
      if (removed === 1) this.#removed.delete(end);
      else this.#removed.set(end, removed - 1);
      this.#pop();
    }
    return true;
  }

  /** A started job's estimated end, while the ends are kept; undefined when it has none (or is not started). */
  #end(job: PlainJob): number | undefined {
    const walltime = job.spec.walltime;
    if (!this.#tracking || walltime === undefined) return undefined;
    const end = job.startTime + walltime;
    return Number.isFinite(end) ? end : undefined;
  }

  #push(end: number): void {
    const ends = this.#ends;
    let i = ends.length;
    ends.push(end);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (ends[parent]! <= end) break;
      ends[i] = ends[parent]!;
      i = parent;
    }
    ends[i] = end;
  }

  #pop(): void {
    const ends = this.#ends;
    const last = ends.pop()!;
    if (ends.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= ends.length) break;
      const r = l + 1;
      const c = r < ends.length && ends[r]! < ends[l]! ? r : l;
      if (ends[c]! >= last) break;
      ends[i] = ends[c]!;
      i = c;
    }
    ends[i] = last;
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
