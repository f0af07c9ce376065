// The simulated workers (preemptive EDF, measured misses) and one run of the head on them.
import { describe, expect, it } from 'vitest';
import { EdfWorker, type Completion, type Instance } from '../../../core/sim/interactive/worker.js';
import { runInteractive } from '../../../core/sim/interactive/simulation.js';
import type { GeneratedJob } from '../../../core/sim/interactive/workload.js';

let seq = 0;
const instance = (
  jobId: string,
  releaseMs: number,
  deadlineAtMs: number,
  demandMs: number,
  costMs = demandMs,
): Instance => ({
  jobId,
  taskIndex: 0,
  generation: 1,
  releaseMs,
  deadlineAtMs,
  costMs,
  demandMs,
  seq: seq++,
  executedMs: 0,
});

describe('EdfWorker', () => {
  it('preempts for an earlier deadline and measures completions, misses and idle instants', () => {
    const w = new EdfWorker(0);
    const done: Completion[] = [];
    const idle: number[] = [];
    w.release(instance('a', 0, 10, 5));
    w.advance(
      2,
      (c) => done.push(c),
      (t) => idle.push(t),
    );
    // b arrives at 2 with deadline 4: it runs 2..4, a resumes 4..7
    w.release(instance('b', 2, 4, 2));
    expect(w.nextCompletionMs()).toBe(4);
    w.advance(
      20,
      (c) => done.push(c),
      (t) => idle.push(t),
    );
    expect(done.map((c) => [c.instance.jobId, c.finishMs, c.missed])).toEqual([
      ['b', 4, false],
      ['a', 7, false],
    ]);
    expect(idle).toEqual([7]);
    expect(w.busyMs).toBe(7);
  });

  it('an instance running beyond its C marks the node until it is idle', () => {
    const w = new EdfWorker(0);
    const done: Completion[] = [];
    w.release(instance('a', 0, 4, 5, 3));
    w.release(instance('b', 0, 6, 2));
    w.advance(
      10,
      (c) => done.push(c),
      () => undefined,
    );
    // a overruns (5 > C 3) and misses at 5 > 4; b then misses at 7 > 6, on a node marked by the overrun
    expect(done.map((c) => [c.instance.jobId, c.finishMs, c.missed, c.afterOverrun])).toEqual([
      ['a', 5, true, true],
      ['b', 7, true, true],
    ]);
    expect(w.tainted).toBe(false);
  });
});

const job = (id: string, arrivalMs: number, lifetimeMs: number): GeneratedJob => ({
  id,
  arrivalMs,
  periodMs: 10,
  deadlineMs: 5,
  dataUnits: 5,
  lifetimeMs,
  growthAtMs: undefined,
  growth: 1,
  iterationSeed: 1,
});

describe('runInteractive', () => {
  it("a job arriving while a departed job's last instance still runs is refused until the node has been idle", () => {
    // C = 5 within D = 5 (Cps 1, no transmission cost). a releases at 0 and leaves at 1 with its instance running
    // until 5; b at 1 would need 1..6 for a deadline of 6: refused; c at 6, after the node went idle at 5: admitted.
    const r = runInteractive({
      nodes: 1,
      cost: { cmsMsPerUnit: 0, cpsMsPerUnit: 1 },
      sharing: 'interleaved',
      placement: 'first-fit',
      horizonMs: 100,
      dataFractionMin: 1,
      jobs: [job('a', 0, 1), job('b', 1, 50), job('c', 6, 50)],
    });
    expect(r).toMatchObject({ arrived: 3, admitted: 2, misses: 0, refused: { 'no-placement': 1 } });
    expect(r.refusalSamples).toEqual([
      'b: task 1 of 1 (C 5 ms, T 10 ms, D 5 ms) fits on no node: 1 node processor demand test fails',
    ]);
  });

  it('measures utilisation as executed time: exclusive and interleaved alike on a light load', () => {
    const jobs = [job('a', 0, 1000)];
    for (const sharing of ['exclusive', 'interleaved'] as const) {
      const r = runInteractive({
        nodes: 2,
        cost: { cmsMsPerUnit: 0, cpsMsPerUnit: 1 },
        sharing,
        placement: 'first-fit',
        horizonMs: 1000,
        dataFractionMin: 1,
        jobs,
      });
      // 100 iterations of 5 ms on one node of two over 1000 ms: 25 %
      expect(r).toMatchObject({ admitted: 1, iterations: 100, instances: 100, misses: 0, utilizationPercent: 25 });
    }
  });
});

describe('workload and determinism', () => {
  it('the same seed gives the same jobs and the same run', async () => {
    const { generateJobs, arrivalRateForLoad, INTERACTIVE_WORKLOAD_DEFAULTS } =
      await import('../../../core/sim/interactive/workload.js');
    const cost = { cmsMsPerUnit: 0.05, cpsMsPerUnit: 5 };
    const wl = { ...INTERACTIVE_WORKLOAD_DEFAULTS, horizonMs: 60_000, overrunShare: 0.5 };
    const rate = arrivalRateForLoad(1, wl, cost, 16);
    // twice the load, twice the arrival rate
    expect(arrivalRateForLoad(2, wl, cost, 16)).toBeCloseTo(2 * rate, 12);
    const jobs = generateJobs(wl, cost, rate, 42);
    expect(generateJobs(wl, cost, rate, 42)).toEqual(jobs);
    expect(generateJobs(wl, cost, rate, 43)).not.toEqual(jobs);
    for (const j of jobs) {
      expect(j.deadlineMs).toBeLessThanOrEqual(j.periodMs);
      expect(wl.periodsMs).toContain(j.periodMs);
    }
    const config = {
      nodes: 16,
      cost,
      sharing: 'interleaved' as const,
      placement: 'best-fit' as const,
      widen: 2,
      horizonMs: 60_000,
      jobs,
      dataFractionMin: 0.6,
    };
    const first = runInteractive(config);
    expect(runInteractive(config)).toEqual(first);
    expect(first.missesWithoutOverrun).toBe(0);
  });
});
