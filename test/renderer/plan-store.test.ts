// The Plan view's store: loads the plan when polling starts, again soon after job events that change the plan (not
// after others; a burst gives one request), one request in flight with at most one more queued, and says why when the
// host refuses.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { definePlanStore, EVENT_DELAY_MS, type PlanSnapshot } from '../../renderer/src/stores/plan.js';
import type { ApiClient, SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const plan = (now: number): PlanSnapshot => ({ now, queuePolicy: 'easy', planner: 'easy', limit: 200, clusters: [] });
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

beforeEach(() => {
  setActivePinia(createPinia());
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe('plan store', () => {
  it('loads at start and after job events that change the plan, not after others', async () => {
    let now = 0;
    const client = fakeClient({ 'plan.snapshot': () => ({ ok: true, value: plan(now++) }) });
    const store = definePlanStore(client)();
    store.startPolling(60_000);
    await settle();
    expect(client.calls.length).toBe(1);
    expect(store.plan?.now).toBe(0);
    const send = (type: string) => {
      for (const l of client.listeners)
        l({ topic: 'event', event: { type, t: 1, jobId: 'x' } as unknown as SchedulerEvent });
    };
    send('placement.failed');
    await vi.advanceTimersByTimeAsync(EVENT_DELAY_MS);
    expect(client.calls.length).toBe(1);
    send('job.started');
    await settle();
    expect(client.calls.length).toBe(1);
    await vi.advanceTimersByTimeAsync(EVENT_DELAY_MS);
    expect(store.plan?.now).toBe(1);
    // A burst of events: one request.
    send('job.ended');
    send('job.ended');
    send('job.submitted');
    await vi.advanceTimersByTimeAsync(EVENT_DELAY_MS);
    expect(client.calls.length).toBe(3);
    store.stopPolling();
    expect(client.listeners.size).toBe(0);
  });

  it('asked again while a request is in flight: one more request once it is answered, whatever the number of asks', async () => {
    const pending: Array<() => void> = [];
    let now = 0;
    const client: ApiClient = {
      call: (() =>
        new Promise<unknown>((resolve) =>
          pending.push(() => resolve({ ok: true, value: plan(now++) })),
        )) as unknown as ApiClient['call'],
      subscribe: () => () => undefined,
    };
    const store = definePlanStore(client)();
    const first = store.load();
    void store.load();
    void store.load();
    expect(pending.length).toBe(1);
    pending.shift()!();
    await settle();
    expect(pending.length).toBe(1);
    pending.shift()!();
    await first;
    expect(pending.length).toBe(0);
    expect(store.plan?.now).toBe(1);
  });

  it('says why when the host refuses', async () => {
    const client = fakeClient({
      'plan.snapshot': { ok: false, errors: [{ path: 'limit', message: 'must be at most 200' }] },
    });
    const store = definePlanStore(client)();
    await store.load();
    expect(store.error).toBe('limit: must be at most 200');
    expect(store.plan).toBeNull();
  });
});
