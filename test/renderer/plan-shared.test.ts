// @vitest-environment happy-dom
// The Plan view where processors are shared: a malleable job's extras fill an evolving job's unused pre-allocation,
// both holdings count them, so the plan's capacity (14) exceeds the cluster's 13 processors. The axis is the cluster's
// processors, the shared processor is drawn as shared inside the evolving job's band, and the header says what
// Concertina may use counted once, and how many are shared.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import PlanView from '../../renderer/src/views/PlanView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { capacityOf, layoutPlan, type ClusterPlanView } from '../../renderer/src/composables/plan-layout.js';
import { fakeClient } from './fake-client.js';

const running = (id: string, kind: string, processors: number, size: number) => ({
  id,
  kind,
  processors,
  size,
  start: 0,
  end: 100,
  backfilled: false,
  sizes: [{ t: 0, v: size }],
});

// e: evolving, pre-allocation 8 of which it uses 6 (2 unused); m: malleable holding 6, one of them an extra inside e's
// unused pre-allocation. Held: 8 + 6 = 14, counted; on the cluster: 13. Nothing else is free (availableNow 0).
const cluster: ClusterPlanView = {
  name: 'c',
  processors: 13,
  capacity: [{ t: 10, v: 14 }],
  free: [{ t: 10, v: 0 }],
  running: [running('m', 'malleable', 6, 6), running('e', 'evolving', 8, 6)],
  runningTotal: 2,
  reservations: [],
  reservationsTotal: 0,
};

describe('plan with shared pre-allocated processors', () => {
  it('keeps the axis at the processors and draws the processor counted twice as shared, not as capacity', () => {
    expect(capacityOf(cluster)).toEqual({ usable: 13, shared: 1 });
    const l = layoutPlan(cluster, 10);
    expect(l.top).toBe(13);
    expect([l.usable, l.shared]).toEqual([13, 1]);
    // e first (malleable jobs last) on 0..8, its unused 6..8; m takes 8..13 and one of e's unused processors, 7..8.
    expect(l.boxes.map((b) => [b.id, b.bands, b.shared])).toEqual([
      ['e', [[0, 8]], []],
      ['m', [[7, 13]], [[7, 8]]],
    ]);
    expect(l.boxes[1]!.text).toContain("6 processors · 1 of them inside an evolving job's unused pre-allocation");
  });

  it('shares nothing when nothing is counted twice', () => {
    const apart = layoutPlan({ ...cluster, capacity: [{ t: 10, v: 13 }], running: cluster.running.slice(0, 1) }, 10);
    expect(apart.boxes.map((b) => [b.id, b.bands, b.shared])).toEqual([['m', [[0, 6]], []]]);
    expect(apart.shared).toBe(0);
  });

  it('says in the header what Concertina may use counted once, and how many processors are shared', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'plan.snapshot': {
        ok: true,
        value: { now: 10, queuePolicy: 'easy', planner: 'easy', limit: 200, clusters: [cluster] },
      },
    });
    const stores = createStores(client);
    const wrapper = mount(PlanView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    const header = wrapper.get('[data-testid="plan-capacity-c"]').text().replace(/\s+/g, ' ');
    expect(header).toMatch(/^13 processors · may use 13 · 1 shared \(/);
    wrapper.unmount();
  });
});
