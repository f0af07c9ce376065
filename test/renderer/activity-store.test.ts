// @vitest-environment happy-dom
/* eslint-disable @typescript-eslint/no-explicit-any -- a fake client answering per job */
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import {
  ACTIVITY_LIMIT,
  bucketize,
  defineActivityStore,
  JOB_EVENTS_LIMIT,
  type ResizeEvent,
} from '../../renderer/src/stores/activity.js';
import type { SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const grown = (t: number, jobId: string, cluster: string, processors = 2, size = 4): ResizeEvent => ({
  type: 'job.grown',
  t,
  jobId,
  cluster,
  processors,
  size,
});
const shrunk = (t: number, jobId: string, cluster: string, processors = 2, size = 2): ResizeEvent => ({
  type: 'job.shrunk',
  t,
  jobId,
  cluster,
  processors,
  size,
  voluntary: false,
});

describe('activity store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('buckets grow and shrink operations per cluster from the stream', () => {
    const client = fakeClient();
    const store = defineActivityStore(client)();
    store.connect();
    const send = (event: SchedulerEvent) => client.listeners.forEach((l) => l({ topic: 'event', event }));
    send(grown(5, 'j1', 'fs0'));
    send(grown(30, 'j2', 'fs0'));
    send(shrunk(59, 'j1', 'fs1'));
    send(grown(61, 'j3', 'fs1'));
    send(shrunk(125, 'j2', 'fs0'));
    send({ type: 'job.queued', t: 130, jobId: 'j4', position: 1 });
    expect(store.events).toHaveLength(5);
    expect(store.now).toBe(130);
    const b = store.buckets;
    expect(b.starts).toEqual([0, 60, 120]);
    expect(b.clusters).toEqual(['fs0', 'fs1']);
    expect(b.grows).toEqual({ fs0: [2, 0, 0], fs1: [0, 1, 0] });
    expect(b.shrinks).toEqual({ fs0: [0, 0, 1], fs1: [1, 0, 0] });
    expect(store.latest.map((e) => e.t)).toEqual([125, 61, 59, 30, 5]);
    store.disconnect();
    expect(client.listeners.size).toBe(0);
  });

  it('keeps only the last buckets', () => {
    const events = [grown(0, 'a', 'x'), grown(600, 'a', 'x'), grown(3599, 'a', 'x'), shrunk(3600, 'a', 'x')];
    const b = bucketize(events, 3600, 60, 60);
    expect(b.starts).toHaveLength(60);
    expect(b.starts[0]).toBe(60);
    expect(b.starts.at(-1)).toBe(3600);
    expect(b.grows.x!.reduce((s, n) => s + n, 0)).toBe(2);
    expect(b.grows.x![9]).toBe(1);
    expect(b.grows.x![58]).toBe(1);
    expect(b.shrinks.x![59]).toBe(1);
  });

  it(`caps its memory at ${ACTIVITY_LIMIT} events`, () => {
    const store = defineActivityStore(fakeClient())();
    for (let i = 0; i < ACTIVITY_LIMIT + 123; i++)
      store.add(i % 2 ? grown(i, `j${i % 7}`, 'fs0') : shrunk(i, `j${i % 7}`, 'fs1'));
    expect(store.events).toHaveLength(ACTIVITY_LIMIT);
    expect(store.events[0]!.t).toBe(123);
    expect(store.events.at(-1)!.t).toBe(ACTIVITY_LIMIT + 122);
    expect(store.latest).toHaveLength(50);
    expect(store.latest[0]!.t).toBe(ACTIVITY_LIMIT + 122);
  });
});

