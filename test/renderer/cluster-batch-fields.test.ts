// @vitest-environment happy-dom
// Settings → Clusters builds its batch options' fields from the adapters' schemas as the host serves them
// (clusters.list's `systems`): an option added to an adapter's schema appears in the form for that system only,
// and what is typed in it reaches the configuration saved.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import ClustersSection from '../../renderer/src/components/ClustersSection.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { BATCH_SYSTEM_INFOS } from '../../runners/live/config.js';
import { batchWord, describeOptions } from '../../runners/managers/options.js';
import { slurmOptionsSchema } from '../../runners/managers/slurm.js';
import { fakeClient } from './fake-client.js';

describe("Settings → Clusters: batch options from the adapters' schemas", () => {
  it("shows a field added to an adapter's schema, for its system only, and saves what is typed in it", async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const withReservation = slurmOptionsSchema.extend({
      reservation: batchWord
        .optional()
        .meta({ title: 'reservation', description: 'the advance reservation jobs run in' }),
    });
    const systems = BATCH_SYSTEM_INFOS.map((s) =>
      s.name === 'slurm' ? { ...s, options: describeOptions(withReservation) } : s,
    );
    const client = fakeClient({
      'clusters.list': { ok: true, value: { clusters: [], secretsPersist: false, systems } },
      'clusters.save': { ok: true, value: { name: 'lab1' } },
    });
    const stores = createStores(client);
    const wrapper = mount(ClustersSection, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();

    const field = () => wrapper.find('[data-testid="cluster-batch-reservation"]');
    expect(stores.clusters.form.system).toBe('slurm');
    expect(field().exists()).toBe(true);
    expect(field().attributes('aria-label')).toBe('reservation');
    expect(field().attributes('placeholder')).toBe('the advance reservation jobs run in');
    // The adapter's own options are there too, in its schema's order; another system's are not.
    expect(wrapper.findAll('[data-testid^="cluster-batch-"]').map((w) => w.attributes('data-testid'))).toEqual([
      'cluster-batch-partition',
      'cluster-batch-account',
      'cluster-batch-extraArgs',
      'cluster-batch-reservation',
    ]);

    await field().setValue(' resv1 ');
    stores.clusters.form.name = 'lab1';
    stores.clusters.form.host = 'login.example.org';
    expect(await stores.clusters.save()).toBe(true);
    expect(client.calls.find((c) => c.method === 'clusters.save')?.payload).toMatchObject({
      system: 'slurm',
      batch: { reservation: 'resv1' },
    });

    stores.clusters.form.system = 'sge';
    await flushPromises();
    expect(field().exists()).toBe(false);
    expect(wrapper.find('[data-testid="cluster-batch-parallelEnvironment"]').exists()).toBe(true);
    wrapper.unmount();
  });
});
