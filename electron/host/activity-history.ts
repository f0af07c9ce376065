// The grow, shrink and evolve operations (and malleable jobs' failed grows) of the whole run for the console's Activity
// view, kept by the host so a console opened late sees what one open from the start saw. Bounded like the grid history: operations are counted
// per cluster in buckets of virtual time from 0; when the run reaches `limit` buckets, neighbouring buckets are
// merged and the bucket doubles, so the counts always span the whole run in at most `limit` buckets. The latest
// operations are kept whole (at most `latest` of them). Each event costs O(1), each answer O(limit × clusters).
import type { SchedulerEvent } from '../../core/events.js';

export type ActivityOperation = Extract<
  SchedulerEvent,
  {
    type:
      | 'job.grown'
      | 'job.shrunk'
      | 'job.growFailed'
      | 'evolve.requested'
      | 'job.evolved'
      | 'evolve.refused'
      | 'fpe.growFailed'
      | 'fpe.mutualWait'
      | 'interactive.missed'
      | 'interactive.replaced';
  }
>;

const OPERATIONS: ReadonlySet<string> = new Set([
  'job.grown',
  'job.shrunk',
  'job.growFailed',
  'evolve.requested',
  'job.evolved',
  'evolve.refused',
  'fpe.growFailed',
  'fpe.mutualWait',
  'interactive.missed',
  'interactive.replaced',
]);

export function isActivityOperation(e: SchedulerEvent): e is ActivityOperation {
  return OPERATIONS.has(e.type);
}

export interface ActivityHistoryView {
  /** Seconds of virtual time per bucket. */
  readonly bucketS: number;
  /** Start of each bucket, from 0 up to the one holding `now`. */
  readonly starts: number[];
  readonly clusters: string[];
  /** Per cluster, grows (shrinks) per bucket, aligned with `starts`. */
  readonly grows: Record<string, number[]>;
  readonly shrinks: Record<string, number[]>;
  /** Evolving jobs' updates (requested, done, refused) per bucket, all clusters. */
  readonly updates: number[];
  /** Interactive jobs' deadline misses per bucket, all clusters. */
  readonly misses: number[];
  /** Operations over the whole run, malleable jobs' failed grows, and interactive jobs' misses and re-placements. */
  readonly totals: {
    readonly grows: number;
    readonly shrinks: number;
    readonly failedGrows: number;
    readonly updates: number;
    readonly misses: number;
    readonly replacements: number;
  };
  /** The latest operations, oldest first. */
  readonly latest: ActivityOperation[];
}

export class ActivityHistory {
  private bucketS: number;
  private readonly grows = new Map<string, number[]>();
  private readonly shrinks = new Map<string, number[]>();
  private updates: number[] = [];
  private misses: number[] = [];
  private totals = { grows: 0, shrinks: 0, failedGrows: 0, updates: 0, misses: 0, replacements: 0 };
  private latestOps: ActivityOperation[] = [];

  constructor(
    private readonly limit = 120,
    private readonly initialBucketS = 60,
    private readonly latest = 50,
  ) {
    if (limit < 2 || limit % 2 !== 0) throw new RangeError(`limit must be an even number >= 2, not ${limit}`);
    this.bucketS = initialBucketS;
  }

  /** Counts an event if it is an operation (others are ignored). */
  add(e: SchedulerEvent): void {
    if (!isActivityOperation(e)) return;
    const b = this.reach(e.t);
    if (e.type === 'job.grown' || e.type === 'job.shrunk') {
      const table = e.type === 'job.grown' ? this.grows : this.shrinks;
      const row = this.row(table, e.cluster);
      row[b] = (row[b] ?? 0) + 1;
      if (e.type === 'job.grown') this.totals.grows++;
      else this.totals.shrinks++;
    } else if (e.type === 'job.growFailed') {
      // Decision: a failed grow is listed and counted, not charted: the chart counts operations done.
      this.totals.failedGrows++;
    } else if (e.type === 'interactive.missed') {
      this.misses[b] = (this.misses[b] ?? 0) + 1;
      this.totals.misses++;
    } else if (e.type === 'interactive.replaced') {
      this.totals.replacements++;
    } else {
      this.updates[b] = (this.updates[b] ?? 0) + 1;
      this.totals.updates++;
    }
    this.latestOps.push(e);
    // Trimmed in halves, so that keeping the latest costs O(1) per event on average.
    if (this.latestOps.length >= 2 * this.latest) this.latestOps = this.latestOps.slice(-this.latest);
  }

  /** The counts from 0 up to `now`, and the latest operations. */
  view(now: number): ActivityHistoryView {
    const last = this.reach(Math.max(0, now));
    const n = last + 1;
    const dense = (row: readonly number[]) => Array.from({ length: n }, (_, i) => row[i] ?? 0);
    const clusters = [...new Set([...this.grows.keys(), ...this.shrinks.keys()])].sort();
    return {
      bucketS: this.bucketS,
      starts: Array.from({ length: n }, (_, i) => i * this.bucketS),
      clusters,
      grows: Object.fromEntries(clusters.map((c) => [c, dense(this.grows.get(c) ?? [])])),
      shrinks: Object.fromEntries(clusters.map((c) => [c, dense(this.shrinks.get(c) ?? [])])),
      updates: dense(this.updates),
      misses: dense(this.misses),
      totals: { ...this.totals },
      latest: this.latestOps.slice(-this.latest),
    };
  }

  clear(): void {
    this.bucketS = this.initialBucketS;
    this.grows.clear();
    this.shrinks.clear();
    this.updates = [];
    this.misses = [];
    this.totals = { grows: 0, shrinks: 0, failedGrows: 0, updates: 0, misses: 0, replacements: 0 };
    this.latestOps = [];
  }

  /** The bucket of time `t`, after merging buckets until it lies within the limit. */
  private reach(t: number): number {
    let b = Math.floor(Math.max(0, t) / this.bucketS);
    while (b >= this.limit) {
      for (const table of [this.grows, this.shrinks]) for (const [c, row] of table) table.set(c, halve(row));
      this.updates = halve(this.updates);
      this.misses = halve(this.misses);
      this.bucketS *= 2;
      b = Math.floor(Math.max(0, t) / this.bucketS);
    }
    return b;
  }

  private row(table: Map<string, number[]>, cluster: string): number[] {
    let row = table.get(cluster);
    if (!row) table.set(cluster, (row = []));
    return row;
  }
}

/** Neighbouring buckets merged: bucket i of the result is buckets 2i and 2i + 1. */
function halve(row: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < row.length; i += 2) out.push((row[i] ?? 0) + (row[i + 1] ?? 0));
  return out;
}