describe('job events', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('keeps every event per job, and the size over time', () => {
    const store = defineActivityStore(fakeClient())();
    store.add({ type: 'job.submitted', t: 0, jobId: 'a', kind: 'malleable', name: 'a', min: 2, max: 8 });
    store.add({ type: 'job.started', t: 10, jobId: 'a', cluster: 'fs0', size: 2 });
    store.add({ type: 'job.started', t: 11, jobId: 'b', cluster: 'fs1', size: 4 });
    store.add({ type: 'grow.offered', t: 20, jobId: 'a', cluster: 'fs0', offerId: 1, processors: 4 });
    store.add(grown(21, 'a', 'fs0', 4, 6));
    store.add(shrunk(30, 'a', 'fs0', 2, 4));
    store.add({ type: 'cluster.polled', t: 31, cluster: 'fs0', processors: 64, background: 0, reachable: true });
    store.add({ type: 'job.ended', t: 40, jobId: 'a', state: 'completed', reason: '', tries: 1 });
    expect(store.eventsOf('a').map((e) => e.type)).toEqual([
      'job.submitted',
      'job.started',
      'grow.offered',
      'job.grown',
      'job.shrunk',
      'job.ended',
    ]);
    expect(store.eventsOf('b')).toHaveLength(1);
    expect(store.eventsOf('nope')).toEqual([]);
    expect(store.sizeSeries('a')).toEqual([
      [10, 2],
      [21, 6],
      [30, 4],
      [40, 0],
    ]);
  });

  it(`caps each job at ${JOB_EVENTS_LIMIT} events`, () => {
    const store = defineActivityStore(fakeClient())();
    for (let i = 0; i < JOB_EVENTS_LIMIT + 40; i++) {
      store.add(grown(i, 'a', 'fs0', 1, i + 1));
      if (i < 5) store.add(grown(i, 'b', 'fs0'));
    }
    const a = store.eventsOf('a');
    expect(a).toHaveLength(JOB_EVENTS_LIMIT);
    expect(a[0]!.t).toBe(40);
    expect(a.at(-1)!.t).toBe(JOB_EVENTS_LIMIT + 39);
    expect(store.eventsOf('b')).toHaveLength(5);
  });

  it('after a gap in the stream, fetches again the histories of the running and recently active jobs and rebuilds the activity', async () => {
    const client = fakeClient({
      'jobs.list': { ok: true, value: { jobs: [{ id: 'r' } as any], total: 1, version: '1:1' } },
    });
    // The host's histories: what the console would have seen without the gap.
    const histories: Record<string, SchedulerEvent[]> = {
      a: [grown(5, 'a', 'fs0'), shrunk(50, 'a', 'fs0')],
      r: [{ type: 'job.started', t: 20, jobId: 'r', cluster: 'fs1', size: 2 }, grown(40, 'r', 'fs1')],
    };
    const call = client.call.bind(client);
    client.call = (async (method: any, payload: any) => {
      if (method !== 'jobs.events') return call(method, payload);
      client.calls.push({ method, payload });
      return { ok: true, value: { events: histories[payload.jobId] ?? [] } };
    }) as typeof client.call;
    const store = defineActivityStore(client)();
    store.connect();
    const send = (m: any) => client.listeners.forEach((l) => l(m));
    send({ topic: 'event', event: grown(5, 'a', 'fs0') });
    send({ topic: 'gap', dropped: 3 }); // shrunk(50, a) and r's events were dropped
    await store.resync(); // the one the gap started, awaited
    expect(
      client.calls
        .filter((c) => c.method === 'jobs.events')
        .map((c) => (c.payload as { jobId: string }).jobId)
        .sort(),
    ).toEqual(['a', 'r']);
    expect(client.calls.find((c) => c.method === 'jobs.list')?.payload).toMatchObject({ states: ['running'] });
    expect(store.events.map((e) => [e.t, e.jobId, e.type])).toEqual([
      [5, 'a', 'job.grown'],
      [40, 'r', 'job.grown'],
      [50, 'a', 'job.shrunk'],
    ]);
    expect(store.eventsOf('r').map((e) => e.type)).toEqual(['job.started', 'job.grown']);
    expect(store.now).toBe(50);
  });
});
