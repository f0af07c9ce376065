// The API client inside the Electron window: the preload's two functions (window.concertina), same interface as
// the HTTP client, so no store knows which transport it has.
import type { ApiClient, ApiResult, ConnectionState, MethodInput, MethodName, StreamListener, StreamMessage } from './types.js';

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
    async call<M extends MethodName>(method: M, payload: MethodInput<M>): Promise<ApiResult<M>> {
      try {
        return (await bridge.invoke(method, payload ?? {})) as ApiResult<M>;
      } catch (error) {
        return { ok: false, errors: [{ path: '', message: `the host did not answer: ${error instanceof Error ? error.message : String(error)}` }] };
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
