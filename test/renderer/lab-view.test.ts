// @vitest-environment happy-dom
// The Lab view builds its form from the experiments the host offers: a choice per experiment, each parameter's
// field (CooRMv2's lists among them), and a metrics table whose columns come with the results; a result with tables
// and no charts (the evolving applications' Tables 1 and 2) shows its tables, the paper's rows marked, and its
// observations with their verdicts.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import LabView from '../../renderer/src/views/LabView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { labExperimentInfos } from '../../electron/lab/registry.js';
import type { LabResult, LabRun } from '../../renderer/src/stores/lab.js';
import { fakeClient } from './fake-client.js';

const run: LabRun = {
  runId: 'lab-1',
  spec: { kind: 'coorm', seeds: 1, steps: 40 },
  label: 'CooRMv2 experiment, seeds 1..1, 40 steps',
  status: 'done',
  fraction: 1,
  runsDone: 10,
  runsTotal: 10,
  note: 'done',
  createdAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:00:05.000Z',
  elapsedMs: 5000,
  error: null,
};
const result: LabResult = {
  runId: 'lab-1',
  kind: 'coorm',
  label: run.label,
  panels: [
    {
      id: 'fig10-used',
      title: 'Fig. 10: used resources (φ = 1)',
      xName: 'announce interval (s)',
      yName: '% of the cluster',
      step: false,
      series: [
        {
          name: 'used',
          points: [
            [0, 80],
            [300, 90],
          ],
        },
      ],
    },
  ],
  metrics: [{ series: 'fig 10 announced', values: { points: 2, used_percent: 85 } }],
  columns: [
    { key: 'points', label: 'points', format: 'whole' },
    { key: 'used_percent', label: 'used (%)', format: 'fixed1' },
  ],
  observations: [
    { id: 'fig10-resonance', text: 'Figure 10: waste peaks at 300 s', holds: true, measured: 'peak at 300 s' },
  ],
};

describe('Lab view', () => {
  it('offers every experiment, shows the chosen one parameters, and charts a CooRMv2 result with its own columns', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'lab.experiments': { ok: true, value: { experiments: labExperimentInfos() } },
      'lab.list': { ok: true, value: { runs: [run] } },
      'lab.result': { ok: true, value: result },
    });
    const stores = createStores(client);
    // The charts draw on a canvas, which happy-dom has not: stubbed, their panels checked.
    const wrapper = mount(LabView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores }, stubs: { LabChart: true } },
    });
    await flushPromises();
    for (const name of ['simulate', 'koala', 'coorm', 'fpe', 'interactive'])
      expect(wrapper.find(`[data-testid="lab-kind-${name}"]`).exists()).toBe(true);
    expect(wrapper.find('[data-testid="lab-field-workload"]').exists()).toBe(true);
    stores.lab.form.kind = 'coorm';
    await flushPromises();
    for (const name of ['seeds', 'steps', 'factors', 'intervals', 'twoPsaIntervals'])
      expect(wrapper.find(`[data-testid="lab-field-${name}"]`).exists()).toBe(true);
    expect(wrapper.find('[data-testid="lab-field-workload"]').exists()).toBe(false);

    await stores.lab.choose('lab-1', true);
    await flushPromises();
    const charts = wrapper.findAllComponents({ name: 'LabChart' });
    expect(charts.map((c) => (c.props('panel') as { id: string }).id)).toEqual(['fig10-used']);
    const metrics = wrapper.get('[data-testid="lab-metrics"]').text();
    expect(metrics).toContain('used (%)');
    expect(metrics).toContain('85.0');
    expect(wrapper.get('[data-testid="lab-observations"]').text()).toContain('waste peaks at 300 s');
    wrapper.unmount();
  });

  it("shows the tables of a result without charts, the paper's rows beside the measured ones, and the verdicts", async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const fpeRun: LabRun = {
      ...run,
      runId: 'lab-2',
      spec: { kind: 'fpe', tests: 5 },
      label: 'Evolving applications, 5 tests',
    };
    const fpeResult: LabResult = {
      runId: 'lab-2',
      kind: 'fpe',
      label: fpeRun.label,
      panels: [],
      metrics: [],
      columns: [],
      tables: [
        {
          id: 'table1',
          title: 'Table 1: system-centric metrics',
          note: 'min / avg / max over 5 tests',
          header: ['variant', 'waste (%)'],
          rows: [
            { source: 'measured', cells: ['rigid', '58.65 / 75.55 / 87.27'] },
            { source: 'paper', cells: ['paper', '43 / 70 / 116'] },
          ],
        },
      ],
      observations: [
        {
          id: 'baseline',
          text: "The rigid baseline has the paper's effective utilisation",
          holds: true,
          measured: 'rigid: 38.9 %',
        },
        {
          id: 'stretching-waits-less',
          text: 'The variants that stretch most wait less',
          holds: false,
          measured: 'AWT noX ×0.5',
        },
      ],
    };
    const client = fakeClient({
      'lab.experiments': { ok: true, value: { experiments: labExperimentInfos() } },
      'lab.list': { ok: true, value: { runs: [fpeRun] } },
      'lab.result': { ok: true, value: fpeResult },
    });
    const stores = createStores(client);
    const wrapper = mount(LabView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores }, stubs: { LabChart: true } },
    });
    await flushPromises();
    stores.lab.form.kind = 'fpe';
    await flushPromises();
    for (const name of ['tests', 'seed', 'nodes'])
      expect(wrapper.find(`[data-testid="lab-field-${name}"]`).exists()).toBe(true);
    await stores.lab.choose('lab-2', true);
    await flushPromises();
    expect(wrapper.find('[data-testid="lab-charts"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="lab-metrics"]').exists()).toBe(false);
    const table = wrapper.get('[data-testid="lab-table-table1"]');
    expect(table.findAll('th').map((th) => th.text())).toEqual(['variant', 'waste (%)']);
    expect(
      table.findAll('tbody tr').map((tr) => [tr.attributes('data-source'), tr.findAll('td').map((td) => td.text())]),
    ).toEqual([
      ['measured', ['rigid', '58.65 / 75.55 / 87.27']],
      ['paper', ['paper', '43 / 70 / 116']],
    ]);
    expect(wrapper.text()).toContain('Table 1: system-centric metrics');
    const verdicts = wrapper
      .get('[data-testid="lab-observations"]')
      .findAll('li')
      .map((li) => li.text());
    expect(verdicts[0]).toMatch(/^holds/);
    expect(verdicts[1]).toMatch(/^does not hold/);
    wrapper.unmount();
  });
});
