// A fake API client for the renderer's stores: records calls and answers from a table.
import type { ApiClient, ApiResult, MethodInput, MethodName, StreamListener } from '../../renderer/src/api/types.js';

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
