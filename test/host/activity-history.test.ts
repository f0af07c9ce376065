// The Activity view's history from the host (activity.history): grow, shrink and evolve operations of the whole run,
// bucketed in bounded memory, the same for a console that opens late, and the same again after a restart.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { ActivityHistory, isActivityOperation } from '../../electron/host/activity-history.js';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';

const grown = (t: number, cluster = 'a'): SchedulerEvent => ({
  type: 'job.grown',
  t,
  jobId: 'j',
  cluster,
  processors: 1,
  size: 2,
});
const shrunk = (t: number, cluster = 'a'): SchedulerEvent => ({
  type: 'job.shrunk',
  t,
  jobId: 'j',
  cluster,
  processors: 1,
  size: 1,
  voluntary: false,
});
const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

describe('ActivityHistory', () => {
  it('counts per cluster and bucket from 0 to now', () => {
    const h = new ActivityHistory(4, 10, 3);
    h.add(grown(5));
    h.add(grown(12, 'b'));
    h.add(shrunk(15));
    h.add({ type: 'job.started', t: 16, jobId: 'k', cluster: 'a', size: 2 } as unknown as SchedulerEvent); // not an operation
    h.add({ type: 'evolve.refused', t: 25, jobId: 'e', reason: 'no room' });
    const v = h.view(31);
    // Buckets of 10 s: [0,10) [10,20) [20,30) [30,40).
    expect(v.bucketS).toBe(10);
    expect(v.starts).toEqual([0, 10, 20, 30]);
    expect(v.clusters).toEqual(['a', 'b']);
    expect(v.grows).toEqual({ a: [1, 0, 0, 0], b: [0, 1, 0, 0] });
    expect(v.shrinks).toEqual({ a: [0, 1, 0, 0], b: [0, 0, 0, 0] });
    expect(v.updates).toEqual([0, 0, 1, 0]);
    expect(v.totals).toEqual({ grows: 2, shrinks: 1, failedGrows: 0, updates: 1, misses: 0, replacements: 0 });
    // The latest 3 operations, oldest first.
    expect(v.latest.map((e) => e.t)).toEqual([12, 15, 25]);
  });

  it("counts a profiled job's failed step grow among the updates, and lists it", () => {
    const h = new ActivityHistory(4, 10, 3);
    const failed = {
      type: 'fpe.growFailed',
      t: 12,
      jobId: 'f',
      cluster: 'a',
      step: 2,
      missing: 2,
      reason: 'member 1 (17) failed: local state failed (exit status 3)',
      attempt: 1,
      attempts: 3,
      retryAt: 72,
    } as const;
    h.add(failed);
    const v = h.view(15);
    expect(v.updates).toEqual([0, 1]);
    expect(v.totals.updates).toBe(1);
    expect(v.latest).toEqual([failed]);
  });

  it('counts a broken mutual wait of profiled jobs among the updates, and lists it', () => {
    const h = new ActivityHistory(4, 10, 3);
    const wait = {
      type: 'fpe.mutualWait' as const,
      t: 12,
      jobId: 'b',
      cluster: 'a',
      jobs: ['a', 'b'],
      step: 3,
      free: 4,
      action: 'ended' as const,
    };
    h.add(wait);
    const v = h.view(15);
    expect(v.updates).toEqual([0, 1]);
    expect(v.latest).toEqual([wait]);
  });

  it("counts a malleable job's failed grow apart, lists it, and charts it as no grow or shrink", () => {
    const h = new ActivityHistory(4, 10, 3);
    const failed = {
      type: 'job.growFailed',
      t: 12,
      jobId: 'm',
      cluster: 'a',
      processors: 3,
      size: 2,
      reason: 'withdrawn by Concertina before their local jobs ran',
    } as const;
    h.add(grown(5));
    h.add(failed);
    const v = h.view(15);
    expect(v.grows).toEqual({ a: [1, 0] });
    expect(v.shrinks).toEqual({ a: [0, 0] });
    expect(v.updates).toEqual([0, 0]);
    expect(v.totals).toEqual({ grows: 1, shrinks: 0, failedGrows: 1, updates: 0, misses: 0, replacements: 0 });
    expect(v.latest.at(-1)).toEqual(failed);
  });

  it('merges neighbouring buckets when the run outgrows its limit, keeping every count', () => {
    const h = new ActivityHistory(4, 10, 50);
    for (let t = 0; t < 100; t += 5) h.add(grown(t)); // 20 grows, 2 per 10 s
    const v = h.view(100);
    // t = 100 needs bucket 10 of 10 s → merged twice: buckets of 40 s, [0,40) [40,80) [80,120): 8, 8, 4.
    expect(v.bucketS).toBe(40);
    expect(v.starts).toEqual([0, 40, 80]);
    expect(v.grows.a).toEqual([8, 8, 4]);
    expect(v.totals.grows).toBe(20);
    expect(v.starts.length).toBeLessThanOrEqual(4);
  });

  it('keeps at most its limit of buckets and latest operations over a long run', () => {
    const h = new ActivityHistory(120, 60, 50);
    for (let t = 0; t < 10 * 86_400; t += 7) h.add(t % 2 ? grown(t, `c${t % 5}`) : shrunk(t, `c${t % 3}`));
    const v = h.view(10 * 86_400);
    expect(v.starts.length).toBeLessThanOrEqual(120);
    expect(v.starts.at(-1)! + v.bucketS).toBeGreaterThan(10 * 86_400);
    expect(v.latest).toHaveLength(50);
    expect(sum(Object.values(v.grows).flat())).toBe(v.totals.grows);
    expect(sum(Object.values(v.shrinks).flat())).toBe(v.totals.shrinks);
    expect(v.totals.grows + v.totals.shrinks).toBe(Math.ceil((10 * 86_400) / 7));
  });
});

