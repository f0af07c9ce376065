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
      'jobs.list': { ok: true, value: { jobs: [job], total: 1, version: '1:1' } },
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

    // Cancel asks first: nothing is sent until the user says so.
    find('[data-testid="cancel-job"]')!.click();
    await flushPromises();
    expect(find('[data-testid="cancel-confirm"]')!.textContent).toContain('It is stopped on fs0');
    expect(client.calls.filter((c) => c.method === 'jobs.cancel')).toEqual([]);
    const confirm = Array.from(
      (
        globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<Found> } }
      ).document.querySelectorAll('button'),
    ).find((b) => b.textContent?.includes('Cancel the job'));
    confirm!.click();
    await flushPromises();
    expect(client.calls.filter((c) => c.method === 'jobs.cancel')).toEqual([
      { method: 'jobs.cancel', payload: { jobId: 'job-1' } },
    ]);
    expect(find('[data-testid="cancel-error"]')!.textContent).toContain('job-1 has already ended');
    expect(drawer!.textContent).toContain('ft-a');

    await wrapper.setProps(closed as never);
    await flushPromises();
    expect(find('[data-testid="cancel-error"]')).toBeNull();
    wrapper.unmount();
  });

  it('grows and shrinks a running malleable job by the number typed, and shows why the host refused', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'jobs.list': { ok: true, value: { jobs: [job], total: 1, version: '1:1' } },
      'jobs.resize': { ok: true, value: { jobId: 'job-1', cluster: 'fs0', processors: 2, direction: 'grow' } },
    });
    const stores = createStores(client);
    await stores.jobs.refresh();
    const wrapper = mount(JobDrawer, {
      props: { jobId: 'job-1' },
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    const input = find('[data-testid="resize-by"] input') as unknown as {
      value: string;
      dispatchEvent(e: unknown): void;
    };
    // The number input commits what is typed when it loses focus.
    const EventOf = (globalThis as unknown as { Event: new (t: string, o?: object) => unknown }).Event;
    input.value = '2';
    input.dispatchEvent(new EventOf('input', { bubbles: true }));
    input.dispatchEvent(new EventOf('blur'));
    await flushPromises();
    find('[data-testid="grow-job"]')!.click();
    await flushPromises();
    expect(find('[data-testid="resize-done"]')!.textContent).toContain('offered 2 more on fs0');

    client.answers['jobs.resize'] = {
      ok: false,
      errors: [{ path: 'delta', message: 'would take job job-1 below its minimum (6 of min 2: shrink by 4 at most)' }],
    };
    find('[data-testid="shrink-job"]')!.click();
    await flushPromises();
    expect(client.calls.filter((c) => c.method === 'jobs.resize').map((c) => c.payload)).toEqual([
      { jobId: 'job-1', delta: 2 },
      { jobId: 'job-1', delta: -2 },
    ]);
    expect(find('[data-testid="resize-error"]')!.textContent).toContain(
      'delta: would take job job-1 below its minimum',
    );
    expect(find('[data-testid="resize-done"]')).toBeNull();
    wrapper.unmount();
  });

  it('shows what the operator asked, what the application did, and the cap that results', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'jobs.list': { ok: true, value: { jobs: [{ ...job, size: 4, cap: 4 }], total: 1, version: '1:1' } },
    });
    const stores = createStores(client);
    stores.activity.add({ type: 'job.started', t: 10, jobId: 'job-1', cluster: 'fs0', size: 8 });
    stores.activity.add({
      type: 'shrink.requested',
      t: 20,
      jobId: 'job-1',
      cluster: 'fs0',
      offerId: 7,
      processors: 1,
      mandatory: true,
      operator: true,
    });
    await stores.jobs.refresh();
    const wrapper = mount(JobDrawer, {
      props: { jobId: 'job-1' },
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    expect(find('[data-testid="operator-resize"]')!.textContent).toContain(
      'operator asked to shrink by 1 · waiting for the application',
    );
    // FT keeps a power of two: asked for 1 of 8, it gives back 4, and is capped at 4.
    stores.activity.add({ type: 'shrink.answered', t: 20, jobId: 'job-1', offerId: 7, accepted: 4, operator: true });
    await flushPromises();
    expect(find('[data-testid="operator-resize"]')!.textContent).toBe(
      'operator asked to shrink by 1 · the application gave back 4 · cap 4: the policies grow it no further until an operator grows it',
    );
    wrapper.unmount();
  });

  it("shows an operator's cap after a restart, when the events of the shrink are not at hand", async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'jobs.list': { ok: true, value: { jobs: [{ ...job, size: 5, cap: 5 }], total: 1, version: '1:1' } },
    });
    const stores = createStores(client);
    await stores.jobs.refresh();
    const wrapper = mount(JobDrawer, {
      props: { jobId: 'job-1' },
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    expect(find('[data-testid="operator-resize"]')!.textContent).toContain("cap 5 (set by an operator's shrink)");
    wrapper.unmount();
  });

  it('offers no grow or shrink for a job that is not running', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'jobs.list': { ok: true, value: { jobs: [{ ...job, state: 'queued' }], total: 1, version: '1:1' } },
    });
    const stores = createStores(client);
    await stores.jobs.refresh();
    const wrapper = mount(JobDrawer, {
      props: { jobId: 'job-1' },
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    find('[data-testid="grow-job"]')!.click();
    find('[data-testid="shrink-job"]')!.click();
    await flushPromises();
    expect(client.calls.filter((c) => c.method === 'jobs.resize')).toEqual([]);
    expect(find('[data-testid="resize-controls"]')!.textContent).toContain('only while it runs');
    wrapper.unmount();
  });
});
