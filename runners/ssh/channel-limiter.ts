// At most `limit` session channels open at once on a connection (OpenSSH refuses more than MaxSessions, 10 by
// default); the others wait in arrival order. Nothing is ever dropped.

export class ChannelLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** The most channels that were ever open at once (for tests and diagnostics). */
  peak = 0;

  constructor(private limitValue: number) {
    if (!Number.isInteger(limitValue) || limitValue < 1)
      throw new RangeError(`channel limit must be a positive integer (got ${limitValue})`);
  }

  get limit(): number {
    return this.limitValue;
  }

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function once a channel may be opened. Calling release more than once is harmless. */
  async acquire(): Promise<() => void> {
    if (this.active < this.limitValue && this.waiting.length === 0) this.active++;
    // A releasing holder hands its slot straight to the first waiter, so `active` already counts this one.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.peak = Math.max(this.peak, this.active);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /**
   * Lowers the limit when the server refused a channel while `inUse` were open: its MaxSessions is lower than
   * ours. Never below 1, never raised.
   */
  lowerTo(limit: number): void {
    this.limitValue = Math.max(1, Math.min(this.limitValue, limit));
  }

  private release(): void {
    const next = this.active - 1 < this.limitValue ? this.waiting.shift() : undefined;
    if (next) next();
    else this.active--;
  }
}
