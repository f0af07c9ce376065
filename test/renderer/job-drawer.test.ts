// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import JobDrawer from '../../renderer/src/components/JobDrawer.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import type { JobSummary } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const job: JobSummary = {
  id: 'job-1',
  name: 'ft-a',
  kind: 'malleable',
  state: 'running',
  tries: 1,
  lastFailure: '',
  size: 6,
  min: 2,
  max: 8,
  placement: 'wf',
  clusters: ['fs0'],
  submitted: 0,
};

// The drawer is teleported to <body>. Typed minimally: tsc -p tsconfig.json checks this file without the DOM lib.
interface Found {
  textContent: string | null;
  click(): void;
  querySelector(selector: string): Found | null;
}
const find = (selector: string): Found | null =>
  (globalThis as unknown as { document: { querySelector(s: string): Found | null } }).document.querySelector(selector);

describe('Job drawer', () => {
  it('shows the job events and size, and why a cancel was refused', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'jobs.list': { ok: true, value: { jobs: [job], total: 1 } },
      'jobs.cancel': { ok: false, errors: [{ path: 'jobId', message: 'job-1 has already ended' }] },
    });
    const stores = createStores(client);
    stores.activity.add({ type: 'job.started', t: 10, jobId: 'job-1', cluster: 'fs0', size: 2 });
    stores.activity.add({ type: 'job.grown', t: 20, jobId: 'job-1', cluster: 'fs0', processors: 4, size: 6 });
    await stores.jobs.refresh();
    // Not literals: under tsc -p tsconfig.json the component is an opaque shim.
    const open = { jobId: 'job-1' };
    const closed = { jobId: null };
    const wrapper = mount(JobDrawer, {
      props: open,
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    const drawer = find('[data-testid="job-drawer"]');
    expect(drawer).not.toBeNull();
    expect(drawer!.querySelector('[data-testid="job-events"]')!.textContent).toContain('+4 on fs0 → 6');

    find('[data-testid="cancel-job"]')!.click();
    await flushPromises();
    expect(client.calls.filter((c) => c.method === 'jobs.cancel')).toEqual([{ method: 'jobs.cancel', payload: { jobId: 'job-1' } }]);
    expect(find('[data-testid="cancel-error"]')!.textContent).toContain('job-1 has already ended');
    expect(drawer!.textContent).toContain('ft-a');

    await wrapper.setProps(closed as never);
    await flushPromises();
    expect(find('[data-testid="cancel-error"]')).toBeNull();
    wrapper.unmount();
  });
});
