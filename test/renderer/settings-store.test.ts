// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { flushPromises, mount } from '@vue/test-utils';
import { NSelect } from 'naive-ui';
import { defineSettingsStore, settingsFieldOf } from '../../renderer/src/stores/settings.js';
import SettingsView from '../../renderer/src/views/SettingsView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { fakeClient } from './fake-client.js';

const STREAM = { jobsPerHour: 24, malleablePct: 60, rigidPct: 25, evolvingPct: 15 };
const QUEUE_AND_FPE = {
  queue: 'koala' as const,
  reservationDepth: null,
  priority: 'submit' as const,
  fpeVariant: '2X+c' as const,
  fpeGrowTimeoutS: 300,
  fpeGrowAttempts: 3,
};

describe('settings store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('loads the settings into the form', async () => {
    const client = fakeClient({
      'settings.get': {
        ok: true,
        value: { approach: 'pwa', policy: 'egs', triesThreshold: 7, stream: STREAM, ...QUEUE_AND_FPE },
      },
    });
    const store = defineSettingsStore(client)();
    expect(await store.load()).toBe(true);
    expect(client.calls).toEqual([{ method: 'settings.get', payload: {} }]);
    expect(store.form).toEqual({ approach: 'pwa', policy: 'egs', triesThreshold: 7, ...STREAM, ...QUEUE_AND_FPE });
    expect(store.loaded).toEqual({
      approach: 'pwa',
      policy: 'egs',
      triesThreshold: 7,
      stream: STREAM,
      ...QUEUE_AND_FPE,
    });
  });

  it('saves the form and confirms', async () => {
    const client = fakeClient({
      'settings.set': {
        ok: true,
        value: {
          approach: 'pra',
          policy: 'fpsma',
          triesThreshold: 5,
          stream: { ...STREAM, jobsPerHour: 30 },
          ...QUEUE_AND_FPE,
        },
      },
    });
    const store = defineSettingsStore(client)();
    store.form = { approach: 'pra', policy: 'fpsma', triesThreshold: 5, ...STREAM, jobsPerHour: 30, ...QUEUE_AND_FPE };
    expect(await store.save()).toBe(true);
    expect(client.calls).toEqual([
      {
        method: 'settings.set',
        payload: {
          approach: 'pra',
          policy: 'fpsma',
          triesThreshold: 5,
          stream: { ...STREAM, jobsPerHour: 30 },
          ...QUEUE_AND_FPE,
        },
      },
    ]);
    expect(store.saved).toBe(true);
    expect(store.errors).toEqual({});
    store.touch('policy');
    expect(store.saved).toBe(false);
  });

  it('maps an API error to its field, and clears it on an edit of that field', async () => {
    const client = fakeClient({
      'settings.set': {
        ok: false,
        errors: [
          { path: 'triesThreshold', message: 'must be at least 1' },
          { path: '', message: 'host is busy' },
        ],
      },
    });
    const store = defineSettingsStore(client)();
    expect(await store.save()).toBe(false);
    expect(store.saved).toBe(false);
    expect(store.errors.triesThreshold).toBe('must be at least 1');
    expect(store.errors.form).toBe('host is busy');
    store.touch('triesThreshold');
    expect(store.errors.triesThreshold).toBeUndefined();
    expect(store.errors.form).toBe('host is busy');
  });

  it('refuses an empty tries threshold without calling the API', async () => {
    const client = fakeClient();
    const store = defineSettingsStore(client)();
    store.form.triesThreshold = null;
    expect(await store.save()).toBe(false);
    expect(client.calls).toEqual([]);
    expect(store.errors.triesThreshold).toBe('is required');
  });

  it('refuses an empty arrival rate of the stream without calling the API', async () => {
    const client = fakeClient({
      'settings.get': {
        ok: true,
        value: { approach: 'pra', policy: 'fpsma', triesThreshold: 3, stream: STREAM, ...QUEUE_AND_FPE },
      },
    });
    const store = defineSettingsStore(client)();
    await store.load();
    store.form.jobsPerHour = null;
    expect(await store.save()).toBe(false);
    expect(client.calls.map((c) => c.method)).toEqual(['settings.get']);
    expect(store.errors.jobsPerHour).toBe('is required');
  });

  it('maps paths to fields', () => {
    expect(settingsFieldOf('stream.evolvingPct')).toBe('evolvingPct');
    expect(settingsFieldOf('stream')).toBe('jobsPerHour');
    expect(settingsFieldOf('policy')).toBe('policy');
    expect(settingsFieldOf('approach')).toBe('approach');
    expect(settingsFieldOf('triesThreshold')).toBe('triesThreshold');
    expect(settingsFieldOf('fpeGrowTimeoutS')).toBe('fpeGrowTimeoutS');
    expect(settingsFieldOf('fpeGrowAttempts')).toBe('fpeGrowAttempts');
    expect(settingsFieldOf('other')).toBe('form');
    expect(settingsFieldOf('')).toBe('form');
  });
});

