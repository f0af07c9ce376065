// The placement queue (KOALA paper, IV-A): jobs not yet placed, in order. A job that fails to be placed goes to the
// tail and counts a try; past the threshold its submission fails.
// Waiting costs nothing per pass when nothing changed (issue 17): the queue keeps, beside its jobs, a min-tree over
// each job's pass-over key (KOALA: its bound once tried in the round; EASY: its need), so that a scan finds the next
// job worth a visit in O(log n) and steps over the run of jobs that fit nowhere without looking at them.
import type { JobRecord } from '../scheduler/job-record.js';

export const TRIES_EXHAUSTED = 'placement tries exhausted';

export type TryOutcome = 'placed' | 'kept' | 'exhausted';

/** The largest finite bound: a scan's limit is clamped to it, so that free slots (+Infinity) are never visited. */
const MOST = Number.MAX_VALUE;
/** Below this many slots the queue is never compacted. */
const COMPACT_FROM = 1024;

/**
 * The reason the queue's last closed pass gives the jobs its scan did not visit (those after it stopped,
 * QueuePass.closed, and those it passed over by need, QueuePass.waitsAbove), kept once for them all: a pass that
 * leaves a long queue unvisited costs nothing per job it leaves, and each such job, while it waits and is not visited
 * again, reads this reason (JobRecord.lastFailure) rather than its last visit's, which may name a head that has
 * started since.
 */
export class ClosedScan {
  /** Passes begun so far: a job notes the count when it is queued, given a reason, or keeps the one it reads. */
  begun = 0;
  /** The last pass that closed (-1: none), and the reason it gives the jobs it did not reach. */
  closedIn = -1;
  reason = '';

  begin(): void {
    this.begun++;
  }

  /** The pass running closed: the jobs it has not visited (passed over or not reached) wait for `reason`. */
  close(reason: string): void {
    this.closedIn = this.begun;
    this.reason = reason;
  }
}

export class PlacementQueue {
  /** Jobs in queue order; undefined where a job left (the slots are compacted now and then, never during a scan). */
  private slots: Array<JobRecord | undefined> = [];
  private readonly slotOf = new Map<JobRecord, number>();
  private count = 0;
  /**
   * A min-tree over the slots (leaves at `cap + slot`): a free slot is +Infinity; a job that a scan may pass over
   * without a visit holds its key (0 or more: see `key`); any other job -Infinity (a visit).
   */
  private tree = new Float64Array(2).fill(Number.POSITIVE_INFINITY);
  /** Beside `tree`, keyed by need: the least walltime of the jobs keyed (0 or more) under each node; +Infinity else. */
  private walls = new Float64Array(2).fill(Number.POSITIVE_INFINITY);
  private cap = 1;
  /** What the keys are: a poll round's pass-over bounds (KOALA's scan), or BY_NEED; NaN before any such scan. */
  private keyedBy: number | typeof BY_NEED = Number.NaN;
  private scanning = false;
  /** While a scan runs: the slots it walks (those after were filled during it), and how many of them left. */
  private scanEnd = 0;
  private leftInScan = 0;
  private listed: JobRecord[] | undefined;
  /** What the last scan its policy closed tells the jobs it did not reach (shared with every job queued here). */
  readonly closedScan = new ClosedScan();

  /**
   * Below this many waiting jobs at its start a scan by need visits every job, as one without pass-over: on a short
   * queue the few jobs it would step over cost less than the code that steps over them (V8 compiles it, on the CPU
   * the process pays for), and with `fits` each job it visits would be asked twice (fits, then its visit).
   * Decision: 64, from the replays (NASA, HPC2N and SDSC easy wait in shorter queues: +4% CPU when stepped over;
   * Lublin's mostly in longer ones: -9%). Tests set 0 to have every scan by need step over.
   */
  byNeedFrom = 64;

  constructor(public triesThreshold: number) {}

  get length(): number {
    // During a scan the jobs that left it still count until it ends, as they always did (the positions of jobs
    // queued meanwhile say so).
    return this.count + (this.scanning ? this.leftInScan : 0);
  }

  /** Jobs in queue order (not while a scan runs). */
  list(): readonly JobRecord[] {
    if (this.listed === undefined) {
      const jobs: JobRecord[] = [];
      for (const job of this.slots) if (job !== undefined) jobs.push(job);
      this.listed = jobs;
    }
    return this.listed;
  }

  push(job: JobRecord): number {
    const position = this.length;
    const s = this.slots.length;
    this.slots.push(job);
    this.slotOf.set(job, s);
    this.count++;
    this.listed = undefined;
    job.queuedIn(this.closedScan);
    if (s >= this.cap) this.rebuild(this.cap * 2);
    else this.setSlot(s, job);
    return position;
  }

