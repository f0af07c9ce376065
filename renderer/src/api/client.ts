// The one API client of the console: `call` over fetch (POST /api/<method>, Bearer token) and `subscribe` over the
// WebSocket /events, reconnecting with exponential backoff (not when the host refuses the token: it was restarted,
// see ConnectionState). The token comes from the page URL (?token=) once, is
// kept in sessionStorage and removed from the address bar.
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

const TOKEN_KEY = 'concertina-token';
/** How long the check of a lost connection waits for the host's answer. */
const PROBE_TIMEOUT_MS = 5000;

/** Takes the token from `?token=` (then hides it with history.replaceState), else from sessionStorage. */
export function takeToken(win: Window = window): string {
  const url = new URL(win.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    try {
      win.sessionStorage.setItem(TOKEN_KEY, fromUrl);
    } catch {
      // Storage may be unavailable (privacy mode): the token then lives only in memory for this page.
    }
    url.searchParams.delete('token');
    win.history.replaceState(win.history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  try {
    return win.sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

export interface HttpClientOptions {
  token: string;
  /** Origin of the host, e.g. http://127.0.0.1:8080; defaults to the page's. */
  origin?: string;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export function createHttpClient(options: HttpClientOptions): ApiClient {
  const origin = options.origin ?? window.location.origin;
  const listeners = new Set<StreamListener>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  const minBackoff = options.minBackoffMs ?? 500;
  const maxBackoff = options.maxBackoffMs ?? 15_000;
  let socket: WebSocket | undefined;
  let backoff = minBackoff;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const setState = (state: ConnectionState) => connectionListeners.forEach((l) => l(state));

  const connect = () => {
    if (socket || listeners.size === 0) return;
    const wsUrl = new URL('/events', origin);
    wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    wsUrl.searchParams.set('token', options.token);
    setState('connecting');
    const ws = new WebSocket(wsUrl.toString());
    socket = ws;
    ws.onopen = () => {
      backoff = minBackoff;
      setState('open');
    };
    ws.onmessage = (message: MessageEvent) => {
      let parsed: StreamMessage;
      try {
        parsed = JSON.parse(String(message.data)) as StreamMessage;
      } catch {
        return;
      }
      listeners.forEach((l) => l(parsed));
    };
    ws.onclose = () => {
      if (socket !== ws) return; // closed by unsubscribing
      socket = undefined;
      setState('closed');
      if (listeners.size === 0) return;
      // A browser does not say why a socket closed or was refused: the host is asked with a plain call. A host that
      // refuses the token was restarted (a new token); one that answers, or cannot be reached, is tried again.
      void tokenRefused().then((refused) => {
        if (socket || listeners.size === 0) return;
        if (refused) return setState('refused');
        retryTimer = setTimeout(connect, backoff);
        backoff = Math.min(maxBackoff, backoff * 2);
      });
    };
  };

  /** Whether the host answers, and refuses this page's token (401). */
  const tokenRefused = async (): Promise<boolean> => {
    try {
      const response = await fetch(new URL('/api/grid.snapshot', origin), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
        body: '{}',
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      return response.status === 401;
    } catch {
      return false;
    }
  };

  return {
    async call<M extends MethodName>(
      method: M,
      payload: MethodInput<M>,
      callOptions: CallOptions = {},
    ): Promise<CallResult<M>> {
      try {
        const response = await fetch(new URL(`/api/${encodeURIComponent(method)}`, origin), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
          body: JSON.stringify(payload ?? {}),
          ...(callOptions.timeoutMs !== undefined ? { signal: AbortSignal.timeout(callOptions.timeoutMs) } : {}),
        });
        const body = (await response.json()) as ApiResult<M>;
        if (body && typeof body === 'object' && 'ok' in body) return body;
        return unanswered(`unexpected answer (HTTP ${response.status})`);
      } catch (error) {
        if (error instanceof DOMException && error.name === 'TimeoutError')
          return unanswered(`the host did not answer within ${callOptions.timeoutMs} ms`);
        return unanswered(`cannot reach the host: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    subscribe(listener: StreamListener) {
      listeners.add(listener);
      connect();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          if (retryTimer) clearTimeout(retryTimer);
          const ws = socket;
          socket = undefined;
          ws?.close();
        }
      };
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => connectionListeners.delete(listener);
    },
  };
}
