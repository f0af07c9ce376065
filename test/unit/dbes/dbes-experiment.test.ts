// The dbes experiment (core/sim/experiments/dbes.ts) run with the malleability policies that exist on main as
// stand-ins for the paper's strategies: each run completes the ESP workload, the figures are read from the events,
// a strategy that is not registered is skipped with its reason, and the same seed gives the same figures.
import { describe, expect, it } from 'vitest';
import { DBES_DEFAULT_CONFIG, DBES_STRATEGIES, analyseDbes, dbesRunMatrix, runDbesCase, skippedStrategies, strategyUnavailable, type DbesRun } from '../../../core/sim/experiments/dbes.js';
import { ESP_MALLEABLE_TYPES, ESP_TABLE, espMinimumTime } from '../../../core/sim/workloads/esp.js';

describe('dbes experiment', () => {
  it('names the paper\'s six strategies in one list, and skips a name no policy has, saying why', () => {
    expect(DBES_STRATEGIES).toEqual(['rigid', 'esf', 'edf', 'ldf', 'ep', 'dbes']);
    expect(DBES_DEFAULT_CONFIG.strategies).toBe(DBES_STRATEGIES);
    expect(DBES_DEFAULT_CONFIG.reservationDepth).toBe(5);
    expect(strategyUnavailable('egs')).toBeUndefined();
    expect(strategyUnavailable('no-such-policy')).toMatch(/no malleability policy named "no-such-policy"/);
    expect(skippedStrategies(['egs', 'no-such-policy']).map((s) => s.strategy)).toEqual(['no-such-policy']);
    const matrix = dbesRunMatrix({ ...DBES_DEFAULT_CONFIG, seeds: 2, strategies: ['egs', 'no-such-policy'], percents: [10, 50] });
    // egs only: (10 %, 50 %, mixed) × seeds 1, 2
    expect(matrix).toHaveLength(6);
    expect(new Set(matrix.map((r) => r.strategy))).toEqual(new Set(['egs']));
  });

  it('completes all 230 jobs at 50 % malleable, expanding only malleable types, never more jobs than a type has', () => {
    const run = runDbesCase({ strategy: 'equipartition', scenario: 50, seed: 1 });
    expect(run.jobs).toBe(230);
    expect(run.completed).toBe(230);
    // no schedule beats the work over the machine at the static sizes by more than LeanMD's gains allow
    expect(run.completion_s).toBeGreaterThan(espMinimumTime() * 0.8);
    expect(run.utilization).toBeGreaterThan(0);
    expect(run.utilization).toBeLessThanOrEqual(1);
    const types = Object.keys(run.expanded);
    expect(types.length).toBeGreaterThan(0);
    for (const t of types) {
      expect(ESP_MALLEABLE_TYPES[50]).toContain(t);
      expect(run.expanded[t as 'F']!).toBeLessThanOrEqual(ESP_TABLE.find((x) => x.type === t)!.count);
    }
    expect(run.evolving_requests).toBe(0);
  });

  it('in the mixed scenario counts the 21 evolving jobs\' requests and grants, and the malleable jobs shrunk meanwhile', () => {
    const run = runDbesCase({ strategy: 'egs', scenario: 'mixed', seed: 1 });
    expect(run.completed).toBe(230);
    // each evolving job asks once, or twice when refused the first time
    expect(run.evolving_requests).toBeGreaterThanOrEqual(21);
    expect(run.evolving_requests).toBeLessThanOrEqual(42);
    expect(run.evolving_satisfied).toBeLessThanOrEqual(21);
    expect(run.evolving_satisfied).toBeGreaterThan(0);
    const { first, second, unknown } = run.shrunk_from_step;
    expect(first + second + unknown).toBe(run.shrunk_for_evolving);
  });

  it('gives the same figures for the same seed', () => {
    const a = runDbesCase({ strategy: 'fpsma', scenario: 30, seed: 2 });
    const b = runDbesCase({ strategy: 'fpsma', scenario: 30, seed: 2 });
    expect(b).toEqual(a);
  });

  it('analyses runs into the four figures, with the paper\'s observations unchecked where their strategies are missing', () => {
    const config = { ...DBES_DEFAULT_CONFIG, seeds: 1, strategies: ['egs', 'no-such-policy'], percents: [40, 50] as const };
    const runs: DbesRun[] = dbesRunMatrix({ ...config, percents: [...config.percents] }).map((spec) => runDbesCase(spec, config));
    const a = analyseDbes(runs, { ...config, percents: [...config.percents] });
    expect(a.strategies).toEqual(['egs']);
    expect(a.skipped.map((s) => s.strategy)).toEqual(['no-such-policy']);
    expect(a.fig4.map((p) => [p.malleable_percent, p.strategy])).toEqual([[40, 'egs'], [50, 'egs']]);
    expect(a.fig6).toHaveLength(2);
    // Figure 5: the five malleable types of 50 %, with their counts as the paper's horizontal lines
    expect(a.fig5.map((b) => [b.type, b.malleable])).toEqual([['F', 9], ['I', 24], ['J', 24], ['K', 15], ['L', 36]]);
    expect(a.fig7.map((r) => r.strategy)).toEqual(['egs']);
    const byId = new Map(a.observations.map((o) => [o.id, o]));
    expect(byId.get('fig4-dbes-best')!.holds).toBeNull();
    expect(byId.get('fig4-dbes-best')!.measured).toContain('dbes did not run');
    expect(typeof byId.get('fig4-50-slower-than-40')!.holds).toBe('boolean');
    expect(a.report).toContain('## Strategies not run');
    expect(a.report).toContain('no-such-policy');
  });
});
