// A run's finished jobs as columns in chunks (core/sim/finished-jobs.ts): whatever the number of rows, each one reads
// back what was added, across the chunks' edges too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FinishedJobs, type FinishedJob } from '../../core/sim/finished-jobs.js';

/** Every field of row i as the table reads it. */
function rowAt(f: FinishedJobs, i: number): FinishedJob {
  return {
    id: f.id(i),
    name: f.name(i),
    kind: f.kind(i),
    state: f.state(i),
    reason: f.reason(i),
    cluster: f.cluster(i),
    submit: f.submit(i),
    start: f.start(i),
    end: f.end(i),
    avgSize: f.avgSize(i),
    maxSize: f.maxSize(i),
    grows: f.growCount(i),
    shrinks: f.shrinkCount(i),
    tries: f.tryCount(i),
    walltime: f.walltime(i),
    backfilled: f.wasBackfilled(i),
  };
}

const text = fc.constantFrom('completed', 'failed', 'rigid', 'c1', '', 'no cluster has 4 processors idle');
const row = (i: number): fc.Arbitrary<FinishedJob> =>
  fc.record({
    id: fc.constant(`j-${i}`),
    name: fc.oneof(fc.constant(`j-${i}`), text),
    kind: text,
    state: text,
    reason: text,
    cluster: text,
    submit: fc.double(),
    start: fc.double(),
    end: fc.double(),
    avgSize: fc.double(),
    maxSize: fc.nat(),
    grows: fc.nat(),
    shrinks: fc.nat(),
    tries: fc.nat(),
    walltime: fc.double(),
    backfilled: fc.boolean(),
  });

describe('finished jobs', () => {
  it('reads back every row as added, for any number of rows (chunks of 4096)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 4095, 4096, 4097, 3 * 4096 + 5),
        fc.array(fc.integer({ min: 0, max: 3 * 4096 + 4 }), { maxLength: 20 }),
        fc.integer(),
        (length, probes, seed) => {
          const rows = Array.from({ length }, (_, i) => fc.sample(row(i), { numRuns: 1, seed: seed + i })[0]!);
          const f = new FinishedJobs();
          for (const r of rows) f.add(r);
          expect(f.length).toBe(length);
          // Both ends of every chunk, and rows anywhere.
          const edges = [0, 4095, 4096, 8191, 8192, 12287, 12288, length - 1];
          for (const i of [...edges, ...probes].filter((i) => i >= 0 && i < length)) {
            expect(rowAt(f, i)).toEqual(rows[i]);
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
