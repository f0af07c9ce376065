// Without a store, jobs.events answers from the host's recent job events: bounded in all, by job, the least recently
// active jobs dropped first, and never pushed out by events about no job (the grid's polls).
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { Host } from '../../electron/host/host.js';
import { RecentJobEvents } from '../../electron/host/recent-job-events.js';

const queued = (jobId: string, t: number): SchedulerEvent => ({ type: 'job.queued', t, jobId, position: 0 });
const polled = (t: number): SchedulerEvent =>
  ({ type: 'cluster.polled', t, cluster: 'a', processors: 8, background: 0, reachable: true }) as SchedulerEvent;

describe('RecentJobEvents', () => {
  it('keeps at most its limit, dropping the least recently active job first', () => {
    const r = new RecentJobEvents(4);
    r.add(queued('a', 1));
    r.add(queued('b', 2));
    r.add(queued('a', 3));
    for (let t = 4; t < 100; t++) r.add(polled(t)); // about no job: no room taken
    r.add(queued('c', 100));
    r.add(queued('c', 101)); // 5 events: b (least recently active) goes
    expect(r.size).toBe(4);
    expect(r.of('b')).toEqual([]);
    expect(r.of('a').map((e) => e.t)).toEqual([1, 3]);
    expect(r.of('c').map((e) => e.t)).toEqual([100, 101]);
    for (let t = 102; t < 110; t++) r.add(queued('c', t)); // one job over the limit keeps its latest
    expect(r.size).toBe(4);
    expect(r.of('c').map((e) => e.t)).toEqual([106, 107, 108, 109]);
    expect(r.of('a')).toEqual([]);
  });
});

describe('jobs.events without a store', () => {
  it("answers a finished job's whole history after a long run at speed", { timeout: 60_000 }, () => {
    const clock = { wall: 0 };
    const host = new Host({
      workload: 'wm-fast',
      clock: () => clock.wall,
      speed: '100x',
      sliceMs: Number.POSITIVE_INFINITY,
    });
    // 2000 virtual hours (1000 s a tick): the W_m jobs are long over, the grid polled 24,000 times per cluster since.
    for (let s = 0; s < 7200; s++) {
      clock.wall += 10_000;
      host.tick();
    }
    expect(host.world.engine.now).toBeGreaterThanOrEqual(7_000_000);
    const list = host.call('jobs.list', { states: ['completed'], limit: 100_000 });
    if (!list.ok) throw new Error('jobs.list failed');
    const last = list.value.jobs.at(-1)!;
    const events = host.call('jobs.events', { jobId: last.id });
    if (!events.ok) throw new Error('jobs.events failed');
    expect(events.value.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['job.submitted', 'job.started', 'job.ended']),
    );
    void host.stop();
  });
});