  remove(job: JobRecord): boolean {
    const s = this.slotOf.get(job);
    if (s === undefined) return false;
    this.clear(s);
    this.compactIfSparse();
    return true;
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
      const outcome = visit(job);
      const s = this.slotOf.get(job);
      if (s === undefined) continue;
      if (outcome === 'kept') this.setSlot(s, job);
      else this.clear(s);
    }
    this.compactIfSparse();
  }

  /**
   * Visits the queue head to tail. `visit` places the job (it leaves), keeps it (it goes to the tail, after the
   * jobs behind it, so the relative order of kept jobs holds), or drops it (exhausted). Jobs submitted while the
   * scan runs join the tail afterwards.
   * With `passOver`, a job whose key (see PassOver) is above what `limit()` says (asked again after each visit) is
   * kept without a visit: the caller promises such a visit would keep it and change nothing it does not do itself for
   * them all; by need with `fits`, so is one within the limit that does not fit (asked of a subtree's least need and
   * walltime first: a run of jobs that do not fit is stepped over whole). But see `byNeedFrom`. Such jobs are stepped
   * over in O(log n) a run, not looked at one by one.
   * Returns the smallest key of the jobs kept so (+Infinity for none). Once `closed()` says so after a visit,
   * the jobs not visited yet are kept, in order, without a visit.
   */
  scan(visit: (job: JobRecord) => TryOutcome, passOver?: PassOver, closed?: () => boolean): number {
    let smallest = Number.POSITIVE_INFINITY;
    if (this.scanning) return smallest;
    if (passOver !== undefined && 'byNeed' in passOver && this.count < this.byNeedFrom) passOver = undefined;
    const keyedBy = passOver === undefined ? undefined : 'round' in passOver ? passOver.round : BY_NEED;
    if (keyedBy !== undefined && keyedBy !== this.keyedBy) {
      this.keyedBy = keyedBy;
      this.rebuild(this.cap);
    }
    this.scanning = true;
    this.scanEnd = this.slots.length;
    this.leftInScan = 0;
    const end = this.scanEnd;
    const byFit = passOver !== undefined && 'fits' in passOver ? passOver : undefined;
    try {
      let from = 0;
      for (;;) {
        let s = this.firstAtMost(from, MOST);
        if (s < 0 || s >= end) break;
        // A job that may be passed over: step over the whole run of such jobs above the limit.
        if (passOver !== undefined && this.tree[this.cap + s]! >= 0) {
          const limit = Math.min(passOver.limit(), MOST);
          const t = byFit?.fits !== undefined ? this.firstFitting(s, limit, byFit) : this.firstAtMost(s, limit);
          const stop = t < 0 || t >= end ? end : t;
          smallest = Math.min(smallest, this.rangeMin(s, stop));
          if (stop >= end) break;
          s = t;
        }
        from = s + 1;
        const job = this.slots[s]!;
        if (job.state !== 'queued') {
          this.clear(s);
          continue;
        }
        const outcome = visit(job);
        if (outcome === 'kept') {
          if (this.slots[s] === job) this.setSlot(s, job);
        } else this.clear(s);
        if (closed?.()) break;
      }
    } finally {
      // After a throw, the jobs not visited stay (and the one being visited, if it is still queued).
      this.scanning = false;
      this.leftInScan = 0;
      this.compactIfSparse();
    }
    return smallest;
  }

  /** A slot's key for scans keyed by `keyedBy` (see `tree`). */
  private key(job: JobRecord): number {
    if (job.state !== 'queued') return Number.NEGATIVE_INFINITY;
    if (this.keyedBy === BY_NEED) return needKey(job);
    return job.triedInRound === this.keyedBy && job.passOver >= 0 ? job.passOver : Number.NEGATIVE_INFINITY;
  }

  private clear(s: number): void {
    const job = this.slots[s];
    if (job === undefined) return;
    // Leaving the queue: it reads the reason it read last while waiting, whatever later passes tell those behind them.
    job.keepReason();
    this.slots[s] = undefined;
    this.slotOf.delete(job);
    this.count--;
    if (this.scanning && s < this.scanEnd) this.leftInScan++;
    this.listed = undefined;
    this.setLeaf(s, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  /** Slot s holds `job`, kept: its key and walltime for the scans to come. */
  private setSlot(s: number, job: JobRecord): void {
    const key = this.key(job);
    this.setLeaf(s, key, this.wall(job, key));
  }

  private setLeaf(s: number, key: number, wall: number): void {
    const tree = this.tree;
    const walls = this.walls;
    let v = this.cap + s;
    if (tree[v] === key && walls[v] === wall) return;
    tree[v] = key;
    walls[v] = wall;
    for (v >>= 1; v >= 1; v >>= 1) {
      const m = Math.min(tree[2 * v]!, tree[2 * v + 1]!);
      const w = Math.min(walls[2 * v]!, walls[2 * v + 1]!);
      if (tree[v] === m && walls[v] === w) break;
      tree[v] = m;
      walls[v] = w;
    }
  }

  /** A keyed job's walltime in a scan by need (+Infinity: none), else +Infinity (see `walls`). */
  private wall(job: JobRecord, key: number): number {
    return this.keyedBy === BY_NEED && key >= 0
      ? (job.spec.walltime ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
  }

  /**
   * The first slot at or after `from` to visit in a scan by need: a job always visited, or one whose need is at most
   * `limit` and that `fits` (or -1). A subtree is searched only if its least need and least walltime fit (a job in it
   * fits only if they do: fits is monotone), so that the runs of jobs that fit nowhere are stepped over whole.
   */
  private firstFitting(from: number, limit: number, by: { fits?(need: number, walltime: number): boolean }): number {
    const tree = this.tree;
    const walls = this.walls;
    const cap = this.cap;
    if (from >= cap) return -1;
    const searched = (u: number): boolean => tree[u]! <= limit && (tree[u]! < 0 || by.fits!(tree[u]!, walls[u]!));
    let v = cap + from;
    for (;;) {
      while (!searched(v)) {
        while ((v & 1) === 1) v >>= 1;
        if (v === 0) return -1;
        v++;
      }
      while (v < cap) {
        if (searched(2 * v)) v = 2 * v;
        else if (searched(2 * v + 1)) v = 2 * v + 1;
        else break;
      }
      if (v >= cap) return v - cap;
      // Its least need and walltime fit, no job under it does: on to the subtree just right of it.
      while ((v & 1) === 1) v >>= 1;
      if (v === 0) return -1;
      v++;
    }
  }

  /** The first slot at or after `from` whose key is at most `limit`, or -1. */
  private firstAtMost(from: number, limit: number): number {
    const tree = this.tree;
    const cap = this.cap;
    if (from >= cap) return -1;
    let v = cap + from;
    while (!(tree[v]! <= limit)) {
      // On to the subtree just right of this one: up while this is a right child, then across.
      while ((v & 1) === 1) v >>= 1;
      if (v === 0) return -1;
      v++;
    }
    while (v < cap) v = tree[2 * v]! <= limit ? 2 * v : 2 * v + 1;
    return v - cap;
  }

  /** The smallest key over slots [a, b). */
  private rangeMin(a: number, b: number): number {
    const tree = this.tree;
    let m = Number.POSITIVE_INFINITY;
    for (let l = a + this.cap, r = b + this.cap; l < r; l >>= 1, r >>= 1) {
      if ((l & 1) === 1) m = Math.min(m, tree[l++]!);
      if ((r & 1) === 1) m = Math.min(m, tree[--r]!);
    }
    return m;
  }

  /** Builds the tree afresh over `atLeast` slots or more (every key recomputed). */
  private rebuild(atLeast: number): void {
    let cap = 1;
    while (cap < Math.max(atLeast, this.slots.length, 1)) cap *= 2;
    if (cap !== this.cap) {
      this.cap = cap;
      this.tree = new Float64Array(2 * cap);
      this.walls = new Float64Array(2 * cap);
    }
    const tree = this.tree;
    const walls = this.walls;
    tree.fill(Number.POSITIVE_INFINITY, cap);
    walls.fill(Number.POSITIVE_INFINITY, cap);
    this.slots.forEach((job, s) => {
      if (job === undefined) return;
      const key = this.key(job);
      tree[cap + s] = key;
      walls[cap + s] = this.wall(job, key);
    });
    for (let v = cap - 1; v >= 1; v--) {
      tree[v] = Math.min(tree[2 * v]!, tree[2 * v + 1]!);
      walls[v] = Math.min(walls[2 * v]!, walls[2 * v + 1]!);
    }
  }

  /** Drops the free slots once they are most of them (not during a scan: a scan holds slot numbers). */
  private compactIfSparse(): void {
    if (this.scanning || this.slots.length < COMPACT_FROM || this.count * 2 > this.slots.length) return;
    // In place, not into a copy: the copy of a queue left empty was an array of small integers' kind, and the next
    // push into it deoptimized push (and enqueue, where it is inlined) in every replay.
    const slots = this.slots;
    let kept = 0;
    for (let s = 0; s < slots.length; s++) if (slots[s] !== undefined) slots[kept++] = slots[s];
    slots.length = kept;
    this.slotOf.clear();
    for (let s = 0; s < kept; s++) this.slotOf.set(slots[s]!, s);
    this.rebuild(Math.max(16, kept * 2));
  }
}

const BY_NEED = 'need';

/**
 * Jobs a scan keeps without a visit, those whose key is above `limit()`: by `round`, the jobs tried in that poll round,
 * keyed by their `passOver` (KOALA's scan); `byNeed`, the jobs keyed by their need (see needKey: a planned pass whose
 * policy tells them they wait from their need alone, QueuePass.waitsAbove), and, with `fits`, those it says do not fit
 * from their need and walltime (QueuePass.mayFit; monotone: a job needing no more for no longer fits if this one does).
 */
export type PassOver =
  | { readonly round: number; limit(): number }
  | { readonly byNeed: true; limit(): number; fits?(need: number, walltime: number): boolean };

/**
 * A waiting job's need as a scan by need keys it: an unpinned job's need (the jobs a planned pass asks QueuePass.waits
 * of), or -Infinity, always visited: a pinned job, one needing nothing (it always has room), and an evolving one (its
 * need depends on whether it holds its pre-allocation, set at each placement, so it is not keyed once for its wait).
 */
function needKey(job: JobRecord): number {
  return job.spec.components[0]!.cluster === undefined && job.kind !== 'evolving' && job.need > 0
    ? job.need
    : Number.NEGATIVE_INFINITY;
}
