// The reference simulator (test/support/reference-backfill.ts) on schedules computed by hand: it is the check on
// Concertina's queue policies, so it is checked first.
import { describe, expect, it } from 'vitest';
import {
  readSwf,
  simulate,
  summarize,
  type ReferenceJob,
  type ReferencePolicy,
} from '../support/reference-backfill.js';

const job = (id: string, submit: number, processors: number, runtime: number, walltime = runtime): ReferenceJob => ({
  id,
  submit,
  processors,
  runtime,
  walltime,
});
const starts = (processors: number, jobs: ReferenceJob[], policy: ReferencePolicy) =>
  Object.fromEntries(simulate(jobs, processors, policy).jobs.map((j) => [j.id, j.start]));

describe('reference simulator on hand-computed schedules', () => {
  // a holds 2 of 4 until 100; b (all 4, at 1) waits for it; c (2 for 10 s, at 2) fits now and ends by 100.
  const a = job('a', 0, 2, 100);
  const b = job('b', 1, 4, 10);
  const c = job('c', 2, 2, 10);

  it('FCFS blocks c behind b (c at 110); EASY and CBF backfill it (2..12, before b at 100)', () => {
    expect(starts(4, [a, b, c], 'fcfs')).toEqual({ a: 0, b: 100, c: 110 });
    expect(starts(4, [a, b, c], 'easy')).toEqual({ a: 0, b: 100, c: 2 });
    expect(starts(4, [a, b, c], 'cbf')).toEqual({ a: 0, b: 100, c: 2 });
  });

  it("a job that would end past the head's shadow time with no extra processor waits (EASY, CBF); one ending exactly at it starts", () => {
    const long = job('c', 2, 2, 99); // 2 + 99 = 101 > 100
    expect(starts(4, [a, b, long], 'easy')).toEqual({ a: 0, b: 100, c: 110 });
    expect(starts(4, [a, b, long], 'cbf')).toEqual({ a: 0, b: 100, c: 110 });
    const exact = job('c', 2, 2, 98); // 2 + 98 = 100: the shadow time itself
    expect(starts(4, [a, b, exact], 'easy')).toEqual({ a: 0, b: 100, c: 2 });
    expect(starts(4, [a, b, exact], 'cbf')).toEqual({ a: 0, b: 100, c: 2 });
  });

  it('EASY lets a long job take the extra processors and delay the second waiting job; CBF does not', () => {
    // a: 2 procs [0, 10). b (3, at 1): head, shadow 10, extra 4 - 3 = 1. c (4 for 10 s, at 2) waits behind b.
    // d (1 for 100 s, at 3): EASY starts it on the extra processor ([3, 103)), so c, needing all 4, waits for it: 103.
    // CBF: c is reserved [20, 30) behind b's [10, 20); d fits nowhere before 30 over 100 s: d [30, 130).
    const jobs = [job('a', 0, 2, 10), job('b', 1, 3, 10), job('c', 2, 4, 10), job('d', 3, 1, 100)];
    expect(starts(4, jobs, 'easy')).toEqual({ a: 0, b: 10, c: 103, d: 3 });
    expect(starts(4, jobs, 'cbf')).toEqual({ a: 0, b: 10, c: 20, d: 30 });
    expect(starts(4, jobs, 'fcfs')).toEqual({ a: 0, b: 10, c: 20, d: 30 });
  });

  it('EASY: a job that takes the extra processors uses them up', () => {
    // a: 2 procs [0, 10). b (3, at 1): head, shadow 10, extra 4 - 3 = 1. c and d (1 for 50 s each) arrive together
    // at 2, so one pass sees both: c ends past the shadow time on the extra processor: starts, extra 0; d: 1 free
    // now but no extra left: waits. At 10 b starts (a's 2 + the 1 free), at 20 b ends and d starts. Had d started
    // at 2, b would have found 2 of its 3.
    const jobs = [job('a', 0, 2, 10), job('b', 1, 3, 10), job('c', 2, 1, 50), job('d', 2, 1, 50)];
    expect(starts(4, jobs, 'easy')).toEqual({ a: 0, b: 10, c: 2, d: 20 });
  });

  it('EASY: the extra processors count every job expected to end at the shadow time', () => {
    // 5 procs: x and y (2 each) both end at 10, 1 free. h (3, at 1): shadow 10 (x's end), extra 1 + 2 + 2 - 3 = 2 with
    // y, which ends then too. e (1 for 100 s, at 2) fits the extra: starts at 2 (counting only x, it would wait to 10).
    const jobs = [job('x', 0, 2, 10), job('y', 0, 2, 10), job('h', 1, 3, 10), job('e', 2, 1, 100)];
    expect(starts(5, jobs, 'easy')).toEqual({ x: 0, y: 0, h: 10, e: 2 });
  });

  it('CBF compresses: a job ending before its requested time moves every reservation earlier, in queue order', () => {
    // a: all 4, runs 5 of its requested 10. b (4 for 10, at 1) reserved [10, 20), c (2 for 10, at 2) [20, 30).
    // a ends at 5: b moves to 5 (starts), c to 15; b runs its 10 s: c starts at 15.
    const jobs = [job('a', 0, 4, 5, 10), job('b', 1, 4, 10), job('c', 2, 2, 10)];
    expect(starts(4, jobs, 'cbf')).toEqual({ a: 0, b: 5, c: 15 });
    // Without the early end, the reservations hold.
    expect(starts(4, [job('a', 0, 4, 10), job('b', 1, 4, 10), job('c', 2, 2, 10)], 'cbf')).toEqual({
      a: 0,
      b: 10,
      c: 20,
    });
  });

  it('CBF compresses at every end, early or not: a slot freed by a later job in one compression is taken at the next end', () => {
    // 8 procs. j0 (1, runs 23 of 25) and j1 (all 8, 1 s) at 0: j0 starts, j1 is reserved at 25. At 5, j2 (4, killed at
    // its 19 s) starts [5, 24); j3 (4, 1 s) is reserved [24, 25). At 23 j0 ends early: in queue order j1 still fits only
    // at 25 (j2 until 24, j3 over [24, 25)), then j3 fits now and starts. At 24 j2 is killed and j3 ends, both when
    // planned: compressing again moves j1 to 24. Compressing only after early ends would leave j1 at 25, when nothing
    // happens (j0's planned end).
    const jobs = [job('j0', 0, 1, 23, 25), job('j1', 0, 8, 1), job('j2', 5, 4, 23, 19), job('j3', 5, 4, 1)];
    expect(starts(8, jobs, 'cbf')).toEqual({ j0: 0, j1: 24, j2: 5, j3: 23 });
  });

  it('decisions read the requested time: a job that would fit by its run time but not by its requested time waits', () => {
    // a: 2 procs, runs 100 (requested 100). b (4, at 1) head at 100. c (2, at 2) runs 10 but asked for 200: waits.
    const jobs = [job('a', 0, 2, 100), job('b', 1, 4, 10), job('c', 2, 2, 10, 200)];
    expect(starts(4, jobs, 'easy')).toEqual({ a: 0, b: 100, c: 110 });
    expect(starts(4, jobs, 'cbf')).toEqual({ a: 0, b: 100, c: 110 });
  });

  it('a job past its requested time is killed then, and the next starts at that instant', () => {
    const run = simulate([job('a', 0, 4, 100, 50), job('b', 1, 4, 10)], 4, 'fcfs');
    expect(run.jobs).toEqual([
      { id: 'a', submit: 0, start: 0, end: 50, processors: 4, killed: true },
      { id: 'b', submit: 1, start: 50, end: 60, processors: 4, killed: false },
    ]);
  });

  it('equal submit times keep the trace order; a job ending at an instant frees its processors for an arrival then', () => {
    const jobs = [job('a', 0, 4, 10), job('q', 10, 3, 10), job('p', 10, 2, 10)];
    // At 10 a ends and q, p arrive: q (first in the trace) starts, p waits behind it (FCFS) until 20.
    expect(starts(4, jobs, 'fcfs')).toEqual({ a: 0, q: 10, p: 20 });
    expect(starts(4, [jobs[0]!, jobs[2]!, jobs[1]!], 'fcfs')).toEqual({ a: 0, p: 10, q: 20 });
  });

  it('a job wider than the machine is rejected and blocks nobody', () => {
    const run = simulate([job('w', 0, 5, 10), job('a', 1, 4, 10)], 4, 'fcfs');
    expect(run.rejected).toEqual(['w']);
    expect(run.jobs.map((j) => [j.id, j.start])).toEqual([['a', 1]]);
  });

  it('never holds more processors than the machine has (FCFS, EASY, CBF on a random workload)', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const jobs = Array.from({ length: 300 }, (_, i) => {
      const walltime = 1 + Math.floor(rand() * 100);
      return job(
        `j${i}`,
        Math.floor(i * 3 + rand() * 5),
        1 + Math.floor(rand() * 8),
        Math.max(1, Math.floor(walltime * (0.2 + rand()))),
        walltime,
      );
    });
    for (const policy of ['fcfs', 'easy', 'cbf'] as const) {
      const run = simulate(jobs, 8, policy);
      expect(run.jobs).toHaveLength(300);
      const edges = run.jobs
        .flatMap(
          (j) =>
            [
              [j.start, j.processors],
              [j.end, -j.processors],
            ] as const,
        )
        .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      let used = 0;
      for (const [, n] of edges) expect((used += n)).toBeLessThanOrEqual(8);
      for (const j of run.jobs) expect(j.start).toBeGreaterThanOrEqual(j.submit);
    }
  });
});

