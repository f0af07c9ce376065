// The discrete-event engine: a virtual clock and a binary heap of pending actions ordered by (time, insertion).
// Same-time actions run in the order they were scheduled, which keeps runs deterministic.

type Action = () => void;

const spent: Action = () => undefined;

export class EventEngine {
  now = 0;
  private times: number[] = [];
  private seqs: number[] = [];
  private actions: Action[] = [];
  private seq = 0;
  /**
   * Actions due now, in the order they were scheduled. Anything already in the heap for now was scheduled
   * before the clock got here, so running the heap's share of now first keeps the (time, insertion) order —
   * without a heap operation for the many same-instant messages.
   */
  private readonly immediate: Action[] = [];
  private immediateHead = 0;
  /** Actions in `immediate` (its slots past this are spent; the array is kept, not truncated, so its room is reused). */
  private immediateCount = 0;
  processed = 0;

  get pending(): number {
    return this.times.length + this.immediateCount - this.immediateHead;
  }

  nextTime(): number {
    if (this.immediateHead < this.immediateCount) return this.now;
    return this.times.length ? this.times[0]! : Number.POSITIVE_INFINITY;
  }

  /** Runs `action` at virtual time `t` (never before now). */
  at(t: number, action: Action): void {
    if (!(t > this.now)) {
      this.immediate[this.immediateCount++] = action;
      return;
    }
    let i = this.times.length;
    const s = this.seq++;
    this.times.push(t);
    this.seqs.push(s);
    this.actions.push(action);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Runs `action` at the current time, after what is already due now. */
  soon(action: Action): void {
    this.at(this.now, action);
  }

  /** Pops and runs the next action; false when none is left. */
  step(): boolean {
    const n = this.times.length;
    if (this.immediateHead < this.immediateCount && (n === 0 || this.times[0]! > this.now)) {
      const action = this.immediate[this.immediateHead]!;
      // The spent slot lets its action go (a closure may hold a finished job's state).
      this.immediate[this.immediateHead++] = spent;
      if (this.immediateHead === this.immediateCount) {
        this.immediateCount = 0;
        this.immediateHead = 0;
      }
      this.processed++;
      action();
      return true;
    }
    if (n === 0) return false;
    const t = this.times[0]!;
    const action = this.actions[0]!;
    const last = n - 1;
    if (last > 0) {
      this.times[0] = this.times[last]!;
      this.seqs[0] = this.seqs[last]!;
      this.actions[0] = this.actions[last]!;
    }
    this.times.pop();
    this.seqs.pop();
    this.actions.pop();
    this.siftDown(0);
    this.now = t;
    this.processed++;
    action();
    return true;
  }

  private siftDown(i: number): void {
    const n = this.times.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      const child = r < n && this.before(r, l) ? r : l;
      if (!this.before(child, i)) return;
      this.swap(i, child);
      i = child;
    }
  }

  private before(a: number, b: number): boolean {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    return ta < tb || (ta === tb && this.seqs[a]! < this.seqs[b]!);
  }

  private swap(a: number, b: number): void {
    const t = this.times[a]!;
    this.times[a] = this.times[b]!;
    this.times[b] = t;
    const s = this.seqs[a]!;
    this.seqs[a] = this.seqs[b]!;
    this.seqs[b] = s;
    const x = this.actions[a]!;
    this.actions[a] = this.actions[b]!;
    this.actions[b] = x;
  }
}
