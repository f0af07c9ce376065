// @vitest-environment happy-dom
// The Submit form for evolving jobs: min, initial and the pre-allocation (max), checked with the core's schema, each
// error at its field, and the spec the host receives.
import { describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { byField, fromSpec, toSpec, validate, defaultForm } from '../../renderer/src/stores/submit.js';
import { mountSubmit } from './mount-submit.js';
import { fakeClient, type FakeClient } from './fake-client.js';

const submissions = (client: FakeClient) =>
  client.calls.filter((c) => c.method === 'jobs.submit').map((c) => c.payload);

describe('Submit form, evolving jobs', () => {
  it('turns an evolving form into a spec with min, initial and its pre-allocation as max, and back', () => {
    const form = {
      ...defaultForm(),
      kind: 'evolving' as const,
      min: 4,
      initial: 6,
      max: 24,
      program: 'amr',
      app: 'evolving' as const,
      phases: 3,
      phaseS: 60,
      announceS: null,
    };
    const spec = toSpec(form);
    expect(spec.kind).toBe('evolving');
    expect(spec.components).toEqual([{ program: 'amr', min: 4, max: 24, initial: 6 }]);
    // A parameter left empty is left to the schema's default.
    expect(spec.app).toEqual({ model: 'evolving', phases: 3, phaseS: 60 });
    expect(fromSpec(spec)).toMatchObject({
      kind: 'evolving',
      min: 4,
      initial: 6,
      max: 24,
      app: 'evolving',
      phases: 3,
      phaseS: 60,
      announceS: null,
    });
    // A moldable job has no initial size: what the field held is not sent.
    expect(toSpec({ ...form, kind: 'moldable' }).components[0]).not.toHaveProperty('initial');
    expect(validate(form)).toEqual({});
    expect(validate({ ...form, initial: 30 })).toEqual({ initial: 'must lie within min..max' });
    expect(validate({ ...form, max: null }).max).toMatch(/^is required for an evolving job$/);
  });

  it('labels max as the pre-allocation, shows initial, and each error at its field', async () => {
    const { wrapper, stores, client } = mountSubmit();
    expect(wrapper.find('[data-testid="hint-max"]').exists()).toBe(false);
    await wrapper.find('[data-testid="kind-evolving"] input').setValue(true);
    await flushPromises();
    expect(stores.submit.form.kind).toBe('evolving');
    expect(wrapper.find('[data-testid="field-initial"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="hint-max"]').text()).toContain('held on one cluster');
    expect(wrapper.text()).toContain('pre-allocation (max)');
    // Choosing the kind chose the evolving model, whose parameters are fields of their own.
    expect(stores.submit.form.app).toBe('evolving');
    expect(wrapper.find('[data-testid="field-phases"]').exists()).toBe(true);
    await wrapper.find('[data-testid="field-phases"] input').setValue('0');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-phases"]').text()).toBe('must be at least 1');
    await wrapper.find('[data-testid="field-phases"] input').setValue('6');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-phases"]').exists()).toBe(false);

    await wrapper.find('[data-testid="field-initial"] input').setValue('40');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-initial"]').text()).toBe('must lie within min..max');
    expect(wrapper.find('[data-testid="submit-button"]').attributes('disabled')).toBeDefined();

    await wrapper.find('[data-testid="field-max"] input').setValue('');
    await flushPromises();
    // The error replaces the hint under the pre-allocation field.
    expect(wrapper.find('[data-testid="error-max"]').text()).toContain('is required');
    expect(wrapper.find('[data-testid="hint-max"]').exists()).toBe(false);

    await wrapper.find('[data-testid="field-max"] input').setValue('48');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-initial"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="error-max"]').exists()).toBe(false);
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(submissions(client)).toEqual([
      {
        kind: 'evolving',
        components: [{ program: 'ft', min: 2, max: 48, initial: 40 }],
        placement: 'wf',
        app: { model: 'evolving', phases: 6, phaseS: 300, announceS: 0 },
        submissionId: expect.any(String),
      },
    ]);
    wrapper.unmount();
  });

  it('leaves the evolving model with the kind, and keeps a template’s own model', async () => {
    const { wrapper, stores } = mountSubmit();
    stores.submit.form.kind = 'evolving';
    await flushPromises();
    expect(stores.submit.form.app).toBe('evolving');
    stores.submit.form.kind = 'malleable';
    await flushPromises();
    expect(stores.submit.form.app).toBe('ft');
    expect(wrapper.find('[data-testid="field-phases"]').exists()).toBe(false);
    stores.submit.apply({
      kind: 'evolving',
      app: { model: 'gadget2' },
      components: [{ min: 2, max: 8, program: 'g' }],
    });
    await flushPromises();
    expect(stores.submit.form).toMatchObject({ kind: 'evolving', app: 'gadget2', max: 8 });
    // A host's error on a model parameter lands at its field.
    expect(byField([{ path: 'app.announceS', message: 'must not be negative' }])).toEqual({
      announceS: 'must not be negative',
    });
    expect(byField([{ path: 'app.model', message: 'bad' }])).toEqual({ app: 'bad' });
    wrapper.unmount();
  });

  it('shows what the host refused under the pre-allocation field', async () => {
    const client = fakeClient({
      'jobs.submit': {
        ok: false,
        errors: [{ path: 'components[0].max', message: 'exceeds every cluster (largest 85)' }],
      },
    });
    const { wrapper, stores } = mountSubmit(client);
    stores.submit.form.kind = 'evolving';
    stores.submit.form.max = 500;
    await flushPromises();
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-max"]').text()).toBe('exceeds every cluster (largest 85)');
    wrapper.unmount();
  });
});
