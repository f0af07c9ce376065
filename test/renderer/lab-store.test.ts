// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import {
  defineLabStore,
  formatMetric,
  labFieldOf,
  mergeColumns,
  mergePanels,
  panelCsv,
  specOf,
  type LabForm,
  type LabResult,
  type LabRun,
  type LabValue,
} from '../../renderer/src/stores/lab.js';
import { labExperimentInfos } from '../../electron/lab/registry.js';
import { SIMULATION_COLUMNS } from '../../electron/lab/schemas.js';
import { FPE_DEFAULT_CONFIG } from '../../core/sim/experiments/fpe.js';
import { INTERACTIVE_DEFAULT_CONFIG } from '../../core/sim/experiments/interactive.js';
import { fakeClient } from './fake-client.js';

/** The host's own descriptions of its experiments, as lab.experiments answers them. */
const experiments = labExperimentInfos();
const experiment = (name: string) => experiments.find((e) => e.name === name)!;

const run = (runId: string, status: LabRun['status'], fraction = 0): LabRun => ({
  runId,
  spec: { kind: 'simulate', grid: 'das3', workload: 'wm', approach: 'pra', policy: 'egs', seed: 1 },
  label: 'wm on das3, pra/egs, seed 1',
  status,
  fraction,
  runsDone: status === 'done' ? 1 : 0,
  runsTotal: 1,
  note: '',
  createdAt: '2025-01-01T00:00:00.000Z',
  endedAt: null,
  elapsedMs: null,
  error: null,
});

const panel = (id: string, series: Array<[string, Array<[number, number]>]>, step = true) => ({
  id,
  title: id,
  xName: `${id} (s)`,
  yName: 'cumulative fraction of jobs',
  step,
  series: series.map(([name, points]) => ({ name, points })),
});

const result = (runId: string, scale = 1): LabResult => ({
  runId,
  kind: 'simulate',
  label: runId,
  panels: [
    panel('wait', [
      [
        'egs-wm',
        [
          [10 * scale, 0.5],
          [20 * scale, 1],
        ],
      ],
    ]),
    panel('response', [['egs-wm', [[30 * scale, 1]]]]),
    {
      ...panel(
        'utilization',
        [
          [
            'egs-wm',
            [
              [0, 0.25],
              [60, 0.5],
            ],
          ],
        ],
        false,
      ),
      yName: 'utilization',
    },
    { ...panel('activity', [['egs-wm grows', [[0, 3]]]]), yName: 'operations' },
  ],
  metrics: [{ series: 'egs-wm', values: { completed: 2, mean_wait_s: 15 * scale, utilization: 0.4 } }],
  columns: SIMULATION_COLUMNS,
  observations: [],
});

const form = (kind = 'simulate', changes: Record<string, LabValue> = {}): LabForm => {
  const values: LabForm['values'] = {
    simulate: { grid: 'das3', workload: 'wm-fast', approach: 'pwa', policy: 'egs', seed: 4, maxJobs: 50, poll: null },
    koala: { seeds: 1, poll: null, backgroundLoad: null },
    coorm: { seeds: 3, steps: null, factors: null, intervals: null, twoPsaIntervals: null },
    fpe: { tests: 1000, seed: null, nodes: null },
    interactive: { seeds: 3, loads: null, minutes: null, overrunShare: null, placement: 'first-fit' },
  };
  return { kind, values: { ...values, [kind]: { ...values[kind], ...changes } } };
};

