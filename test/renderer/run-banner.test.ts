// @vitest-environment happy-dom
// The run-status banner above every view (a stored run being resumed, one that cannot be, one open read-only, and the
// copy kept by a fresh run), the speed control's lag tag and refusals, and what Settings → New run warns of.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import RunBanner from '../../renderer/src/components/RunBanner.vue';
import SpeedControl from '../../renderer/src/components/SpeedControl.vue';
import SettingsView from '../../renderer/src/views/SettingsView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import type { RunStatus } from '../../renderer/src/api/types.js';
import { fakeClient, gridSnapshot, type FakeClient } from './fake-client.js';

const UNRESUMABLE: RunStatus = {
  state: 'unresumable',
  reason: 'the store failed its check: clock 1 is before its last event (t=500)',
};

function mountWith(component: unknown, client: FakeClient = fakeClient()) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const stores = createStores(client);
  const wrapper = mount(component as never, {
    global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
    attachTo: 'body',
  });
  return { wrapper, stores, client };
}

const find = (wrapper: ReturnType<typeof mount>, id: string) => wrapper.find(`[data-testid="${id}"]`);

describe('run-status banner', () => {
  it('says nothing while the run is running', async () => {
    const { wrapper, stores } = mountWith(RunBanner);
    stores.grid.applySnapshot(gridSnapshot({ time: 5 }));
    await flushPromises();
    expect(find(wrapper, 'run-banner').exists()).toBe(false);
    wrapper.unmount();
  });

  it('shows how much of the stored run is replayed, with a progress bar and both ways out', async () => {
    const { wrapper, stores } = mountWith(RunBanner);
    stores.grid.applySnapshot(
      gridSnapshot({ run: { state: 'resuming', replayedEvents: 4_130, storedEvents: 10_000 } }),
    );
    await flushPromises();
    expect(find(wrapper, 'run-banner').text()).toContain('Resuming the stored run: 41 % replayed');
    expect(find(wrapper, 'run-progress').exists()).toBe(true);
    expect(find(wrapper, 'run-open-read-only').exists()).toBe(true);
    expect(find(wrapper, 'run-fresh').exists()).toBe(true);
    // Never 100 % before the host says the run is resumed.
    stores.grid.applySnapshot(
      gridSnapshot({ run: { state: 'resuming', replayedEvents: 10_000, storedEvents: 10_000 } }),
    );
    await flushPromises();
    expect(find(wrapper, 'run-banner').text()).toContain('99 % replayed');
    wrapper.unmount();
  });

  it('shows why a stored run cannot be resumed, and opens it read-only', async () => {
    const client = fakeClient({
      'run.openReadOnly': { ok: true, value: { state: 'read-only', reason: UNRESUMABLE.reason } },
    });
    const { wrapper, stores } = mountWith(RunBanner, client);
    stores.grid.applySnapshot(gridSnapshot({ run: UNRESUMABLE }));
    await flushPromises();
    expect(find(wrapper, 'run-banner').text()).toContain('The stored run cannot be resumed');
    expect(find(wrapper, 'run-banner-reason').text()).toBe(UNRESUMABLE.reason);
    expect(find(wrapper, 'run-progress').exists()).toBe(false);
    await find(wrapper, 'run-open-read-only').trigger('click');
    await flushPromises();
    expect(client.calls.map((c) => c.method)).toEqual(['run.openReadOnly']);
    expect(find(wrapper, 'run-banner').attributes('data-state')).toBe('read-only');
    expect(find(wrapper, 'run-banner').text()).toContain('open read-only');
    expect(find(wrapper, 'run-banner-reason').text()).toBe(UNRESUMABLE.reason);
    // Read-only leaves one way on: a fresh run.
    expect(find(wrapper, 'run-open-read-only').exists()).toBe(false);
    expect(find(wrapper, 'run-fresh').exists()).toBe(true);
    wrapper.unmount();
  });

  it('shows the host refusing to open the run read-only', async () => {
    const client = fakeClient({
      'run.openReadOnly': {
        ok: false,
        errors: [
          {
            path: '',
            message: 'the run is running: only a stored run being resumed, or one that cannot be, is opened read-only',
          },
        ],
      },
    });
    const { wrapper, stores } = mountWith(RunBanner, client);
    stores.grid.applySnapshot(gridSnapshot({ run: UNRESUMABLE }));
    await flushPromises();
    await find(wrapper, 'run-open-read-only').trigger('click');
    await flushPromises();
    expect(find(wrapper, 'run-banner-error').text()).toMatch(/^the run is running/);
    wrapper.unmount();
  });

  it('starts a fresh run after a confirmation that the stored run is kept as a copy, and says where the copy is', async () => {
    const backup = '/data/run.db.unresumed-2026-05-01T10-00-00.db';
    const client = fakeClient({
      'sim.reset': { ok: true, value: { grid: 'das3', clusters: 5, workload: 'wm', jobs: 300, seed: 1, backup } },
      'grid.snapshot': { ok: true, value: gridSnapshot({ time: 0 }) },
      'jobs.list': { ok: true, value: { jobs: [], total: 0, version: '2:0' } },
      'settings.get': {
        ok: true,
        value: {
          approach: 'pra',
          policy: 'fpsma',
          triesThreshold: 3,
          stream: { jobsPerHour: 24, malleablePct: 60, rigidPct: 25, evolvingPct: 15 },
          queue: 'koala',
          reservationDepth: null,
          priority: 'submit',
          fpeVariant: '2X+c',
          fpeGrowTimeoutS: 300,
          fpeGrowAttempts: 3,
        },
      },
    });
    const { wrapper, stores } = mountWith(RunBanner, client);
    stores.grid.applySnapshot(
      gridSnapshot({ time: 900, run: { state: 'read-only', reason: 'opened read-only while it was being resumed' } }),
    );
    await flushPromises();
    await find(wrapper, 'run-fresh').trigger('click');
    await flushPromises();
    expect(client.calls).toEqual([]);
    expect(find(wrapper, 'run-fresh-confirmation').text()).toContain('The stored run is kept as a copy');
    expect(find(wrapper, 'run-fresh-confirmation').text()).toContain('das3, workload wm, seed 1');
    await find(wrapper, 'run-fresh-confirm').trigger('click');
    await flushPromises();
    expect(client.calls.filter((c) => c.method === 'sim.reset')).toEqual([
      { method: 'sim.reset', payload: { grid: 'das3', workload: 'wm', seed: 1 } },
    ]);
    expect(find(wrapper, 'run-banner').exists()).toBe(false);
    expect(find(wrapper, 'run-backup-path').text()).toBe(backup);
    expect(stores.reset.done).toContain(`kept as a copy: ${backup}`);
    wrapper.unmount();
  });

  it('keeps the stored run when the confirmation is declined, and shows a refused fresh run', async () => {
    const client = fakeClient({
      'sim.reset': {
        ok: false,
        errors: [
          { path: '', message: 'the store /data/run.db is open read-only: start without --read-only to change it' },
        ],
      },
    });
    const { wrapper, stores } = mountWith(RunBanner, client);
    stores.grid.applySnapshot(gridSnapshot({ run: UNRESUMABLE }));
    await flushPromises();
    await find(wrapper, 'run-fresh').trigger('click');
    await find(wrapper, 'run-fresh-cancel').trigger('click');
    await flushPromises();
    expect(client.calls).toEqual([]);
    expect(find(wrapper, 'run-fresh').exists()).toBe(true);
    await find(wrapper, 'run-fresh').trigger('click');
    await find(wrapper, 'run-fresh-confirm').trigger('click');
    await flushPromises();
    expect(find(wrapper, 'run-banner-error').text()).toMatch(/open read-only: start without --read-only/);
    expect(find(wrapper, 'run-backup').exists()).toBe(false);
    wrapper.unmount();
  });
});

