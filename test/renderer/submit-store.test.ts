// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { defineSubmitStore, fieldOf, toSpec } from '../../renderer/src/stores/submit.js';
import { fakeClient } from './fake-client.js';

describe('submit store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('refuses min > max with the error on min and calls no API', async () => {
    const client = fakeClient({ 'jobs.submit': { ok: true, value: { jobId: 'j1' } } });
    const store = defineSubmitStore(client)();
    store.form.kind = 'malleable';
    store.form.min = 8;
    store.form.max = 4;
    expect(store.valid).toBe(false);
    expect(store.errors.min).toMatch(/must not exceed max/);
    expect(store.errors.max).toBeUndefined();
    expect(await store.submit()).toBe(false);
    expect(client.calls).toEqual([]);
    expect(store.submittedId).toBe('');
  });

  it('submits a valid form as a job spec and shows the job id', async () => {
    const client = fakeClient({ 'jobs.submit': { ok: true, value: { jobId: 'job-42' } } });
    const store = defineSubmitStore(client)();
    store.form.min = 2;
    store.form.max = 16;
    store.form.initial = 4;
    store.form.walltime = '1:00:00';
    expect(store.valid).toBe(true);
    expect(await store.submit()).toBe(true);
    expect(store.submittedId).toBe('job-42');
    expect(client.calls).toEqual([
      {
        method: 'jobs.submit',
        payload: {
          kind: 'malleable',
          components: [{ program: 'ft', min: 2, max: 16, initial: 4 }],
          placement: 'wf',
          app: { model: 'ft' },
          walltime: 3600,
          submissionId: expect.any(String),
        },
      },
    ]);
  });

  it('maps the API field errors to their form fields, and clears them on the next edit', async () => {
    const client = fakeClient({
      'jobs.submit': {
        ok: false,
        errors: [
          { path: 'components[0].max', message: 'exceeds every cluster' },
          { path: 'placement', message: 'not now' },
          { path: '', message: 'host is busy' },
        ],
      },
    });
    const store = defineSubmitStore(client)();
    expect(await store.submit()).toBe(false);
    expect(client.calls).toHaveLength(1);
    expect(store.errors.max).toBe('exceeds every cluster');
    expect(store.errors.placement).toBe('not now');
    expect(store.errors.form).toBe('host is busy');
    store.form.max = 30;
    await Promise.resolve();
    expect(store.errors.max).toBeUndefined();
  });

  it('asks a rigid job for processors only', () => {
    const store = defineSubmitStore(fakeClient())();
    store.form.kind = 'rigid';
    store.form.processors = null;
    expect(store.errors.processors).toBe('is required for a rigid job');
    store.form.processors = 4;
    expect(store.valid).toBe(true);
    expect(toSpec(store.form).components).toEqual([{ program: 'ft', processors: 4 }]);
  });

  it('maps paths to fields', () => {
    expect(fieldOf('components[0].min')).toBe('min');
    expect(fieldOf(['components', 0, 'initial'])).toBe('initial');
    expect(fieldOf('app.model')).toBe('app');
    expect(fieldOf('components')).toBe('form');
    expect(fieldOf('')).toBe('form');
    expect(fieldOf('walltime')).toBe('walltime');
  });
});
