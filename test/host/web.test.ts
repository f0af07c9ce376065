/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read field by field */
// The headless web mode: the host's typed API over HTTP and its events over a WebSocket, behind a token and
// Host/Origin checks, on loopback.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Host } from '../../electron/host/host.js';
import { startWebServer, type WebServer } from '../../electron/web/server.js';

let wall = 0;
let host: Host;
let server: WebServer;

beforeAll(async () => {
  host = new Host({ clock: () => wall, workload: 'none', sliceMs: Number.POSITIVE_INFINITY });
  server = await startWebServer(host, { snapshotIntervalMs: 50 });
});
afterAll(async () => {
  await server.close();
});

function call(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? '' : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: text.startsWith('{') ? JSON.parse(text) : text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe('web mode', () => {
  it('binds to 127.0.0.1 and prints a URL carrying the token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses a request without the token, or with a wrong one', async () => {
    expect((await call('/api/grid.snapshot', {}, { authorization: '' })).status).toBe(401);
    expect((await call('/api/grid.snapshot', {}, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await call(`/api/grid.snapshot?token=${server.token}`, {}, { authorization: '' })).status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) and a foreign Origin', async () => {
    expect((await call('/api/grid.snapshot', {}, { host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await call('/api/grid.snapshot', {}, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await call('/api/grid.snapshot', {}, { origin: `http://localhost:${server.port}` })).status).toBe(200);
  });

  it('answers the snapshot of the simulated DAS-3', async () => {
    const r = await call('/api/grid.snapshot', {});
    expect(r.json.ok).toBe(true);
    expect(r.json.value.clusters.map((c: { name: string }) => c.name)).toEqual(['vu', 'uva', 'delft', 'mn', 'leiden']);
  });

  it('refuses an invalid job with the field named, and submits nothing', async () => {
    const before = (await call('/api/jobs.list', {})).json.value.total;
    const r = await call('/api/jobs.submit', { kind: 'malleable', components: [{ min: 8, max: 4, program: 'x' }] });
    expect(r.json).toEqual({
      ok: false,
      errors: [{ path: 'components[0].min', message: 'must not exceed max (min 8 > max 4)' }],
    });
    expect((await call('/api/jobs.list', {})).json.value.total).toBe(before);
  });

  it('submits a malleable job that is placed, and streams its events on the socket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/events?token=${server.token}`);
    const messages: any[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(String(m))));
    await new Promise((resolve) => ws.once('open', resolve));
    const r = await call('/api/jobs.submit', {
      id: 'web-1',
      kind: 'malleable',
      app: { model: 'gadget2' },
      components: [{ min: 2, max: 46, program: 'gadget2' }],
    });
    expect(r.json).toEqual({ ok: true, value: { jobId: 'web-1' } });
    wall += 5_000; // five seconds of wall clock at 1x
    host.tick();
    const list = (await call('/api/jobs.list', {})).json.value.jobs;
    expect(list.find((j: { id: string }) => j.id === 'web-1').state).toBe('running');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const types = messages.filter((m) => m.topic === 'event' && m.event.jobId === 'web-1').map((m) => m.event.type);
    expect(types).toEqual(expect.arrayContaining(['job.submitted', 'job.placed', 'job.started']));
    expect(messages.some((m) => m.topic === 'snapshot')).toBe(true);
    ws.close();
  });

  it('refuses a socket without the token', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/events`);
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!)).on('error', () => resolve(-1)),
    );
    expect(status).toBe(401);
  });

  it('follows the wall clock at the chosen speed, and can pause', async () => {
    const t0 = (await call('/api/grid.snapshot', {})).json.value.time;
    expect((await call('/api/sim.setSpeed', { speed: '100x' })).json.value.speed).toBe('100x');
    wall += 1_000;
    const t1 = (await call('/api/grid.snapshot', {})).json.value.time;
    expect(t1 - t0).toBeCloseTo(100, 5);
    await call('/api/sim.setSpeed', { speed: 'pause' });
    wall += 1_000;
    expect((await call('/api/grid.snapshot', {})).json.value.time).toBe(t1);
    expect((await call('/api/sim.setSpeed', { speed: '3x' })).json.errors[0].path).toBe('speed');
  });

  it('changes settings and refuses unknown ones or unknown methods', async () => {
    expect((await call('/api/settings.set', { approach: 'pwa', policy: 'egs' })).json.value).toMatchObject({
      approach: 'pwa',
      policy: 'egs',
    });
    expect((await call('/api/settings.set', { policy: 'greedy' })).json.errors[0].path).toBe('policy');
    expect((await call('/api/nope', {})).json.errors[0]).toEqual({ path: 'method', message: 'unknown method "nope"' });
    expect((await call('/api/jobs.list', undefined)).status).toBe(404);
  });
});
