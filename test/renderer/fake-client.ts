// A fake API client for the renderer's stores: records calls and answers from a table (an answer may be a function of
// the payload, which may throw: a call whose answer was lost); and a grid snapshot builder.
import type {
  ApiClient,
  CallResult,
  GridSnapshot,
  MethodInput,
  MethodName,
  StreamListener,
} from '../../renderer/src/api/types.js';

/** A grid snapshot of a run that is running and keeps up with its speed, with what a test gives over it. */
export function gridSnapshot(over: Partial<GridSnapshot> = {}): GridSnapshot {
  return { time: 0, speed: '1x', clusters: [], run: { state: 'running' }, behindS: 0, ...over };
}

type Answer<M extends MethodName> = CallResult<M> | ((payload: MethodInput<M>) => CallResult<M>);

export interface FakeClient extends ApiClient {
  calls: Array<{ method: MethodName; payload: unknown }>;
  answers: Partial<{ [M in MethodName]: Answer<M> }>;
  listeners: Set<StreamListener>;
}

export function fakeClient(answers: FakeClient['answers'] = {}): FakeClient {
  const client: FakeClient = {
    calls: [],
    answers,
    listeners: new Set(),
    async call<M extends MethodName>(method: M, payload: MethodInput<M>): Promise<CallResult<M>> {
      client.calls.push({ method, payload });
      const answer = client.answers[method] as Answer<M> | undefined;
      if (typeof answer === 'function') return answer(payload);
      return answer ?? { ok: false, errors: [{ path: '', message: `no fake answer for ${method}` }] };
    },
    subscribe(listener) {
      client.listeners.add(listener);
      return () => client.listeners.delete(listener);
    },
  };
  return client;
}
