// @vitest-environment happy-dom
// DBES in the console: each grow and shrink paired with the request it carries out and its reason (which waiting job
// a first-step expansion serves, or the second step; a shrink's phase and for whom); the Activity view and the job
// drawer say so, and the Plan view marks each expanded job with what its expansions still held serve.
import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import ActivityView from '../../renderer/src/views/ActivityView.vue';
import JobDrawer from '../../renderer/src/components/JobDrawer.vue';
import PlanView from '../../renderer/src/views/PlanView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { describeEvent } from '../../renderer/src/format.js';
import {
  expansionsOf,
  heldExpansions,
  reasonText,
  resizeKey,
  resizeReasons,
} from '../../renderer/src/resize-reasons.js';
import type { JobSummary, SchedulerEvent } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

type Ev = SchedulerEvent;
const c = 'fs0';
/**
 * Four nodes: A expanded for the StartLater job C (2, granted one at a time), B by the second step (1); then A shrunk
 * to start C (taking back its expansion for C), B shrunk for E's evolving request, and F grown by a policy that gives
 * no reason (FPSMA).
 */
const A: Ev[] = [
  { type: 'job.started', t: 0, jobId: 'A', cluster: c, size: 1 },
  { type: 'grow.offered', t: 10, jobId: 'A', cluster: c, offerId: 1, processors: 2, step: 1, forJob: 'C' },
  { type: 'grow.answered', t: 10, jobId: 'A', offerId: 1, accepted: 2, step: 1, forJob: 'C' },
  { type: 'job.grown', t: 10, jobId: 'A', cluster: c, processors: 1, size: 2 },
  { type: 'job.grown', t: 11, jobId: 'A', cluster: c, processors: 1, size: 3 },
  {
    type: 'shrink.requested',
    t: 20,
    jobId: 'A',
    cluster: c,
    offerId: 3,
    processors: 2,
    mandatory: true,
    phase: 'startLater',
    forJob: 'C',
    fromStep: 1,
    fromFor: 'C',
  },
  { type: 'shrink.answered', t: 20, jobId: 'A', offerId: 3, accepted: 2 },
  { type: 'job.shrunk', t: 21, jobId: 'A', cluster: c, processors: 2, size: 1, voluntary: false },
];
const B: Ev[] = [
  { type: 'job.started', t: 0, jobId: 'B', cluster: c, size: 1 },
  { type: 'grow.offered', t: 12, jobId: 'B', cluster: c, offerId: 2, processors: 1, step: 2 },
  { type: 'grow.answered', t: 12, jobId: 'B', offerId: 2, accepted: 1, step: 2 },
  { type: 'job.grown', t: 12, jobId: 'B', cluster: c, processors: 1, size: 2 },
  {
    type: 'shrink.requested',
    t: 30,
    jobId: 'B',
    cluster: c,
    offerId: 4,
    processors: 1,
    mandatory: true,
    phase: 'evolving',
    forJob: 'E',
    fromStep: 2,
  },
  { type: 'shrink.answered', t: 30, jobId: 'B', offerId: 4, accepted: 1 },
  { type: 'job.shrunk', t: 31, jobId: 'B', cluster: c, processors: 1, size: 1, voluntary: false },
];
const F: Ev[] = [
  { type: 'job.started', t: 0, jobId: 'F', cluster: c, size: 1 },
  { type: 'grow.offered', t: 40, jobId: 'F', cluster: c, offerId: 5, processors: 1 },
  { type: 'grow.answered', t: 40, jobId: 'F', offerId: 5, accepted: 1 },
  { type: 'job.grown', t: 40, jobId: 'F', cluster: c, processors: 1, size: 2 },
];
const grownOf = (events: Ev[]) =>
  events.filter(
    (e): e is Extract<Ev, { type: 'job.grown' | 'job.shrunk' }> => e.type === 'job.grown' || e.type === 'job.shrunk',
  );

