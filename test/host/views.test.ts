// jobs.views: a job's views and size history from the host's scheduler, the same over a direct call, HTTP (web
// mode) and IPC (the window), with a typed error for a job that does not exist.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { Host } from '../../electron/host/host.js';
import { startWebServer, type WebServer } from '../../electron/web/server.js';
import { APP_ORIGIN, INVOKE_CHANNEL, registerIpc, type IpcEventLike } from '../../electron/desktop/security.js';
import type { ViewStep } from '../../electron/api/contract.js';

const grid = gridSpecSchema.parse({ name: 'one', clusters: [{ name: 'a', processors: 32 }] });
const evolving = {
  id: 'e',
  kind: 'evolving',
  app: { model: 'gadget2' },
  walltime: 100_000,
  components: [{ min: 2, initial: 4, max: 16, program: 'gadget2' }],
};
const malleable = {
  id: 'm',
  kind: 'malleable',
  app: { model: 'gadget2' },
  walltime: 100_000,
  components: [{ min: 2, max: 32, program: 'gadget2' }],
};
const rigid = {
  id: 'r',
  kind: 'rigid',
  app: { model: 'gadget2' },
  walltime: 100_000,
  components: [{ processors: 2, program: 'gadget2' }],
};

/** A step function's value at `t`: the last step at or before it. */
function valueAt(steps: readonly ViewStep[], t: number): number | undefined {
  let v: number | undefined;
  for (const s of steps) if (s.t <= t) v = s.v;
  return v;
}

let wall = 0;
let host: Host;
let server: WebServer;
const run = (seconds: number) => {
  for (let s = 0; s < seconds; s += 5) {
    wall += 5000;
    host.tick();
  }
};

function http(method: string, body: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: `/api/${method}`,
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

beforeAll(async () => {
  host = new Host({ grid, workload: 'none', clock: () => wall, speed: '1x', sliceMs: Number.POSITIVE_INFINITY });
  server = await startWebServer(host, { snapshotIntervalMs: 60_000 });
  for (const spec of [evolving, rigid]) expect(host.call('jobs.submit', spec)).toMatchObject({ ok: true });
  run(120);
});
afterAll(async () => {
  host.stop();
  await server.close();
});

describe('jobs.views', () => {
  it('gives an evolving job its pre-allocation as its non-preemptive view and its size history', () => {
    const r = host.call('jobs.views', { jobId: 'e' });
    if (!r.ok) throw new Error(`jobs.views failed: ${JSON.stringify(r.errors)}`);
    const snapshot = host.call('grid.snapshot', {});
    if (!snapshot.ok) throw new Error('grid.snapshot failed');
    const { now, nonPreemptive, preemptive, allocated } = r.value;
    expect(now).toBe(snapshot.value.time);
    expect(valueAt(nonPreemptive, now)).toBe(16);
    expect(valueAt(allocated, now)).toBe(4);
    // Absolute times, in order, none ahead of the size history's start but the future of a view.
    for (const steps of [nonPreemptive, preemptive, allocated]) {
      expect(steps.every((s, i) => i === 0 || s.t > steps[i - 1]!.t)).toBe(true);
      expect(steps.every((s) => Number.isFinite(s.t) && Number.isFinite(s.v))).toBe(true);
    }
    // The size history starts when the job started, at its initial size.
    const events = host.call('jobs.events', { jobId: 'e' });
    const started = events.ok ? events.value.events.find((e) => e.type === 'job.started') : undefined;
    expect(started).toMatchObject({ size: 4, preallocation: 16 });
    expect(allocated[0]).toEqual({ t: started!.t, v: 4 });
    expect(allocated.every((s) => s.t <= now)).toBe(true);
    // The grid shows the 12 pre-allocated processors it does not use yet.
    expect(snapshot.value.clusters[0]!.preallocatedUnused).toBe(12);
  });

  it('gives a malleable job a preemptive view that covers what it holds', () => {
    expect(host.call('jobs.submit', malleable)).toMatchObject({ ok: true });
    run(90); // grown at a poll, still running
    const r = host.call('jobs.views', { jobId: 'm' });
    const list = host.call('jobs.list', {});
    if (!r.ok || !list.ok) throw new Error('jobs.views or jobs.list failed');
    const size = list.value.jobs.find((j) => j.id === 'm')!.size;
    expect(size).toBeGreaterThanOrEqual(2);
    expect(valueAt(r.value.allocated, r.value.now)).toBe(size);
    expect(valueAt(r.value.preemptive, r.value.now)).toBeGreaterThanOrEqual(size);
  });

  it('refuses a job that does not exist, naming the field, and a missing id', () => {
    expect(host.call('jobs.views', { jobId: 'nope' })).toEqual({
      ok: false,
      errors: [{ path: 'jobId', message: 'no job "nope"' }],
    });
    expect(host.call('jobs.views', {})).toMatchObject({
      ok: false,
      errors: [{ path: 'jobId', message: 'is required' }],
    });
  });

  it('answers the same over HTTP and over IPC', async () => {
    const direct = host.call('jobs.views', { jobId: 'e' });
    expect(direct.ok).toBe(true);
    expect(await http('jobs.views', { jobId: 'e' })).toEqual(direct);
    expect(await http('jobs.views', { jobId: 'nope' })).toEqual({
      ok: false,
      errors: [{ path: 'jobId', message: 'no job "nope"' }],
    });

    const handlers = new Map<string, (...args: never[]) => unknown>();
    registerIpc(
      { handle: (c, h) => handlers.set(c, h), on: (c, l) => handlers.set(c, l) },
      host.dispatch,
      () => () => undefined,
    );
    const fromApp: IpcEventLike = {
      senderFrame: { url: `${APP_ORIGIN}/index.html` },
      sender: { id: 1, send: () => undefined, once: () => undefined },
    };
    const invoke = handlers.get(INVOKE_CHANNEL)! as unknown as (
      e: IpcEventLike,
      method: string,
      payload: unknown,
    ) => unknown;
    expect(invoke(fromApp, 'jobs.views', { jobId: 'e' })).toEqual(direct);
  });
});
