// Reading one cluster's applications' files (their answers, updates, progress) on a timer: every second, and every
// 50 ms while an offer or a shrink request awaits its answer, each read then waiting on the cluster for the files to
// grow. One instance per cluster in the run.
import type { RemoteApplications } from '../protocol/application-port.js';

/**
 * Decision: applications' files are read every second, and every 50 ms while an offer or a shrink request awaits
 * its answer (for at most 10 s); the managers' status rounds run every 100 ms while something waits (a start, a
 * grow, a cancel). A grow or shrink waits on both, and at 1 s each they made most of its latency (see
 * test/bench/live-bench.ts). Each is one remote script per cluster; idle clusters keep the managers' 10 s rounds.
 */
export const DEFAULT_APP_POLL_MS = 1000;
const EAGER_APP_POLL_MS = 50;
const EAGER_FOR_MS = 10_000;
/** Decision: each read while an answer is awaited waits up to 1 s on the cluster for it (one round trip saved). */
const EAGER_WAIT_MS = 1000;

export class ApplicationPolling {
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Until then (performance.now()), the files are read often: an answer is awaited. */
  private eagerUntil = 0;
  private stopped = false;

  /** `active`: whether reads go on (the world runs and the cluster is open). */
  constructor(
    private readonly apps: RemoteApplications,
    private readonly intervalMs: number,
    private readonly active: () => boolean,
  ) {}

  /** Reads the files now, then again after the interval (short while an answer is awaited). */
  start(): void {
    this.poll();
  }

  /** An offer or a shrink request went to an application: read its answers soon. */
  awaitAnswer(): void {
    this.eagerUntil = performance.now() + EAGER_FOR_MS;
    // A read under way re-arms with the short interval when it ends; a waiting one is brought forward.
    if (this.timer && !this.polling) {
      clearTimeout(this.timer);
      this.arm(EAGER_APP_POLL_MS);
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private poll(): void {
    if (!this.active()) return;
    this.timer = undefined;
    this.polling = true;
    // While an answer is awaited the read waits on the cluster for the files to grow (see AppChannel.poll).
    void this.apps.poll(performance.now() < this.eagerUntil ? { waitMs: EAGER_WAIT_MS } : {}).finally(() => {
      this.polling = false;
      if (this.stopped || !this.active()) return;
      this.arm(performance.now() < this.eagerUntil ? EAGER_APP_POLL_MS : this.intervalMs);
    });
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.poll(), delayMs);
    this.timer.unref?.();
  }
}
