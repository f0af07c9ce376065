// How the two clients tell a call that got no answer (the transport failed, the answer was not one, the call timed
// out) from the host's typed refusal, and that such a call is sent once more by callRetryingOnce.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHttpClient } from '../../renderer/src/api/client.js';
import { createIpcClient } from '../../renderer/src/api/ipc-client.js';
import { callRetryingOnce } from '../../renderer/src/api/retry.js';
import { isUnanswered, unanswered, type ApiResult } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const refusal: ApiResult<'jobs.cancel'> = { ok: false, errors: [{ path: 'jobId', message: 'no job "x"' }] };
const http = () => createHttpClient({ token: 't', origin: 'http://127.0.0.1:1' });
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
/** A fetch that never answers, and fails with the signal's reason when it is aborted. */
const hangingFetch = (_url: unknown, init?: RequestInit) =>
  new Promise<Response>((_resolve, reject) =>
    init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error)),
  );

afterEach(() => vi.unstubAllGlobals());

describe('HTTP client', () => {
  it('passes the host refusal through as an answer', async () => {
    vi.stubGlobal('fetch', async () => json(refusal, 400));
    const result = await http().call('jobs.cancel', { jobId: 'x' });
    expect(result).toEqual(refusal);
    expect(isUnanswered(result)).toBe(false);
  });

  it('marks a failed connection, a body that is no answer and a timeout as unanswered', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const lost = await http().call('jobs.cancel', { jobId: 'x' });
    expect(isUnanswered(lost)).toBe(true);
    expect(lost.ok === false && lost.errors[0]!.message).toBe('cannot reach the host: Failed to fetch');

    vi.stubGlobal('fetch', async () => new Response('<html>bad gateway</html>', { status: 502 }));
    expect(isUnanswered(await http().call('jobs.cancel', { jobId: 'x' }))).toBe(true);

    vi.stubGlobal('fetch', hangingFetch);
    const late = await http().call('jobs.cancel', { jobId: 'x' }, { timeoutMs: 20 });
    expect(isUnanswered(late)).toBe(true);
    expect(late.ok === false && late.errors[0]!.message).toBe('the host did not answer within 20 ms');
  });
});

describe('IPC client', () => {
  it('passes the answer through, and marks a failed invoke and a timeout as unanswered', async () => {
    const answering = createIpcClient({ invoke: async () => refusal, subscribe: () => () => undefined });
    expect(await answering.call('jobs.cancel', { jobId: 'x' })).toEqual(refusal);
    const failing = createIpcClient({
      invoke: async () => {
        throw new Error('render process gone');
      },
      subscribe: () => () => undefined,
    });
    expect(isUnanswered(await failing.call('jobs.cancel', { jobId: 'x' }))).toBe(true);
    const silent = createIpcClient({ invoke: () => new Promise(() => undefined), subscribe: () => () => undefined });
    expect(isUnanswered(await silent.call('jobs.cancel', { jobId: 'x' }, { timeoutMs: 20 }))).toBe(true);
  });
});

describe('callRetryingOnce', () => {
  it('sends an unanswered call once more with the same payload, and an answered one once', async () => {
    let calls = 0;
    const client = fakeClient({
      'jobs.cancel': ({ jobId }) =>
        ++calls === 1 ? unanswered('cannot reach the host') : { ok: true, value: { jobId } },
    });
    expect(await callRetryingOnce(client, 'jobs.cancel', { jobId: 'j' })).toEqual({ ok: true, value: { jobId: 'j' } });
    expect(client.calls).toEqual([
      { method: 'jobs.cancel', payload: { jobId: 'j' } },
      { method: 'jobs.cancel', payload: { jobId: 'j' } },
    ]);
    client.calls = [];
    client.answers['jobs.cancel'] = refusal;
    expect(await callRetryingOnce(client, 'jobs.cancel', { jobId: 'x' })).toEqual(refusal);
    expect(client.calls).toHaveLength(1);
  });
});
