// @vitest-environment happy-dom
// The Submit form offers the demo applications staged on the live clusters by the `{assets}` placeholder: choosing
// one fills the program (and the model it follows), and the placeholder is what reaches the API.
import { describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { NSelect } from 'naive-ui';
import { fakeClient } from './fake-client.js';
import { mountSubmit } from './mount-submit.js';

describe('Submit form: staged demo applications', () => {
  it('fills the program with the placeholder path and the app model, and submits them as chosen', async () => {
    const client = fakeClient({ 'jobs.submit': { ok: true, value: { jobId: 'job-1' } } });
    const { wrapper, stores } = mountSubmit(client);
    expect(wrapper.find('[data-testid="hint-program"]').text()).toContain('{assets}');
    const demo = wrapper.findAllComponents(NSelect).find((c) => c.attributes('data-testid') === 'field-demo-app')!;
    expect(demo.props('options')).toEqual([
      { label: expect.stringContaining('FT'), value: '{assets}/apps/ft-demo.mjs' },
      { label: expect.stringContaining('GADGET'), value: '{assets}/apps/gadget-demo.mjs' },
      { label: expect.stringContaining('interactive'), value: '{assets}/apps/periodic-demo.mjs' },
    ]);
    demo.vm.$emit('update:value', '{assets}/apps/gadget-demo.mjs');
    await flushPromises();
    expect(stores.submit.form).toMatchObject({ program: '{assets}/apps/gadget-demo.mjs', app: 'gadget2' });
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    const sent = client.calls.find((c) => c.method === 'jobs.submit')!.payload as {
      components: { program: string }[];
      app: { model: string };
    };
    expect(sent.components[0]!.program).toBe('{assets}/apps/gadget-demo.mjs');
    expect(sent.app.model).toBe('gadget2');
    // The periodic demo is an interactive job's application: choosing it chooses the kind.
    demo.vm.$emit('update:value', '{assets}/apps/periodic-demo.mjs');
    await flushPromises();
    expect(stores.submit.form).toMatchObject({ program: '{assets}/apps/periodic-demo.mjs', kind: 'interactive' });
    expect(wrapper.find('[data-testid="field-periodMs"]').exists()).toBe(true);
    wrapper.unmount();
  });
});
