// @vitest-environment happy-dom
// The queue settings in the console: Settings offers the host's queue policies (each with its description) and
// priorities, a reservation depth (empty: the policy's own), errors at their fields; the Submit form takes a walltime
// in seconds or h:mm:ss and requires one when the run's queue policy plans ahead.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { flushPromises } from '@vue/test-utils';
import { defineSettingsStore, reservationDepthError } from '../../renderer/src/stores/settings.js';
import { defaultForm, parseWalltime, toSpec, validate } from '../../renderer/src/stores/submit.js';
import SettingsView from '../../renderer/src/views/SettingsView.vue';
import { fakeClient } from './fake-client.js';
import { mountSubmit, mountView } from './mount-submit.js';

const STREAM = { jobsPerHour: 24, malleablePct: 60, rigidPct: 25, evolvingPct: 15 };
const settingsOf = (queue: 'koala' | 'fcfs' | 'easy') => ({
  approach: 'pra' as const,
  policy: 'fpsma',
  triesThreshold: 3,
  stream: STREAM,
  queue,
  reservationDepth: null,
  priority: 'submit' as const,
  fpeVariant: '2X+c' as const,
  fpeGrowTimeoutS: 300,
  fpeGrowAttempts: 3,
});
const CHOICES = {
  queuePolicies: [
    { name: 'koala' as const, description: 'every job tried head to tail', plansAhead: false },
    { name: 'easy' as const, description: 'a reservation for the head job', plansAhead: true },
  ],
  priorities: [
    { name: 'submit' as const, description: 'submission order' },
    { name: 'wait' as const, description: 'waiting time' },
  ],
  policies: [{ name: 'fpsma', description: 'oldest first' }],
  fpeVariants: [
    { name: '2X+c' as const, description: 'expand to twice, then compact' },
    { name: 'rigid' as const, description: 'evolution ignored' },
  ],
};

describe('walltime as typed', () => {
  it.each([
    ['', undefined],
    ['  ', undefined],
    ['5400', 5400],
    ['90.5', 90.5],
    ['1:30:00', 5400],
    ['0:00:07', 7],
    ['36:00:00', 129600],
  ])('"%s" is %s seconds', (text, seconds) => {
    expect(parseWalltime(text)).toEqual({ ok: true, seconds });
  });

  it.each(['1:30', '1:60:00', '1h', '-5', '1:2:3', 'abc', '1d-00:00:00'])(
    '"%s" is refused, saying what is taken',
    (text) => {
      expect(parseWalltime(text)).toEqual({
        ok: false,
        message: expect.stringContaining('seconds (5400) or h:mm:ss (1:30:00)'),
      });
    },
  );

  it('refuses 0', () => {
    expect(parseWalltime('0')).toEqual({ ok: false, message: 'must be more than 0 seconds' });
    expect(parseWalltime('0:00:00')).toEqual({ ok: false, message: 'must be more than 0 seconds' });
  });

  it('is required, at its field, only when the queue policy plans ahead; the spec carries it in seconds', () => {
    const form = defaultForm();
    expect(validate(form)).toEqual({});
    expect(validate(form, 'easy')).toEqual({ walltime: expect.stringMatching(/^is required: the queue policy easy/) });
    form.walltime = '1:00';
    expect(validate(form)).toEqual({ walltime: expect.stringContaining('h:mm:ss') });
    form.walltime = '2:00:00';
    expect(validate(form, 'easy')).toEqual({});
    expect(toSpec(form).walltime).toBe(7200);
  });
});

