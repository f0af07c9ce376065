// The walltime deadlines of the jobs the simulated clusters run, in one heap with one engine action at the earliest:
// a job that ends before its walltime (nearly all do) takes its deadline out, instead of leaving an action in the
// engine's heap until then (LCG's 188,000 jobs end on average 12.5 h before theirs: an action and a closure each,
// kept that long, cost 6 % of its replay).
import type { EventEngine } from './engine.js';

/** Who is told when a deadline comes: the cluster that runs the job. */
export interface DeadlineOwner {
  walltimeDue(deadline: Deadline): void;
}

/** A running local job's deadline; `at` is its place in the heap (-1 once out). */
export interface Deadline {
  readonly time: number;
  /** Order of setting: deadlines due at one instant come in the order their jobs started, as one action each did. */
  readonly seq: number;
  readonly jobId: string;
  readonly walltimeS: number;
  readonly owner: DeadlineOwner;
  at: number;
}

export class WalltimeKills {
  private readonly heap: Deadline[] = [];
  private seq = 0;
  /** The time of the engine action pending for the earliest deadline (NaN: none). */
  private pendingAt = Number.NaN;

  constructor(private readonly engine: EventEngine) {}

  /** Tells `owner` once `walltimeS` from now have passed, unless the deadline is cancelled first. */
  set(owner: DeadlineOwner, jobId: string, walltimeS: number): Deadline {
    const time = this.engine.now + walltimeS;
    const deadline: Deadline = { time, seq: this.seq++, jobId, walltimeS, owner, at: this.heap.length };
    this.heap.push(deadline);
    this.up(deadline.at);
    this.schedule();
    return deadline;
  }

  /** Takes a deadline out (its job ended); one already out is left. */
  cancel(deadline: Deadline): void {
    const i = deadline.at;
    if (i < 0) return;
    deadline.at = -1;
    const last = this.heap.pop()!;
    if (i === this.heap.length) return;
    this.heap[i] = last;
    last.at = i;
    this.down(i);
    this.up(last.at);
  }

  /** An engine action at the earliest deadline, unless one is pending at or before it. */
  private schedule(): void {
    const first = this.heap[0];
    if (first === undefined || first.time >= this.pendingAt) return;
    this.pendingAt = first.time;
    this.engine.at(first.time, this.fire);
  }

  private readonly fire = (): void => {
    const now = this.engine.now;
    // A later deadline moved first after this action was set (the earlier ones ended): this one is spent.
    if (now !== this.pendingAt) return;
    this.pendingAt = Number.NaN;
    while (this.heap.length > 0 && this.heap[0]!.time <= now) {
      const first = this.heap[0]!;
      this.cancel(first);
      first.owner.walltimeDue(first);
    }
    this.schedule();
  };

  private before(a: Deadline, b: Deadline): boolean {
    return a.time < b.time || (a.time === b.time && a.seq < b.seq);
  }

  private up(i: number): void {
    const heap = this.heap;
    const item = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(item, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      heap[i]!.at = i;
      i = parent;
    }
    heap[i] = item;
    item.at = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.before(heap[r]!, heap[l]!) ? r : l;
      if (!this.before(heap[child]!, item)) break;
      heap[i] = heap[child]!;
      heap[i]!.at = i;
      i = child;
    }
    heap[i] = item;
    item.at = i;
  }
}
