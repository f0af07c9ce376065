// The jobs store: a poll sends the version it holds and keeps its list when the host says nothing changed (10,000
// rows are not reprocessed), unfiltered it hands the table the list itself, it waits while the view is busy, and an
// operator's resize answers what was set going or why not.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { defineJobsStore } from '../../renderer/src/stores/jobs.js';
import type { JobSummary } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const row = (id: string, state = 'queued'): JobSummary => ({
  id,
  name: id,
  kind: 'rigid',
  state,
  tries: 0,
  lastFailure: '',
  size: 0,
  min: 2,
  max: 2,
  placement: 'wf',
  clusters: [],
  submitted: 0,
});

describe('jobs store', () => {
  beforeEach(() => setActivePinia(createPinia()));
  afterEach(() => vi.useRealTimers());

  it('asks only for what changed since the version it holds, and keeps its list when nothing did', async () => {
    const client = fakeClient({
      'jobs.list': { ok: true, value: { jobs: [row('a'), row('b', 'running')], total: 2, version: '1:10' } },
    });
    const store = defineJobsStore(client)();
    await store.refresh();
    const first = store.jobs;
    expect(store.filtered).toBe(first); // unfiltered: the very list
    client.answers['jobs.list'] = { ok: true, value: { jobs: [], total: 2, version: '1:10', unchanged: true } };
    await store.refresh();
    expect(client.calls.map((c) => c.payload)).toEqual([
      { limit: 100_000, since: undefined },
      { limit: 100_000, since: '1:10' },
    ]);
    expect(store.jobs).toBe(first);
    client.answers['jobs.list'] = {
      ok: true,
      value: { jobs: [row('a', 'running'), row('b', 'running')], total: 2, version: '1:12' },
    };
    await store.refresh();
    expect(store.jobs.map((j) => j.state)).toEqual(['running', 'running']);
    store.states = ['queued'];
    expect(store.filtered).toEqual([]);
    store.states = [];
    store.search = 'B';
    expect(store.filtered.map((j) => j.id)).toEqual(['b']);
  });

  it('does not poll while the view says it is busy', async () => {
    vi.useFakeTimers();
    const client = fakeClient({ 'jobs.list': { ok: true, value: { jobs: [], total: 0, version: '1:1' } } });
    const store = defineJobsStore(client)();
    let busy = true;
    store.startPolling(1000, () => busy);
    expect(client.calls).toHaveLength(1); // at once
    await vi.advanceTimersByTimeAsync(3000);
    expect(client.calls).toHaveLength(1);
    busy = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.calls).toHaveLength(2);
    store.stopPolling();
    await vi.advanceTimersByTimeAsync(5000);
    expect(client.calls).toHaveLength(2);
  });

  it('refreshes at once when the event stream had a gap, while it polls', async () => {
    vi.useFakeTimers();
    const client = fakeClient({ 'jobs.list': { ok: true, value: { jobs: [], total: 0, version: '1:1' } } });
    const store = defineJobsStore(client)();
    store.startPolling(60_000);
    expect(client.calls).toHaveLength(1);
    client.listeners.forEach((l) => l({ topic: 'gap', dropped: 12 }));
    expect(client.calls).toHaveLength(2);
    store.stopPolling();
    expect(client.listeners.size).toBe(0);
  });

  it('answers what a resize set going, or why the host refused it', async () => {
    const client = fakeClient({
      'jobs.resize': { ok: true, value: { jobId: 'm', cluster: 'vu', processors: 3, direction: 'shrink' } },
      'jobs.list': { ok: true, value: { jobs: [], total: 0, version: '1:1' } },
    });
    const store = defineJobsStore(client)();
    expect(await store.resize('m', -3)).toEqual({ ok: true, text: 'asked to give back 3 on vu' });
    client.answers['jobs.resize'] = {
      ok: false,
      errors: [
        { path: 'jobId', message: 'cluster vu is busy with another grow or shrink operation; try again when it ends' },
      ],
    };
    expect(await store.resize('m', 1)).toEqual({
      ok: false,
      text: 'cluster vu is busy with another grow or shrink operation; try again when it ends',
    });
  });
});
