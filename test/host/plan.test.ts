// plan.snapshot and the jobs list's planned start: under EASY, the host answers with each cluster's running jobs and
// the head's reservation naming the running job it waits for, over a direct call and HTTP (web mode); under KOALA no
// reservation; a bad limit is refused at its field.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { Host } from '../../electron/host/host.js';
import { startWebServer, type WebServer } from '../../electron/web/server.js';

const grid = gridSpecSchema.parse({ name: 'one', clusters: [{ name: 'a', processors: 12 }] });
const rigid = (id: string, processors: number, runtime: number) => ({
  id,
  kind: 'rigid',
  app: { model: 'fixed', runtime },
  walltime: runtime,
  components: [{ processors, program: 'x' }],
});

let wall = 0;
let host: Host;
let server: WebServer;
const run = (seconds: number) => {
  for (let s = 0; s < seconds; s += 1) {
    wall += 1000;
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
  expect(host.call('settings.set', { queue: 'easy' })).toMatchObject({ ok: true });
  // a (4, 1000 s) and b (4, 2000 s) run; h (6) waits: 4 free, reserved when a ends (8 free then); c (2, 100 s)
  // backfills beside it.
  for (const spec of [rigid('a', 4, 1000), rigid('b', 4, 2000)])
    expect(host.call('jobs.submit', spec)).toMatchObject({ ok: true });
  run(5);
  for (const spec of [rigid('h', 6, 500), rigid('c', 2, 100)])
    expect(host.call('jobs.submit', spec)).toMatchObject({ ok: true });
  run(5);
});
afterAll(async () => {
  host.stop();
  await server.close();
});

describe('plan.snapshot', () => {
  it('lists the running jobs with their estimated ends and the head reserved when a ends, waiting for a', async () => {
    const answer = host.call('plan.snapshot', {});
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    const plan = answer.value;
    expect(plan.queuePolicy).toBe('easy');
    expect(plan.limit).toBe(200);
    const [a] = plan.clusters;
    expect(a!.name).toBe('a');
    const start = (id: string) => a!.running.find((r) => r.id === id)!.start;
    expect(a!.running.map((r) => [r.id, r.processors, r.end])).toEqual([
      ['a', 4, start('a') + 1000],
      ['b', 4, start('b') + 2000],
      ['c', 2, start('c') + 100],
    ]);
    expect(a!.reservations).toEqual([
      { id: 'h', processors: 6, start: start('a') + 1000, end: start('a') + 1500, waitsFor: ['a'] },
    ]);
    expect(a!.reservationsTotal).toBe(1);
    // The same over HTTP.
    expect(await http('plan.snapshot', {})).toEqual({ ok: true, value: plan });
  });

  it('gives the waiting job its planned start in the jobs list, and its views from the reservation', () => {
    const list = host.call('jobs.list', {});
    if (!list.ok) throw new Error('jobs.list failed');
    const plan = host.call('plan.snapshot', {});
    if (!plan.ok) throw new Error('plan.snapshot failed');
    const reserved = plan.value.clusters[0]!.reservations[0]!;
    expect(list.value.jobs.find((j) => j.id === 'h')!.plannedStart).toEqual({ cluster: 'a', start: reserved.start });
    for (const id of ['a', 'b', 'c']) expect(list.value.jobs.find((j) => j.id === id)!.plannedStart).toBeUndefined();
    const views = host.call('jobs.views', { jobId: 'h' });
    if (!views.ok) throw new Error('jobs.views failed');
    expect(views.value.nonPreemptive).toEqual([
      { t: views.value.now, v: 0 },
      { t: reserved.start, v: 6 },
      { t: reserved.end!, v: 0 },
    ]);
  });

  it('bounds what it lists and refuses a bad limit at its field', () => {
    const one = host.call('plan.snapshot', { limit: 1 });
    if (!one.ok) throw new Error('plan.snapshot failed');
    expect(one.value.limit).toBe(1);
    expect(one.value.clusters[0]!.running.map((r) => r.id)).toEqual(['a']);
    expect(one.value.clusters[0]!.runningTotal).toBe(3);
    expect(host.call('plan.snapshot', { limit: 0 })).toEqual({
      ok: false,
      errors: [{ path: 'limit', message: 'must be at least 1' }],
    });
    expect(host.call('plan.snapshot', { limit: 201 })).toEqual({
      ok: false,
      errors: [{ path: 'limit', message: 'must be at most 200' }],
    });
  });

  it('under koala plans no reservation', () => {
    expect(host.call('settings.set', { queue: 'koala' })).toMatchObject({ ok: true });
    run(2);
    const plan = host.call('plan.snapshot', {});
    if (!plan.ok) throw new Error('plan.snapshot failed');
    expect(plan.value.queuePolicy).toBe('koala');
    expect(plan.value.clusters[0]!.reservations).toEqual([]);
    const list = host.call('jobs.list', {});
    if (!list.ok) throw new Error('jobs.list failed');
    expect(list.value.jobs.find((j) => j.id === 'h')!.plannedStart).toBeUndefined();
  });
});
