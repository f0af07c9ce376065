// @vitest-environment happy-dom
// The job drawer of an evolving (or malleable) job: its pre-allocation, its views as step lines asked of the host
// when opened and again after its events, why they are missing when the host refuses, and no views for a rigid job.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import JobDrawer from '../../renderer/src/components/JobDrawer.vue';
import ViewsChart from '../../renderer/src/components/ViewsChart.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { canonical } from '../../renderer/src/stores/activity.js';
import type { JobSummary, JobViews } from '../../renderer/src/api/types.js';
import { fakeClient, type FakeClient } from './fake-client.js';

const evolving: JobSummary = {
  id: 'evo-1',
  name: 'amr',
  kind: 'evolving',
  state: 'running',
  tries: 1,
  lastFailure: '',
  size: 4,
  min: 2,
  max: 16,
  placement: 'wf',
  clusters: ['fs0'],
  submitted: 0,
};

const views = (now: number, size: number): JobViews => ({
  now,
  nonPreemptive: [{ t: 100, v: 16 }],
  preemptive: [
    { t: 100, v: 20 },
    { t: 400, v: 16 },
  ],
  allocated: [
    { t: 100, v: 4 },
    { t: 200, v: size },
  ],
});

// The drawer is teleported to <body>. Typed minimally: tsc -p tsconfig.json checks this file without the DOM lib.
interface Found {
  textContent: string | null;
}
const find = (selector: string): Found | null =>
  (globalThis as unknown as { document: { querySelector(s: string): Found | null } }).document.querySelector(selector);

const viewCalls = (client: FakeClient) => client.calls.filter((c) => c.method === 'jobs.views').map((c) => c.payload);

async function openDrawer(job: JobSummary, answers: FakeClient['answers']) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const client = fakeClient({
    'jobs.list': { ok: true, value: { jobs: [job], total: 1, version: '1:1' } },
    ...answers,
  });
  const stores = createStores(client);
  // As the core emits it: its time stamped last.
  stores.activity.add({ type: 'job.started', jobId: job.id, cluster: 'fs0', size: 4, preallocation: 16, t: 100 });
  await stores.jobs.refresh();
  const wrapper = mount(JobDrawer, {
    props: { jobId: job.id },
    global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
    attachTo: 'body',
  });
  await flushPromises();
  return { wrapper, stores, client };
}

/** The series the views chart draws, by name: its points. */
function drawn(wrapper: Awaited<ReturnType<typeof openDrawer>>['wrapper']): Record<string, unknown> {
  const chart = wrapper.findComponent(ViewsChart);
  const option = (chart.vm as unknown as { option: { series: Array<{ name: string; step: string; data: unknown }> } })
    .option;
  return Object.fromEntries(option.series.map((s) => [s.name, { step: s.step, data: s.data }]));
}

