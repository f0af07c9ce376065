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
import { ended, labHosts } from '../support/lab-host.js';

const newHost = labHosts();

/** A CooRMv2 experiment small enough for a test: 1 seed, 40 AMR steps, two points per figure. */
const smallCoorm: LabSpec = { kind: 'coorm', seeds: 1, steps: 40, factors: [1, 0.5], intervals: [0, 300], twoPsaIntervals: [0, 300] };

describe('lab experiments', () => {
  it('offers every experiment of the command line, each with its parameters', () => {
    const host = newHost();
    const answer = host.call('lab.experiments', {});
    if (!answer.ok) throw new Error('lab.experiments failed');
    const byName = Object.fromEntries(answer.value.experiments.map((e) => [e.name, e]));
    expect(Object.keys(byName)).toEqual(['simulate', 'koala', 'coorm']);
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
    expect(byName.koala!.params.map((p) => p.name)).toEqual(['seeds', 'backgroundLoad', 'poll', 'praBackground', 'pwaBackground', 'threshold', 'thresholdScope', 'adaptS', 'launchDelayS', 'growthAtPoll']);
    expect(byName.coorm!.params[0]!.initial).toBe(COORM_DEFAULT_CONFIG.seeds);
  });

  it('runs the same configuration as the command line with the same flags', () => {
    expect(coormConfigOf({ kind: 'coorm', seeds: 2, steps: 40, factors: [2, 0.5], intervals: [300, 0] })).toEqual(
      coormConfigFromFlags({ seeds: 2, steps: 40, factors: '0.5,2', intervals: '0,300' }),
    );
    expect(coormConfigOf({ kind: 'coorm', seeds: 3 })).toEqual(COORM_DEFAULT_CONFIG);
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
    expect(info).toMatchObject({ status: 'done', runsDone: 10, runsTotal: 10, label: 'CooRMv2 experiment, seeds 1..1, 40 steps, φ 0.5/1' });
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    const result = host.call('lab.result', { runId });
    if (!result.ok) throw new Error('no result');
    expect(result.value).toEqual({ runId, ...computeLab(smallCoorm) });
    expect(result.value.panels.map((p) => p.id)).toEqual(['fig9-amr-used', 'fig9-psa-waste', 'fig10-psa-waste', 'fig10-used', 'fig10-amr-end', 'fig11-used']);
    // The charts plot the analysis the command line reports.
    const analysis = runCoormExperiment(coormConfigOf(smallCoorm as Extract<LabSpec, { kind: 'coorm' }>));
    const fig10used = result.value.panels.find((p) => p.id === 'fig10-used')!.series[0]!.points;
    expect(fig10used).toEqual(analysis.announce.map((p) => [p.interval_s, p.used_percent]));
    expect(result.value.observations.length).toBe(analysis.observations.length);
    expect(result.value.metrics.map((m) => m.series)).toEqual(['fig 9 static AMR', 'fig 9 dynamic AMR', 'fig 10 announced', 'fig 11 CooRMv2', 'fig 11 strict']);
  });

  it('refuses bad CooRMv2 parameters at their field', () => {
    const host = newHost();
    const errorsOf = (spec: unknown) => {
      const r = host.call('lab.start', spec);
      return r.ok ? [] : r.errors;
    };
    expect(errorsOf({ kind: 'coorm', seeds: 0 })).toEqual([{ path: 'seeds', message: 'must be at least 1' }]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, factors: [0] })).toEqual([{ path: 'factors[0]', message: 'must be above 0' }]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, factors: [] })).toEqual([{ path: 'factors', message: 'must not be empty' }]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, intervals: [-1] })).toEqual([{ path: 'intervals[0]', message: 'must be at least 0' }]);
    expect(errorsOf({ kind: 'coorm', seeds: 1, steps: 0 })).toEqual([{ path: 'steps', message: 'must be at least 1' }]);
    expect(host.call('lab.list', {})).toEqual({ ok: true, value: { runs: [] } });
  });

  it('reads a result stored before charts were one list', () => {
    const panel = (id: string) => ({ id, title: id, xName: 'x', yName: 'y', series: [{ name: 's', points: [[0, 1]] }] });
    const old = { runId: 'lab-1', kind: 'simulate', label: 'old', cdfs: [panel('wait')], utilization: panel('utilization'), activity: panel('activity'), metrics: [], observations: [] };
    const parsed = labResultSchema.parse(old);
    expect(parsed.panels.map((p) => [p.id, p.step])).toEqual([['wait', true], ['utilization', false], ['activity', true]]);
    expect(parsed.columns.map((c) => c.key)).toContain('mean_wait_s');
  });

  it('takes the KOALA parameters of the command line: each refused at its field, each reaching the runs', () => {
    const host = newHost();
    const errorsOf = (payload: unknown) => {
      const r = host.call('lab.start', payload);
      return r.ok ? [] : r.errors;
    };
    expect(errorsOf({ kind: 'koala', seeds: 1, adaptS: 5_000 })).toEqual([{ path: 'adaptS', message: 'must be at most 3600 s' }]);
    expect(errorsOf({ kind: 'koala', seeds: 1, launchDelayS: -1 })).toEqual([{ path: 'launchDelayS', message: 'must be at least 0 s' }]);
    expect(errorsOf({ kind: 'koala', seeds: 1, threshold: 0 })).toEqual([{ path: 'threshold', message: 'must be above 0' }]);
    expect(errorsOf({ kind: 'koala', seeds: 1, thresholdScope: 'some' })).toEqual([{ path: 'thresholdScope', message: 'must be one of growth, all' }]);
    expect(errorsOf({ kind: 'koala', seeds: 1, pwaBackground: 1 })).toEqual([{ path: 'pwaBackground', message: 'must be below 1' }]);
    // The same figures as the experiment run in-process with the same options (the command line's path).
    const options = { praBackground: 0.2, pwaBackground: 0.6, threshold: 0.8, thresholdScope: 'all', adaptS: 0, launchDelayS: 1 } as const;
    const lab = computeLab({ kind: 'koala', seeds: 1, ...options });
    const direct = runKoalaExperiment({ seeds: 1, ...options });
    expect(lab.kind === 'koala' && lab.metrics.map((m) => [m.series, m.values.mean_avg_size, m.values.utilization])).toEqual(
      direct.means.map((m) => [m.series, m.mean_avg_size, m.utilization]),
    );
    // And they matter: the defaults give other figures.
    const defaults = runKoalaExperiment({ seeds: 1 });
    expect(defaults.means.map((m) => m.utilization)).not.toEqual(direct.means.map((m) => m.utilization));
  });
});
