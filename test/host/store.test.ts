// Persistence: the schema's migrations, a hosted run that comes back after a restart, and after a SIGKILL.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { openStore, SCHEMA_VERSION } from '../../electron/store/store.js';
import { running, startServe } from '../support/serve-process.js';

const tempFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'concertina-store-')), 'run.db');
const job = (id: string) => ({
  id,
  kind: 'malleable',
  app: { model: 'gadget2' },
  components: [{ min: 2, max: 46, program: 'gadget2' }],
});

describe('store', () => {
  it('migrates a new file to the current schema in WAL mode, and refuses a newer schema', () => {
    const file = tempFile();
    openStore(file).close();
    const db = new Database(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openStore(file)).toThrow(/newer Concertina \(store schema/);
  });

  it('resumes a hosted run after a restart: same jobs, same history, nothing twice', async () => {
    const file = tempFile();
    let wall = 0;
    const store = openStore(file);
    const first = new Host({ store, clock: () => wall, speed: '100x', sliceMs: Number.POSITIVE_INFINITY });
    expect(first.call('jobs.submit', job('mine')).ok).toBe(true);
    expect(first.call('settings.set', { policy: 'egs' }).ok).toBe(true);
    wall += 30_000; // 50 virtual minutes
    first.tick();
    const before = first.call('jobs.list', { limit: 100_000 });
    const clock = first.world.engine.now;
    first.stop();
    store.close();

    const again = openStore(file);
    const second = new Host({ store: again, clock: () => wall });
    await second.ready;
    expect(second.call('grid.snapshot', {})).toMatchObject({ ok: true, value: { run: { state: 'running' } } });
    expect(second.world.engine.now).toBe(clock);
    const after = second.call('jobs.list', { limit: 100_000 });
    expect(after).toEqual(before); // every job, in its state, none twice
    expect(second.call('settings.get', {})).toMatchObject({ ok: true, value: { policy: 'egs' } });
    const submitted = again.events('mine').filter((e) => e.type === 'job.submitted');
    expect(submitted).toHaveLength(1);
    second.stop();
    again.close();
  });

  it('keeps every job accepted before a SIGKILL, once', async () => {
    const file = tempFile();
    const a = startServe(['--store', file]);
    for (const id of ['k1', 'k2', 'k3']) expect((await a.call('jobs.submit', job(id))).ok).toBe(true);
    a.child.kill('SIGKILL');
    await a.exited;

    const b = startServe(['--store', file]);
    await running(b); // the API answers while the stored run replays: list once it is back
    const listed = await b.call<{ jobs: Array<{ id: string }> }>('jobs.list', { limit: 100_000 });
    const ids = listed.value.jobs.map((j) => j.id);
    for (const id of ['k1', 'k2', 'k3']) expect(ids.filter((x) => x === id)).toHaveLength(1);
    b.child.kill('SIGTERM');
    await b.exited;
    const store = openStore(file);
    for (const id of ['k1', 'k2', 'k3'])
      expect(store.events(id).filter((e) => e.type === 'job.submitted')).toHaveLength(1);
    store.close();
  });
});
