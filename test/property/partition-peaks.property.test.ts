// The peaks of a grid built from a trace (`--grid from-trace`) against a reference that counts what each partition
// holds at every start, job by job: on jobs of one size (the sorted-times path) and of mixed sizes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partitionPeaks, type JobsRan } from '../../core/sim/workloads/swf.js';

interface RanJob {
  partition: number;
  start: number;
  run: number;
  processors: number;
}

/** What a partition holds at a job's start, ends at that instant freed first, maximised over its jobs' starts. */
function referencePeaks(jobs: readonly RanJob[]): Array<{ partition: number; peak: number }> {
  const partitions = [...new Set(jobs.map((j) => j.partition))].sort((a, b) => a - b);
  return partitions.map((partition) => {
    const mine = jobs.filter((j) => j.partition === partition);
    let peak = 0;
    for (const at of mine) {
      const held = mine
        .filter((j) => j.start <= at.start && j.start + j.run > at.start)
        .reduce((sum, j) => sum + j.processors, 0);
      peak = Math.max(peak, held);
    }
    return { partition, peak };
  });
}

function ran(jobs: readonly RanJob[]): JobsRan {
  return {
    partition: jobs.map((j) => j.partition),
    start: jobs.map((j) => j.start),
    end: jobs.map((j) => j.start + j.run),
    processors: jobs.map((j) => j.processors),
  };
}

const job = (sizes: fc.Arbitrary<number>) =>
  fc.record({
    partition: fc.integer({ min: -1, max: 3 }),
    // Few distinct times, so that starts and ends often meet at one instant.
    start: fc.integer({ min: 0, max: 20 }),
    run: fc.integer({ min: 1, max: 10 }),
    processors: sizes,
  });

describe('partitionPeaks', () => {
  it('agrees with counting job by job, on jobs of mixed sizes', () => {
    fc.assert(
      fc.property(fc.array(job(fc.integer({ min: 1, max: 8 })), { minLength: 1, maxLength: 40 }), (jobs) => {
        expect(partitionPeaks(ran(jobs))).toEqual(referencePeaks(jobs));
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with counting job by job, on jobs all of one size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(job(fc.constant(0)), { minLength: 1, maxLength: 40 }),
        (size, jobs) => {
          const sized = jobs.map((j) => ({ ...j, processors: size }));
          expect(partitionPeaks(ran(sized))).toEqual(referencePeaks(sized));
        },
      ),
      { numRuns: 300 },
    );
  });
});