describe('speed control', () => {
  it('warns when the simulation falls behind the chosen speed, and not when it keeps up', async () => {
    const { wrapper, stores } = mountWith(SpeedControl);
    stores.grid.applySnapshot(gridSnapshot({ speed: '100x', behindS: 720 }));
    await flushPromises();
    expect(find(wrapper, 'lag-tag').text()).toBe('behind by 0:12:00 — the grid cannot keep up with 100×');
    stores.grid.applySnapshot(gridSnapshot({ speed: '100x', behindS: 0 }));
    await flushPromises();
    expect(find(wrapper, 'lag-tag').exists()).toBe(false);
    // Less than a wall second behind at the chosen speed is a tick's jitter.
    stores.grid.applySnapshot(gridSnapshot({ speed: '100x', behindS: 40 }));
    await flushPromises();
    expect(find(wrapper, 'lag-tag').exists()).toBe(false);
    stores.grid.applySnapshot(gridSnapshot({ speed: '1x', behindS: 3 }));
    await flushPromises();
    expect(find(wrapper, 'lag-tag').text()).toBe('behind by 0:00:03 — the grid cannot keep up with 1×');
    wrapper.unmount();
  });

  it('shows the host refusing a speed change', async () => {
    const client = fakeClient({
      'sim.setSpeed': {
        ok: false,
        errors: [{ path: '', message: 'the stored run is being resumed (12 % replayed): try again in a moment' }],
      },
    });
    const { wrapper } = mountWith(SpeedControl, client);
    await find(wrapper, 'speed-10x').trigger('click');
    await flushPromises();
    expect(find(wrapper, 'speed-error').text()).toContain('being resumed (12 % replayed)');
    client.answers['sim.setSpeed'] = { ok: true, value: { speed: '10x' } };
    await find(wrapper, 'speed-10x').trigger('click');
    await flushPromises();
    expect(find(wrapper, 'speed-error').exists()).toBe(false);
    wrapper.unmount();
  });
});

describe('Settings → New run', () => {
  it('says that a stored run that could not go on is kept as a copy, and that a running one is dropped', async () => {
    const { wrapper, stores } = mountWith(SettingsView);
    stores.grid.applySnapshot(gridSnapshot({ run: UNRESUMABLE }));
    await flushPromises();
    await find(wrapper, 'reset-run').trigger('click');
    await flushPromises();
    expect(document.body.textContent).toContain('The stored run is kept as a copy beside the store');
    stores.grid.applySnapshot(gridSnapshot({ time: 1 }));
    await flushPromises();
    expect(document.body.textContent).toContain('This run, its jobs and their history are dropped.');
    wrapper.unmount();
  });
});
