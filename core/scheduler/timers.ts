// Deferred actions in virtual or real time, owned by the scheduler: the host asks for the next due time and calls
// `Scheduler.advance(now)`; the core never sets a timer of its own.
export class Timers {
  private readonly due: Array<{ t: number; seq: number; run: (now: number) => void }> = [];
  private seq = 0;

  at(t: number, run: (now: number) => void): void {
    const item = { t, seq: this.seq++, run };
    // Few timers are pending at once (claims of jobs staging files), so a sorted array is enough.
    let i = this.due.length;
    while (i > 0 && this.due[i - 1]!.t > t) i--;
    this.due.splice(i, 0, item);
  }

  next(): number {
    return this.due.length ? this.due[0]!.t : Number.POSITIVE_INFINITY;
  }

  runDue(now: number): boolean {
    let ran = false;
    while (this.due.length && this.due[0]!.t <= now) {
      this.due.shift()!.run(now);
      ran = true;
    }
    return ran;
  }
}
