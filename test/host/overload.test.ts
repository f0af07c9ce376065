// A run that cannot keep up never takes the host down: specs that describe no physical system are refused at the
// field, and whatever valid grid runs, the host computes in bounded slices — it falls behind (and says so) instead
// of starving the API, and a signal still stops it.
import { describe, expect, it } from 'vitest';
import { gridSpecSchema, MAX_CLUSTERS } from '../../core/model/schemas.js';
import { Host } from '../../electron/host/host.js';
import { startServe } from '../support/serve-process.js';

/** The busiest grid the schemas accept: clusters with local users submitting as often and as briefly as allowed. */
const busiest = (clusters: number) => ({
  name: 'busy',
  clusters: Array.from({ length: clusters }, (_, i) => ({
    name: `c${i}`,
    processors: 4096,
    background: { meanInterarrivalS: 0.1, maxSize: 1, meanDurationS: 1 },
  })),
});

describe('specs that describe no physical system', () => {
  it("are refused at the field through the API (the issue's reproduction)", () => {
    const host = new Host({ workload: 'none', speed: 'pause' });
    const r = host.call('sim.reset', {
      grid: {
        clusters: [
          { name: 'c1', processors: 64, background: { meanInterarrivalS: 1e-7, maxSize: 1, meanDurationS: 1e-7 } },
        ],
      },
      workload: 'none',
    });
    expect(r).toEqual({
      ok: false,
      errors: [
        {
          path: 'grid.clusters[0].background.meanInterarrivalS',
          message: 'must be at least 0.1 s (at most 10 local jobs a second on average)',
        },
        { path: 'grid.clusters[0].background.meanDurationS', message: 'must be at least 1 s' },
      ],
    });
    expect(gridSpecSchema.safeParse({ clusters: [{ name: 'x', processors: 1e12 }] }).error?.issues[0]?.message).toBe(
      'must be at most 10,000,000',
    );
    expect(gridSpecSchema.safeParse(busiest(MAX_CLUSTERS + 1)).error?.issues[0]?.message).toBe(
      `must hold at most ${MAX_CLUSTERS} clusters`,
    );
    host.stop();
  });
});

describe('a run that cannot keep up', () => {
  it('falls behind its speed in bounded slices, says by how much, and drops a backlog past ten seconds of wall time', () => {
    const clock = { wall: 0 };
    const host = new Host({
      grid: gridSpecSchema.parse(busiest(50)),
      workload: 'none',
      clock: () => clock.wall,
      speed: '100x',
      sliceMs: 20,
    });
    clock.wall += 3_600_000; // an hour of wall time at 100x: 500 local jobs a second on 50 clusters for 100 hours
    host.tick();
    // Each slice steps at least one instant: on a busy machine the first slices may all go to the instants at 0.
    const snapshot = () => {
      const s = host.call('grid.snapshot', {});
      if (!s.ok) throw new Error('grid.snapshot failed');
      return s.value;
    };
    for (let slices = 1; snapshot().time === 0 && slices < 10_000; slices++) host.tick();
    const s = { value: snapshot() };
    expect(s.value.time).toBeGreaterThan(0);
    expect(s.value.time).toBeLessThan(360_000);
    // At most 10 s of wall time at 100x is kept as backlog.
    expect(s.value.behindS).toBeGreaterThan(0);
    expect(s.value.behindS).toBeLessThanOrEqual(1000);
    expect(host.call('sim.setSpeed', { speed: '10x' }).ok).toBe(true);
    expect(host.call('grid.snapshot', {})).toMatchObject({ ok: true, value: { behindS: 0 } });
    host.stop();
  });

  it('in a real process: the API keeps answering at max speed on the busiest grid, and SIGTERM stops it', async () => {
    const serve = startServe([]);
    expect(await serve.call('sim.reset', { grid: busiest(MAX_CLUSTERS), workload: 'wm' })).toMatchObject({ ok: true });
    expect(await serve.call('sim.setSpeed', { speed: 'max' })).toMatchObject({ ok: true });
    let virtual = 0;
    for (let i = 0; i < 20; i++) {
      const s = await serve.call<{ time: number; clusters: unknown[] }>('grid.snapshot', {});
      expect(s.ok).toBe(true);
      expect(s.value.clusters).toHaveLength(MAX_CLUSTERS);
      expect(s.value.time).toBeGreaterThanOrEqual(virtual); // time moves on between answers
      virtual = s.value.time;
    }
    expect(virtual).toBeGreaterThan(0);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });
});
