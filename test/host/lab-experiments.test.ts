// The Lab's experiments by name (electron/lab/registry.ts): each one the command line runs is offered with its
// parameters (lab.experiments); the CooRMv2 experiment runs in the worker with the figures of the same spec run
// in-process (and of the command line's configuration); its parameters are refused at their field; a result stored
// before charts were one list still reads back.
import { describe, expect, it } from 'vitest';
import { COORM_DEFAULT_CONFIG, runCoormExperiment } from '../../core/sim/experiments/coorm.js';
import { runKoalaExperiment } from '../../core/sim/experiments/koala.js';
import { coormConfigFromFlags } from '../../electron/cli/experiment-coorm.js';
import { computeLab } from '../../electron/lab/compute.js';
import { coormConfigOf } from '../../electron/lab/experiments/coorm.js';
import type { LabSpec } from '../../electron/lab/registry.js';
import { labResultSchema } from '../../electron/lab/schemas.js';
import { ended, labHosts, reached } from '../support/lab-host.js';
import { MAX_PROCESSORS } from '../../core/model/schemas.js';
import { TASK_PLACEMENTS } from '../../core/interactive/placement/index.js';
import { FPE_DEFAULT_CONFIG, FPE_LIMITS, runFpeExperiment } from '../../core/sim/experiments/fpe.js';
import { PAPER_TABLE1, PAPER_TABLE2, cell, paperCell } from '../../core/sim/experiments/fpe-report.js';
import { INTERACTIVE_DEFAULT_CONFIG, runInteractiveExperiment } from '../../core/sim/experiments/interactive.js';
import { FPE_VARIANTS } from '../../core/fpe/registry.js';
import { interactiveConfigFromFlags } from '../../electron/cli/experiment-interactive.js';
import { fpeConfigOf } from '../../electron/lab/experiments/fpe.js';
import { interactiveConfigOf } from '../../electron/lab/experiments/interactive.js';

const newHost = labHosts();

/** A CooRMv2 experiment small enough for a test: 1 seed, 40 AMR steps, two points per figure. */
const smallCoorm: LabSpec = {
  kind: 'coorm',
  seeds: 1,
  steps: 40,
  factors: [1, 0.5],
  intervals: [0, 300],
  twoPsaIntervals: [0, 300],
};