describe('lab store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('builds the spec of each experiment from its parameters, leaving empty options out', () => {
    expect(specOf(form(), experiment('simulate'))).toEqual({
      spec: {
        kind: 'simulate',
        grid: 'das3',
        workload: 'wm-fast',
        approach: 'pwa',
        policy: 'egs',
        seed: 4,
        maxJobs: 50,
      },
    });
    expect(specOf(form('koala', { seeds: 2, poll: 30 }), experiment('koala'))).toEqual({
      spec: { kind: 'koala', seeds: 2, poll: 30 },
    });
    expect(specOf(form('koala', { seeds: null }), experiment('koala'))).toEqual({ errors: { seeds: 'is required' } });
    expect(specOf(form('simulate', { seed: null }), experiment('simulate'))).toEqual({
      errors: { seed: 'is required' },
    });
    // CooRMv2: lists typed as on the command line, sent as numbers.
    expect(
      specOf(form('coorm', { seeds: 1, steps: 40, factors: '0.5, 1,2', intervals: '' }), experiment('coorm')),
    ).toEqual({
      spec: { kind: 'coorm', seeds: 1, steps: 40, factors: [0.5, 1, 2] },
    });
    expect(specOf(form('coorm', { factors: '1, soon' }), experiment('coorm'))).toEqual({
      errors: { factors: 'must be numbers separated by commas' },
    });
    expect(specOf(form('coorm'), undefined)).toEqual({ errors: { kind: 'the experiments are not loaded yet' } });
    // The evolving applications: tests required, seed and nodes left out when empty; the interactive loads a list.
    expect(specOf(form('fpe', { tests: 5 }), experiment('fpe'))).toEqual({ spec: { kind: 'fpe', tests: 5 } });
    expect(specOf(form('fpe', { tests: null }), experiment('fpe'))).toEqual({ errors: { tests: 'is required' } });
    expect(specOf(form('interactive', { seeds: 1, loads: '1, 0.5', minutes: 2 }), experiment('interactive'))).toEqual({
      spec: { kind: 'interactive', seeds: 1, loads: [1, 0.5], minutes: 2, placement: 'first-fit' },
    });
  });

  it('builds its form from the experiments the host offers, keeping what was typed', async () => {
    const client = fakeClient({
      'lab.experiments': { ok: true, value: { experiments } },
      'lab.list': { ok: true, value: { runs: [] } },
    });
    const store = defineLabStore(client)();
    store.form = { kind: 'coorm', values: { coorm: { seeds: 2 } } };
    await store.loadExperiments();
    expect(store.experiments.map((e) => e.name)).toEqual(['simulate', 'koala', 'coorm', 'fpe', 'interactive', 'dbes']);
    expect(store.experiment?.name).toBe('coorm');
    expect(store.form.values.coorm).toEqual({
      seeds: 2,
      steps: null,
      factors: null,
      intervals: null,
      twoPsaIntervals: null,
    });
    expect(store.form.values.simulate).toMatchObject({
      grid: 'das3',
      workload: 'wm',
      approach: 'pra',
      policy: 'fpsma',
      seed: 1,
    });
    // The new experiments start from the command line's defaults (core/sim/experiments/fpe.ts, interactive.ts).
    expect(store.form.values.fpe).toEqual({ tests: FPE_DEFAULT_CONFIG.tests, seed: null, nodes: null });
    expect(store.form.values.interactive).toEqual({
      seeds: INTERACTIVE_DEFAULT_CONFIG.seeds,
      loads: null,
      minutes: null,
      overrunShare: null,
      placement: INTERACTIVE_DEFAULT_CONFIG.placement,
    });
  });

  it('starts a run, follows its progress from the stream, and charts it once done', async () => {
    const client = fakeClient({
      'lab.start': { ok: true, value: { runId: 'lab-1' } },
      'lab.list': { ok: true, value: { runs: [run('lab-1', 'queued')] } },
      'lab.result': { ok: true, value: result('lab-1') },
    });
    client.answers['lab.experiments'] = { ok: true, value: { experiments } };
    const store = defineLabStore(client)();
    store.connect();
    await store.loadExperiments();
    store.form = form();
    expect(await store.start()).toBe('lab-1');
    expect(client.calls.find((c) => c.method === 'lab.start')!.payload).toEqual({
      kind: 'simulate',
      grid: 'das3',
      workload: 'wm-fast',
      approach: 'pwa',
      policy: 'egs',
      seed: 4,
      maxJobs: 50,
    });
    const send = (r: LabRun) => client.listeners.forEach((l) => l({ topic: 'lab', run: r }));
    send(run('lab-1', 'running', 0.4));
    expect(store.runs).toHaveLength(1);
    expect(store.runs[0]).toMatchObject({ status: 'running', fraction: 0.4 });
    expect(store.chosen).toEqual([]);
    send(run('lab-1', 'done', 1));
    await Promise.resolve();
    await Promise.resolve();
    expect(store.chosen).toEqual(['lab-1']);
    expect(client.calls.filter((c) => c.method === 'lab.result')).toEqual([
      { method: 'lab.result', payload: { runId: 'lab-1' } },
    ]);
    expect(store.panels.map((p) => [p.id, p.step])).toEqual([
      ['wait', true],
      ['response', true],
      ['utilization', false],
      ['activity', true],
    ]);
    expect(store.panels[0]!.series).toEqual([
      {
        name: 'egs-wm',
        points: [
          [10, 0.5],
          [20, 1],
        ],
      },
    ]);
    store.disconnect();
    expect(client.listeners.size).toBe(0);
  });

  it('puts the API errors on their fields, and an edit clears its own', async () => {
    const client = fakeClient({
      'lab.start': {
        ok: false,
        errors: [
          { path: 'seeds', message: 'must be at least 1' },
          { path: '', message: 'busy' },
        ],
      },
    });
    const store = defineLabStore(client)();
    client.answers['lab.experiments'] = { ok: true, value: { experiments } };
    await store.loadExperiments();
    store.form = form('koala', { seeds: 0 });
    expect(await store.start()).toBeUndefined();
    expect(store.errors).toEqual({ seeds: 'must be at least 1', form: 'busy' });
    store.touch('seeds');
    expect(store.errors).toEqual({});
    expect(store.runs).toEqual([]);
    expect(labFieldOf('backgroundLoad', experiment('koala'))).toBe('backgroundLoad');
    expect(labFieldOf('factors[0]', experiment('coorm'))).toBe('factors');
    expect(labFieldOf('spec.other', experiment('koala'))).toBe('form');
  });

  it('cancels a run and shows the answer', async () => {
    const client = fakeClient({
      'lab.cancel': { ok: true, value: { ...run('lab-2', 'cancelled', 0.3), error: 'cancelled by the user' } },
    });
    const store = defineLabStore(client)();
    store.receive({ topic: 'lab', run: run('lab-2', 'running', 0.3) });
    expect(await store.cancel('lab-2')).toBe(true);
    expect(store.runs[0]).toMatchObject({ status: 'cancelled', error: 'cancelled by the user' });
  });

  it('fetches a result only for a finished run, and charts several runs under their names', async () => {
    const client = fakeClient({ 'lab.result': { ok: true, value: result('lab-1') } });
    const store = defineLabStore(client)();
    store.receive({ topic: 'lab', run: run('lab-1', 'running') });
    await store.choose('lab-1', true);
    expect(client.calls).toEqual([]);
    expect(store.panels).toEqual([]);

    const merged = mergePanels([result('lab-1'), result('lab-2', 2)]);
    expect(merged[0]!.series.map((s) => s.name)).toEqual(['lab-1 egs-wm', 'lab-2 egs-wm']);
    expect(merged[0]!.series[1]!.points).toEqual([
      [20, 0.5],
      [40, 1],
    ]);
    // Results of different experiments side by side: every chart of each, and every metric column once.
    const coorm: LabResult = {
      runId: 'lab-3',
      kind: 'coorm',
      label: 'CooRMv2',
      observations: [],
      panels: [
        panel(
          'fig10-used',
          [
            [
              'used',
              [
                [0, 80],
                [300, 90],
              ],
            ],
          ],
          false,
        ),
      ],
      metrics: [{ series: 'fig 10 announced', values: { used_percent: 85 } }],
      columns: [
        { key: 'points', label: 'points', format: 'whole' },
        { key: 'used_percent', label: 'used (%)', format: 'fixed1' },
      ],
    };
    const both = mergePanels([result('lab-1'), coorm]);
    expect(both.map((p) => [p.id, p.step])).toEqual([
      ['wait', true],
      ['response', true],
      ['utilization', false],
      ['activity', true],
      ['fig10-used', false],
    ]);
    expect(both.at(-1)!.series.map((s) => s.name)).toEqual(['lab-3 used']);
    expect(mergeColumns([result('lab-1'), coorm]).map((c) => c.key)).toEqual([
      ...SIMULATION_COLUMNS.map((c) => c.key),
      'points',
      'used_percent',
    ]);
    expect([
      formatMetric(0.4, 'percent'),
      formatMetric(85, 'fixed1'),
      formatMetric(null, 'whole'),
      formatMetric(2.345, 'fixed2'),
    ]).toEqual(['40.0 %', '85.0', '–', '2.35']);
  });

  it('exports a panel as CSV, quoting what needs it', () => {
    const csv = panelCsv(
      panel('wait', [
        [
          'a',
          [
            [1, 0.5],
            [2, 1],
          ],
        ],
        ['b,"c"', [[3, 1]]],
      ]),
    );
    expect(csv).toBe('series,wait (s),cumulative fraction of jobs\na,1,0.5\na,2,1\n"b,""c""",3,1\n');
  });

  it('exports a series named like a formula as text, and negative numbers as numbers', () => {
    const csv = panelCsv(
      panel('wait', [
        ['=HYPERLINK("http://x","y")', [[-1.5, 0.5]]],
        ['@SUM(A1)', [[2, -1]]],
      ]),
    );
    expect(csv.split('\n').slice(1, 3)).toEqual([`"'=HYPERLINK(""http://x"",""y"")",-1.5,0.5`, "'@SUM(A1),2,-1"]);
  });
});