describe("resize reasons from a job's events", () => {
  it('pairs each grow and shrink with its request, a grant arriving in parts included; the words tell step, phase and whom', () => {
    const a = resizeReasons(A);
    expect(grownOf(A).map((e) => reasonText(a.get(resizeKey(e))))).toEqual([
      'expanded for job C (step 1)',
      'expanded for job C (step 1)', // the second processor of the same grant
      'shrunk to start C, from its expansion for C',
    ]);
    const b = resizeReasons(B);
    expect(grownOf(B).map((e) => reasonText(b.get(resizeKey(e))))).toEqual([
      'expanded (second step)',
      'shrunk for evolving request of E, from its second-step expansion',
    ]);
    expect(reasonText(resizeReasons(F).get(resizeKey(grownOf(F)[0]!)))).toBe('');
    // A steal names the job it expands; a voluntary shrink has no reason.
    const steal: Ev[] = [
      {
        type: 'shrink.requested',
        t: 1,
        jobId: 'G',
        cluster: c,
        offerId: 9,
        processors: 1,
        mandatory: false,
        phase: 'steal',
        forJob: 'D',
        fromStep: 2,
      },
      { type: 'shrink.answered', t: 1, jobId: 'G', offerId: 9, accepted: 1 },
      { type: 'job.shrunk', t: 2, jobId: 'G', cluster: c, processors: 1, size: 3, voluntary: true },
      { type: 'job.shrunk', t: 3, jobId: 'G', cluster: c, processors: 1, size: 2, voluntary: false },
    ];
    const g = resizeReasons(steal);
    expect(grownOf(steal).map((e) => reasonText(g.get(resizeKey(e))))).toEqual([
      '',
      'shrunk to expand D, from its second-step expansion',
    ]);
  });

  it("reads a DBES job.grown's own step and job, even where its offer is not among the events", () => {
    // The grant's answer for C was left out (an event list cut at its start): the job.grown events still say.
    const events: Ev[] = [
      { type: 'job.grown', t: 10, jobId: 'A', cluster: c, processors: 1, size: 2, step: 1, forJob: 'C' },
      { type: 'grow.answered', t: 12, jobId: 'A', offerId: 2, accepted: 1, step: 2 },
      { type: 'job.grown', t: 12, jobId: 'A', cluster: c, processors: 1, size: 3, step: 2 },
    ];
    const r = resizeReasons(events);
    expect(grownOf(events).map((e) => reasonText(r.get(resizeKey(e))))).toEqual([
      'expanded for job C (step 1)',
      'expanded (second step)',
    ]);
  });

  it('describes the offers and requests with their reasons in the event list', () => {
    expect(describeEvent(A[1]!)).toBe('2 on fs0 (offer 1) — for job C (step 1)');
    expect(describeEvent(B[2]!)).toBe('accepted 1 (offer 2) — second step');
    expect(describeEvent(B[4]!)).toBe(
      '1 on fs0 (mandatory) (offer 4) — for evolving request of E, from its second-step expansion',
    );
    expect(describeEvent(F[1]!)).toBe('1 on fs0 (offer 5)');
  });

  it('lists expansions newest first, and what a job still holds by whom it serves', () => {
    expect(expansionsOf(A)).toEqual([
      { t: 11, processors: 1, size: 3, reason: 'for job C (step 1)' },
      { t: 10, processors: 1, size: 2, reason: 'for job C (step 1)' },
    ]);
    expect(heldExpansions(A.slice(0, 5))).toEqual([{ label: 'for C', processors: 2 }]);
    expect(heldExpansions(A)).toEqual([]); // taken back to start C
    // Both steps held; a shrink naming the second step takes from it, not from the expansion for C.
    const both: Ev[] = [
      ...A.slice(0, 5),
      { type: 'grow.answered', t: 13, jobId: 'A', offerId: 6, accepted: 1, step: 2 },
      { type: 'job.grown', t: 13, jobId: 'A', cluster: c, processors: 1, size: 4 },
    ];
    expect(heldExpansions(both)).toEqual([
      { label: 'for C', processors: 2 },
      { label: 'second step', processors: 1 },
    ]);
    const shrunk: Ev[] = [
      ...both,
      {
        type: 'shrink.requested',
        t: 14,
        jobId: 'A',
        cluster: c,
        offerId: 7,
        processors: 1,
        mandatory: true,
        phase: 'evolving',
        forJob: 'E',
        fromStep: 2,
      },
      { type: 'shrink.answered', t: 14, jobId: 'A', offerId: 7, accepted: 1 },
      { type: 'job.shrunk', t: 14, jobId: 'A', cluster: c, processors: 1, size: 3, voluntary: false },
    ];
    expect(heldExpansions(shrunk)).toEqual([{ label: 'for C', processors: 2 }]);
    expect(heldExpansions(F)).toEqual([]);
  });
});

