// @vitest-environment happy-dom
// The first start's hint on the Grid: says how much virtual time the run was warmed up (when it was), points at
// growth, the Queue, Activity, the Lab and the speed control; once dismissed it stays dismissed.
import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import GridView from '../../renderer/src/views/GridView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { NAVIGATE } from '../../renderer/src/navigation.js';
import type { ClusterSnapshot } from '../../renderer/src/api/types.js';
import { fakeClient, gridSnapshot } from './fake-client.js';

const cluster: ClusterSnapshot = {
  name: 'vu',
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
};

function mountGrid(snapshot: Parameters<typeof gridSnapshot>[0]) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const stores = createStores(fakeClient());
  const wrapper = mount(GridView, {
    global: { plugins: [pinia], provide: { [STORES as symbol]: stores, [NAVIGATE as symbol]: () => undefined } },
  });
  stores.grid.applySnapshot(gridSnapshot({ clusters: [cluster], ...snapshot }));
  return wrapper;
}

describe('first start hint', () => {
  beforeEach(() => window.localStorage.clear());

  it('says the run was warmed up and for how long, and points at the views and the speed', async () => {
    const wrapper = mountGrid({ time: 10_900, warmedUpS: 10_800 });
    await flushPromises();
    const hint = wrapper.find('[data-testid="first-start-hint"]');
    expect(hint.exists()).toBe(true);
    expect(wrapper.find('[data-testid="warm-up-note"]').text()).toContain(
      'first 3 h of virtual time were simulated before the clock started',
    );
    for (const word of ['preemptible', 'Queue', 'Activity', 'Lab', '100×']) expect(hint.text()).toContain(word);
    wrapper.unmount();
  });

  it('words a warm-up that went on past whole hours (until a job waited) in hours and minutes', async () => {
    for (const [warmedUpS, words] of [
      [11_280, '3 h 8 min'],
      [2_400, '40 min'],
      [21_600, '6 h'],
    ] as const) {
      const wrapper = mountGrid({ time: warmedUpS + 10, warmedUpS });
      await flushPromises();
      expect(wrapper.find('[data-testid="warm-up-note"]').text()).toContain(`first ${words} of virtual time`);
      wrapper.unmount();
    }
  });

  it('says nothing of a warm-up the run did not have', async () => {
    const wrapper = mountGrid({ time: 5 });
    await flushPromises();
    expect(wrapper.find('[data-testid="first-start-hint"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="warm-up-note"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('stays dismissed once dismissed', async () => {
    const first = mountGrid({ time: 10_900, warmedUpS: 10_800 });
    await flushPromises();
    await first.find('[data-testid="first-start-dismiss"]').trigger('click');
    expect(first.find('[data-testid="first-start-hint"]').exists()).toBe(false);
    first.unmount();
    const again = mountGrid({ time: 11_000, warmedUpS: 10_800 });
    await flushPromises();
    expect(again.find('[data-testid="first-start-hint"]').exists()).toBe(false);
    again.unmount();
  });
});
