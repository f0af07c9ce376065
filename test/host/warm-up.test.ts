// A first start that shows what Concertina does: a fresh run computed DEFAULT_WARM_UP_S of virtual time (or more,
// until a job waits) before its clock starts (jobs running, some grown, some queued, background load), says so in
// its snapshot, and resumes as stored.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { DEFAULT_WARM_UP_S } from '../../electron/host/warm-up.js';
import { openStore } from '../../electron/store/store.js';

function ok<T>(answer: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!answer.ok) throw new Error(JSON.stringify(answer.errors));
  return answer.value;
}

describe('warm-up', () => {
  it('opens the default on a living grid, and says it was warmed up', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'concertina-warm-')), 'run.db');
    const host = new Host({ store: openStore(file), warmUpS: DEFAULT_WARM_UP_S, speed: 'pause' });
    const snapshot = ok(host.call('grid.snapshot', {}));
    expect(snapshot.time).toBeGreaterThanOrEqual(DEFAULT_WARM_UP_S);
    expect(snapshot.time).toBeLessThanOrEqual(2 * DEFAULT_WARM_UP_S);
    expect(snapshot.warmedUpS).toBe(snapshot.time);
    const running = ok(host.call('jobs.list', { states: ['running'], limit: 100 })).jobs;
    expect(running.length).toBeGreaterThan(5);
    expect(running.some((j) => j.size > j.min)).toBe(true);
    // The stream runs beside W_m from the start, and the warm-up goes on until a job waits.
    expect(running.some((j) => j.id.startsWith('s'))).toBe(true);
    expect(ok(host.call('jobs.list', { states: ['queued'], limit: 100 })).jobs.length).toBeGreaterThan(0);
    expect(snapshot.clusters.filter((c) => c.background > 0).length).toBeGreaterThan(2);
    expect(ok(host.call('activity.history', {})).totals.grows).toBeGreaterThan(10);
    // The cards' charts cover the warm-up.
    const samples = ok(host.call('grid.history', {})).samples;
    expect(samples[0]!.time).toBeLessThan(120);
    expect(samples.at(-1)!.time).toBe(snapshot.time);
    await host.stop();

    // Resumed: the stored run goes on from where it was, not warmed up again, and says nothing of a warm-up.
    const again = new Host({ store: openStore(file), warmUpS: DEFAULT_WARM_UP_S, speed: 'pause' });
    await again.ready;
    expect(again.run.state).toBe('running');
    const resumed = ok(again.call('grid.snapshot', {}));
    expect(resumed.time).toBe(snapshot.time);
    expect(resumed.warmedUpS).toBeUndefined();
    expect(ok(again.call('jobs.list', { states: ['running'], limit: 100 })).jobs).toEqual(running);
    await again.stop();
  });

  it('without a warm-up starts at 0', () => {
    const host = new Host({ speed: 'pause' });
    const snapshot = ok(host.call('grid.snapshot', {}));
    expect(snapshot.time).toBe(0);
    expect(snapshot.warmedUpS).toBeUndefined();
    void host.stop();
  });
});
