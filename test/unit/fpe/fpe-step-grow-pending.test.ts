// A profiled job's step that ends before its grow's processors are active (core/scheduler/fpe-jobs.ts boundary): on a
// loaded machine the local manager may start a grow's holders after the step they were for is over.
import { describe, expect, it } from 'vitest';
import { grid, harness } from '../../support/harness.js';
import { profiledJob } from '../../support/workload-specs.js';

describe("a profiled job's step boundary with the step's grow still pending", () => {
  // e runs 1 processor for 100 s, 3 for 50 s, then 1 for 80 s. The grow of 2 asked at 100 becomes active only at 160,
  // after step 2's end at 150. Shrinking at 150 by 3 - 1 = 2 from the 1 running processor would leave it none (and tell
  // its application `resources 0`). It waits for the grow instead: at 160 it has 3, gives back 2, and step 3 runs on 1.
  it('waits for the grow to run, then gives back only what the next step needs no more', () => {
    const h = harness(grid({ a: 10 }));
    const told: number[] = [];
    h.apps.resized = (_jobId, size) => void told.push(size);
    h.submit(
      profiledJob('e', 0, [
        { duration_s: 100, processors: 1 },
        { duration_s: 50, processors: 3 },
        { duration_s: 80, processors: 1 },
      ]),
    );
    h.scheduler.advance(0);
    h.startAll();
    h.at(100).scheduler.advance(100);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 2 }]);
    h.at(150).scheduler.advance(150);
    const e = h.scheduler.job('e')!;
    expect(h.manager('a').shrinks).toEqual([]);
    expect([e.size, e.pendingGrow]).toEqual([1, 2]);
    h.at(160).growAll();
    expect(h.manager('a').shrinks).toEqual([{ jobId: 'e', processors: 2 }]);
    expect(e.size).toBe(1);
    expect(told).toEqual([3, 1]);
    expect(h.ofType('fpe.step').map((x) => [x.t, x.step, x.processors, x.expandedS])).toEqual([
      [0, 1, 1, 0],
      [100, 2, 3, 0],
      [160, 3, 1, 10],
    ]);
  });
});
