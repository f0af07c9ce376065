// @vitest-environment happy-dom
// A malleable job's grow that failed (job.growFailed: its local jobs failed at the batch system or were withdrawn) in
// the console: listed in Activity with its job, processors and reason, counted apart from the grows done, and its
// processors taken off the latest grants so that the grows after it still say what they served.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import ActivityView from '../../renderer/src/views/ActivityView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { defineActivityStore } from '../../renderer/src/stores/activity.js';
import { describeEvent } from '../../renderer/src/format.js';
import { reasonText, resizeKey, resizeReasons } from '../../renderer/src/resize-reasons.js';
import type { SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const reason = 'member 2 (4712) failed: local state failed (exit status 1)';
const failed = {
  type: 'job.growFailed',
  t: 70,
  jobId: 'job-4',
  cluster: 'leiden',
  processors: 3,
  size: 2,
  reason,
} as const satisfies SchedulerEvent;

describe("a malleable job's failed grow", () => {
  it('says which processors will not come, the size the job stays at, and why', () => {
    expect(describeEvent(failed)).toBe(`grow failed: 3 processors on leiden will not come, stays at 2: ${reason}`);
    expect(describeEvent({ ...failed, processors: 1 })).toBe(
      `grow failed: 1 processor on leiden will not come, stays at 2: ${reason}`,
    );
  });

  it('is kept from the stream among the latest operations and counted apart from the grows', () => {
    setActivePinia(createPinia());
    const client = fakeClient();
    const store = defineActivityStore(client)();
    store.connect();
    const send = (event: SchedulerEvent) => client.listeners.forEach((l) => l({ topic: 'event', event }));
    send({ type: 'job.grown', t: 60, jobId: 'job-4', cluster: 'leiden', processors: 1, size: 2 });
    send(failed);
    expect(store.failedGrows).toEqual([failed]);
    expect(store.events).toHaveLength(1);
    expect(store.totals).toMatchObject({ grows: 1, shrinks: 0, failedGrows: 1 });
    expect(store.latest[0]).toEqual(failed);
    expect(store.buckets.grows).toEqual({ leiden: [0, 1] });
    expect(store.buckets.shrinks).toEqual({ leiden: [0, 0] });
    store.clear();
    expect(store.failedGrows).toEqual([]);
  });

  it("is listed in Activity from the host's history, with its total", async () => {
    const client = fakeClient({
      'activity.history': {
        ok: true,
        value: {
          now: 100,
          bucketS: 60,
          starts: [0, 60],
          clusters: ['leiden'],
          grows: { leiden: [0, 1] },
          shrinks: { leiden: [0, 0] },
          updates: [0, 0],
          totals: { grows: 1, shrinks: 0, failedGrows: 1, updates: 0 },
          latest: [
            { type: 'job.grown', t: 60, jobId: 'job-4', cluster: 'leiden', processors: 1, size: 2 },
            failed,
          ] as SchedulerEvent[],
        },
      },
    });
    const pinia = createPinia();
    setActivePinia(pinia);
    const wrapper = mount(ActivityView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: createStores(client) } },
      attachTo: 'body',
    });
    await flushPromises();
    expect(wrapper.get('[data-testid="activity-failed-grows"]').text()).toBe('· 1 failed grow');
    const rows = wrapper.findAll('[data-testid="activity-list"] tbody tr').map((r) => r.text());
    expect(rows[0]).toContain('job-4');
    expect(rows[0]).toContain(`grow failed: 3 processors on leiden will not come, stays at 2: ${reason}`);
    wrapper.unmount();
  });

  // The operator grants 2, a policy 2 more; the policy's 2 fail (the latest granted fail first: job-sizes.ts). The
  // operator's 2 come, then the operator grants 3, which come: they are the operator's, not the failed policy grant's.
  it('takes its processors off the latest grants, so later grows keep their reasons', () => {
    const grown = (t: number, processors: number, size: number) =>
      ({ type: 'job.grown', t, jobId: 'm', cluster: 'a', processors, size }) as const;
    const answered = (t: number, offerId: number, accepted: number, operator: boolean): SchedulerEvent => ({
      type: 'grow.answered',
      t,
      jobId: 'm',
      offerId,
      accepted,
      ...(operator ? { operator: true as const } : {}),
    });
    const events: SchedulerEvent[] = [
      answered(1, 1, 2, true),
      answered(2, 2, 2, false),
      { ...failed, t: 3, jobId: 'm', cluster: 'a', processors: 2 },
      grown(4, 2, 4),
      answered(5, 3, 3, true),
      grown(6, 3, 7),
    ];
    const reasons = resizeReasons(events);
    expect(reasonText(reasons.get(resizeKey(grown(4, 2, 4))))).toBe('by the operator');
    expect(reasonText(reasons.get(resizeKey(grown(6, 3, 7))))).toBe('by the operator');
  });
});
