// @vitest-environment happy-dom
// A console opened late: the grid store puts the host's history before what it saw itself; the job drawer's store
// merges a job's stored events with those the stream brought.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { defineGridStore } from '../../renderer/src/stores/grid.js';
import { defineActivityStore } from '../../renderer/src/stores/activity.js';
import type { GridSnapshot, SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient, gridSnapshot } from './fake-client.js';

const cluster = (busy: number): GridSnapshot['clusters'][number] => ({
  name: 'a',
  reachable: true,
  lastPoll: 0,
  runningMalleable: 0,
  processors: 64,
  threshold: 64,
  background: 0,
  nonPreemptible: busy,
  preallocatedUnused: 0,
  preemptible: 0,
  earmarked: 0,
  idle: 64 - busy,
});

beforeEach(() => setActivePinia(createPinia()));

describe('late console', () => {
  it('puts the host history before the live points, without repeating any', async () => {
    const client = fakeClient({
      'grid.history': {
        ok: true,
        value: { samples: [10, 20, 30, 40].map((time) => ({ time, clusters: [cluster(time / 10)] })) },
      },
    });
    const grid = defineGridStore(client)();
    grid.applySnapshot(gridSnapshot({ time: 30, clusters: [cluster(3)] }));
    grid.applySnapshot(gridSnapshot({ time: 40, clusters: [cluster(4)] }));
    await grid.loadHistory();
    expect(grid.history.a!.map((p) => [p.t, p.nonPreemptible])).toEqual([
      [10, 1],
      [20, 2],
      [30, 3],
      [40, 4],
    ]);
    expect(grid.totalHistory.map((p) => p.t)).toEqual([10, 20, 30, 40]);
  });

  it('gives the drawer a job stored history plus what the stream brought since', async () => {
    const submitted = { type: 'job.submitted', t: 1, jobId: 'j' } as unknown as SchedulerEvent;
    const started = { type: 'job.started', t: 5, jobId: 'j', size: 2 } as unknown as SchedulerEvent;
    const grown = { type: 'job.grown', t: 9, jobId: 'j', size: 4 } as unknown as SchedulerEvent;
    const client = fakeClient({ 'jobs.events': { ok: true, value: { events: [submitted, started] as never } } });
    const activity = defineActivityStore(client)();
    activity.add(started); // seen live, also stored
    activity.add(grown); // seen live, not yet stored when the host answered
    expect(await activity.loadJob('j')).toBe('');
    expect(activity.eventsOf('j').map((e) => e.type)).toEqual(['job.submitted', 'job.started', 'job.grown']);
    expect(activity.sizeSeries('j')).toEqual([
      [5, 2],
      [9, 4],
    ]);
    client.answers['jobs.events'] = { ok: false, errors: [{ path: 'jobId', message: 'no job "x"' }] };
    expect(await activity.loadJob('x')).toBe('no job "x"');
  });
});
