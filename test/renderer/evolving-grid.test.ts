// @vitest-environment happy-dom
// Pre-allocations on the Grid view (their own segment, legend entry, tooltip and figures) and evolving jobs' updates
// on the Activity view.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import GridView from '../../renderer/src/views/GridView.vue';
import ActivityView from '../../renderer/src/views/ActivityView.vue';
import UsageChart from '../../renderer/src/components/UsageChart.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { usageOf } from '../../renderer/src/stores/grid.js';
import type { ClusterSnapshot } from '../../renderer/src/api/types.js';
import { fakeClient, gridSnapshot } from './fake-client.js';

const cluster = (name: string, over: Partial<ClusterSnapshot> = {}): ClusterSnapshot => ({
  name,
  reachable: true,
  lastPoll: 0,
  runningMalleable: 0,
  processors: 64,
  threshold: 64,
  background: 0,
  nonPreemptible: 0,
  preallocatedUnused: 0,
  preemptible: 0,
  earmarked: 0,
  idle: 64,
  ...over,
});

function mountView(component: unknown) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const stores = createStores(fakeClient());
  const wrapper = mount(component as never, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
  return { wrapper, stores };
}

interface Series {
  name: string;
  stack?: string;
  data: Array<[number, number]>;
}
const seriesOf = (chart: { vm: unknown }) => (chart.vm as unknown as { option: { series: Series[] } }).option.series;

describe('Grid view, pre-allocations', () => {
  it('keeps pre-allocated-unused processors apart from non-preemptible ones, and idle what is left', () => {
    const p = usageOf(
      cluster('a', { background: 8, nonPreemptible: 10, earmarked: 2, preallocatedUnused: 12, preemptible: 6 }),
      5,
    );
    // 64 − 8 background − 12 non-preemptible (10 + 2 earmarked) − 12 pre-allocated − 6 preemptible = 26
    expect(p).toEqual({
      t: 5,
      processors: 64,
      threshold: 64,
      background: 8,
      nonPreemptible: 12,
      preallocated: 12,
      preemptible: 6,
      idle: 26,
    });
  });

  it('shows the pre-allocated processors per cluster and for the grid, as their own stacked segment with a meaning', async () => {
    const { wrapper, stores } = mountView(GridView);
    stores.grid.applySnapshot(
      gridSnapshot({
        time: 10,
        clusters: [
          cluster('fs0', { nonPreemptible: 4, preallocatedUnused: 12 }),
          cluster('fs1', { preallocatedUnused: 3 }),
        ],
      }),
    );
    stores.grid.applySnapshot(
      gridSnapshot({
        time: 20,
        clusters: [cluster('fs0', { nonPreemptible: 10, preallocatedUnused: 6 }), cluster('fs1')],
      }),
    );
    await flushPromises();
    expect(wrapper.find('[data-testid="total-preallocated"]').text()).toContain('6');
    expect(wrapper.find('[data-testid="cluster-card-fs0"] [data-field="preallocated"]').text()).toBe('6');
    expect(wrapper.find('[data-testid="cluster-card-fs1"] [data-field="preallocated"]').text()).toBe('0');

    const charts = wrapper.findAllComponents(UsageChart);
    expect(charts).toHaveLength(3); // the grid total, then one per cluster
    const fs0 = seriesOf(charts[1]!);
    const pre = fs0.find((s) => s.name === 'pre-allocated')!;
    expect(pre.stack).toBe('usage');
    expect(pre.data).toEqual([
      [10, 12],
      [20, 6],
    ]);
    expect(fs0.find((s) => s.name === 'non-preemptible')!.data).toEqual([
      [10, 4],
      [20, 10],
    ]);
    expect(seriesOf(charts[0]!).find((s) => s.name === 'pre-allocated')!.data).toEqual([
      [10, 15],
      [20, 6],
    ]);
    const option = (
      charts[1]!.vm as unknown as { option: { legend: unknown; tooltip: { formatter: (items: unknown) => string } } }
    ).option;
    expect(option.legend).toBeDefined();
    const tip = option.tooltip.formatter([
      { seriesName: 'pre-allocated', value: [20, 6], axisValue: 20 },
      { seriesName: 'idle', value: [20, 48], axisValue: 20 },
    ]);
    expect(tip).toContain('pre-allocated: <b>6</b>');
    expect(tip).toContain("held for evolving jobs' growth");
    expect(tip).toContain('idle: <b>48</b>');
    wrapper.unmount();
  });
});

describe('Activity view, evolving jobs', () => {
  it('lists evolving jobs’ updates with grows and shrinks, newest first, in words', async () => {
    const { wrapper, stores } = mountView(ActivityView);
    expect(wrapper.text()).toContain('No grow, shrink or evolve operations yet');
    stores.activity.add({ type: 'job.grown', t: 10, jobId: 'm', cluster: 'fs0', processors: 2, size: 6 });
    stores.activity.add({ type: 'evolve.requested', t: 20, jobId: 'e', cluster: 'fs0', processors: 12, announceS: 30 });
    stores.activity.add({ type: 'job.evolved', t: 50, jobId: 'e', cluster: 'fs0', size: 12, preallocation: 16 });
    stores.activity.add({ type: 'evolve.refused', t: 60, jobId: 'e', reason: '20 is above its pre-allocation (16)' });
    await flushPromises();
    const rows = wrapper.findAll('[data-testid="activity-list"] tbody tr').map((r) => r.text());
    expect(rows).toHaveLength(4);
    expect(rows[0]).toContain('update refused: 20 is above its pre-allocation (16)');
    expect(rows[1]).toContain('evolved (pre-allocation 16)');
    expect(rows[1]).toContain('12');
    expect(rows[2]).toContain('asks for 12 on fs0 in 30 s (announced)');
    expect(rows[3]).toContain('+2');
    // Only grows and shrinks are counted in the chart's buckets.
    expect(stores.activity.buckets.grows.fs0!.reduce((a, b) => a + b, 0)).toBe(1);
    wrapper.unmount();
  });
});
