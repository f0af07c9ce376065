// Issue 16: what becomes due at an instant during `advance` (a timer set for now by a pass) runs in that instant,
// not at the next event.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';
import { grid, harness, rigid } from '../support/harness.js';

// File "data" of 1000 MB on b only; a <- b at 100 MB/s and 0 latency: 10 s of staging to a. With a claim margin of
// 12 s the claim is due at once: the pass that places the job sets its claim timer for the pass's own instant.
const files = {
  files: [{ name: 'data', sizeMB: 1000, replicas: ['b'] }],
  network: { defaultBandwidthMBps: 100, defaultLatencyS: 0, links: [] },
};
const staged = () => {
  const job = rigid('r', 6, { cluster: 'a' });
  job.components[0]!.inputFiles = ['data'];
  return job;
};

describe('an instant is settled by advance', () => {
  it('claims in the pass’s instant a job whose claim the pass made due at once', () => {
    const h = harness(grid({ a: 10, b: 4 }, files), { claimMarginS: 12 });
    h.submit(staged());
    h.scheduler.advance(0);
    expect(h.ofType('job.claimed').map((e) => e.t)).toEqual([0]);
    // Nothing is left due at 0: the host need not come back to this instant.
    expect(h.scheduler.nextWakeup()).toBe(10);
  });

  it('in the simulator, starts such a job when its staging ends, not at the next poll', () => {
    const world = new SimWorld({
      grid: gridSpecSchema.parse({
        clusters: [
          { name: 'a', processors: 10 },
          { name: 'b', processors: 4 },
        ],
        ...files,
      }),
      jobs: [jobSpecSchema.parse({ ...staged(), submitTime: 5 })],
      seed: 1,
      pollIntervalS: 300,
      scheduler: { claimMarginS: 12 },
    });
    const events: SchedulerEvent[] = [];
    world.scheduler.on((e) => events.push(e));
    world.run();
    const at = (type: SchedulerEvent['type']) => events.find((e) => e.type === type)?.t;
    expect(at('job.claimed')).toBe(5);
    expect(at('job.started')).toBe(15);
  });
});
