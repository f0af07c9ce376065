// The local jobs waiting to be submitted to one cluster, sent one command at a time (so that they reach the batch
// system in the order they were asked for), each command with as many of them as the rate limit allows (at most
// 50). Calls made together are sent together: a send waits for the current turn of the event loop to end.
import { TokenBucket, type RateLimit } from './token-bucket.js';

const MAX_BATCH = 50;

export class SubmissionQueue<T> {
  private readonly waiting: T[] = [];
  private readonly bucket: TokenBucket;
  private timer: NodeJS.Timeout | undefined;
  private queued = false;
  private sending = false;
  private closed = false;

  /** `send`: submits one batch (resolves once its answers are applied). */
  constructor(
    rateLimit: RateLimit,
    private readonly monotonicMs: () => number,
    private readonly send: (batch: T[]) => Promise<void>,
  ) {
    this.bucket = new TokenBucket(rateLimit, monotonicMs());
  }

  get length(): number {
    return this.waiting.length;
  }

  /** Queues an item; `pump()` sends it. */
  push(item: T): void {
    this.waiting.push(item);
  }

  /** Takes an item out of the queue before it is sent; whether it was waiting. */
  remove(item: T): boolean {
    const at = this.waiting.indexOf(item);
    if (at < 0) return false;
    this.waiting.splice(at, 1);
    return true;
  }

  /** Sends what waits, soon (after the rate limit's wait when no token is left). */
  pump(): void {
    if (this.closed || this.timer || this.queued || this.sending) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      if (this.closed || this.sending || !this.waiting.length) return;
      const n = this.bucket.take(Math.min(this.waiting.length, MAX_BATCH), this.monotonicMs());
      if (n === 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, this.bucket.waitMs(this.monotonicMs()));
        this.timer.unref?.();
        return;
      }
      this.sending = true;
      void this.send(this.waiting.splice(0, n)).finally(() => {
        this.sending = false;
        this.pump();
      });
    });
  }

  /** Nothing more is sent (what waits stays unsent). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