describe('settings store: queue settings', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it("sends the queue settings with the others; an empty depth is the policy's own (null)", async () => {
    const client = fakeClient({ 'settings.set': { ok: true, value: { ...settingsOf('easy'), reservationDepth: 2 } } });
    const store = defineSettingsStore(client)();
    store.form = { ...store.form, queue: 'easy', reservationDepth: 2, priority: 'wait' };
    expect(await store.save()).toBe(true);
    expect(client.calls[0]!.payload).toMatchObject({ queue: 'easy', reservationDepth: 2, priority: 'wait' });
    store.form.reservationDepth = null;
    await store.save();
    expect(client.calls[1]!.payload).toMatchObject({ reservationDepth: null });
  });

  it('refuses a depth that is not a whole number of jobs at its field, without calling the API', async () => {
    const client = fakeClient();
    const store = defineSettingsStore(client)();
    store.form.reservationDepth = -1;
    expect(await store.save()).toBe(false);
    expect(client.calls).toEqual([]);
    expect(store.errors.reservationDepth).toBe(reservationDepthError(-1));
    expect(reservationDepthError(1.5)).toMatch(/whole number/);
    expect(reservationDepthError(0)).toBeUndefined();
    expect(reservationDepthError(null)).toBeUndefined();
  });

  it('an API error on a queue field lands on it', async () => {
    const client = fakeClient({
      'settings.set': { ok: false, errors: [{ path: 'queue', message: 'must be one of koala, fcfs, easy' }] },
    });
    const store = defineSettingsStore(client)();
    expect(await store.save()).toBe(false);
    expect(store.errors.queue).toBe('must be one of koala, fcfs, easy');
  });

  it("knows the run's queue policy plans ahead from the host's choices", async () => {
    const client = fakeClient({
      'settings.get': { ok: true, value: settingsOf('koala') },
      'settings.choices': { ok: true, value: CHOICES },
    });
    const store = defineSettingsStore(client)();
    await store.refresh();
    expect(store.planningPolicy).toBeUndefined();
    client.answers['settings.get'] = { ok: true, value: settingsOf('easy') };
    await store.refresh();
    expect(store.planningPolicy).toBe('easy');
    // The choices are asked for once.
    expect(client.calls.filter((c) => c.method === 'settings.choices')).toHaveLength(1);
  });
});

describe('queue settings in the views', () => {
  it('Settings shows the queue policy with its description, the depth and the priority, and errors at their fields', async () => {
    const client = fakeClient({
      'settings.get': { ok: true, value: settingsOf('easy') },
      'settings.choices': { ok: true, value: CHOICES },
      'settings.set': { ok: false, errors: [{ path: 'reservationDepth', message: 'must be 0 or more' }] },
    });
    const { wrapper, stores } = mountView(SettingsView, client);
    await flushPromises();
    expect(stores.settings.form.queue).toBe('easy');
    expect(wrapper.find('[data-testid="hint-queue"]').text()).toBe('a reservation for the head job');
    expect(wrapper.find('[data-testid="hint-priority"]').text()).toBe('submission order');
    await wrapper.find('[data-testid="save-settings"]').trigger('click');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-reservationDepth"]').text()).toBe('must be 0 or more');
    wrapper.unmount();
  });

  it('Submit marks the walltime required under a planning queue policy, with a hint, and refuses a bad one at the field', async () => {
    const client = fakeClient({
      'settings.get': { ok: true, value: settingsOf('easy') },
      'settings.choices': { ok: true, value: CHOICES },
    });
    const { wrapper, stores } = mountSubmit(client);
    await flushPromises();
    expect(stores.submit.walltimeNeededBy).toBe('easy');
    expect(wrapper.text()).toContain('walltime (required)');
    expect(wrapper.find('[data-testid="error-walltime"]').text()).toMatch(/^is required: the queue policy easy/);
    expect(stores.submit.valid).toBe(false);
    await wrapper.find('[data-testid="field-walltime"] input').setValue('soon');
    expect(wrapper.find('[data-testid="error-walltime"]').text()).toContain('h:mm:ss');
    await wrapper.find('[data-testid="field-walltime"] input').setValue('0:30:00');
    expect(wrapper.find('[data-testid="error-walltime"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="hint-walltime"]').text()).toContain('planned as never ending');
    expect(stores.submit.valid).toBe(true);
    wrapper.unmount();
  });

  it('Submit leaves the walltime optional under koala', async () => {
    const client = fakeClient({
      'settings.get': { ok: true, value: settingsOf('koala') },
      'settings.choices': { ok: true, value: CHOICES },
    });
    const { wrapper, stores } = mountSubmit(client);
    await flushPromises();
    expect(stores.submit.walltimeNeededBy).toBeUndefined();
    expect(wrapper.find('[data-testid="error-walltime"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="hint-walltime"]').text()).toMatch(/^optional/);
    expect(stores.submit.valid).toBe(true);
    wrapper.unmount();
  });
});