describe('reference SWF reader and summary', () => {
  const swf = [
    '; MaxProcs: 8',
    '1 100 -1 50 2 -1 -1 2 60 -1 1 -1 -1 -1 -1 -1 -1 -1',
    '2 110 -1 30 -1 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1', // allocated unknown: requested 4; requested time unknown: 30
    '3 120 -1 0 2 -1 -1 2 60 -1 0 -1 -1 -1 -1 -1 -1 -1', // no run time: left out
    '4 130 -1 10 -1 -1 -1 -1 60 -1 1 -1 -1 -1 -1 -1 -1 -1', // no processor count: left out
    '5 140 -1 80 1 -1 -1 1 40 -1 1 -1 -1 -1 -1 -1 -1 -1', // runs past its requested 40
  ].join('\n');

  it('keeps usable records, relative to the first submission; the requested time falls back to the run time', () => {
    expect(readSwf(swf)).toEqual([
      { id: 'swf-1', submit: 0, runtime: 50, walltime: 60, processors: 2 },
      { id: 'swf-2', submit: 10, runtime: 30, walltime: 30, processors: 4 },
      { id: 'swf-5', submit: 40, runtime: 80, walltime: 40, processors: 1 },
    ]);
    expect(readSwf(swf, 2).map((j) => j.id)).toEqual(['swf-1', 'swf-2']);
  });

  it('summarizes wait, bounded slowdown (τ = 10 s) and makespan, over all jobs and over the jobs not killed', () => {
    // On 4 processors, FCFS: swf-1 [0, 50); swf-2 needs 4: [50, 80), waits 40; swf-5 killed at 40 s: [80, 120), waits 40.
    const s = summarize(simulate(readSwf(swf), 4, 'fcfs'));
    expect(s).toMatchObject({ jobs: 3, killed: 1, makespanS: 120 });
    expect(s.meanWaitS).toBeCloseTo(80 / 3);
    // Slowdowns: 1, (40 + 30) / 30, (40 + 40) / 40 = 2.
    expect(s.meanBoundedSlowdown).toBeCloseTo((1 + 70 / 30 + 2) / 3);
    expect(s.completedMeanWaitS).toBeCloseTo(20);
    expect(s.completedMeanBoundedSlowdown).toBeCloseTo((1 + 70 / 30) / 2);
  });
});
