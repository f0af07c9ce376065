// @vitest-environment happy-dom
// The Grid cards: idle processors are an unfilled band above the filled, busy parts (background load and
// Concertina's jobs), and each card links to the Queue showing only that cluster's jobs.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import GridView from '../../renderer/src/views/GridView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { NAVIGATE } from '../../renderer/src/navigation.js';
import { USAGE_PARTS, usageOption } from '../../renderer/src/composables/usage-option.js';
import type { ClusterSnapshot, JobSummary } from '../../renderer/src/api/types.js';
import { fakeClient, gridSnapshot } from './fake-client.js';

const cluster = (name: string): ClusterSnapshot => ({
  name,
  reachable: true,
  lastPoll: 0,
  runningMalleable: 1,
  processors: 64,
  threshold: 64,
  background: 8,
  nonPreemptible: 10,
  preallocatedUnused: 0,
  preemptible: 6,
  earmarked: 0,
  idle: 40,
});
const job = (id: string, clusters: string[], state = 'running'): JobSummary => ({
  id,
  name: id,
  kind: 'malleable',
  state,
  tries: 0,
  lastFailure: '',
  size: 4,
  min: 2,
  max: 8,
  placement: 'wf',
  clusters,
  submitted: 0,
});

describe('Grid cards', () => {
  it('draws idle processors as an unfilled band on top, and the busy parts filled', () => {
    const option = usageOption(
      [
        {
          t: 0,
          processors: 64,
          threshold: 64,
          background: 8,
          nonPreemptible: 10,
          preallocated: 0,
          preemptible: 6,
          idle: 40,
        },
      ],
      false,
    );
    const series = option.series as Array<{
      name: string;
      stack?: string;
      areaStyle?: { opacity?: number };
      data: unknown;
    }>;
    const idle = series.find((s) => s.name === 'idle')!;
    expect(idle.stack).toBe('usage');
    expect(idle.areaStyle).toEqual({ opacity: 0 });
    expect(series.indexOf(idle)).toBe(USAGE_PARTS.length - 1); // stacked last: its outline is at the processors
    for (const name of ['background', 'non-preemptible', 'pre-allocated', 'preemptible'])
      expect(series.find((s) => s.name === name)!.areaStyle).toEqual({});
  });

  it('redraws without animation and leaves out a time label that would overlap its neighbour', () => {
    // Drawn at every snapshot: animated, the axis showed its old labels over the new ones (seen in Chromium).
    const option = usageOption([], false) as { animation?: boolean; xAxis: { axisLabel: { hideOverlap?: boolean } } };
    expect(option.animation).toBe(false);
    expect(option.xAxis.axisLabel.hideOverlap).toBe(true);
  });

  it('links each card to the Queue filtered to its cluster', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const stores = createStores(
      fakeClient({
        'jobs.list': {
          ok: true,
          value: {
            jobs: [job('a1', ['fs0']), job('b1', ['fs1']), job('q1', [], 'queued'), job('ab', ['fs0', 'fs1'])],
            total: 4,
            version: '1:1',
          },
        },
      }),
    );
    const went: string[] = [];
    const wrapper = mount(GridView, {
      global: {
        plugins: [pinia],
        provide: { [STORES as symbol]: stores, [NAVIGATE as symbol]: (view: string) => went.push(view) },
      },
    });
    stores.grid.applySnapshot(gridSnapshot({ time: 10, clusters: [cluster('fs0'), cluster('fs1')] }));
    await stores.jobs.refresh();
    stores.jobs.states = ['completed'];
    await flushPromises();
    await wrapper.get('[data-testid="cluster-jobs-fs1"]').trigger('click');
    expect(went).toEqual(['queue']);
    expect(stores.jobs.cluster).toBe('fs1');
    expect(stores.jobs.states).toEqual([]); // every state of that cluster's jobs
    expect(stores.jobs.filtered.map((j) => j.id)).toEqual(['b1', 'ab']);
    stores.jobs.cluster = null;
    expect(stores.jobs.filtered).toHaveLength(4);
    wrapper.unmount();
  });

  it('shows no link where there is no frame to navigate in', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const stores = createStores(fakeClient());
    const wrapper = mount(GridView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    stores.grid.applySnapshot(gridSnapshot({ time: 10, clusters: [cluster('fs0')] }));
    await flushPromises();
    expect(wrapper.find('[data-testid="cluster-jobs-fs0"]').exists()).toBe(false);
    wrapper.unmount();
  });
});
