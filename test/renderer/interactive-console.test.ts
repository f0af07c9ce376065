// @vitest-environment happy-dom
// Interactive periodic jobs in the console: the Submit form's interactive kind (T, σ, D, A checked with the core's
// schema, each error at its field, a refusal of the host under the fields), the Grid card's worker nodes with their
// utilization and slack, and deadline misses in Activity.
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import SubmitView from '../../renderer/src/views/SubmitView.vue';
import GridView from '../../renderer/src/views/GridView.vue';
import ActivityView from '../../renderer/src/views/ActivityView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { byField, defaultForm, fromSpec, toSpec, validate } from '../../renderer/src/stores/submit.js';
import type { ClusterSnapshot, SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient, gridSnapshot, type FakeClient } from './fake-client.js';

const submissions = (client: FakeClient) =>
  client.calls.filter((c) => c.method === 'jobs.submit').map((c) => c.payload);

function mountView(component: unknown, client = fakeClient()) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const stores = createStores(client);
  const wrapper = mount(component as Parameters<typeof mount>[0], {
    global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
    attachTo: 'body',
  });
  return { wrapper, stores, client };
}

describe('Submit form, interactive jobs', () => {
  it('turns the form into a spec with (A, T, σ, D), its simulated application and no sizes, and back', () => {
    const form = {
      ...defaultForm(),
      kind: 'interactive' as const,
      program: 'periodic',
      cluster: 'leiden',
      periodMs: 1000,
      dataUnits: 20,
      deadlineMs: 500,
      arrivalMs: 0,
    };
    const spec = toSpec(form);
    expect(spec).toEqual({
      kind: 'interactive',
      components: [{ program: 'periodic', cluster: 'leiden' }],
      placement: 'wf',
      interactive: { arrivalMs: 0, periodMs: 1000, dataUnits: 20, deadlineMs: 500 },
      app: { model: 'periodic', load: 0.5, overrunEvery: 0, overrunFactor: 2 },
    });
    expect(fromSpec({ ...spec, app: { model: 'periodic', overrunEvery: 5 } })).toMatchObject({
      load: null,
      overrunEvery: 5,
      overrunFactor: null,
    });
    expect(validate({ ...form, overrunEvery: 1.5, load: -1 })).toEqual({
      load: 'must be at least 0',
      overrunEvery: 'must be a whole number',
    });
    expect(fromSpec(spec)).toMatchObject({
      kind: 'interactive',
      periodMs: 1000,
      dataUnits: 20,
      deadlineMs: 500,
      arrivalMs: 0,
      cluster: 'leiden',
    });
    expect(validate(form)).toEqual({});
    expect(validate({ ...form, deadlineMs: 1500 })).toEqual({ deadlineMs: 'must not exceed the period (D ≤ T)' });
    expect(validate({ ...form, periodMs: null, dataUnits: -1 })).toEqual({
      periodMs: 'must be a number',
      dataUnits: 'must be greater than 0',
    });
    // The host's refusals land at their field, a refusal of the whole job under the fields.
    expect(
      byField([
        { path: 'interactive.deadlineMs', message: 'refused: the deadline needs 40 nodes, the cluster has 16' },
      ]),
    ).toEqual({
      deadlineMs: 'refused: the deadline needs 40 nodes, the cluster has 16',
    });
    expect(byField([{ path: 'interactive', message: 'refused: task 1 of 3 fits on no node' }])).toEqual({
      interactive: 'refused: task 1 of 3 fits on no node',
    });
  });

  it('shows T, σ, D and A instead of sizes and the model, each error at its field, and sends the job', async () => {
    const { wrapper, stores, client } = mountView(SubmitView);
    client.answers['jobs.submit'] = { ok: true, value: { jobId: 'job-7' } };
    expect(wrapper.find('[data-testid="field-periodMs"]').exists()).toBe(false);
    await wrapper.find('[data-testid="kind-interactive"] input').setValue(true);
    await flushPromises();
    expect(stores.submit.form.kind).toBe('interactive');
    for (const f of ['periodMs', 'dataUnits', 'deadlineMs', 'arrivalMs', 'load', 'overrunEvery', 'overrunFactor'])
      expect(wrapper.find(`[data-testid="field-${f}"]`).exists()).toBe(true);
    // (T, σ, D, A) are required; the simulated application's fields may be cleared (the application's default then).
    const clearable = (f: string) => wrapper.find(`[data-testid="field-${f}"] .n-base-clear`).exists();
    expect(['periodMs', 'dataUnits', 'deadlineMs', 'arrivalMs'].filter(clearable)).toEqual([]);
    expect(['load', 'overrunEvery', 'overrunFactor'].filter(clearable)).toEqual([
      'load',
      'overrunEvery',
      'overrunFactor',
    ]);
    expect(wrapper.find('[data-testid="field-overrunEvery"] input').attributes('aria-label')).toBe('overrun every');
    for (const f of ['min', 'max', 'processors', 'app'])
      expect(wrapper.find(`[data-testid="field-${f}"]`).exists()).toBe(false);
    expect(wrapper.find('[data-testid="hint-interactive"]').text()).toContain('RT-DLT');

    await wrapper.find('[data-testid="field-deadlineMs"] input').setValue('1200');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-deadlineMs"]').text()).toBe('must not exceed the period (D ≤ T)');
    expect(wrapper.find('[data-testid="submit-button"]').attributes('disabled')).toBeDefined();
    await wrapper.find('[data-testid="field-periodMs"] input').setValue('0');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-periodMs"]').text()).toBe('must be at least 1 ms');
    await wrapper.find('[data-testid="field-periodMs"] input').setValue('2000');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-periodMs"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="error-deadlineMs"]').exists()).toBe(false);

    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(submissions(client)).toEqual([
      {
        kind: 'interactive',
        components: [{ program: 'ft' }],
        placement: 'wf',
        interactive: { arrivalMs: 0, periodMs: 2000, dataUnits: 20, deadlineMs: 1200 },
        app: { model: 'periodic', load: 0.5, overrunEvery: 0, overrunFactor: 2 },
        submissionId: expect.any(String),
      },
    ]);
    expect(wrapper.find('[data-testid="submitted-id"]').text()).toBe('job-7');
    wrapper.unmount();
  });

  it('shows the host’s refusal at the deadline, or under the fields when no node can take the job', async () => {
    const { wrapper, stores, client } = mountView(SubmitView);
    stores.submit.form.kind = 'interactive';
    client.answers['jobs.submit'] = {
      ok: false,
      errors: [{ path: 'interactive.deadlineMs', message: 'refused: the deadline needs 40 nodes, the cluster has 16' }],
    };
    await flushPromises();
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-deadlineMs"]').text()).toBe(
      'refused: the deadline needs 40 nodes, the cluster has 16',
    );
    client.answers['jobs.submit'] = {
      ok: false,
      errors: [
        { path: 'interactive', message: 'refused: task 1 of 3 fits on no node: 16 nodes processor demand test fails' },
      ],
    };
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-interactive"]').text()).toBe(
      'refused: task 1 of 3 fits on no node: 16 nodes processor demand test fails',
    );
    // An edit makes the refusal stale.
    stores.submit.form.dataUnits = 10;
    await flushPromises();
    expect(wrapper.find('[data-testid="error-interactive"]').exists()).toBe(false);
    wrapper.unmount();
  });
});

