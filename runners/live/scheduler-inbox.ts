// The live world's loop, as the simulator's (core/sim/world.ts) in wall-clock time: messages from managers and
// applications reach the scheduler in arrival order through one inbox, drained on the next turn of the event loop,
// and a timer follows the scheduler's next wakeup.
import type { InboundMessage } from '../../core/ports.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';

export interface SchedulerInboxContext {
  /** Undefined until the world has built it. */
  readonly scheduler: () => Scheduler | undefined;
  /** Whether the world runs (nothing reaches the scheduler once it stops). */
  readonly running: () => boolean;
  /** The scheduler's time in seconds. */
  readonly now: () => number;
}

export class SchedulerInbox {
  private readonly messages: InboundMessage[] = [];
  private draining = false;
  /** Messages reach the scheduler only once the earlier run's jobs are recovered. */
  private accepting = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.NaN;

  constructor(private readonly context: SchedulerInboxContext) {}

  /** Queues a message; it is handed to the scheduler on the next turn (once messages are accepted). */
  push(message: InboundMessage): void {
    this.messages.push(message);
    if (!this.draining && this.accepting) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  /** Drops the statuses of `clusters` still queued (read again after recovery). */
  dropStatuses(clusters: ReadonlySet<string>): void {
    const kept = this.messages.filter((m) => !(m.type === 'status' && clusters.has(m.cluster)));
    this.messages.splice(0, this.messages.length, ...kept);
  }

  /** From now on messages reach the scheduler: the ones queued so far at once. */
  accept(): void {
    this.accepting = true;
    this.drain();
  }

  /** Stops handing messages over and the wakeup timer. */
  stop(): void {
    this.accepting = false;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
  }

  private drain(): void {
    this.draining = false;
    const scheduler = this.context.scheduler();
    if (!scheduler || !this.context.running()) return;
    for (let i = 0; i < this.messages.length; i++) scheduler.receive(this.messages[i]!, this.context.now());
    this.messages.length = 0;
    this.rearm();
  }

  /** Arms the timer for the scheduler's next wakeup (at once when a pass is due). */
  rearm(): void {
    const scheduler = this.context.scheduler();
    if (!scheduler || !this.context.running()) return;
    const wake = scheduler.nextWakeup();
    if (!Number.isFinite(wake)) return;
    if (this.wakeTimer && wake === this.wakeAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = wake;
    const delayMs = Math.min(2 ** 31 - 1, Math.max(0, (wake - this.context.now()) * 1000));
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakeAt = Number.NaN;
      if (!this.context.running()) return;
      scheduler.advance(this.context.now());
      this.rearm();
    }, delayMs);
  }
}