describe('Job drawer, evolving jobs', () => {
  it('shows the pre-allocation and the three views as step lines, each last value held past now', async () => {
    const { wrapper, client } = await openDrawer(evolving, { 'jobs.views': { ok: true, value: views(300, 8) } });
    expect(find('[data-testid="job-preallocation"]')!.textContent).toContain('pre-allocation 16');
    expect(viewCalls(client)).toEqual([{ jobId: 'evo-1' }]);
    expect(find('[data-testid="job-views"]')).not.toBeNull();
    // Span 100..400, a quarter of it (75 s) drawn past the last change: until 475.
    expect(drawn(wrapper)).toEqual({
      'non-preemptive view': {
        step: 'end',
        data: [
          [100, 16],
          [475, 16],
        ],
      },
      'preemptive view': {
        step: 'end',
        data: [
          [100, 20],
          [400, 16],
          [475, 16],
        ],
      },
      allocated: {
        step: 'end',
        data: [
          [100, 4],
          [200, 8],
          [475, 8],
        ],
      },
    });
    expect(find('[data-testid="job-events"]')!.textContent).toContain('pre-allocation 16 held');
    wrapper.unmount();
  });

  it('asks for the views again after the job evolves, not after other jobs’ events', async () => {
    const { wrapper, stores, client } = await openDrawer(evolving, {
      'jobs.views': { ok: true, value: views(300, 8) },
    });
    stores.activity.add({ type: 'job.grown', t: 310, jobId: 'other', cluster: 'fs0', processors: 2, size: 6 });
    stores.activity.add({ type: 'grow.offered', t: 311, jobId: 'evo-1', cluster: 'fs0', offerId: 1, processors: 2 });
    await flushPromises();
    expect(viewCalls(client)).toHaveLength(1);

    client.answers['jobs.views'] = { ok: true, value: views(320, 12) };
    stores.activity.add({
      type: 'evolve.requested',
      t: 320,
      jobId: 'evo-1',
      cluster: 'fs0',
      processors: 12,
      announceS: 0,
    });
    stores.activity.add({ type: 'job.evolved', t: 320, jobId: 'evo-1', cluster: 'fs0', size: 12, preallocation: 16 });
    await flushPromises();
    // Two events in one tick: one more request.
    expect(viewCalls(client)).toHaveLength(2);
    expect((drawn(wrapper).allocated as { data: number[][] }).data.map(([, v]) => v)).toEqual([4, 12, 12]);
    const text = find('[data-testid="job-events"]')!.textContent!;
    expect(text).toContain('asks for 12 on fs0 now');
    expect(text).toContain('now 12 of its pre-allocation of 16 on fs0');
    wrapper.unmount();
  });

  it('shows an event once when both the stream and the host’s history have it, whatever its keys’ order', async () => {
    const { wrapper, stores } = await openDrawer(evolving, {
      'jobs.views': { ok: true, value: views(300, 8) },
      // As the API's schema gives it back: type and t first.
      'jobs.events': {
        ok: true,
        value: {
          events: [{ type: 'job.started', t: 100, jobId: 'evo-1', cluster: 'fs0', size: 4, preallocation: 16 }],
        },
      },
    });
    await stores.activity.loadJob('evo-1');
    expect(stores.activity.eventsOf('evo-1')).toHaveLength(1);
    expect(canonical({ b: [{ y: 1, x: 2 }], a: undefined, c: 'z' })).toBe('{"b":[{"x":2,"y":1}],"c":"z"}');
    wrapper.unmount();
  });

  it('says why the views are missing and falls back to the size from the events', async () => {
    const { wrapper } = await openDrawer(evolving, {
      'jobs.views': { ok: false, errors: [{ path: 'jobId', message: 'no job "evo-1"' }] },
    });
    expect(find('[data-testid="views-error"]')!.textContent).toContain('no job "evo-1"');
    expect(find('[data-testid="job-views"]')).toBeNull();
    expect(wrapper.findComponent(ViewsChart).exists()).toBe(false);
    wrapper.unmount();
  });

  it('charts a malleable job’s views too, and asks none for a rigid job', async () => {
    const malleable = await openDrawer(
      { ...evolving, id: 'm-1', kind: 'malleable' },
      { 'jobs.views': { ok: true, value: views(300, 8) } },
    );
    expect(viewCalls(malleable.client)).toEqual([{ jobId: 'm-1' }]);
    expect(find('[data-testid="job-preallocation"]')).toBeNull();
    expect(malleable.wrapper.findComponent(ViewsChart).exists()).toBe(true);
    malleable.wrapper.unmount();

    const rigid = await openDrawer(
      { ...evolving, id: 'r-1', kind: 'rigid', min: 4, max: 4 },
      { 'jobs.views': { ok: true, value: views(300, 8) } },
    );
    expect(viewCalls(rigid.client)).toEqual([]);
    expect(rigid.wrapper.findComponent(ViewsChart).exists()).toBe(false);
    expect(find('[data-testid="views-error"]')).toBeNull();
    rigid.wrapper.unmount();
  });
});
