// A fake API client for the renderer's stores: records calls and answers from a table; and a grid snapshot builder.
import type { ApiClient, ApiResult, GridSnapshot, MethodInput, MethodName, StreamListener } from '../../renderer/src/api/types.js';

/** A grid snapshot of a run that is running and keeps up with its speed, with what a test gives over it. */
export function gridSnapshot(over: Partial<GridSnapshot> = {}): GridSnapshot {
  return { time: 0, speed: '1x', clusters: [], run: { state: 'running' }, behindS: 0, ...over };
}

export interface FakeClient extends ApiClient {
  calls: Array<{ method: MethodName; payload: unknown }>;
  answers: Partial<{ [M in MethodName]: ApiResult<M> }>;
  listeners: Set<StreamListener>;
}

export function fakeClient(answers: FakeClient['answers'] = {}): FakeClient {
  const client: FakeClient = {
    calls: [],
    answers,
    listeners: new Set(),
    async call<M extends MethodName>(method: M, payload: MethodInput<M>): Promise<ApiResult<M>> {
      client.calls.push({ method, payload });
      const answer = client.answers[method] as ApiResult<M> | undefined;
      return answer ?? { ok: false, errors: [{ path: '', message: `no fake answer for ${method}` }] };
    },
    subscribe(listener) {
      client.listeners.add(listener);
      return () => client.listeners.delete(listener);
    },
  };
  return client;
}
