// Rate limit for submission bursts to one cluster: up to `burst` at once, then `perSecond` on average. Pure: time
// is passed in (milliseconds), so the limiter is tested without waiting.

export interface RateLimit {
  /** Submissions allowed at once after a quiet period. */
  readonly burst: number;
  /** Sustained submissions per second. */
  readonly perSecond: number;
}

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly limit: RateLimit,
    nowMs: number,
  ) {
    if (!(limit.burst >= 1) || !Number.isFinite(limit.burst))
      throw new Error(`rate limit: burst must be at least 1 (got ${limit.burst})`);
    if (!(limit.perSecond > 0) || !Number.isFinite(limit.perSecond))
      throw new Error(`rate limit: perSecond must be above 0 (got ${limit.perSecond})`);
    this.tokens = Math.floor(limit.burst);
    this.last = nowMs;
  }

  private refill(nowMs: number): void {
    if (nowMs > this.last) {
      this.tokens = Math.min(
        Math.floor(this.limit.burst),
        this.tokens + ((nowMs - this.last) * this.limit.perSecond) / 1000,
      );
      this.last = nowMs;
    }
  }

  /** Takes up to `wanted` whole tokens now; returns how many were taken. */
  take(wanted: number, nowMs: number): number {
    this.refill(nowMs);
    const n = Math.max(0, Math.min(Math.floor(wanted), Math.floor(this.tokens)));
    this.tokens -= n;
    return n;
  }

  /** Milliseconds until a whole token is there (0 when one is). */
  waitMs(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.limit.perSecond);
  }
}
