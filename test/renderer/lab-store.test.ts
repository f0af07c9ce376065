// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { defineLabStore, labFieldOf, mergePanels, panelCsv, specOf, type LabForm, type LabResult, type LabRun } from '../../renderer/src/stores/lab.js';
import { fakeClient } from './fake-client.js';

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

const panel = (id: string, series: Array<[string, Array<[number, number]>]>) => ({
  id,
  title: id,
  xName: `${id} (s)`,
  yName: 'cumulative fraction of jobs',
  series: series.map(([name, points]) => ({ name, points })),
});

const result = (runId: string, scale = 1): LabResult => ({
  runId,
  kind: 'simulate',
  label: runId,
  cdfs: [panel('wait', [['egs-wm', [[10 * scale, 0.5], [20 * scale, 1]]]]), panel('response', [['egs-wm', [[30 * scale, 1]]]])],
  utilization: { ...panel('utilization', [['egs-wm', [[0, 0.25], [60, 0.5]]]]), yName: 'utilization' },
  activity: { ...panel('activity', [['egs-wm grows', [[0, 3]]]]), yName: 'operations' },
  metrics: [{ series: 'egs-wm', values: { completed: 2, mean_wait_s: 15 * scale, utilization: 0.4 } }],
  observations: [],
});

const form = (changes: Partial<LabForm> = {}): LabForm => ({
  kind: 'simulate',
  seeds: 1,
  poll: null,
  backgroundLoad: null,
  grid: 'das3',
  workload: 'wm-fast',
  approach: 'pwa',
  policy: 'egs',
  seed: 4,
  maxJobs: 50,
  ...changes,
});

describe('lab store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('builds the spec of each kind from the form, leaving empty options out', () => {
    expect(specOf(form())).toEqual({ spec: { kind: 'simulate', grid: 'das3', workload: 'wm-fast', approach: 'pwa', policy: 'egs', seed: 4, maxJobs: 50 } });
    expect(specOf(form({ kind: 'koala', seeds: 2, poll: 30 }))).toEqual({ spec: { kind: 'koala', seeds: 2, poll: 30 } });
    expect(specOf(form({ kind: 'koala', seeds: null }))).toEqual({ errors: { seeds: 'is required' } });
    expect(specOf(form({ seed: null }))).toEqual({ errors: { seed: 'is required' } });
  });

  it('starts a run, follows its progress from the stream, and charts it once done', async () => {
    const client = fakeClient({
      'lab.start': { ok: true, value: { runId: 'lab-1' } },
      'lab.list': { ok: true, value: { runs: [run('lab-1', 'queued')] } },
      'lab.result': { ok: true, value: result('lab-1') },
    });
    const store = defineLabStore(client)();
    store.connect();
    await Promise.resolve();
    store.form = form();
    expect(await store.start()).toBe('lab-1');
    expect(client.calls.find((c) => c.method === 'lab.start')!.payload).toEqual({
      kind: 'simulate', grid: 'das3', workload: 'wm-fast', approach: 'pwa', policy: 'egs', seed: 4, maxJobs: 50,
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
    expect(client.calls.filter((c) => c.method === 'lab.result')).toEqual([{ method: 'lab.result', payload: { runId: 'lab-1' } }]);
    expect(store.panels.map((p) => [p.id, p.step])).toEqual([['wait', true], ['response', true], ['utilization', false], ['activity', true]]);
    expect(store.panels[0]!.series).toEqual([{ name: 'egs-wm', points: [[10, 0.5], [20, 1]] }]);
    store.disconnect();
    expect(client.listeners.size).toBe(0);
  });

  it('puts the API errors on their fields, and an edit clears its own', async () => {
    const client = fakeClient({
      'lab.start': { ok: false, errors: [{ path: 'seeds', message: 'must be at least 1' }, { path: '', message: 'busy' }] },
    });
    const store = defineLabStore(client)();
    store.form = form({ kind: 'koala', seeds: 0 });
    expect(await store.start()).toBeUndefined();
    expect(store.errors).toEqual({ seeds: 'must be at least 1', form: 'busy' });
    store.touch('seeds');
    expect(store.errors).toEqual({});
    expect(store.runs).toEqual([]);
    expect(labFieldOf('backgroundLoad')).toBe('backgroundLoad');
    expect(labFieldOf('spec.other')).toBe('form');
  });

  it('cancels a run and shows the answer', async () => {
    const client = fakeClient({ 'lab.cancel': { ok: true, value: { ...run('lab-2', 'cancelled', 0.3), error: 'cancelled by the user' } } });
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
    expect(merged[0]!.series[1]!.points).toEqual([[20, 0.5], [40, 1]]);
  });

  it('exports a panel as CSV, quoting what needs it', () => {
    const csv = panelCsv(panel('wait', [['a', [[1, 0.5], [2, 1]]], ['b,"c"', [[3, 1]]]]));
    expect(csv).toBe('series,wait (s),cumulative fraction of jobs\na,1,0.5\na,2,1\n"b,""c""",3,1\n');
  });

  it('exports a series named like a formula as text, and negative numbers as numbers', () => {
    const csv = panelCsv(panel('wait', [['=HYPERLINK("http://x","y")', [[-1.5, 0.5]]], ['@SUM(A1)', [[2, -1]]]]));
    expect(csv.split('\n').slice(1, 3)).toEqual([`"'=HYPERLINK(""http://x"",""y"")",-1.5,0.5`, "'@SUM(A1),2,-1"]);
  });
});