const grid = gridSpecSchema.parse({ name: 'one', clusters: [{ name: 'a', processors: 32 }] });

/** The das3 grid with the W_m workload sped up (wm-fast): hundreds of grows in two virtual hours. */
function hostWith(store?: ReturnType<typeof openStore>) {
  const clock = { wall: 0 };
  const host = new Host({
    workload: 'wm-fast',
    store,
    clock: () => clock.wall,
    speed: '100x',
    sliceMs: Number.POSITIVE_INFINITY,
  });
  const run = (wallSeconds: number) => {
    for (let s = 0; s < wallSeconds; s++) {
      clock.wall += 1000;
      host.tick();
    }
  };
  return { host, run };
}

function history(host: Host) {
  const h = host.call('activity.history', {});
  if (!h.ok) throw new Error(`activity.history failed: ${JSON.stringify(h.errors)}`);
  return h.value;
}

describe('activity.history', () => {
  it('answers every operation since the start, to a console that subscribes late', () => {
    const { host, run } = hostWith();
    const seen: SchedulerEvent[] = [];
    host.subscribe((e) => seen.push(e));
    host.call('settings.set', { approach: 'pwa' });
    run(72);
    const h = history(host);
    const grows = seen.filter((e) => e.type === 'job.grown');
    const shrinks = seen.filter((e) => e.type === 'job.shrunk');
    expect(grows.length).toBeGreaterThan(100);
    const updates = seen.filter(
      (e) => e.type === 'evolve.requested' || e.type === 'job.evolved' || e.type === 'evolve.refused',
    );
    expect(updates.length).toBeGreaterThan(0); // the stream's evolving jobs
    expect(h.totals).toEqual({
      grows: grows.length,
      shrinks: shrinks.length,
      failedGrows: 0,
      updates: updates.length,
      misses: 0,
      replacements: 0,
    });
    expect(sum(Object.values(h.grows).flat())).toBe(grows.length);
    expect(sum(Object.values(h.shrinks).flat())).toBe(shrinks.length);
    expect(h.starts[0]).toBe(0);
    expect(h.starts.at(-1)!).toBeLessThanOrEqual(h.now);
    expect(h.starts.at(-1)! + h.bucketS).toBeGreaterThan(h.now);
    expect(h.latest).toEqual(seen.filter(isActivityOperation).slice(-50));
    host.stop();
  });

  it('starts again with a new run (sim.reset)', () => {
    const { host, run } = hostWith();
    run(30);
    expect(history(host).totals.grows).toBeGreaterThan(0);
    host.call('sim.reset', { grid, workload: 'none', seed: 1 });
    expect(history(host).totals).toEqual({
      grows: 0,
      shrinks: 0,
      failedGrows: 0,
      updates: 0,
      misses: 0,
      replacements: 0,
    });
    expect(history(host).latest).toEqual([]);
    host.stop();
  });

  it('is the same after a restart, rebuilt as the stored run is resumed', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'concertina-activity-')), 'run.db');
    const first = hostWith(openStore(file));
    first.host.call('settings.set', { approach: 'pwa' });
    first.run(40);
    const before = history(first.host);
    expect(before.totals.grows).toBeGreaterThan(0);
    await first.host.stop();
    const again = hostWith(openStore(file));
    await again.host.ready;
    const after = history(again.host);
    expect(after.totals).toEqual(before.totals);
    expect(after.grows).toEqual(before.grows);
    expect(after.latest).toEqual(before.latest);
    await again.host.stop();
  });
});
