// The Plan view's store: loads the plan when polling starts, again after a job event that changes the plan (not after
// others), one request in flight with at most one more queued, and says why when the host refuses.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { definePlanStore, type PlanSnapshot } from '../../renderer/src/stores/plan.js';
import type { SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const plan = (now: number): PlanSnapshot => ({ now, queuePolicy: 'easy', limit: 200, clusters: [] });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => setActivePinia(createPinia()));

describe('plan store', () => {
  it('loads at start and after job events that change the plan, not after others', async () => {
    let now = 0;
    const client = fakeClient({ 'plan.snapshot': () => ({ ok: true, value: plan(now++) }) });
    const store = definePlanStore(client)();
    store.startPolling(60_000);
    await settle();
    expect(store.plan?.now).toBe(0);
    const send = (type: string) => {
      for (const l of client.listeners) l({ topic: 'event', event: { type, t: 1, jobId: 'x' } as unknown as SchedulerEvent });
    };
    send('placement.failed');
    await settle();
    expect(client.calls.length).toBe(1);
    send('job.started');
    await settle();
    expect(store.plan?.now).toBe(1);
    // Three events at once while a request is in flight: one more request, not three.
    send('job.ended');
    send('job.ended');
    send('job.submitted');
    await settle();
    await settle();
    expect(client.calls.length).toBe(4);
    store.stopPolling();
    expect(client.listeners.size).toBe(0);
  });

  it('says why when the host refuses', async () => {
    const client = fakeClient({ 'plan.snapshot': { ok: false, errors: [{ path: 'limit', message: 'must be at most 200' }] } });
    const store = definePlanStore(client)();
    await store.load();
    expect(store.error).toBe('limit: must be at most 200');
    expect(store.plan).toBeNull();
  });
});