const card = (name: string, interactive?: ClusterSnapshot['interactive']): ClusterSnapshot => ({
  name,
  reachable: true,
  lastPoll: 0,
  runningMalleable: 0,
  processors: 32,
  threshold: 30,
  background: 2,
  nonPreemptible: 1,
  preallocatedUnused: 0,
  preemptible: 0,
  earmarked: 0,
  idle: 27,
  ...(interactive ? { interactive } : {}),
});

describe('Grid card of a cluster with interactive worker nodes', () => {
  it('shows each node’s utilization and slack, the jobs and the deadline misses; other cards show none', async () => {
    const { wrapper, stores } = mountView(GridView);
    const interactive = {
      nodes: [
        { node: 0, tasks: 1, utilization: 0.445, slackMs: 55 },
        { node: 1, tasks: 0, utilization: 0, slackMs: null },
      ],
      jobs: 1,
      admitted: 2,
      misses: 3,
      replacements: 1,
    };
    stores.grid.applySnapshot(gridSnapshot({ time: 10, clusters: [card('vu'), card('leiden', interactive)] }));
    await flushPromises();
    expect(wrapper.find('[data-testid="cluster-card-vu"] [data-field="interactive"]').exists()).toBe(false);
    const leiden = wrapper.get('[data-testid="cluster-card-leiden"] [data-field="interactive"]');
    expect(leiden.get('[data-field="misses"]').text()).toBe('3 deadline misses');
    expect(leiden.text()).toContain('2 admitted');
    expect(leiden.text()).toContain('1 re-placements');
    const n0 = leiden.get('[data-testid="node-leiden-0"]');
    expect(n0.get('[data-field="utilization"]').text()).toBe('45 %');
    expect(n0.get('[data-field="slack"]').text()).toBe('S 55 ms');
    expect(n0.attributes('title')).toBe('node 0: 1 task, utilization 45 %, slack 55 ms');
    expect(leiden.get('[data-testid="node-leiden-1"] [data-field="slack"]').text()).toBe('S ∞');
    wrapper.unmount();
  });
});

describe('Activity, interactive jobs', () => {
  it('lists deadline misses and re-placements among the latest operations, with their totals', async () => {
    const client = fakeClient({
      'activity.history': {
        ok: true,
        value: {
          now: 100,
          bucketS: 60,
          starts: [0, 60],
          clusters: [],
          grows: {},
          shrinks: {},
          updates: [0, 0],
          misses: [0, 1],
          totals: { grows: 0, shrinks: 0, updates: 0, misses: 1, replacements: 1 },
          latest: [
            {
              type: 'interactive.replaced',
              t: 70,
              jobId: 'job-3',
              cluster: 'leiden',
              nodes: [4, 5, 6, 7],
              costMs: 340,
              executedMs: 500,
              generation: 2,
            },
            {
              type: 'interactive.missed',
              t: 80,
              jobId: 'job-3',
              cluster: 'leiden',
              node: 5,
              task: 1,
              executedMs: 520,
              deadlineMs: 500,
              misses: 1,
            },
          ] as SchedulerEvent[],
        },
      },
    });
    const { wrapper } = mountView(ActivityView, client);
    await flushPromises();
    expect(wrapper.get('[data-testid="activity-misses"]').text()).toBe('· 1 deadline miss · 1 re-placement');
    const list = wrapper.get('[data-testid="activity-list"]').text();
    expect(list).toContain(
      'deadline missed: missed its deadline of 500 ms (task 1 on node 5, ran 520 ms; 1 miss so far)',
    );
    expect(list).toContain(
      'ran 500 ms, over its cost bound: placed again on leiden (placement 2): 4 tasks of 340 ms on nodes 4, 5, 6, 7',
    );
    wrapper.unmount();
  });
});
