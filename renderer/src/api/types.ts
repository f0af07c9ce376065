// The console's view of the host API: type-only imports of the contract, so none of its zod schemas (nor the core
// they pull in) are bundled. Stores depend on this interface, never on the transport, so tests pass a fake.
import type {
  ApiResult,
  MethodInput,
  MethodName,
  MethodOutput,
  Speed,
  StreamMessage,
} from '../../../electron/api/contract.js';

export type { ApiResult, MethodInput, MethodName, MethodOutput, Speed, StreamMessage };
/** A scheduler event as the stream carries it (topic `event`). */
export type SchedulerEvent = Extract<StreamMessage, { topic: 'event' }>['event'];
export type GridSnapshot = MethodOutput<'grid.snapshot'>;
export type ClusterSnapshot = GridSnapshot['clusters'][number];
export type RunStatus = GridSnapshot['run'];
export type JobSummary = MethodOutput<'jobs.list'>['jobs'][number];
export type JobViews = MethodOutput<'jobs.views'>;
export type ViewStep = JobViews['allocated'][number];
export interface FieldError {
  path: string;
  message: string;
}

export type StreamListener = (message: StreamMessage) => void;
/**
 * The page's link to the host's event stream: `closed` is lost and tried again with backoff; `refused`: the host
 * answers but no longer takes this page's token (it was restarted: each start has a new token), so it is not tried
 * again — the page must be opened at the address the host printed.
 */
export type ConnectionState = 'connecting' | 'open' | 'closed' | 'refused';

/**
 * What a call gives: the host's answer, or — when none came (the transport failed, the answer was lost or not one,
 * the call timed out) — errors marked `unanswered`: the host may or may not have acted on the call.
 */
export type CallResult<M extends MethodName> = ApiResult<M> | { ok: false; errors: FieldError[]; unanswered: true };

export interface CallOptions {
  /** Give up waiting for the answer after this long (the call then comes back unanswered). */
  timeoutMs?: number;
}

/** The result of a call that got no answer. */
export function unanswered(message: string): { ok: false; errors: FieldError[]; unanswered: true } {
  return { ok: false, errors: [{ path: '', message }], unanswered: true };
}

export function isUnanswered(result: { ok: boolean }): boolean {
  return 'unanswered' in result && result.unanswered === true;
}

export interface ApiClient {
  call<M extends MethodName>(method: M, payload: MethodInput<M>, options?: CallOptions): Promise<CallResult<M>>;
  /** Listens to the event stream; returns the unsubscribe function. */
  subscribe(listener: StreamListener): () => void;
  onConnection?(listener: (state: ConnectionState) => void): () => void;
}

/** The same speeds as the contract's SPEEDS, kept here so the contract's runtime is not bundled. */
export const SPEED_OPTIONS: readonly Speed[] = ['pause', '1x', '10x', '100x', 'max'];
