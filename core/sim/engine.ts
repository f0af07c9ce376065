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
    this.siftUp(this.times.length, t, this.seq++, action);
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
    const lastTime = this.times.pop()!;
    const lastSeq = this.seqs.pop()!;
    const lastAction = this.actions.pop()!;
    if (n > 1) this.siftDown(lastTime, lastSeq, lastAction);
    this.now = t;
    this.processed++;
    action();
    return true;
  }

  // The sifts move a hole instead of swapping: each level writes one entry, and the one placed is written once.

  /** Places (t, seq, action) in the heap from slot `i` (the end, or a hole) up. */
  private siftUp(i: number, t: number, seq: number, action: Action): void {
    const times = this.times;
    const seqs = this.seqs;
    const actions = this.actions;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const tp = times[parent]!;
      if (tp < t || (tp === t && seqs[parent]! < seq)) break;
      times[i] = tp;
      seqs[i] = seqs[parent]!;
      actions[i] = actions[parent]!;
      i = parent;
    }
    times[i] = t;
    seqs[i] = seq;
    actions[i] = action;
  }

  /** Places (t, seq, action) in the heap from its root (a hole) down. */
  private siftDown(t: number, seq: number, action: Action): void {
    const times = this.times;
    const seqs = this.seqs;
    const actions = this.actions;
    const n = times.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = l;
      let tc = times[l]!;
      if (r < n) {
        const tr = times[r]!;
        if (tr < tc || (tr === tc && seqs[r]! < seqs[l]!)) {
          child = r;
          tc = tr;
        }
      }
      if (t < tc || (t === tc && seq < seqs[child]!)) break;
      times[i] = tc;
      seqs[i] = seqs[child]!;
      actions[i] = actions[child]!;
      i = child;
    }
    times[i] = t;
    seqs[i] = seq;
    actions[i] = action;
  }
}
