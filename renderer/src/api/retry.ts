// A call that is harmless to repeat (an idempotent submission) is sent once more when no answer came: its answer may
// have been lost after the host acted on it, and the repeat then gets the same answer.
import {
  isUnanswered,
  unanswered,
  type ApiClient,
  type CallOptions,
  type CallResult,
  type MethodInput,
  type MethodName,
} from './types.js';

async function attempt<M extends MethodName>(
  client: ApiClient,
  method: M,
  payload: MethodInput<M>,
  options: CallOptions,
): Promise<CallResult<M>> {
  try {
    return await client.call(method, payload, options);
  } catch (error) {
    // The clients never throw, but a client that did got no answer either.
    return unanswered(`the host did not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Calls `method`; if no answer came, calls it once more with the same payload. */
export async function callRetryingOnce<M extends MethodName>(
  client: ApiClient,
  method: M,
  payload: MethodInput<M>,
  options: CallOptions = {},
): Promise<CallResult<M>> {
  const first = await attempt(client, method, payload, options);
  return isUnanswered(first) ? attempt(client, method, payload, options) : first;
}