describe('Settings view', () => {
  it('loads on mount, shows an API error under its field and the saved confirmation', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'settings.get': {
        ok: true,
        value: { approach: 'pra', policy: 'fpsma', triesThreshold: 3, stream: STREAM, ...QUEUE_AND_FPE },
      },
      'settings.set': { ok: false, errors: [{ path: 'policy', message: 'unknown policy' }] },
    });
    const stores = createStores(client);
    const wrapper = mount(SettingsView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    expect(wrapper.find('[data-testid="settings-view"]').exists()).toBe(true);
    // (The Clusters section below loads its own list as well.)
    expect(client.calls.filter((c) => c.method.startsWith('settings.'))[0]!.method).toBe('settings.get');
    expect(wrapper.find('[data-testid="field-triesThreshold"] input').element).toHaveProperty('value', '3');
    expect(wrapper.find('[data-testid="field-jobsPerHour"] input').element).toHaveProperty('value', '24');

    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-policy"]').text()).toBe('unknown policy');
    expect(wrapper.find('[data-testid="settings-saved"]').exists()).toBe(false);

    client.answers['settings.set'] = {
      ok: true,
      value: { approach: 'pra', policy: 'fpsma', triesThreshold: 3, stream: STREAM, ...QUEUE_AND_FPE },
    };
    await wrapper.find('[data-testid="save-settings"]').trigger('click');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-policy"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="settings-saved"]').exists()).toBe(true);
    wrapper.unmount();
  });

  it("offers the malleability policies the host serves (settings.choices), with the chosen one's description", async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const policies = [
      { name: 'fpsma', description: 'oldest first' },
      { name: 'dbes', description: 'expand what reserved jobs wait for' },
      { name: 'rigid', description: 'never resize' },
    ];
    const client = fakeClient({
      'settings.get': {
        ok: true,
        value: { approach: 'pra', policy: 'dbes', triesThreshold: 3, stream: STREAM, ...QUEUE_AND_FPE },
      },
      'settings.choices': { ok: true, value: { queuePolicies: [], priorities: [], policies, fpeVariants: [] } },
    });
    const stores = createStores(client);
    const wrapper = mount(SettingsView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    const select = wrapper.findAllComponents(NSelect).find((c) => c.attributes('data-testid') === 'field-policy')!;
    expect((select.props('options') as Array<{ value: string }>).map((o) => o.value)).toEqual([
      'fpsma',
      'dbes',
      'rigid',
    ]);
    expect(wrapper.find('[data-testid="hint-policy"]').text()).toBe('expand what reserved jobs wait for');
    stores.settings.form.policy = 'rigid';
    await flushPromises();
    expect(wrapper.find('[data-testid="hint-policy"]').text()).toBe('never resize');
    wrapper.unmount();
  });

  it("shows a profiled job's grow timeout and attempts, sends them, and shows a refusal or an empty one at its field", async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'settings.get': {
        ok: true,
        value: { approach: 'pra', policy: 'fpsma', triesThreshold: 3, stream: STREAM, ...QUEUE_AND_FPE },
      },
    });
    const stores = createStores(client);
    const wrapper = mount(SettingsView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    const input = (field: string) => wrapper.find(`[data-testid="field-${field}"] input`);
    expect(input('fpeGrowTimeoutS').element).toHaveProperty('value', '300');
    expect(input('fpeGrowAttempts').element).toHaveProperty('value', '3');
    const sets = () => client.calls.filter((c) => c.method === 'settings.set');

    // Emptied, it is required: refused at its field before the API is asked.
    stores.settings.form.fpeGrowAttempts = null;
    await wrapper.find('[data-testid="save-settings"]').trigger('click');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-fpeGrowAttempts"]').text()).toBe('is required');
    expect(sets()).toEqual([]);

    // The host's refusal (its zod schema) lands at the field it names; an edit of that field clears it.
    stores.settings.form.fpeGrowAttempts = 2;
    stores.settings.form.fpeGrowTimeoutS = 0;
    client.answers['settings.set'] = {
      ok: false,
      errors: [{ path: 'fpeGrowTimeoutS', message: 'must be a number of seconds > 0' }],
    };
    await wrapper.find('[data-testid="save-settings"]').trigger('click');
    await flushPromises();
    expect(sets().at(-1)?.payload).toMatchObject({ fpeGrowTimeoutS: 0, fpeGrowAttempts: 2 });
    expect(wrapper.find('[data-testid="error-fpeGrowTimeoutS"]').text()).toBe('must be a number of seconds > 0');
    expect(wrapper.find('[data-testid="error-fpeGrowAttempts"]').exists()).toBe(false);
    await input('fpeGrowTimeoutS').setValue('120');
    await input('fpeGrowTimeoutS').trigger('blur');
    await flushPromises();
    expect(stores.settings.form.fpeGrowTimeoutS).toBe(120);
    expect(wrapper.find('[data-testid="error-fpeGrowTimeoutS"]').exists()).toBe(false);

    client.answers['settings.set'] = {
      ok: true,
      value: {
        approach: 'pra',
        policy: 'fpsma',
        triesThreshold: 3,
        stream: STREAM,
        ...QUEUE_AND_FPE,
        fpeGrowTimeoutS: 120,
        fpeGrowAttempts: 2,
      },
    };
    await wrapper.find('[data-testid="save-settings"]').trigger('click');
    await flushPromises();
    expect(sets().at(-1)?.payload).toMatchObject({ fpeGrowTimeoutS: 120, fpeGrowAttempts: 2 });
    expect(wrapper.find('[data-testid="settings-saved"]').exists()).toBe(true);
    expect(input('fpeGrowAttempts').element).toHaveProperty('value', '2');
    wrapper.unmount();
  });

  it("offers the FPE variants the host serves (settings.choices) in a select, with the chosen one's description, and saves the choice", async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const fpeVariants = [
      { name: 'rigid' as const, description: 'evolution ignored' },
      { name: '2X+c' as const, description: 'expand to twice, then compact' },
      { name: 'infX' as const, description: 'expand without limit' },
    ];
    const client = fakeClient({
      'settings.get': {
        ok: true,
        value: { approach: 'pra', policy: 'fpsma', triesThreshold: 3, stream: STREAM, ...QUEUE_AND_FPE },
      },
      'settings.choices': { ok: true, value: { queuePolicies: [], priorities: [], policies: [], fpeVariants } },
    });
    const stores = createStores(client);
    const wrapper = mount(SettingsView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    const select = wrapper.findAllComponents(NSelect).find((c) => c.attributes('data-testid') === 'field-fpeVariant')!;
    expect((select.props('options') as Array<{ value: string }>).map((o) => o.value)).toEqual([
      'rigid',
      '2X+c',
      'infX',
    ]);
    expect(select.props('value')).toBe('2X+c');
    expect(wrapper.find('[data-testid="hint-fpeVariant"]').text()).toBe('expand to twice, then compact');
    select.vm.$emit('update:value', 'infX');
    await flushPromises();
    expect(wrapper.find('[data-testid="hint-fpeVariant"]').text()).toBe('expand without limit');
    client.answers['settings.set'] = {
      ok: false,
      errors: [{ path: 'fpeVariant', message: 'must be one of rigid, noX' }],
    };
    await wrapper.find('[data-testid="save-settings"]').trigger('click');
    await flushPromises();
    expect(client.calls.find((c) => c.method === 'settings.set')?.payload).toMatchObject({ fpeVariant: 'infX' });
    expect(wrapper.find('[data-testid="error-fpeVariant"]').text()).toBe('must be one of rigid, noX');
    wrapper.unmount();
  });
});
