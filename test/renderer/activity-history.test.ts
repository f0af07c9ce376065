// @vitest-environment happy-dom
// The Activity view opened late: it loads the host's operations over the whole run (activity.history) when it opens,
// charts them, lists the latest with what the stream brought (each once), and refreshes while it is open.
import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import ActivityView from '../../renderer/src/views/ActivityView.vue';
import { defineActivityStore, type ActivityHistory } from '../../renderer/src/stores/activity.js';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import type { SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const grown = (t: number, jobId: string, cluster = 'fs0'): SchedulerEvent => ({
  type: 'job.grown',
  t,
  jobId,
  cluster,
  processors: 2,
  size: 4,
});

/** 203 grows and 40 shrinks over two hours in buckets of 120 s, the latest two of them listed. */
const hostHistory = (): ActivityHistory => ({
  now: 7200,
  bucketS: 120,
  starts: Array.from({ length: 61 }, (_, i) => i * 120),
  clusters: ['fs0'],
  grows: { fs0: Array.from({ length: 61 }, (_, i) => (i < 58 ? 3 : i === 58 ? 29 : 0)) },
  shrinks: { fs0: Array.from({ length: 61 }, (_, i) => (i < 40 ? 1 : 0)) },
  updates: Array.from({ length: 61 }, () => 0),
  totals: { grows: 203, shrinks: 40, updates: 0 },
  latest: [grown(7000, 'job-7'), grown(7100, 'job-8')] as never,
});

beforeEach(() => setActivePinia(createPinia()));

describe('activity history', () => {
  it('charts the host counts over the whole run, and lists the latest without repeating what the stream brought', async () => {
    const client = fakeClient({ 'activity.history': { ok: true, value: hostHistory() } });
    const store = defineActivityStore(client)();
    store.add(grown(7100, 'job-8')); // seen live too
    store.add(grown(7150, 'job-9')); // only live: after the host answered
    expect(store.buckets.bucketS).toBe(60); // the stream's own buckets until the host answers
    await store.loadHistory();
    expect(store.buckets.bucketS).toBe(120);
    expect(store.buckets.starts[0]).toBe(0);
    expect(store.buckets.grows.fs0!.reduce((s, x) => s + x, 0)).toBe(203);
    expect(store.totals).toEqual({ grows: 203, shrinks: 40, failedGrows: 0, updates: 0, misses: 0, replacements: 0 });
    expect(store.latest.map((e) => 'jobId' in e && e.jobId)).toEqual(['job-9', 'job-8', 'job-7']);
    // A new run (time goes back on the stream) forgets the old run's history.
    store.receive({
      topic: 'snapshot',
      snapshot: { time: 10, speed: '1x', clusters: [], run: { state: 'running' }, behindS: 0 },
    });
    expect(store.history).toBeNull();
    expect(store.totals).toEqual({ grows: 0, shrinks: 0, failedGrows: 0, updates: 0, misses: 0, replacements: 0 });
  });

  it('says why when the host cannot answer, and keeps what the stream brought', async () => {
    const client = fakeClient({ 'activity.history': { ok: false, errors: [{ path: '', message: 'host gone' }] } });
    const store = defineActivityStore(client)();
    store.add(grown(5, 'job-1'));
    await store.loadHistory();
    expect(store.historyError).toBe('host gone');
    expect(store.history).toBeNull();
    expect(store.totals.grows).toBe(1);
  });

  it('shows the whole run in a view opened late, not "no operations yet"', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({ 'activity.history': { ok: true, value: hostHistory() } });
    const stores = createStores(client);
    const wrapper = mount(ActivityView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    expect(client.calls.filter((c) => c.method === 'activity.history')).toHaveLength(1);
    expect(wrapper.text()).not.toContain('No grow, shrink or evolve operations yet');
    expect(wrapper.get('[data-testid="activity-totals"]').text()).toBe('203 grows · 40 shrinks · 0 evolving updates');
    expect(wrapper.text()).toContain('per 2 min, since the start of the run');
    expect(wrapper.get('[data-testid="activity-list"]').text()).toContain('job-8');
    wrapper.unmount();
  });

  it('says there is nothing yet when the host has no operations either', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const empty: ActivityHistory = {
      ...hostHistory(),
      grows: {},
      shrinks: {},
      clusters: [],
      totals: { grows: 0, shrinks: 0, updates: 0 },
      latest: [],
    };
    const stores = createStores(fakeClient({ 'activity.history': { ok: true, value: empty } }));
    const wrapper = mount(ActivityView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    expect(wrapper.text()).toContain('No grow, shrink or evolve operations yet');
    wrapper.unmount();
  });
});
