// The API client inside the Electron window: the preload's two functions (window.concertina), same interface as
// the HTTP client, so no store knows which transport it has.
import {
  unanswered,
  type ApiClient,
  type ApiResult,
  type CallOptions,
  type CallResult,
  type ConnectionState,
  type MethodInput,
  type MethodName,
  type StreamListener,
  type StreamMessage,
} from './types.js';

/** What preload.cts exposes. */
export interface DesktopBridge {
  invoke(method: string, payload: unknown): Promise<unknown>;
  subscribe(listener: (message: unknown) => void): () => void;
}

export function desktopBridge(win: Window = window): DesktopBridge | undefined {
  return (win as Window & { concertina?: DesktopBridge }).concertina;
}

export function createIpcClient(bridge: DesktopBridge): ApiClient {
  const listeners = new Set<StreamListener>();
  let unsubscribe: (() => void) | undefined;
  return {
    async call<M extends MethodName>(
      method: M,
      payload: MethodInput<M>,
      options: CallOptions = {},
    ): Promise<CallResult<M>> {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // IPC cannot abort a call: past the timeout its answer, if it comes, is ignored.
      const timeout = new Promise<CallResult<M>>((resolve) => {
        if (options.timeoutMs !== undefined)
          timer = setTimeout(
            () => resolve(unanswered(`the host did not answer within ${options.timeoutMs} ms`)),
            options.timeoutMs,
          );
      });
      try {
        return await Promise.race([bridge.invoke(method, payload ?? {}) as Promise<ApiResult<M>>, timeout]);
      } catch (error) {
        return unanswered(`the host did not answer: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    },
    subscribe(listener: StreamListener) {
      listeners.add(listener);
      // One stream from the host, shared by every listener of the page.
      unsubscribe ??= bridge.subscribe((message) => listeners.forEach((l) => l(message as StreamMessage)));
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          unsubscribe?.();
          unsubscribe = undefined;
        }
      };
    },
    onConnection(listener: (state: ConnectionState) => void) {
      // IPC to the host in the same application is always there.
      listener('open');
      return () => undefined;
    },
  };
}
