// The fpe experiment in the core: the paper's test shape, tests independent of how many are run, the same tables for
// the same configuration (no clock given: the scheduling time is then NaN and everything else a pure function).
import { describe, expect, it } from 'vitest';
import { fpeTest } from '../../../core/fpe/workload.js';
import { FPE_DEFAULT_CONFIG, runFpeExperiment } from '../../../core/sim/experiments/fpe.js';

describe('fpe experiment', () => {
  it("draws the paper's tests: 15-20 applications, 1-10 steps of 500-3600 s on 1-75 nodes, in whole seconds", () => {
    for (let i = 0; i < 50; i++) {
      const test = fpeTest(1, i);
      expect(test.length).toBeGreaterThanOrEqual(15);
      expect(test.length).toBeLessThanOrEqual(20);
      for (const ep of test) {
        expect(ep.length).toBeGreaterThanOrEqual(1);
        expect(ep.length).toBeLessThanOrEqual(10);
        for (const s of ep) {
          expect(Number.isInteger(s.duration) && s.duration >= 500 && s.duration <= 3600).toBe(true);
          expect(Number.isInteger(s.nodes) && s.nodes >= 1 && s.nodes <= 75).toBe(true);
        }
      }
    }
    expect(fpeTest(1, 7)).toEqual(fpeTest(1, 7));
    expect(fpeTest(2, 7)).not.toEqual(fpeTest(1, 7));
  });

  it('gives the same tables for the same configuration, and a test the same figures whatever the number of tests', () => {
    const config = { ...FPE_DEFAULT_CONFIG, tests: 8, seed: 5 };
    const a = runFpeExperiment(config);
    const b = runFpeExperiment(config);
    expect(b.table1).toEqual(a.table1);
    expect(b.table2).toEqual(a.table2);
    expect(b.report).toBe(a.report);
    expect(a.table1.every((r) => Number.isNaN(r.schedule_ms.avg))).toBe(true);
    const firsts: unknown[] = [];
    runFpeExperiment({ ...config, tests: 3 }, undefined, (i, o) => firsts.push([i, o]));
    const again: unknown[] = [];
    runFpeExperiment(config, undefined, (i, o) => i < 3 && again.push([i, o]));
    expect(again).toEqual(firsts);
  });

  it('refuses a cluster smaller than the largest step and no tests', () => {
    expect(() => runFpeExperiment({ ...FPE_DEFAULT_CONFIG, nodes: 74, tests: 1 })).toThrow(/nodes/);
    expect(() => runFpeExperiment({ ...FPE_DEFAULT_CONFIG, tests: 0 })).toThrow(/tests/);
  });
});
