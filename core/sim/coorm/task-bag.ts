// The running tasks of a parameter-sweep application (an endless bag of single-node tasks of equal duration), kept
// as cohorts of tasks started together so that thousands of tasks cost a handful of entries. Kills take the
// youngest tasks first, which loses the least work.

interface Cohort {
  readonly start: number;
  count: number;
  /** Whatever the owner ties to the cohort (the PSA: the preemptible request its tasks run on). */
  readonly tag: number;
}

/** A cohort a kill touched: its tag and the tasks it has left. */
export interface KilledCohort {
  readonly tag: number;
  readonly left: number;
}

export class TaskBag {
  /** Oldest first: start times never decrease along the list. */
  private cohorts: Cohort[] = [];
  private runningCount = 0;
  completed = 0;
  killed = 0;
  /** Node-seconds of completed tasks. */
  usefulNodeS = 0;
  /** Node-seconds of work lost by killed tasks. */
  wasteNodeS = 0;

  constructor(readonly taskS: number) {
    if (!(taskS > 0 && Number.isFinite(taskS)))
      throw new RangeError(`task duration must be a positive number of seconds, not ${taskS}`);
  }

  get running(): number {
    return this.runningCount;
  }

  /** When the oldest running tasks end, Infinity when none runs. */
  nextCompletion(): number {
    const first = this.cohorts[0];
    return first ? first.start + this.taskS : Number.POSITIVE_INFINITY;
  }

  start(now: number, count: number, tag = 0): void {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`task count must be a whole number >= 0, not ${count}`);
    if (count === 0) return;
    const last = this.cohorts[this.cohorts.length - 1];
    if (last && last.start > now) throw new RangeError(`tasks started at ${now}, before the last start ${last.start}`);
    if (last && last.start === now && last.tag === tag) last.count += count;
    else this.cohorts.push({ start: now, count, tag });
    this.runningCount += count;
  }

  /** Ends the tasks whose duration is over by `now`; returns how many ended, and puts their cohorts' tags in `tags`. */
  completeUntil(now: number, tags?: number[]): number {
    let ended = 0;
    while (this.cohorts.length > 0 && this.cohorts[0]!.start + this.taskS <= now) {
      const c = this.cohorts.shift()!;
      ended += c.count;
      tags?.push(c.tag);
    }
    this.runningCount -= ended;
    this.completed += ended;
    this.usefulNodeS += ended * this.taskS;
    return ended;
  }

  /** Kills `count` tasks, youngest first; returns the node-seconds of work they lose and the cohorts touched. */
  kill(now: number, count: number): { lost: number; cohorts: KilledCohort[] } {
    if (!Number.isInteger(count) || count < 0 || count > this.runningCount) {
      throw new RangeError(`cannot kill ${count} of ${this.runningCount} running tasks`);
    }
    let left = count;
    let lost = 0;
    const touched: KilledCohort[] = [];
    while (left > 0) {
      const c = this.cohorts[this.cohorts.length - 1]!;
      const k = Math.min(left, c.count);
      lost += k * (now - c.start);
      c.count -= k;
      left -= k;
      touched.push({ tag: c.tag, left: c.count });
      if (c.count === 0) this.cohorts.pop();
    }
    this.runningCount -= count;
    this.killed += count;
    this.wasteNodeS += lost;
    return { lost, cohorts: touched };
  }

  /** Node-seconds the running tasks have worked so far (lost if the run ends now). */
  inProgressNodeS(now: number): number {
    return this.cohorts.reduce((s, c) => s + c.count * Math.max(0, now - c.start), 0);
  }
}