describe('lab experiments', () => {
  it('offers every experiment of the command line, each with its parameters', () => {
    const host = newHost();
    const answer = host.call('lab.experiments', {});
    if (!answer.ok) throw new Error('lab.experiments failed');
    const byName = Object.fromEntries(answer.value.experiments.map((e) => [e.name, e]));
    expect(Object.keys(byName)).toEqual(['simulate', 'koala', 'coorm', 'fpe', 'interactive', 'dbes']);
    // `concertina experiment coorm --seeds --steps --factors --intervals --two-psa-intervals`.
    expect(byName.coorm!.params.map((p) => [p.name, p.type, p.required])).toEqual([
      ['seeds', 'whole', true],
      ['steps', 'whole', false],
      ['factors', 'list', false],
      ['intervals', 'list', false],
      ['twoPsaIntervals', 'list', false],
    ]);
    // `concertina experiment koala --seeds --background-load --poll --pra-background --pwa-background --threshold
    // --threshold-scope --adapt-s --launch-delay-s --growth-at-poll`.
    expect(byName.koala!.params.map((p) => p.name)).toEqual([
      'seeds',
      'backgroundLoad',
      'poll',
      'praBackground',
      'pwaBackground',
      'threshold',
      'thresholdScope',
      'adaptS',
      'launchDelayS',
      'growthAtPoll',
    ]);
    expect(byName.coorm!.params[0]!.initial).toBe(COORM_DEFAULT_CONFIG.seeds);
    // `concertina experiment fpe --tests --seed --nodes`, from the core's defaults and bounds.
    expect(
      byName.fpe!.params.map((p) => [p.name, p.type, p.required, p.initial ?? p.placeholder, p.min, p.max]),
    ).toEqual([
      ['tests', 'whole', true, FPE_DEFAULT_CONFIG.tests, 1, FPE_LIMITS.maxTests],
      ['seed', 'whole', false, String(FPE_DEFAULT_CONFIG.seed), 0, 2 ** 32 - 1],
      ['nodes', 'whole', false, String(FPE_DEFAULT_CONFIG.nodes), FPE_LIMITS.minNodes, MAX_PROCESSORS],
    ]);
    // `concertina experiment interactive --seeds --loads --minutes --overrun-share`, and the sweep's placement.
    expect(byName.interactive!.params.map((p) => [p.name, p.type, p.required, p.initial ?? p.placeholder])).toEqual([
      ['seeds', 'whole', true, INTERACTIVE_DEFAULT_CONFIG.seeds],
      ['loads', 'list', false, INTERACTIVE_DEFAULT_CONFIG.loads.join(', ')],
      ['minutes', 'whole', false, String(INTERACTIVE_DEFAULT_CONFIG.horizonMs / 60_000)],
      ['overrunShare', 'number', false, String(INTERACTIVE_DEFAULT_CONFIG.overrunShare)],
      ['placement', 'choice', false, INTERACTIVE_DEFAULT_CONFIG.placement],
    ]);
    expect(byName.interactive!.params.find((p) => p.name === 'placement')!.options).toEqual([...TASK_PLACEMENTS]);
  });

  it('runs the same configuration as the command line with the same flags', () => {
    expect(coormConfigOf({ kind: 'coorm', seeds: 2, steps: 40, factors: [2, 0.5], intervals: [300, 0] })).toEqual(
      coormConfigFromFlags({ seeds: 2, steps: 40, factors: '0.5,2', intervals: '0,300' }),
    );
    expect(coormConfigOf({ kind: 'coorm', seeds: 3 })).toEqual(COORM_DEFAULT_CONFIG);
    expect(
      interactiveConfigOf({ kind: 'interactive', seeds: 2, loads: [1, 0.5, 1], minutes: 5, overrunShare: 0.3 }),
    ).toEqual(interactiveConfigFromFlags({ seeds: 2, loads: '0.5,1', minutes: 5, overrunShare: '0.3' }));
    expect(interactiveConfigOf({ kind: 'interactive', seeds: INTERACTIVE_DEFAULT_CONFIG.seeds })).toEqual(
      INTERACTIVE_DEFAULT_CONFIG,
    );
    expect(fpeConfigOf({ kind: 'fpe', tests: FPE_DEFAULT_CONFIG.tests })).toEqual(FPE_DEFAULT_CONFIG);
    expect(fpeConfigOf({ kind: 'fpe', tests: 5, seed: 7, nodes: 120 })).toEqual({ tests: 5, seed: 7, nodes: 120 });
  });

  it('runs the CooRMv2 experiment in the worker, with progress, to the figures computed in-process', async () => {
    const host = newHost();
    const progress: number[] = [];
    const started = host.call('lab.start', smallCoorm);
    if (!started.ok) throw new Error(JSON.stringify(started.errors));
    const { runId } = started.value;
    host.lab.subscribe((info) => {
      if (info.runId === runId) progress.push(info.runsDone);
    });
    const info = await ended(host.lab, runId);
    // Figure 9: 2 factors × 2 modes; Figure 10: 2 intervals; Figure 11: 2 intervals × 2 sharings.
    expect(info).toMatchObject({
      status: 'done',
      runsDone: 10,
      runsTotal: 10,
      label: 'CooRMv2 experiment, seeds 1..1, 40 steps, φ 0.5/1',
    });
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    const result = host.call('lab.result', { runId });
    if (!result.ok) throw new Error('no result');
    expect(result.value).toEqual({ runId, ...computeLab(smallCoorm) });
    expect(result.value.panels.map((p) => p.id)).toEqual([
      'fig9-amr-used',
      'fig9-psa-waste',
      'fig10-psa-waste',
      'fig10-used',
      'fig10-amr-end',
      'fig11-used',
    ]);
    // The charts plot the analysis the command line reports.
    const analysis = runCoormExperiment(coormConfigOf(smallCoorm as Extract<LabSpec, { kind: 'coorm' }>));
    const fig10used = result.value.panels.find((p) => p.id === 'fig10-used')!.series[0]!.points;
    expect(fig10used).toEqual(analysis.announce.map((p) => [p.interval_s, p.used_percent]));
    expect(result.value.observations.length).toBe(analysis.observations.length);
    expect(result.value.metrics.map((m) => m.series)).toEqual([
      'fig 9 static AMR',
      'fig 9 dynamic AMR',
      'fig 10 announced',
      'fig 11 CooRMv2',
      'fig 11 strict',
    ]);
  });

  it('refuses bad CooRMv2 parameters at their field', () => {
    const host = newHost();
    const errorsOf = (spec: unknown) => {
      const r = host.call('lab.start', spec);
      return r.ok ? [] : r.errors;
    };
    expect(errorsOf({ kind: 'coorm', seeds: 0 })).toEqual([{ path: 'seeds', message: 'must be at least 1' }]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, factors: [0] })).toEqual([
      { path: 'factors[0]', message: 'must be above 0' },
    ]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, factors: [] })).toEqual([
      { path: 'factors', message: 'must not be empty' },
    ]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, intervals: [-1] })).toEqual([
      { path: 'intervals[0]', message: 'must be at least 0' },
    ]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, steps: 0 })).toEqual([{ path: 'steps', message: 'must be at least 1' }]);
    expect(host.call('lab.list', {})).toEqual({ ok: true, value: { runs: [] } });
  });

  it('reads a result stored before charts were one list', () => {
    const panel = (id: string) => ({
      id,
      title: id,
      xName: 'x',
      yName: 'y',
      series: [{ name: 's', points: [[0, 1]] }],
    });
    const old = {
      runId: 'lab-1',
      kind: 'simulate',
      label: 'old',
      cdfs: [panel('wait')],
      utilization: panel('utilization'),
      activity: panel('activity'),
      metrics: [],
      observations: [],
    };
    const parsed = labResultSchema.parse(old);
    expect(parsed.panels.map((p) => [p.id, p.step])).toEqual([
      ['wait', true],
      ['utilization', false],
      ['activity', true],
    ]);
    expect(parsed.columns.map((c) => c.key)).toContain('mean_wait_s');
  });

  it('takes the KOALA parameters of the command line: each refused at its field, each reaching the runs', () => {
    const host = newHost();
    const errorsOf = (payload: unknown) => {
      const r = host.call('lab.start', payload);
      return r.ok ? [] : r.errors;
    };
    expect(errorsOf({ kind: 'koala', seeds: 1, adaptS: 5_000 })).toEqual([
      { path: 'adaptS', message: 'must be at most 3600 s' },
    ]);
    expect(errorsOf({ kind: 'koala', seeds: 1, launchDelayS: -1 })).toEqual([
      { path: 'launchDelayS', message: 'must be at least 0 s' },
    ]);
    expect(errorsOf({ kind: 'koala', seeds: 1, threshold: 0 })).toEqual([
      { path: 'threshold', message: 'must be above 0' },
    ]);
    expect(errorsOf({ kind: 'koala', seeds: 1, thresholdScope: 'some' })).toEqual([
      { path: 'thresholdScope', message: 'must be one of growth, all' },
    ]);
    expect(errorsOf({ kind: 'koala', seeds: 1, pwaBackground: 1 })).toEqual([
      { path: 'pwaBackground', message: 'must be below 1' },
    ]);
    // The same figures as the experiment run in-process with the same options (the command line's path).
    const options = {
      praBackground: 0.2,
      pwaBackground: 0.6,
      threshold: 0.8,
      thresholdScope: 'all',
      adaptS: 0,
      launchDelayS: 1,
    } as const;
    const lab = computeLab({ kind: 'koala', seeds: 1, ...options });
    const direct = runKoalaExperiment({ seeds: 1, ...options });
    expect(
      lab.kind === 'koala' && lab.metrics.map((m) => [m.series, m.values.mean_avg_size, m.values.utilization]),
    ).toEqual(direct.means.map((m) => [m.series, m.mean_avg_size, m.utilization]));
    // And they matter: the defaults give other figures.
    const defaults = runKoalaExperiment({ seeds: 1 });
    expect(defaults.means.map((m) => m.utilization)).not.toEqual(direct.means.map((m) => m.utilization));
  });

  it("runs the evolving applications experiment in the worker: Tables 1 and 2 beside the paper's, and the observations", async () => {
    const host = newHost();
    const spec: LabSpec = { kind: 'fpe', tests: 5 };
    const started = host.call('lab.start', spec);
    if (!started.ok) throw new Error(JSON.stringify(started.errors));
    const { runId } = started.value;
    const progress: number[] = [];
    host.lab.subscribe((info) => {
      if (info.runId === runId) progress.push(info.runsDone);
    });
    const info = await ended(host.lab, runId);
    expect(info).toMatchObject({
      status: 'done',
      runsDone: 5,
      runsTotal: 5,
      label: `Evolving applications, 5 tests (seed ${FPE_DEFAULT_CONFIG.seed}), ${FPE_DEFAULT_CONFIG.nodes} nodes`,
    });
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    const result = host.call('lab.result', { runId });
    if (!result.ok) throw new Error('no result');
    const { tables, observations, panels } = result.value;
    expect(panels).toEqual([]);
    expect(tables!.map((t) => t.id)).toEqual(['table1', 'table2']);
    // Each variant's measured row, then the paper's; the figures those of the experiment run in-process (the scheduling
    // times, measured by the clock, aside).
    const direct = runFpeExperiment({ ...FPE_DEFAULT_CONFIG, tests: 5 });
    const [t1, t2] = tables!;
    expect(t1!.rows.map((r) => [r.source, r.cells[0]])).toEqual(
      FPE_VARIANTS.flatMap((v) => [
        ['measured', v],
        ['paper', 'paper'],
      ]),
    );
    expect(t1!.rows.filter((r) => r.source === 'measured').map((r) => r.cells.slice(1, 5))).toEqual(
      direct.table1.map((r) => [
        cell(r.waste_percent, 2),
        cell(r.utilisation_relative, 2),
        cell(r.effective_utilisation_percent, 1),
        cell(r.makespan_relative, 2),
      ]),
    );
    expect(
      t1!.rows
        .filter((r) => r.source === 'measured')
        .every((r) => /^\d+\.\d{3} \/ \d+\.\d{3} \/ \d+\.\d{3}$/.test(r.cells[5]!)),
    ).toBe(true);
    expect(t1!.rows.filter((r) => r.source === 'paper').map((r) => r.cells.slice(1))).toEqual(
      FPE_VARIANTS.map((v) => PAPER_TABLE1[v].map(paperCell)),
    );
    expect(t2!.rows.filter((r) => r.source === 'measured').map((r) => r.cells.slice(1))).toEqual(
      direct.table2.map((r) => [
        cell(r.completion_relative, 2),
        cell(r.waiting_relative, 2),
        cell(r.expanded_percent, 1),
        cell(r.expansion_percent, 1),
        cell(r.app_waste_percent, 1),
      ]),
    );
    expect(t2!.rows.filter((r) => r.source === 'paper').map((r) => r.cells.slice(1))).toEqual(
      FPE_VARIANTS.map((v) => PAPER_TABLE2[v].map(paperCell)),
    );
    // Every observation with its verdict; those that do not rest on the clock as in-process.
    expect(observations.map((o) => o.id)).toEqual(direct.observations.map((o) => o.id));
    const timed = new Set(['reasonable-time', 'compacting-costs-time']);
    expect(observations.filter((o) => !timed.has(o.id)).map((o) => [o.id, o.holds])).toEqual(
      direct.observations.filter((o) => !timed.has(o.id)).map((o) => [o.id, o.holds]),
    );
    expect(observations.find((o) => o.id === 'baseline')!.measured).toMatch(/^rigid: \d+\.\d %/);
  });

  it('keeps the host answering while a long evolving applications run computes, and cancels it', async () => {
    const host = newHost();
    const started = host.call('lab.start', { kind: 'fpe', tests: FPE_LIMITS.maxTests });
    const runId = started.ok ? started.value.runId : '';
    const first = await reached(host.lab, runId, 1);
    // Progress comes in steps of a hundredth while the run goes on, and the host's thread is free to answer.
    expect(first).toMatchObject({ status: 'running', runsTotal: FPE_LIMITS.maxTests });
    expect(first.runsDone % (FPE_LIMITS.maxTests / 100)).toBe(0);
    expect(host.call('lab.list', {})).toMatchObject({ ok: true, value: { runs: [{ runId, status: 'running' }] } });
    expect(host.call('lab.cancel', { runId })).toMatchObject({
      ok: true,
      value: { runId, status: 'cancelled', error: 'cancelled by the user' },
    });
    expect(host.lab.info(runId)!.runsDone).toBeLessThan(FPE_LIMITS.maxTests);
    expect(host.call('lab.result', { runId })).toEqual({
      ok: false,
      errors: [{ path: 'runId', message: `lab run ${runId} has no result (cancelled)` }],
    });
  });

  it('refuses bad evolving applications parameters at their field', () => {
    const host = newHost();
    const errorsOf = (spec: unknown) => {
      const r = host.call('lab.start', spec);
      return r.ok ? [] : r.errors;
    };
    expect(errorsOf({ kind: 'fpe', tests: 0 })).toEqual([{ path: 'tests', message: 'must be at least 1' }]);
    expect(errorsOf({ kind: 'fpe', tests: FPE_LIMITS.maxTests + 1 })).toEqual([
      { path: 'tests', message: `must be at most ${FPE_LIMITS.maxTests}` },
    ]);
    expect(errorsOf({ kind: 'fpe', tests: 5, nodes: FPE_LIMITS.minNodes - 1 })).toEqual([
      { path: 'nodes', message: `must be at least ${FPE_LIMITS.minNodes}` },
    ]);
    expect(errorsOf({ kind: 'fpe', tests: 5, seed: 1.5 })).toEqual([
      { path: 'seed', message: 'must be a whole number' },
    ]);
    expect(errorsOf({ kind: 'fpe' })[0]!.path).toBe('tests');
    expect(errorsOf({ kind: 'fpe', tests: 5, seeds: 2 })[0]!.message).toMatch(/seeds/);
    expect(host.call('lab.list', {})).toEqual({ ok: true, value: { runs: [] } });
  });

  it('runs the interactive jobs experiment in the worker: a chart per figure over the loads, metrics and the claims', async () => {
    const host = newHost();
    const spec: LabSpec = { kind: 'interactive', seeds: 1, loads: [1], minutes: 2 };
    const started = host.call('lab.start', spec);
    if (!started.ok) throw new Error(JSON.stringify(started.errors));
    const { runId } = started.value;
    const info = await ended(host.lab, runId);
    // One load: 3 models × with and without overruns; and 3 placements × 2 interleaved models at the policy load.
    expect(info).toMatchObject({
      status: 'done',
      runsDone: 12,
      runsTotal: 12,
      label: 'Interactive jobs, seeds 1..1, loads 1, 2 min',
    });
    const result = host.call('lab.result', { runId });
    if (!result.ok) throw new Error('no result');
    // Deterministic: the same as in-process.
    expect(result.value).toEqual({ runId, ...computeLab(spec) });
    expect(result.value.panels.map((p) => p.id)).toEqual([
      'interactive-utilization',
      'interactive-admitted',
      'interactive-misses',
    ]);
    const direct = runInteractiveExperiment(interactiveConfigOf(spec as Extract<LabSpec, { kind: 'interactive' }>));
    const utilization = result.value.panels[0]!;
    expect(utilization.series.map((s) => s.name)).toEqual([
      'exclusive',
      'exclusive, overruns',
      'interleaved',
      'interleaved, overruns',
      'interleaved-widened',
      'interleaved-widened, overruns',
    ]);
    expect(utilization.series.map((s) => s.points)).toEqual(
      ['exclusive', 'interleaved', 'interleaved-widened'].flatMap((m) =>
        [false, true].map((o) => [
          [1, direct.points.find((p) => p.model === m && p.overruns === o)!.utilization_percent],
        ]),
      ),
    );
    expect(result.value.panels[2]!.series.find((s) => s.name === 'interleaved, overruns')!.points).toEqual([
      [1, direct.points.find((p) => p.model === 'interleaved' && p.overruns)!.misses],
    ]);
    expect(result.value.metrics.length).toBe(direct.points.length + direct.policies.length);
    expect(result.value.metrics[0]).toMatchObject({
      series: 'load 1 exclusive',
      values: { admitted_percent: direct.points[0]!.admitted_percent },
    });
    expect(result.value.observations.map((o) => [o.id, o.holds])).toEqual(
      direct.observations.map((o) => [o.id, o.holds]),
    );
  });

  it('refuses bad interactive jobs parameters at their field', () => {
    const host = newHost();
    const errorsOf = (spec: unknown) => {
      const r = host.call('lab.start', spec);
      return r.ok ? [] : r.errors;
    };
    expect(errorsOf({ kind: 'interactive', seeds: 1, loads: [0] })).toEqual([
      { path: 'loads[0]', message: 'must be above 0' },
    ]);
    expect(errorsOf({ kind: 'interactive', seeds: 1, loads: [] })).toEqual([
      { path: 'loads', message: 'must not be empty' },
    ]);
    expect(errorsOf({ kind: 'interactive', seeds: 1, minutes: 0 })).toEqual([
      { path: 'minutes', message: 'must be at least 1' },
    ]);
    expect(errorsOf({ kind: 'interactive', seeds: 1, overrunShare: 1.5 })).toEqual([
      { path: 'overrunShare', message: 'must be at most 1' },
    ]);
    expect(errorsOf({ kind: 'interactive', seeds: 1, placement: 'random' })).toEqual([
      { path: 'placement', message: `must be one of ${TASK_PLACEMENTS.join(', ')}` },
    ]);
    expect(errorsOf({ kind: 'interactive', seeds: 0 })).toEqual([{ path: 'seeds', message: 'must be at least 1' }]);
    expect(host.call('lab.list', {})).toEqual({ ok: true, value: { runs: [] } });
  });
});
