/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read field by field */
// The web mode's edges: bodies over the limit, request targets that do not parse, oversized WebSocket frames, and a
// client that does not read the event stream. Each gets a typed answer or a bounded cost; the host goes on.
import { request, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { StreamMessage } from '../../electron/api/contract.js';
import { Host } from '../../electron/host/host.js';
import {
  EVENT_BACKLOG_BYTES,
  MAX_BACKLOG_BYTES,
  startWebServer,
  type HostedApi,
  type WebServer,
} from '../../electron/web/server.js';

interface Answer {
  status: number;
  json: any;
}

function post(
  server: WebServer,
  path: string,
  body: string | Buffer,
  headers: OutgoingHttpHeaders = {},
  agent?: false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `head` (request line and headers) as raw bytes and resolves with the status line and body of the answer. */
function raw(server: WebServer, head: string, body = ''): Promise<{ statusLine: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () =>
      socket.end(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`),
    );
    let text = '';
    socket.on('data', (c) => (text += c));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ statusLine: text.split('\r\n')[0]!, body: text.slice(text.indexOf('\r\n\r\n') + 4) }),
    );
  });
}

const openSocket = (server: WebServer): Promise<WebSocket> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/events?token=${server.token}`);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

describe('web mode edges, on a real host', () => {
  let host: Host;
  let server: WebServer;
  beforeAll(async () => {
    host = new Host({ clock: () => 0, workload: 'none' });
    server = await startWebServer(host, { snapshotIntervalMs: 200 });
  });
  afterAll(async () => {
    await server.close();
    host.stop();
  });

  const typedError = (answer: Answer, status: number, message: RegExp) => {
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ ok: false, errors: [{ path: '', message: expect.stringMatching(message) }] });
  };

  it('answers a 2 MiB body with a typed 413 the client reads, on a kept-alive and on a closing connection', async () => {
    const body = Buffer.alloc(2 << 20, 0x20);
    typedError(await post(server, '/api/grid.snapshot', body), 413, /^the body is larger than 1048576 bytes$/);
    typedError(await post(server, '/api/grid.snapshot', body, { connection: 'close' }, false), 413, /larger than/);
    expect((await post(server, '/api/grid.snapshot', '{}')).json.ok).toBe(true);
  });

  it('answers a method with a malformed escape with a typed 400, not 413', async () => {
    typedError(await post(server, '/api/%', '{}'), 400, /not valid percent-encoding/);
    typedError(await post(server, '/api/grid.%E0%A4%A', '{}'), 400, /not valid percent-encoding/);
  });

  it('says where a body is not valid JSON, and accepts one that starts with a byte-order mark', async () => {
    typedError(
      await post(server, '/api/settings.set', '{\n  "approach": "pwa",\n}'),
      400,
      /^the body is not valid JSON at line 3, column 1: /,
    );
    typedError(
      await post(server, '/api/settings.set', '{"approach": pwa}'),
      400,
      /^the body is not valid JSON at line 1, column 14: /,
    );
    const withMark = await post(
      server,
      '/api/settings.set',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"approach": "pwa"}')]),
    );
    expect(withMark.json).toMatchObject({ ok: true, value: { approach: 'pwa' } });
  });

  it('answers request targets that are not URLs with a typed 400, and stays up', async () => {
    for (const target of ['http://[/api/grid.snapshot', 'http://[', '//[']) {
      const r = await raw(
        server,
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}`,
        '{}',
      );
      expect(r.statusLine, target).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(r.body)).toEqual({
        ok: false,
        errors: [{ path: '', message: 'the request target is not a valid URL' }],
      });
    }
    expect((await post(server, '/api/grid.snapshot', '{}')).json.ok).toBe(true);
  });

  it('closes a socket that sends a 20 MiB frame with 1009, and goes on serving', async () => {
    const ws = await openSocket(server);
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.on('error', () => undefined); // the connection may be reset while the frame is still being written
    ws.send(Buffer.alloc(20 << 20, 1));
    expect(await closed).toBe(1009);
    expect((await post(server, '/api/grid.snapshot', '{}')).json.ok).toBe(true);
    const again = await openSocket(server);
    const first = await new Promise<any>((resolve) => again.once('message', (m) => resolve(JSON.parse(String(m)))));
    expect(first.topic).toBe('snapshot');
    again.close();
  });
});

/** A host whose stream the test drives: each `send` goes to every open stream. */
function drivenHost() {
  const streams = new Set<(m: StreamMessage) => void>();
  let ended = 0;
  const api: HostedApi = {
    dispatch: () => ({ ok: true, value: {} }) as any,
    catchUp: () => undefined,
    stream: (send) => {
      streams.add(send);
      return () => {
        streams.delete(send);
        ended++;
      };
    },
  };
  return {
    api,
    send: (m: StreamMessage) => streams.forEach((s) => s(m)),
    streams: () => streams.size,
    ended: () => ended,
  };
}

const PADDING = 'x'.repeat(1000);
const event = (i: number): StreamMessage => ({
  topic: 'event',
  event: { type: 'job.queued', t: i, jobId: `j${i}-${PADDING}`, position: 1 },
});
const snapshot = (label: string): StreamMessage => ({ topic: 'snapshot', snapshot: { label } as any });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function until(condition: () => boolean, step: () => void): Promise<void> {
  while (!condition()) {
    step();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a client that does not read the event stream', () => {
  it('gets its events dropped past the bound, its snapshots kept, and one gap message with the count once it reads again', async () => {
    const driven = drivenHost();
    const server = await startWebServer(driven.api);
    try {
      const ws = await openSocket(server);
      const received: any[] = [];
      ws.on('message', (m) => received.push(JSON.parse(String(m))));
      await until(
        () => driven.streams() === 1,
        () => undefined,
      );
      ws.pause();

      // 128 MiB of events, far more than the bound and what the kernel's socket buffers hold.
      const pushed = 128 * 1024;
      for (let i = 0; i < pushed; i++) {
        driven.send(event(i));
        if (i === pushed / 2) driven.send(snapshot('midway'));
        if (i % 256 === 0) await nextTurn();
      }
      ws.resume();
      // The gap is announced with the next message once the backlog has drained.
      await until(
        () => received.some((m) => m.topic === 'gap'),
        () => driven.send(snapshot('after')),
      );
      driven.send(event(pushed));
      await until(
        () => received.some((m) => m.topic === 'event' && m.event.t === pushed),
        () => undefined,
      );

      const events = received.filter((m) => m.topic === 'event' && m.event.t < pushed);
      const gaps = received.filter((m) => m.topic === 'gap');
      expect(gaps).toHaveLength(1);
      expect(events.length + gaps[0].dropped).toBe(pushed);
      // What was queued for it stayed near the bound: most of the stream was dropped, not buffered.
      expect(events.length * 1050).toBeLessThan(EVENT_BACKLOG_BYTES + 40 * 1024 * 1024);
      expect(gaps[0].dropped).toBeGreaterThan(pushed / 2);
      expect(received.some((m) => m.topic === 'snapshot' && m.snapshot.label === 'midway')).toBe(true);
      // The gap comes after every event that was sent before it, and the stream goes on after it.
      const gapAt = received.indexOf(gaps[0]);
      expect(
        received
          .slice(gapAt + 1)
          .filter((m) => m.topic === 'event')
          .map((m) => m.event.t),
      ).toEqual([pushed]);
      ws.close();
    } finally {
      await server.close();
    }
  });

  it('is disconnected when even snapshots pile up past the hard bound, and the host stops streaming to it', async () => {
    const driven = drivenHost();
    const server = await startWebServer(driven.api);
    try {
      const ws = await openSocket(server);
      await until(
        () => driven.streams() === 1,
        () => undefined,
      );
      ws.pause();
      const big: StreamMessage = { topic: 'snapshot', snapshot: { padding: 'y'.repeat(1 << 20) } as any };
      let sent = 0;
      while (driven.ended() === 0 && sent < 4 * (MAX_BACKLOG_BYTES >> 20)) {
        driven.send(big);
        sent++;
        await nextTurn();
      }
      expect(driven.ended()).toBe(1);
      expect(driven.streams()).toBe(0);
      ws.terminate();
    } finally {
      await server.close();
    }
  });
});
