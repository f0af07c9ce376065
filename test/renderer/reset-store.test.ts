// @vitest-environment happy-dom
// A new run from the Settings view (sim.reset): errors land on their field (a custom grid's on the JSON), nothing is
// sent for malformed JSON, and after a reset the views drop the old run and load the new one.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { defineResetStore, resetErrorsOf } from '../../renderer/src/stores/reset.js';
import { defineActivityStore } from '../../renderer/src/stores/activity.js';
import { defineGridStore } from '../../renderer/src/stores/grid.js';
import { fakeClient, gridSnapshot } from './fake-client.js';

const snapshot = (time: number, names: string[]) =>
  gridSnapshot({
    time,
    clusters: names.map((name) => ({
      name,
      reachable: true,
      lastPoll: 0,
      runningMalleable: 0,
      processors: 8,
      threshold: 8,
      background: 0,
      nonPreemptible: 0,
      preallocatedUnused: 0,
      preemptible: 0,
      earmarked: 0,
      idle: 8,
    })),
  });

function targets() {
  const log: string[] = [];
  return {
    log,
    grid: { clear: () => void log.push('grid.clear'), refresh: async () => void log.push('grid.refresh') },
    jobs: { refresh: async () => void log.push('jobs.refresh') },
    activity: { clear: () => void log.push('activity.clear') },
    settings: { load: async () => (log.push('settings.load'), true) },
  };
}

describe('reset store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('puts a grid error on the grid choice, or on the JSON with its path inside the grid', () => {
    expect(resetErrorsOf([{ path: 'grid', message: 'must be a grid preset' }], false)).toEqual({
      grid: 'must be a grid preset',
    });
    expect(
      resetErrorsOf(
        [
          { path: 'grid.clusters[0].processors', message: 'must be at least 1' },
          { path: 'seed', message: 'must be at least 0' },
        ],
        true,
      ),
    ).toEqual({
      gridJson: 'clusters[0].processors: must be at least 1',
      seed: 'must be at least 0',
    });
    expect(resetErrorsOf([{ path: '', message: 'internal error: boom' }], true)).toEqual({
      form: 'internal error: boom',
    });
  });

  it('sends nothing for malformed JSON or a missing seed', async () => {
    const client = fakeClient();
    const store = defineResetStore(client)();
    store.form.grid = 'custom';
    store.form.gridJson = '{ "clusters": [ ';
    const t = targets();
    expect(await store.submit(t)).toBe(false);
    expect(store.errors.gridJson).toMatch(/^is not valid JSON at line 1, column 17: /);
    store.form.grid = 'das3';
    store.form.seed = null;
    expect(await store.submit(t)).toBe(false);
    expect(store.errors).toEqual({ seed: 'is required' });
    expect(client.calls).toEqual([]);
    expect(t.log).toEqual([]);
  });

  it('sends the grid parsed from JSON, shows what started, and makes the views follow the new run', async () => {
    const client = fakeClient({
      'sim.reset': { ok: true, value: { grid: 'mine', clusters: 1, workload: 'none', jobs: 0, seed: 5 } },
    });
    const store = defineResetStore(client)();
    store.form = {
      grid: 'custom',
      gridJson: '{ "name": "mine", "clusters": [{ "name": "a", "processors": 4 }] }',
      workload: 'none',
      seed: 5,
    };
    const t = targets();
    expect(await store.submit(t)).toBe(true);
    expect(client.calls).toEqual([
      {
        method: 'sim.reset',
        payload: { grid: { name: 'mine', clusters: [{ name: 'a', processors: 4 }] }, workload: 'none', seed: 5 },
      },
    ]);
    expect(store.done).toBe('New run: mine (1 clusters), workload none (0 jobs), seed 5.');
    expect(t.log.sort()).toEqual(['activity.clear', 'grid.clear', 'grid.refresh', 'jobs.refresh', 'settings.load']);
  });

  it("shows the host's refusal at its field and leaves the views alone", async () => {
    const client = fakeClient({
      'sim.reset': { ok: false, errors: [{ path: 'workload', message: 'must be one of wm, none' }] },
    });
    const store = defineResetStore(client)();
    const t = targets();
    expect(await store.submit(t)).toBe(false);
    expect(store.errors).toEqual({ workload: 'must be one of wm, none' });
    expect(t.log).toEqual([]);
  });
});

describe('views of another console after a reset', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('drop the old run when virtual time goes back (a new run started)', () => {
    const client = fakeClient();
    const grid = defineGridStore(client)();
    const activity = defineActivityStore(client)();
    for (const t of [10, 20]) {
      grid.receive({ topic: 'snapshot', snapshot: snapshot(t, ['vu', 'uva']) });
      activity.receive({ topic: 'snapshot', snapshot: snapshot(t, ['vu', 'uva']) });
    }
    activity.add({ type: 'job.grown', t: 20, jobId: 'j1', cluster: 'vu', processors: 2, size: 4 });
    expect(grid.totalHistory).toHaveLength(2);
    grid.receive({ topic: 'snapshot', snapshot: snapshot(1, ['solo']) });
    activity.receive({ topic: 'snapshot', snapshot: snapshot(1, ['solo']) });
    expect(grid.totalHistory.map((p) => p.t)).toEqual([1]);
    expect(Object.keys(grid.history)).toEqual(['solo']);
    expect(activity.events).toEqual([]);
    expect(activity.eventsOf('j1')).toEqual([]);
    expect(activity.now).toBe(1);
  });
});
