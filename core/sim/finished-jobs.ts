// The finished jobs of a run as a table of columns: numbers in typed arrays, texts in arrays of (mostly shared)
// strings. A long trace ends hundreds of thousands of jobs; an object per job, its numbers boxed, took several times
// the memory and was the largest thing a replay kept (issue 17).
import { NumberColumn, ValueColumn } from './columns.js';

/** One finished job's row as it is added. */
export interface FinishedJob {
  id: string;
  name: string;
  kind: string;
  state: string;
  reason: string;
  cluster: string;
  submit: number;
  /** NaN when it never started. */
  start: number;
  end: number;
  avgSize: number;
  maxSize: number;
  grows: number;
  shrinks: number;
  tries: number;
  /** NaN when it has none. */
  walltime: number;
  backfilled: boolean;
}

export class FinishedJobs {
  private readonly ids = new ValueColumn<string>();
  /** Undefined where the name is the id (most jobs). */
  private readonly names = new ValueColumn<string | undefined>();
  private readonly kinds = new ValueColumn<string>();
  private readonly states = new ValueColumn<string>();
  private readonly reasons = new ValueColumn<string>();
  private readonly clusters = new ValueColumn<string>();
  private readonly submits = new NumberColumn();
  private readonly starts = new NumberColumn();
  private readonly ends = new NumberColumn();
  private readonly avgSizes = new NumberColumn();
  private readonly maxSizes = new NumberColumn();
  private readonly grows = new NumberColumn();
  private readonly shrinks = new NumberColumn();
  private readonly tries = new NumberColumn();
  private readonly walltimes = new NumberColumn();
  private readonly backfilled = new ValueColumn<boolean>();

  get length(): number {
    return this.ids.length;
  }

  add(j: FinishedJob): void {
    this.ids.push(j.id);
    this.names.push(j.name === j.id ? undefined : j.name);
    this.kinds.push(j.kind);
    this.states.push(j.state);
    this.reasons.push(j.reason);
    this.clusters.push(j.cluster);
    this.submits.push(j.submit);
    this.starts.push(j.start);
    this.ends.push(j.end);
    this.avgSizes.push(j.avgSize);
    this.maxSizes.push(j.maxSize);
    this.grows.push(j.grows);
    this.shrinks.push(j.shrinks);
    this.tries.push(j.tries);
    this.walltimes.push(j.walltime);
    this.backfilled.push(j.backfilled);
  }

  id(i: number): string {
    return this.ids.at(i);
  }
  name(i: number): string {
    return this.names.at(i) ?? this.ids.at(i);
  }
  kind(i: number): string {
    return this.kinds.at(i);
  }
  state(i: number): string {
    return this.states.at(i);
  }
  reason(i: number): string {
    return this.reasons.at(i);
  }
  cluster(i: number): string {
    return this.clusters.at(i);
  }
  submit(i: number): number {
    return this.submits.at(i);
  }
  start(i: number): number {
    return this.starts.at(i);
  }
  end(i: number): number {
    return this.ends.at(i);
  }
  avgSize(i: number): number {
    return this.avgSizes.at(i);
  }
  maxSize(i: number): number {
    return this.maxSizes.at(i);
  }
  growCount(i: number): number {
    return this.grows.at(i);
  }
  shrinkCount(i: number): number {
    return this.shrinks.at(i);
  }
  tryCount(i: number): number {
    return this.tries.at(i);
  }
  walltime(i: number): number {
    return this.walltimes.at(i);
  }
  wasBackfilled(i: number): boolean {
    return this.backfilled.at(i);
  }
}
