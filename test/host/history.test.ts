// What a console opened late gets from the host: the grid's utilization over the whole run (grid.history) and a
// job's whole event history (jobs.events), with and without a store, and after a restart.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';

const tempFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'concertina-history-')), 'run.db');
const grid = gridSpecSchema.parse({ name: 'one', clusters: [{ name: 'a', processors: 32 }] });
const malleable = (id: string) => ({
  id,
  kind: 'malleable',
  app: { model: 'gadget2' },
  walltime: 100_000,
  components: [{ min: 2, max: 12, program: 'gadget2' }],
});

function hostWith(store?: ReturnType<typeof openStore>, speed: '1x' | '10x' = '1x') {
  const clock = { wall: 0 };
  // Each tick catches up with the moved clock whatever the machine's load (no slice limit).
  const host = new Host({
    grid,
    workload: 'none',
    store,
    clock: () => clock.wall,
    speed,
    sliceMs: Number.POSITIVE_INFINITY,
  });
  const run = (seconds: number, stepS = 5) => {
    for (let s = 0; s < seconds; s += stepS) {
      clock.wall += stepS * 1000;
      host.tick();
    }
  };
  return { host, run, clock };
}

describe('grid.history', () => {
  it('spans the whole run, downsampled to at most 300 samples, and shows what ran', () => {
    const { host, run } = hostWith();
    host.call('jobs.submit', malleable('m'));
    run(20_000, 10);
    const h = host.call('grid.history', {});
    if (!h.ok) throw new Error('grid.history failed');
    const { samples } = h.value;
    expect(samples.length).toBeGreaterThan(100);
    expect(samples.length).toBeLessThanOrEqual(300);
    expect(samples[0]!.time).toBeLessThan(100);
    expect(samples.at(-1)!.time).toBeGreaterThan(19_000);
    // The malleable job held processors at some point of the run.
    expect(samples.some((s) => s.clusters[0]!.nonPreemptible + s.clusters[0]!.preemptible >= 2)).toBe(true);
  });

  it('comes back after a restart from the store', () => {
    const file = tempFile();
    // At 10x a sample is taken every wall second but stored at most every 5: the last ones are written by stop().
    const first = hostWith(openStore(file), '10x');
    first.host.call('jobs.submit', malleable('m'));
    first.run(62, 1);
    first.host.stop();
    const before = first.host.call('grid.history', {});
    const again = hostWith(openStore(file));
    const after = again.host.call('grid.history', {});
    if (!before.ok || !after.ok) throw new Error('grid.history failed');
    expect(after.value.samples.length).toBeGreaterThan(10);
    expect(after.value.samples).toEqual(before.value.samples);
    again.host.stop();
  });
});

describe('jobs.events', () => {
  it('gives a job its whole history, from memory without a store', () => {
    const { host, run } = hostWith();
    host.call('jobs.submit', malleable('m'));
    run(300);
    const r = host.call('jobs.events', { jobId: 'm' });
    if (!r.ok) throw new Error('jobs.events failed');
    const types = r.value.events.map((e) => e.type);
    expect(types[0]).toBe('job.submitted');
    expect(types).toContain('job.started');
    expect(r.value.events.every((e) => (e as { jobId?: string }).jobId === 'm')).toBe(true);
  });

  it('reads it from the store after a restart, and names the field for an unknown job', () => {
    const file = tempFile();
    const first = hostWith(openStore(file));
    first.host.call('jobs.submit', malleable('m'));
    first.run(300);
    const before = first.host.call('jobs.events', { jobId: 'm' });
    first.host.stop();
    const again = hostWith(openStore(file));
    const after = again.host.call('jobs.events', { jobId: 'm' });
    if (!before.ok || !after.ok) throw new Error('jobs.events failed');
    expect(after.value.events).toEqual(before.value.events);
    expect(again.host.call('jobs.events', { jobId: 'nope' })).toEqual({
      ok: false,
      errors: [{ path: 'jobId', message: 'no job "nope"' }],
    });
    expect(again.host.call('jobs.events', {})).toMatchObject({ ok: false, errors: [{ path: 'jobId' }] });
    again.host.stop();
  });
});
