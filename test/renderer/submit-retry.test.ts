// @vitest-environment happy-dom
// Submissions are idempotent: each carries an id, a call whose answer was lost is sent once more with the same id,
// and the host (faked here as electron/host/host.ts keeps submissions by id) makes one job, never two.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { defineSubmitStore } from '../../renderer/src/stores/submit.js';
import type { ApiResult, MethodInput } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

/** A host that keeps its jobs by submission id, and can lose the next answers after acting on the call. */
function fakeHost() {
  const bySubmission = new Map<string, string>();
  const host = {
    jobs: [] as string[],
    /** How many of the next answers are lost (the job is made, then the connection fails). */
    lose: 0,
    submit(payload: MethodInput<'jobs.submit'>): ApiResult<'jobs.submit'> {
      const id = payload.submissionId;
      let jobId = id === undefined ? undefined : bySubmission.get(id);
      if (jobId === undefined) {
        jobId = `job-${host.jobs.length + 1}`;
        host.jobs.push(jobId);
        if (id !== undefined) bySubmission.set(id, jobId);
      }
      if (host.lose > 0) {
        host.lose--;
        throw new TypeError('Failed to fetch');
      }
      return { ok: true, value: { jobId } };
    },
  };
  const client = fakeClient({ 'jobs.submit': (payload) => host.submit(payload) });
  const ids = () =>
    client.calls
      .filter((c) => c.method === 'jobs.submit')
      .map((c) => (c.payload as { submissionId?: string }).submissionId);
  return { host, client, ids };
}

describe('idempotent submissions', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('asks again with the same id when the answer was lost: exactly one job', async () => {
    const { host, client, ids } = fakeHost();
    const store = defineSubmitStore(client)();
    host.lose = 1;
    expect(await store.submit()).toBe(true);
    expect(host.jobs).toEqual(['job-1']);
    expect(ids()).toHaveLength(2);
    expect(ids()[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids()[1]).toBe(ids()[0]);
    expect(store.submittedId).toBe('job-1');
    expect(store.errors.form).toBeUndefined();
  });

  it('gives a new submission a new id (the same form submitted again after its answer is a second job)', async () => {
    const { host, client, ids } = fakeHost();
    const store = defineSubmitStore(client)();
    expect(await store.submit()).toBe(true);
    expect(await store.submit()).toBe(true);
    expect(host.jobs).toEqual(['job-1', 'job-2']);
    expect(new Set(ids()).size).toBe(2);
  });

  it('shows a call that got no answer twice, keeps its id for the same form, and takes a new one after an edit', async () => {
    const { host, client, ids } = fakeHost();
    const store = defineSubmitStore(client)();
    host.lose = 2;
    expect(await store.submit()).toBe(false);
    expect(store.errors.form).toMatch(/did not answer: Failed to fetch/);
    expect(ids()).toHaveLength(2);
    // Submitted again unchanged: the same submission, answered with the job the lost calls made.
    expect(await store.submit()).toBe(true);
    expect(ids()[2]).toBe(ids()[0]);
    expect(host.jobs).toEqual(['job-1']);
    expect(store.submittedId).toBe('job-1');
    host.lose = 2;
    store.form.max = 24;
    expect(await store.submit()).toBe(false);
    expect(ids()[3]).not.toBe(ids()[0]);
    store.form.max = 32;
    expect(await store.submit()).toBe(true);
    expect(ids()[5]).not.toBe(ids()[3]);
    expect(ids()[5]).not.toBe(ids()[0]);
  });

  it('does not repeat a call the host refused, and shows the refusal', async () => {
    const client = fakeClient({
      'jobs.submit': {
        ok: false,
        errors: [{ path: '', message: 'the stored run is being resumed (40 % replayed): try again in a moment' }],
      },
    });
    const store = defineSubmitStore(client)();
    expect(await store.submit()).toBe(false);
    expect(client.calls).toHaveLength(1);
    expect(store.errors.form).toMatch(/being resumed \(40 % replayed\)/);
  });
});
