// The scheduler's event bus: listeners subscribe to every event or only to some types, and an event of a type nobody
// listens to is counted but never stamped nor delivered (callers may skip building it: see `wants`).
import type { EventListener, SchedulerEvent, SchedulerEventBody, SchedulerEventType } from '../events.js';

export class EventBus {
  private readonly listeners: Array<{ listener: EventListener; types: ReadonlySet<string> | undefined }> = [];
  private readonly wanted = new Map<SchedulerEventType, boolean>();
  /** Events decided so far, whether or not anyone listened to them. */
  count = 0;

  /** Subscribes `listener` to every event, or only to `types`; returns the unsubscribe function. */
  on(listener: EventListener, types?: readonly SchedulerEventType[]): () => void {
    const entry = { listener, types: types ? new Set<string>(types) : undefined };
    this.listeners.push(entry);
    this.wanted.clear();
    return () => {
      const i = this.listeners.indexOf(entry);
      if (i >= 0) this.listeners.splice(i, 1);
      this.wanted.clear();
    };
  }

  /** Whether any listener takes events of this type. */
  wants(type: SchedulerEventType): boolean {
    let wanted = this.wanted.get(type);
    if (wanted === undefined)
      this.wanted.set(type, (wanted = this.listeners.some((l) => !l.types || l.types.has(type))));
    return wanted;
  }

  /** Counts an event nobody wants, without building it. */
  skip(): void {
    this.count++;
  }

  emit(now: number, body: SchedulerEventBody): void {
    this.count++;
    if (!this.wants(body.type)) return;
    // Bodies are fresh literals: stamping the time in place spares a copy per event on the hot path.
    const event = body as { t?: number } & SchedulerEventBody;
    event.t = now;
    for (const l of this.listeners) if (!l.types || l.types.has(body.type)) l.listener(event as SchedulerEvent);
  }
}
