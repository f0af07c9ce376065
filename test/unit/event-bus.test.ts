// The scheduler's event bus (core/scheduler/event-bus.ts): listeners by type, unsubscribing, counting what nobody hears.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { EventBus } from '../../core/scheduler/event-bus.js';

describe('the event bus', () => {
  it('delivers each event, stamped with its time, to the listeners of its type only', () => {
    const bus = new EventBus();
    const all: SchedulerEvent[] = [];
    const queued: SchedulerEvent[] = [];
    bus.on((e) => all.push(e));
    bus.on((e) => queued.push(e), ['job.queued']);
    bus.emit(3, { type: 'job.queued', jobId: 'j', position: 1 });
    bus.emit(4, { type: 'evolve.refused', jobId: 'j', reason: 'no' });
    expect(all.map((e) => [e.type, e.t])).toEqual([
      ['job.queued', 3],
      ['evolve.refused', 4],
    ]);
    expect(queued.map((e) => e.type)).toEqual(['job.queued']);
    expect(bus.count).toBe(2);
  });

  it('says whether a type is wanted, and forgets a listener that unsubscribed', () => {
    const bus = new EventBus();
    expect(bus.wants('placement.failed')).toBe(false);
    const off = bus.on(() => undefined, ['placement.failed']);
    expect(bus.wants('placement.failed')).toBe(true);
    expect(bus.wants('job.queued')).toBe(false);
    off();
    expect(bus.wants('placement.failed')).toBe(false);
  });

  it('counts an event nobody wants without delivering it', () => {
    const bus = new EventBus();
    const heard: SchedulerEvent[] = [];
    bus.on((e) => heard.push(e), ['job.queued']);
    bus.skip();
    bus.emit(1, { type: 'evolve.refused', jobId: 'j', reason: 'no' });
    expect([bus.count, heard.length]).toEqual([2, 0]);
  });
});
