// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { mountSubmit } from './mount-submit.js';
import { fakeClient, type FakeClient } from './fake-client.js';

/** The view also loads the saved templates on mount: only submissions count here. */
const submissions = (client: FakeClient) => client.calls.filter((c) => c.method === 'jobs.submit');

describe('Submit form', () => {
  it('shows the error under the field and disables the submit button while invalid', async () => {
    const { wrapper, stores, client } = mountSubmit();
    expect(wrapper.find('[data-testid="submit-view"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="error-min"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="submit-button"]').attributes('disabled')).toBeUndefined();

    stores.submit.form.min = 16;
    stores.submit.form.max = 4;
    await flushPromises();
    const error = wrapper.find('[data-testid="error-min"]');
    expect(error.exists()).toBe(true);
    expect(error.text()).toContain('must not exceed max');
    expect(wrapper.find('[data-testid="submit-button"]').attributes('disabled')).toBeDefined();
    await wrapper.find('form').trigger('submit');
    expect(submissions(client)).toEqual([]);
    wrapper.unmount();
  });

  it('validates what is typed into the number inputs', async () => {
    const { wrapper, stores } = mountSubmit();
    await wrapper.find('[data-testid="field-min"] input').setValue('8');
    await wrapper.find('[data-testid="field-max"] input').setValue('4');
    await flushPromises();
    expect(stores.submit.form.min).toBe(8);
    expect(stores.submit.form.max).toBe(4);
    expect(wrapper.find('[data-testid="error-min"]').text()).toContain('must not exceed max (min 8 > max 4)');
    expect(wrapper.find('[data-testid="submit-button"]').attributes('disabled')).toBeDefined();
    await wrapper.find('[data-testid="kind-rigid"] input').setValue(true);
    await flushPromises();
    expect(stores.submit.form.kind).toBe('rigid');
    expect(wrapper.find('[data-testid="field-min"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="field-processors"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="submit-button"]').attributes('disabled')).toBeUndefined();
    wrapper.unmount();
  });

  it('submits through the API and shows the job id, or the API errors under their fields', async () => {
    const client = fakeClient({
      'jobs.submit': { ok: false, errors: [{ path: 'components[0].program', message: 'unknown program' }] },
    });
    const { wrapper } = mountSubmit(client);
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-program"]').text()).toBe('unknown program');

    client.answers['jobs.submit'] = { ok: true, value: { jobId: 'job-7' } };
    await wrapper.find('[data-testid="submit-button"]').trigger('click');
    await flushPromises();
    expect(submissions(client)).toHaveLength(2);
    expect(wrapper.find('[data-testid="submitted-id"]').text()).toBe('job-7');
    wrapper.unmount();
  });
});
