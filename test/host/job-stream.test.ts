// The living default: beside the W_m workload's 300 jobs and after them, a stationary stream of malleable, rigid and
// evolving jobs keeps arriving, and malleable jobs keep running and growing; Settings changes its load and mix (validated at the
// field), and a resumed run replays the change.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { DEFAULT_JOB_STREAM, JobStream } from '../../core/sim/workloads/stream.js';
import { SimWorld } from '../../core/sim/world.js';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';

/** W_m submits its last job at 299 x 120 s. */
const WM_LAST_SUBMIT_S = 299 * 120;

/** Ticks the host at max until `done` holds (each tick computes one bounded slice). */
function tickUntil(host: Host, done: () => boolean): void {
  for (let i = 0; i < 100_000 && !done(); i++) host.tick();
  expect(done()).toBe(true);
}

const now = (host: Host) => {
  const s = host.call('grid.snapshot', {});
  if (!s.ok) throw new Error('no snapshot');
  return s.value.time;
};

describe('the living default', () => {
  it('keeps jobs arriving and malleable jobs running and growing after W_m has ended', () => {
    const host = new Host({ speed: 'max' });
    const events: SchedulerEvent[] = [];
    host.subscribe((e) => {
      if (e.t > WM_LAST_SUBMIT_S + 6 * 3600) events.push(e);
    });
    // Two days of virtual time: W_m (10 h) long over.
    tickUntil(host, () => now(host) > 2 * 86_400);
    const wmJob = /^j\d+$/;
    const submitted = events.filter((e) => e.type === 'job.submitted');
    expect(submitted.length).toBeGreaterThan(100);
    expect(submitted.every((e) => !wmJob.test(e.jobId))).toBe(true);
    const kinds = new Set(submitted.map((e) => (e as Extract<SchedulerEvent, { type: 'job.submitted' }>).kind));
    expect([...kinds].sort()).toEqual(['evolving', 'malleable', 'rigid']);
    const grownJobs = new Set(events.filter((e) => e.type === 'job.grown').map((e) => e.jobId));
    expect(grownJobs.size).toBeGreaterThan(20);
    // Malleable jobs still run: within the third day (a bounded wait in virtual time; the instant a max-speed tick
    // stops at depends on the machine's load, and a moment with none running is possible).
    const malleableRunning = () => {
      const running = host.call('jobs.list', { states: ['running'], limit: 1000 });
      if (!running.ok) throw new Error('no list');
      return running.value.jobs.filter((j) => j.kind === 'malleable').length;
    };
    tickUntil(host, () => malleableRunning() > 0 || now(host) > 3 * 86_400);
    expect(malleableRunning()).toBeGreaterThan(0);
    void host.stop();
  });

  it("a new run's stream arrives beside W_m from the start; a run stored before that keeps it after W_m", () => {
    const streamJobsBy = (t: number, beside: boolean) => {
      const grid = gridSpecSchema.parse(gridPreset('das3'));
      const world = new SimWorld({
        grid,
        jobs: workloadPreset('wm', 1)!,
        seed: 1,
        endless: true,
        metrics: false,
        stream: new JobStream(1),
        streamBesideWorkload: beside,
      });
      world.runUntil(t);
      return [...world.scheduler.jobs()].filter((j) => j.id.startsWith('s')).length;
    };
    // 24 an hour: about 48 in 2 h (fewer than 20 would be a very unlikely draw).
    expect(streamJobsBy(2 * 3600, true)).toBeGreaterThan(20);
    expect(streamJobsBy(2 * 3600, false)).toBe(0);
  });

  it('holds each cluster busy but not saturated over days (the Decision beside DEFAULT_JOB_STREAM)', () => {
    const world = new SimWorld({
      grid: gridSpecSchema.parse(gridPreset('das3')),
      jobs: workloadPreset('wm', 1)!,
      seed: 1,
      endless: true,
      metrics: false,
      stream: new JobStream(1),
    });
    const busy = new Map<string, number>();
    let samples = 0;
    let maxQueued = 0;
    let withMalleable = 0;
    for (let t = 12 * 3600; t <= 4 * 86_400; t += 600) {
      world.runUntil(t);
      samples++;
      maxQueued = Math.max(maxQueued, world.scheduler.queue.length);
      const snapshot = world.scheduler.snapshot();
      if (snapshot.some((c) => c.runningMalleable > 0)) withMalleable++;
      for (const c of snapshot)
        busy.set(c.name, (busy.get(c.name) ?? 0) + (c.background + c.nonPreemptible + c.preemptible) / c.threshold);
    }
    for (const [, sum] of busy) {
      expect(sum / samples).toBeGreaterThan(0.4);
      expect(sum / samples).toBeLessThan(0.9);
    }
    expect(maxQueued).toBeLessThan(40);
    expect(withMalleable / samples).toBeGreaterThan(0.9);
  });

  it('Settings changes the load and the mix; bad values are refused at their field', () => {
    const host = new Host({ workload: 'none', speed: 'max' });
    const settings = host.call('settings.get', {});
    expect(settings.ok && settings.value.stream.jobsPerHour).toBe(0);
    // Off: nothing arrives.
    tickUntil(host, () => now(host) > 6 * 3600);
    const none = host.call('jobs.list', { limit: 10 });
    expect(none.ok && none.value.total).toBe(0);

    const badMix = host.call('settings.set', {
      stream: { jobsPerHour: 10, malleablePct: 50, rigidPct: 20, evolvingPct: 20 },
    });
    expect(badMix.ok).toBe(false);
    if (!badMix.ok)
      expect(badMix.errors).toEqual([{ path: 'stream.evolvingPct', message: expect.stringContaining('sum to 100') }]);
    const badRate = host.call('settings.set', { stream: { ...DEFAULT_JOB_STREAM, jobsPerHour: -1 } });
    expect(!badRate.ok && badRate.errors[0]!.path).toBe('stream.jobsPerHour');

    const rigidOnly = { jobsPerHour: 60, malleablePct: 0, rigidPct: 100, evolvingPct: 0 };
    const set = host.call('settings.set', { stream: rigidOnly });
    expect(set.ok && set.value.stream).toEqual(rigidOnly);
    const from = now(host);
    tickUntil(host, () => now(host) > from + 6 * 3600);
    const jobs = host.call('jobs.list', { limit: 10_000 });
    if (!jobs.ok) throw new Error('no list');
    expect(jobs.value.total).toBeGreaterThan(200);
    expect(new Set(jobs.value.jobs.map((j) => j.kind))).toEqual(new Set(['rigid']));
    void host.stop();
  });

  it('ended jobs leave memory once stored; the Queue, the drawer and commands still know them', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'concertina-ended-')), 'run.db');
    const host = new Host({ store: openStore(file), speed: 'max' });
    tickUntil(host, () => now(host) > 86_400);
    host.flush();
    const held = [...host.world.scheduler.jobs()];
    expect(held.filter((j) => j.ended)).toEqual([]);
    expect(held.length).toBeLessThan(100);
    // j0001, W_m's first job, ended hours ago: listed, its events and size from the store, commands refused as ended.
    const done = host.call('jobs.list', { states: ['completed'], limit: 100_000 });
    if (!done.ok) throw new Error('no list');
    expect(done.value.total).toBeGreaterThan(500);
    const first = done.value.jobs.find((j) => j.id === 'j0001');
    expect(first).toMatchObject({ id: 'j0001', kind: 'malleable', state: 'completed', placement: 'wf' });
    const all = host.call('jobs.list', { limit: 100_000 });
    expect(all.ok && all.value.jobs[0]!.id).toBe('j0001');
    const events = host.call('jobs.events', { jobId: 'j0001' });
    expect(events.ok && events.value.events.map((e) => e.type)).toContain('job.ended');
    // A grown job that has left memory charts its size from its stored events.
    const grownJob = done.value.jobs.find((j) => {
      const e = host.call('jobs.events', { jobId: j.id });
      return j.kind === 'malleable' && e.ok && e.value.events.some((x) => x.type === 'job.grown');
    })!;
    const grownEvents = host.call('jobs.events', { jobId: grownJob.id });
    const largest = grownEvents.ok
      ? Math.max(
          ...grownEvents.value.events.map((e) =>
            e.type === 'job.grown' ? (e as Extract<SchedulerEvent, { type: 'job.grown' }>).size : 0,
          ),
        )
      : 0;
    const views = host.call('jobs.views', { jobId: grownJob.id });
    expect(views.ok && views.value.allocated.at(-1)!.v).toBe(0);
    expect(views.ok && Math.max(...views.value.allocated.map((s) => s.v))).toBe(largest);
    expect(largest).toBeGreaterThan(2);
    const cancel = host.call('jobs.cancel', { jobId: 'j0001' });
    expect(!cancel.ok && cancel.errors[0]).toEqual({ path: 'jobId', message: 'job j0001 has already completed' });
    const again = host.call('jobs.submit', {
      id: 'j0001',
      kind: 'rigid',
      components: [{ processors: 2, program: 'x' }],
      app: { model: 'fixed', runtime: 60 },
    });
    expect(!again.ok && again.errors[0]!.path).toBe('id');
    await host.stop();
  });

  it('a resumed run replays a change of the stream', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'concertina-stream-')), 'run.db');
    const first = new Host({ store: openStore(file), workload: 'none', speed: 'max' });
    tickUntil(first, () => now(first) > 3600);
    expect(
      first.call('settings.set', { stream: { jobsPerHour: 120, malleablePct: 50, rigidPct: 30, evolvingPct: 20 } }).ok,
    ).toBe(true);
    const from = now(first);
    tickUntil(first, () => now(first) > from + 3 * 3600);
    const before = first.call('jobs.list', { limit: 10_000 });
    await first.stop();
    const second = new Host({ store: openStore(file), speed: 'pause' });
    await second.ready;
    expect(second.run.state).toBe('running');
    const after = second.call('jobs.list', { limit: 10_000 });
    expect(before.ok && after.ok && after.value.total).toBe(before.ok && before.value.total);
    expect(before.ok && before.value.total).toBeGreaterThan(100);
    const s = second.call('settings.get', {});
    expect(s.ok && s.value.stream.jobsPerHour).toBe(120);
    await second.stop();
  });
});
