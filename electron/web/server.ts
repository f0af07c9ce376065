// The headless web mode's transport: the host's API over HTTP (POST /api/<method>) and its event stream over a
// WebSocket (/events). Bound to 127.0.0.1 by default; every request and socket needs the run's random token, and
// Host and Origin headers must name this server (against DNS rebinding and cross-site requests).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readConsoleFile } from '../host/console-files.js';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Host } from '../host/host.js';

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
  const headers: Record<string, string> = { 'content-type': file.contentType, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
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

const MAX_BODY_BYTES = 1 << 20;

export async function startWebServer(host: Host, options: WebServerOptions = {}): Promise<WebServer> {
  const bindHost = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${bindHost}:${port}`]);
  /** Why a request is refused (status and message), or undefined when it may go on. */
  const refusal = (req: IncomingMessage): [number, string] | undefined => {
    const hosts = allowedHosts();
    if (!req.headers.host || !hosts.has(req.headers.host)) return [403, 'Host header does not name this server'];
    const origin = req.headers.origin;
    if (origin !== undefined && ![...hosts].some((h) => origin === `http://${h}`)) return [403, 'Origin not allowed'];
    if (!tokenOf(req) || !sameToken(tokenOf(req)!, token)) return [401, 'missing or wrong token'];
    return undefined;
  };

  const server = createServer((req, res) => {
    const refused = refusal(req);
    if (refused) return send(res, refused[0], { ok: false, errors: [{ path: '', message: refused[1] }] });
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'POST' && url.pathname.startsWith('/api/')) {
      readBody(req)
        .then((body) => {
          let payload: unknown;
          try {
            payload = body.length ? JSON.parse(body) : {};
          } catch {
            return send(res, 400, { ok: false, errors: [{ path: '', message: 'the body is not valid JSON' }] });
          }
          host.catchUp();
          // Methods that talk to clusters answer later: every answer is awaited the same way.
          return Promise.resolve(host.dispatch(decodeURIComponent(url.pathname.slice('/api/'.length)), payload)).then((answer) => send(res, 200, answer));
        })
        .catch((error: Error) => send(res, 413, { ok: false, errors: [{ path: '', message: error.message }] }));
      return;
    }
    if (req.method === 'GET' && options.staticDir) {
      // The page's own requests (scripts, styles) carry no token in the URL: the cookie set here stands for it.
      const cookie = `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      if (serveStatic(options.staticDir, url.pathname, res, cookie)) return;
    }
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('Concertina host is running: POST /api/<method>, WebSocket /events. The console is not built (npm run build).\n');
      return;
    }
    send(res, 404, { ok: false, errors: [{ path: '', message: `no such endpoint: ${req.method} ${url.pathname}` }] });
  });

  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const refused = refusal(req);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (refused || url.pathname !== '/events') {
      const [status, message] = refused ?? [404, 'no such endpoint'];
      socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => stream(ws));
  });

  const stream = (ws: WebSocket) => {
    const end = host.stream((message) => ws.send(JSON.stringify(message)), options.snapshotIntervalMs);
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

function tokenOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice('Bearer '.length).trim();
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
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
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`the body is larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
