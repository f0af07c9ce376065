// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { defineGridStore, HISTORY_LIMIT } from '../../renderer/src/stores/grid.js';
import type { GridSnapshot } from '../../renderer/src/api/types.js';
import { hms } from '../../renderer/src/format.js';
import { fakeClient, gridSnapshot } from './fake-client.js';

const cluster = (
  name: string,
  o: Partial<GridSnapshot['clusters'][number]> = {},
): GridSnapshot['clusters'][number] => ({
  name,
  reachable: true,
  lastPoll: 0,
  runningMalleable: 0,
  processors: 64,
  threshold: 48,
  background: 0,
  nonPreemptible: 0,
  preallocatedUnused: 0,
  preemptible: 0,
  earmarked: 0,
  idle: 64,
  ...o,
});

describe('grid store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('computes idle and the grid total from a snapshot', () => {
    const store = defineGridStore(fakeClient())();
    store.receive({
      topic: 'snapshot',
      snapshot: gridSnapshot({
        time: 3725,
        speed: '10x',
        clusters: [
          cluster('fs0', {
            processors: 64,
            background: 10,
            nonPreemptible: 20,
            preallocatedUnused: 2,
            earmarked: 4,
            preemptible: 8,
            idle: 20,
          }),
          cluster('fs1', { processors: 32, threshold: 32, background: 40, idle: 0 }),
        ],
      }),
    });
    expect(store.time).toBe(3725);
    expect(store.speed).toBe('10x');
    expect(hms(store.time)).toBe('1:02:05');
    const fs0 = store.current.byCluster.fs0!;
    expect(fs0).toMatchObject({
      processors: 64,
      background: 10,
      nonPreemptible: 24,
      preallocated: 2,
      preemptible: 8,
      idle: 20,
    });
    // overcommitted by background: idle is never negative
    expect(store.current.byCluster.fs1!.idle).toBe(0);
    expect(store.current.total).toMatchObject({
      processors: 96,
      threshold: 80,
      background: 50,
      nonPreemptible: 24,
      preallocated: 2,
      preemptible: 8,
      idle: 20,
    });
    expect(store.history.fs0).toHaveLength(1);
    expect(store.totalHistory).toHaveLength(1);
  });

  it(`keeps at most ${HISTORY_LIMIT} points per cluster`, () => {
    const store = defineGridStore(fakeClient())();
    for (let t = 0; t < HISTORY_LIMIT + 50; t++) {
      store.applySnapshot(
        gridSnapshot({ time: t, clusters: [cluster('a', { background: t % 64, idle: 64 - (t % 64) }), cluster('b')] }),
      );
    }
    expect(store.history.a).toHaveLength(HISTORY_LIMIT);
    expect(store.history.b).toHaveLength(HISTORY_LIMIT);
    expect(store.totalHistory).toHaveLength(HISTORY_LIMIT);
    expect(store.history.a![0]!.t).toBe(50);
    expect(store.history.a!.at(-1)!.t).toBe(HISTORY_LIMIT + 49);
  });

  it('sets the speed through the API and follows the stream', async () => {
    const client = fakeClient({
      'sim.setSpeed': { ok: true, value: { speed: '100x' } },
      'grid.snapshot': { ok: true, value: gridSnapshot({ time: 5, clusters: [cluster('a')] }) },
    });
    const store = defineGridStore(client)();
    store.connect();
    expect(client.listeners.size).toBe(1);
    await store.setSpeed('100x');
    expect(store.speed).toBe('100x');
    for (const l of client.listeners)
      l({ topic: 'snapshot', snapshot: gridSnapshot({ time: 9, speed: 'max', clusters: [cluster('a')] }) });
    expect(store.speed).toBe('max');
    store.disconnect();
    expect(client.listeners.size).toBe(0);
  });
});
