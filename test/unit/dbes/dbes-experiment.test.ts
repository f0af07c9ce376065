// The dbes experiment (core/sim/experiments/dbes.ts): each run completes the ESP workload, the figures are read from
// the strategies' events (grow.answered's step, shrink.requested's phase and fromStep), only the options the
// strategies read are set, a strategy that is not registered is skipped with its reason, and the same seed gives the
// same figures.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import {
  DBES_DEFAULT_CONFIG,
  DBES_STRATEGIES,
  EventTally,
  analyseDbes,
  dbesRunMatrix,
  runDbesCase,
  schedulerOptionsFor,
  skippedStrategies,
  strategyUnavailable,
  type DbesRun,
} from '../../../core/sim/experiments/dbes.js';
import { dbesObservations } from '../../../core/sim/experiments/dbes-report.js';
import {
  ESP_MALLEABLE_TYPES,
  ESP_TABLE,
  espGrid,
  espMinimumTime,
  espWorkload,
} from '../../../core/sim/workloads/esp.js';
import { SimWorld } from '../../../core/sim/world.js';

describe('dbes experiment', () => {
  it("names the paper's six strategies in one list, and skips a name no policy has, saying why", () => {
    expect(DBES_STRATEGIES).toEqual(['rigid', 'esf', 'edf', 'ldf', 'ep', 'dbes']);
    expect(DBES_DEFAULT_CONFIG.strategies).toBe(DBES_STRATEGIES);
    expect(DBES_DEFAULT_CONFIG.reservationDepth).toBe(5);
    expect(strategyUnavailable('egs')).toBeUndefined();
    expect(strategyUnavailable('no-such-policy')).toMatch(/no malleability policy named "no-such-policy"/);
    expect(skippedStrategies(['egs', 'no-such-policy']).map((s) => s.strategy)).toEqual(['no-such-policy']);
    const matrix = dbesRunMatrix({
      ...DBES_DEFAULT_CONFIG,
      seeds: 2,
      strategies: ['egs', 'no-such-policy'],
      percents: [10, 50],
    });
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

  it("in the mixed scenario under DBES counts the 21 evolving jobs' requests and grants, and every job shrunk for them by its step", () => {
    const run = runDbesCase({ strategy: 'dbes', scenario: 'mixed', seed: 1 });
    expect(run.completed).toBe(230);
    // each evolving job asks once, or again after a refusal
    expect(run.evolving_requests).toBeGreaterThanOrEqual(21);
    expect(run.evolving_satisfied).toBeLessThanOrEqual(21);
    expect(run.evolving_satisfied).toBeGreaterThan(0);
    expect(run.shrunk_for_evolving).toBeGreaterThan(0);
    // DBES says the step of every expansion it takes back: none is unknown
    const { first, second, unknown } = run.shrunk_from_step;
    expect(unknown).toBe(0);
    expect(first + second).toBe(run.shrunk_for_evolving);
    expect(Object.keys(run.expanded).sort()).toEqual(['I', 'J', 'K', 'L']);
  });

  it("counts expansions from grow.answered (accepted > 0), and shrinks for evolving requests from shrink.requested's phase and fromStep", () => {
    const tally = new EventTally(new Set(['F-1']));
    const events: SchedulerEvent[] = [
      // I-1 grown in step 1 for J-2; I-2 offered but accepted nothing; I-3's job.grown alone does not say it was expanded
      { t: 0, type: 'grow.answered', jobId: 'I-1', offerId: 1, accepted: 4, step: 1, forJob: 'J-2' },
      { t: 0, type: 'grow.answered', jobId: 'I-2', offerId: 2, accepted: 0, step: 2 },
      { t: 0, type: 'job.grown', jobId: 'I-3', cluster: 'c', processors: 4, size: 12 },
      { t: 0, type: 'grow.answered', jobId: 'L-1', offerId: 3, accepted: 2, step: 2 },
      { t: 0, type: 'evolve.requested', jobId: 'F-1', cluster: 'c', processors: 4, announceS: 0 },
      // I-1 shrunk for F-1, taking back its step-1 expansion, then again from step 2: counted once, under step 1
      {
        t: 0,
        type: 'shrink.requested',
        jobId: 'I-1',
        cluster: 'c',
        offerId: 4,
        processors: 2,
        mandatory: true,
        phase: 'evolving',
        forJob: 'F-1',
        fromStep: 1,
        fromFor: 'J-2',
      },
      {
        t: 0,
        type: 'shrink.requested',
        jobId: 'I-1',
        cluster: 'c',
        offerId: 5,
        processors: 2,
        mandatory: true,
        phase: 'evolving',
        forJob: 'F-1',
        fromStep: 2,
      },
      // L-1 shrunk to start a StartLater job while F-1's request waits: not for the evolving job
      {
        t: 0,
        type: 'shrink.requested',
        jobId: 'L-1',
        cluster: 'c',
        offerId: 6,
        processors: 2,
        mandatory: true,
        phase: 'startLater',
        forJob: 'J-2',
        fromStep: 2,
      },
      { t: 0, type: 'job.shrunk', jobId: 'L-1', cluster: 'c', processors: 2, size: 8, voluntary: false },
      {
        t: 0,
        type: 'shrink.requested',
        jobId: 'K-1',
        cluster: 'c',
        offerId: 7,
        processors: 1,
        mandatory: true,
        phase: 'evolving',
        forJob: 'F-1',
        fromStep: 2,
      },
    ];
    for (const e of events) tally.add(e);
    expect(tally.expandedByType()).toEqual({ I: 1, L: 1 });
    expect([...tally.shrunkForEvolving.keys()]).toEqual(['I-1', 'K-1']);
    expect(tally.shrunkFromStep()).toEqual({ first: 1, second: 1, unknown: 0 });
    expect(tally.shrinks).toEqual({ evolving: 3, startLater: 1, steal: 0 });
  });

  it("sets only the options the paper's strategies read: the policy, ReservationDepth 5 and submission order, which the run keeps", () => {
    const options = schedulerOptionsFor('dbes', DBES_DEFAULT_CONFIG);
    expect(options).toEqual({ policy: 'dbes', reservationDepth: 5, priority: 'submit' });
    for (const name of DBES_STRATEGIES)
      expect(schedulerOptionsFor(name, DBES_DEFAULT_CONFIG), name).not.toHaveProperty('approach');
    // a policy without an iteration of its own runs under PWA with backfilling
    expect(schedulerOptionsFor('egs', DBES_DEFAULT_CONFIG)).toMatchObject({
      approach: 'pwa',
      queue: 'cbf',
      reservationDepth: 5,
    });
    const world = new SimWorld({
      grid: espGrid(),
      jobs: espWorkload({ malleable: ESP_MALLEABLE_TYPES[100], evolving: [] }, 1),
      seed: 1,
      background: false,
      pollIntervalS: 10,
      scheduler: options,
    });
    expect(world.scheduler.reservationDepth).toBe(5);
    expect(world.scheduler.priority).toBe('submit');
  });

  it('gives the same figures for the same seed', () => {
    const a = runDbesCase({ strategy: 'fpsma', scenario: 30, seed: 2 });
    const b = runDbesCase({ strategy: 'fpsma', scenario: 30, seed: 2 });
    expect(b).toEqual(a);
  });

  it("analyses runs into the four figures, with the paper's observations unchecked where their strategies are missing", () => {
    const config = {
      ...DBES_DEFAULT_CONFIG,
      seeds: 1,
      strategies: ['egs', 'no-such-policy'],
      percents: [40, 50] as const,
    };
    const runs: DbesRun[] = dbesRunMatrix({ ...config, percents: [...config.percents] }).map((spec) =>
      runDbesCase(spec, config),
    );
    const a = analyseDbes(runs, { ...config, percents: [...config.percents] });
    expect(a.strategies).toEqual(['egs']);
    expect(a.skipped.map((s) => s.strategy)).toEqual(['no-such-policy']);
    expect(a.fig4.map((p) => [p.malleable_percent, p.strategy])).toEqual([
      [40, 'egs'],
      [50, 'egs'],
    ]);
    expect(a.fig6).toHaveLength(2);
    // Figure 5: the five malleable types of 50 %, with their counts as the paper's horizontal lines
    expect(a.fig5.map((b) => [b.type, b.malleable])).toEqual([
      ['F', 9],
      ['I', 24],
      ['J', 24],
      ['K', 15],
      ['L', 36],
    ]);
    expect(a.fig7.map((r) => r.strategy)).toEqual(['egs']);
    const byId = new Map(a.observations.map((o) => [o.id, o]));
    expect(byId.get('fig4-dbes-best')!.holds).toBeNull();
    expect(byId.get('fig4-dbes-best')!.measured).toContain('dbes did not run');
    expect(typeof byId.get('fig4-50-slower-than-40')!.holds).toBe('boolean');
    expect(a.report).toContain('## Strategies not run');
    expect(a.report).toContain('no-such-policy');
  });

  it('checks Table II\'s "about as many shrunk" over the strategies Table II lists (rigid, which shrinks nothing, is not one)', () => {
    const row = (strategy: string, satisfied: number, shrunk: number) => ({
      strategy,
      completion_s: 1,
      evolving_satisfied: satisfied,
      shrunk_for_evolving: shrunk,
      shrunk_first_step: 0,
      shrunk_second_step: shrunk,
      shrunk_step_unknown: 0,
      evolving_requests: 21,
    });
    const fig7 = [row('rigid', 8, 0), row('esf', 13, 9), row('edf', 17, 10), row('dbes', 11, 9)];
    const o = dbesObservations({
      fig4: [],
      fig5: [],
      fig6: [],
      fig7,
      strategies: ['rigid', 'esf', 'edf', 'dbes'],
    }).find((x) => x.id === 'table2-edf-esf')!;
    // the paper's own figures: shrunk 9, 10, 9 (spread 1) with EDF and ESF satisfying more than DBES
    expect(o.figures.shrunk_spread).toBe(1);
    expect(o.holds).toBe(true);
  });

  it("says in the report why, with the measured bound on the gain over rigid and the Z jobs' waits", () => {
    const config = { ...DBES_DEFAULT_CONFIG, seeds: 1, strategies: ['rigid', 'dbes'], percents: [100] as const };
    const runs = dbesRunMatrix({ ...config, percents: [...config.percents] }).map((spec) => runDbesCase(spec, config));
    for (const r of runs) expect(r.z_wait_s).toBeGreaterThan(0);
    const a = analyseDbes(runs, { ...config, percents: [...config.percents] });
    expect(a.report).toContain('## Why, where an observation does not hold');
    expect(a.report).toMatch(/no strategy can have more than \d+\.\d % more throughput than rigid here/);
    expect(a.report).toMatch(/At 100 % they wait rigid \d+ s, dbes \d+ s on average/);
    expect(a.report).toContain('ahead of every waiting job');
  });
});