beforeEach(() => setActivePinia(createPinia()));

function storesWith(events: Ev[], answers: Parameters<typeof fakeClient>[0] = {}) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const client = fakeClient(answers);
  const stores = createStores(client);
  for (const e of events) stores.activity.add(e);
  return { pinia, client, stores };
}

describe('Activity view', () => {
  it('tells the two expansion steps and the shrink phases apart; a grow without a reason says only its change', async () => {
    const { pinia, stores } = storesWith(
      [...A, ...B, ...F].sort((x, y) => x.t - y.t),
      { 'activity.history': { ok: false, errors: [{ path: '', message: 'offline' }] } },
    );
    const wrapper = mount(ActivityView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    const rows = wrapper.findAll('[data-testid="activity-list"] tbody tr').map((r) => r.text());
    const row = (t: string, job: string) => rows.find((r) => r.startsWith(t) && r.includes(job)) ?? '';
    expect(row('0:00:10', 'A')).toContain('+1 · expanded for job C (step 1)');
    expect(row('0:00:12', 'B')).toContain('+1 · expanded (second step)');
    expect(row('0:00:21', 'A')).toContain('−2 · shrunk to start C');
    expect(row('0:00:31', 'B')).toContain('−1 · shrunk for evolving request of E');
    expect(row('0:00:40', 'F')).toMatch(/\+1\s*2$/); // its change and new size, no reason
    wrapper.unmount();
  });

  it('fetches, once, the events of a job the host listed from before the page opened, and then gives its reason', async () => {
    const history = {
      now: 40,
      bucketS: 60,
      starts: [0],
      clusters: [c],
      grows: { [c]: [1] },
      shrinks: { [c]: [0] },
      updates: [0],
      totals: { grows: 1, shrinks: 0, updates: 0 },
      latest: [A[3]] as never,
    };
    const { pinia, client, stores } = storesWith([], {
      'activity.history': { ok: true, value: history },
      'jobs.events': { ok: true, value: { events: A as never } },
    });
    const wrapper = mount(ActivityView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    expect(client.calls.filter((x) => x.method === 'jobs.events').map((x) => x.payload)).toEqual([{ jobId: 'A' }]);
    expect(wrapper.get('[data-testid="activity-list"]').text()).toContain('expanded for job C (step 1)');
    wrapper.unmount();
  });
});

const jobA: JobSummary = {
  id: 'A',
  name: 'a',
  kind: 'malleable',
  state: 'running',
  tries: 1,
  lastFailure: '',
  size: 4,
  min: 1,
  max: 8,
  placement: 'wf',
  clusters: [c],
  submitted: 0,
};
interface Cell {
  textContent: string | null;
  querySelectorAll(s: string): Iterable<Cell>;
}
/** Each row's cells joined by " | " (the drawer is teleported to <body>; typed minimally for tsc without the DOM lib). */
const rowsOf = (selector: string): string[] =>
  [...(globalThis as unknown as { document: Cell }).document.querySelectorAll(selector)].map((r) =>
    [...r.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()).join(' | '),
  );

describe('Job drawer', () => {
  it("lists the job's expansions with whom each served, newest first", async () => {
    const events: Ev[] = [
      ...A.slice(0, 5),
      { type: 'grow.answered', t: 13, jobId: 'A', offerId: 6, accepted: 1, step: 2 },
      { type: 'job.grown', t: 13, jobId: 'A', cluster: c, processors: 1, size: 4 },
    ];
    const { pinia, stores } = storesWith([], {
      'jobs.list': { ok: true, value: { jobs: [jobA], total: 1, version: '1:1' } },
      'jobs.events': { ok: true, value: { events: events as never } },
    });
    await stores.jobs.refresh();
    const props = { jobId: 'A' };
    const wrapper = mount(JobDrawer, {
      props,
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    expect(rowsOf('[data-testid="job-expansion"]')).toEqual([
      '0:00:13 | +1 → 4 | second step',
      '0:00:11 | +1 → 3 | for job C (step 1)',
      '0:00:10 | +1 → 2 | for job C (step 1)',
    ]);
    wrapper.unmount();
  });
});

describe('Plan view', () => {
  const running = (id: string, kind = 'malleable') => ({
    id,
    kind,
    processors: 2,
    size: 2,
    start: 0,
    end: 100,
    backfilled: false,
    sizes: [{ t: 0, v: 2 }],
  });
  const snapshot = {
    now: 15,
    queuePolicy: 'easy',
    planner: 'easy',
    limit: 50,
    clusters: [
      {
        name: c,
        processors: 4,
        capacity: [{ t: 0, v: 4 }],
        free: [{ t: 0, v: 0 }],
        running: [running('A'), running('B'), running('F')],
        runningTotal: 3,
        reservations: [],
        reservationsTotal: 0,
      },
    ],
  };

  it('marks each expanded job with the waiting job its expansion serves, or "second step"; not a job grown without a reason', async () => {
    const { pinia, stores } = storesWith([...A.slice(0, 5), ...B.slice(0, 4), ...F], {
      'plan.snapshot': { ok: true, value: snapshot },
    });
    const wrapper = mount(PlanView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    expect(wrapper.get(`[data-testid="plan-expanded-${c}"]`).text()).toBe('expanded: A +2 for C · B +1 second step');
    // A is shrunk to start C: its mark goes.
    for (const e of A.slice(5)) stores.activity.add(e);
    await flushPromises();
    expect(wrapper.get(`[data-testid="plan-expanded-${c}"]`).text()).toBe('expanded: B +1 second step');
    wrapper.unmount();
  });

  it('fetches, once, the events of a running malleable job this console has not seen', async () => {
    const { pinia, client, stores } = storesWith([], {
      'plan.snapshot': { ok: true, value: snapshot },
      'jobs.events': ({ jobId }) => ({ ok: true, value: { events: (jobId === 'A' ? A.slice(0, 5) : []) as never } }),
    });
    const wrapper = mount(PlanView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    await stores.plan.load();
    await flushPromises();
    expect(client.calls.filter((x) => x.method === 'jobs.events').map((x) => x.payload)).toEqual([
      { jobId: 'A' },
      { jobId: 'B' },
      { jobId: 'F' },
    ]);
    expect(wrapper.get(`[data-testid="plan-expanded-${c}"]`).text()).toBe('expanded: A +2 for C');
    wrapper.unmount();
  });

  it('under dbes says dbes scheduled the queue and lists its reservations, not "no reservations" of the queue policy koala', async () => {
    const reservation = { id: 'C', processors: 3, start: 100, end: 700, waitsFor: ['A'] };
    const dbes = {
      ...snapshot,
      queuePolicy: 'koala',
      planner: 'dbes',
      clusters: [{ ...snapshot.clusters[0]!, reservations: [reservation], reservationsTotal: 1 }],
    };
    const { pinia, stores } = storesWith([], {
      'plan.snapshot': { ok: true, value: dbes },
      'jobs.events': () => ({ ok: true, value: { events: [] } }),
    });
    const wrapper = mount(PlanView, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    await flushPromises();
    expect(wrapper.get('[data-testid="plan-planner"]').text()).toBe('dbes');
    expect(wrapper.find('[data-testid="plan-empty"]').exists()).toBe(false);
    expect(wrapper.find(`[data-testid="plan-reservations-${c}"]`).exists()).toBe(true);
    // None planned now: said of dbes, not of koala "which plans none".
    stores.plan.plan = { ...dbes, clusters: [{ ...dbes.clusters[0]!, reservations: [], reservationsTotal: 0 }] };
    await flushPromises();
    expect(wrapper.get('[data-testid="plan-empty"]').text()).toContain('no waiting job is planned ahead by dbes');
    expect(wrapper.get('[data-testid="plan-empty"]').text()).not.toContain('plans none');
    wrapper.unmount();
  });
});
