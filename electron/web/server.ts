// The headless web mode's transport: the host's API over HTTP (POST /api/<method>) and its event stream over a
// WebSocket (/events). Bound to 127.0.0.1 by default; every request and socket needs the run's random token, and
// Host and Origin headers must name this server (against DNS rebinding and cross-site requests).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readConsoleFile } from '../host/console-files.js';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Host } from '../host/host.js';
import type { StreamMessage } from '../api/contract.js';
import { parseJson, type JsonParse } from '../../core/model/json-text.js';

export interface WebServerOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly token?: string;
  /** Milliseconds between snapshots pushed on the socket. */
  readonly snapshotIntervalMs?: number;
  /** The built console (index.html and its assets), served at `/`. */
  readonly staticDir?: string;
}

/** The console's Content Security Policy: nothing but this server. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

const TOKEN_COOKIE = 'concertina-token';

/** Serves a file of the built console; false when there is none for this path. */
function serveStatic(dir: string, pathname: string, res: ServerResponse, cookie: string): boolean {
  const file = readConsoleFile(dir, pathname);
  if (!file) return false;
  const headers: Record<string, string> = {
    'content-type': file.contentType,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  if (file.isPage) {
    headers['content-security-policy'] = CONTENT_SECURITY_POLICY;
    headers['cache-control'] = 'no-store';
    headers['set-cookie'] = cookie;
  }
  res.writeHead(200, headers);
  res.end(file.body);
  return true;
}

export interface WebServer {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** What the transport needs of the host. */
export type HostedApi = Pick<Host, 'dispatch' | 'stream' | 'catchUp'>;

const MAX_BODY_BYTES = 1 << 20;
/**
 * Of a body over MAX_BODY_BYTES, this many bytes in all are read and thrown away before the 413 is sent: the server
 * answers once the client has stopped writing, so the client can read the answer; a larger body cuts the connection.
 */
const MAX_DISCARDED_BYTES = 16 << 20;
/** The largest frame a client may send: the console sends nothing needed on the socket. */
export const MAX_CLIENT_FRAME_BYTES = 64 << 10;
/** Over this many bytes waiting to be sent on a socket, its event messages are dropped (snapshots still go). */
export const EVENT_BACKLOG_BYTES = 4 << 20;
// Decision: dropping stops (and a gap message says how many went) once the backlog is below a quarter of the bound,
// not at zero, which a socket under a steady stream may never reach.
const RESUME_BELOW_BYTES = EVENT_BACKLOG_BYTES / 4;
/** A socket with this many bytes waiting even without events (a client that stopped reading) is closed. */
export const MAX_BACKLOG_BYTES = 16 * EVENT_BACKLOG_BYTES;

const refusedBody = (message: string) => ({ ok: false, errors: [{ path: '', message }] });

export async function startWebServer(host: HostedApi, options: WebServerOptions = {}): Promise<WebServer> {
  const bindHost = options.host ?? '127.0.0.1';
  // Decision: the token does not survive a restart, even of the same store: it is the host's only guard, so one that
  // leaked (terminal scroll-back, shell or browser history) must die with the process; it is never stored, not even
  // hashed (a hash would let only old pages back in, and the URL printed at the next start could not carry it). A
  // page of the earlier host is refused and says so, with how to open the new address (ConnectionBanner.vue).
  const token = options.token ?? randomBytes(24).toString('base64url');
  let port = 0;

  const allowedHosts = () =>
    new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${bindHost}:${port}`]);
  /** Why a request is refused (status and message), or undefined when it may go on. */
  const refusal = (req: IncomingMessage, url: URL): [number, string] | undefined => {
    const hosts = allowedHosts();
    if (!req.headers.host || !hosts.has(req.headers.host)) return [403, 'Host header does not name this server'];
    const origin = req.headers.origin;
    if (origin !== undefined && ![...hosts].some((h) => origin === `http://${h}`)) return [403, 'Origin not allowed'];
    const given = tokenOf(req, url);
    if (!given || !sameToken(given, token)) return [401, 'missing or wrong token'];
    return undefined;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = requestUrl(req);
    if (!url) return send(res, 400, refusedBody('the request target is not a valid URL'));
    const refused = refusal(req, url);
    if (refused) return send(res, refused[0], refusedBody(refused[1]));
    if (req.method === 'POST' && url.pathname.startsWith('/api/')) {
      readBody(req, res)
        .then((body) => {
          if (body === undefined) return; // answered 413
          let method: string;
          try {
            method = decodeURIComponent(url.pathname.slice('/api/'.length));
          } catch {
            return send(res, 400, refusedBody(`the method in ${url.pathname} is not valid percent-encoding`));
          }
          const parsed: JsonParse = body.length ? parseJson(body) : { ok: true, value: {} };
          if (!parsed.ok)
            return send(
              res,
              400,
              refusedBody(
                `the body is not valid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.message}`,
              ),
            );
          host.catchUp();
          // Methods that talk to clusters answer later: every answer is awaited the same way.
          return Promise.resolve(host.dispatch(method, parsed.value)).then((answer) => send(res, 200, answer));
        })
        .catch((error: unknown) =>
          send(res, 500, refusedBody(`internal error: ${error instanceof Error ? error.message : String(error)}`)),
        );
      return;
    }
    if (req.method === 'GET' && options.staticDir) {
      // The page's own requests (scripts, styles) carry no token in the URL: the cookie set here stands for it.
      const cookie = `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      if (serveStatic(options.staticDir, url.pathname, res, cookie)) return;
    }
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(
        'Concertina host is running: POST /api/<method>, WebSocket /events. The console is not built (npm run build).\n',
      );
      return;
    }
    send(res, 404, refusedBody(`no such endpoint: ${req.method} ${url.pathname}`));
  };

  const server = createServer((req, res) => {
    // Nothing a request holds may take the host down: whatever throws is answered.
    try {
      handle(req, res);
    } catch (error) {
      send(res, 500, refusedBody(`internal error: ${error instanceof Error ? error.message : String(error)}`));
    }
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  server.on('upgrade', (req, socket, head) => {
    const url = requestUrl(req);
    const refused = url ? refusal(req, url) : [400, 'Bad Request'];
    if (refused || url?.pathname !== '/events') {
      const [status, message] = refused ?? [404, 'no such endpoint'];
      socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => stream(ws));
  });

  const stream = (ws: WebSocket) => {
    // A frame over maxPayload: ws closes the socket with 1009 and reports it here; the host goes on.
    ws.on('error', () => undefined);
    let dropped = 0;
    const end = host.stream((message) => {
      const backlog = ws.bufferedAmount;
      if (backlog > MAX_BACKLOG_BYTES) return ws.terminate();
      if (message.topic === 'event' && backlog > (dropped > 0 ? RESUME_BELOW_BYTES : EVENT_BACKLOG_BYTES)) {
        dropped++;
        return;
      }
      if (dropped > 0 && backlog <= RESUME_BELOW_BYTES) {
        ws.send(JSON.stringify({ topic: 'gap', dropped } satisfies StreamMessage));
        dropped = 0;
      }
      ws.send(JSON.stringify(message));
    }, options.snapshotIntervalMs);
    ws.on('close', end);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bindHost, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The request's URL, or undefined when its target cannot be parsed as one. */
function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function tokenOf(req: IncomingMessage, url: URL): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice('Bearer '.length).trim();
  const query = url.searchParams.get('token');
  if (query) return query;
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return value.join('=');
  }
  return undefined;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

/**
 * The body as text; undefined when it is over MAX_BODY_BYTES, answered here with a 413 once the client has sent it
 * all (read and thrown away, up to MAX_DISCARDED_BYTES; beyond, the answer goes and the connection is cut).
 */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () => {
      send(res, 413, refusedBody(`the body is larger than ${MAX_BODY_BYTES} bytes`));
      resolve(undefined);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      chunks.length = 0;
      if (size <= MAX_DISCARDED_BYTES) return;
      req.off('data', onData);
      res.once('finish', () => req.socket.destroy());
      tooLarge();
    };
    req.on('data', onData);
    req.on('end', () => (size > MAX_BODY_BYTES ? tooLarge() : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}
