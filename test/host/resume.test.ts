// A stored run comes back whole or says why it cannot: each flush is one transaction, a resume compares the replayed
// events with the stored ones by number and content, a long replay goes in slices while the API answers, and a run
// that cannot be resumed offers a fresh run (the old store kept as a copy) or a read-only view — never a hang.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';

const tempFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'concertina-resume-')), 'run.db');
const grid = gridSpecSchema.parse({
  name: 'two',
  clusters: [
    { name: 'a', processors: 32 },
    { name: 'b', processors: 16 },
  ],
});
const malleable = (id: string) => ({
  id,
  kind: 'malleable',
  app: { model: 'gadget2' },
  components: [{ min: 2, max: 12, program: 'gadget2' }],
});

const opened: Array<{ host: Host; store: Store }> = [];
afterEach(() => {
  for (const { host, store } of opened.splice(0)) {
    host.stop();
    store.close();
  }
});

/** A host on `file` whose wall clock the test moves; each tick catches up with it (no slice limit). */
function hostOn(file: string, options: { sliceMs?: number; replayLimitS?: number; readOnly?: boolean } = {}) {
  const store = openStore(file, { readOnly: options.readOnly === true });
  const clock = { wall: 0 };
  const host = new Host({
    grid,
    workload: 'wm-fast',
    seed: 3,
    store,
    clock: () => clock.wall,
    speed: '100x',
    sliceMs: options.sliceMs ?? Number.POSITIVE_INFINITY,
    ...(options.replayLimitS === undefined ? {} : { replayLimitS: options.replayLimitS }),
  });
  opened.push({ host, store });
  const run = (wallS: number) => {
    clock.wall += wallS * 1000;
    host.tick();
  };
  return { host, store, run };
}

/** A stored run of some length: the wm-fast workload's first jobs and two of ours, half an hour of virtual time. */
function storedRun(): { file: string; jobs: unknown; clock: number; events: number } {
  const file = tempFile();
  const { host, store, run } = hostOn(file);
  expect(host.call('jobs.submit', malleable('m1')).ok).toBe(true);
  run(6);
  expect(host.call('settings.set', { policy: 'egs' }).ok).toBe(true);
  expect(host.call('jobs.submit', malleable('m2')).ok).toBe(true);
  run(12);
  const jobs = host.call('jobs.list', { limit: 100_000 });
  const clock = host.world.engine.now;
  const events = store.eventCount();
  opened.splice(0).forEach((o) => {
    o.host.stop();
    o.store.close();
  });
  return { file, jobs, clock, events };
}

const snapshot = (host: Host) => {
  const s = host.call('grid.snapshot', {});
  if (!s.ok) throw new Error('grid.snapshot failed');
  return s.value;
};

describe('the store', () => {
  it('writes a flush whole or not at all', () => {
    const store = openStore(tempFile());
    store.startRun({ grid, workload: 'none', seed: 1 });
    const event = { type: 'job.queued' as const, t: 1, jobId: 'x', position: 0 };
    store.commit({
      command: { t: 1, key: 'jobs.submit', value: {}, jobId: 'x' },
      events: [event],
      firstEvent: 0,
      clock: 1,
    });
    // A commit that fails part-way (here: an event numbered as one already stored) leaves nothing of itself.
    expect(() =>
      store.commit({
        command: { t: 2, key: 'policy', value: 'egs' },
        events: [{ ...event, t: 2 }],
        firstEvent: 0,
        clock: 2,
      }),
    ).toThrow(/UNIQUE/);
    expect(store.eventCount()).toBe(1);
    expect(store.commands()).toHaveLength(1);
    expect(store.clock()).toBe(1);
    store.close();
  });

  it('numbers events by their place in the run: a second copy of one cannot be stored', () => {
    const store = openStore(tempFile());
    store.startRun({ grid, workload: 'none', seed: 1 });
    const event = { type: 'job.queued' as const, t: 1, jobId: 'x', position: 0 };
    store.commit({ events: [event, event], firstEvent: 0 });
    expect(() => store.commit({ events: [event], firstEvent: 1 })).toThrow(/UNIQUE/);
    expect(store.eventsFrom(0, 10).map((e) => e.n)).toEqual([0, 1]);
    store.close();
  });

  it('upgrades a store of schema 5: submissions and settings become one command sequence, events get their numbers', () => {
    const file = tempFile();
    const db = new Database(file);
    db.exec(`CREATE TABLE run (id INTEGER PRIMARY KEY CHECK (id = 1), config TEXT NOT NULL, clock REAL NOT NULL DEFAULT 0);
      CREATE TABLE submissions (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, spec TEXT NOT NULL);
      CREATE TABLE settings (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
      CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, type TEXT NOT NULL, job_id TEXT, body TEXT NOT NULL);
      CREATE TABLE templates (name TEXT PRIMARY KEY, spec TEXT NOT NULL);
      CREATE TABLE lab_results (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE, info TEXT NOT NULL, result TEXT);
      CREATE TABLE clusters (name TEXT PRIMARY KEY, config TEXT NOT NULL);
      CREATE TABLE secrets (cluster TEXT NOT NULL, kind TEXT NOT NULL, ciphertext TEXT NOT NULL, PRIMARY KEY (cluster, kind));
      CREATE TABLE live_state (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);
      CREATE TABLE grid_history (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);
      PRAGMA user_version = 5;`);
    db.prepare('INSERT INTO run (id, config, clock) VALUES (1, ?, 9)').run(
      JSON.stringify({ grid: 'x', workload: 'none', seed: 1 }),
    );
    // A reset left the sequence at 40: numbers start again from 0 for the run.
    db.exec("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', 40)");
    db.prepare('INSERT INTO settings (t, key, value) VALUES (5, ?, ?)').run('policy', '"egs"');
    db.prepare('INSERT INTO submissions (t, spec) VALUES (5, ?)').run('{"id":"late"}');
    db.prepare('INSERT INTO submissions (t, spec) VALUES (1, ?)').run('{"id":"early"}');
    for (const [t, job] of [
      [1, 'early'],
      [5, 'late'],
    ] as const)
      db.prepare('INSERT INTO events (t, type, job_id, body) VALUES (?, ?, ?, ?)').run(
        t,
        'job.submitted',
        job,
        JSON.stringify({ type: 'job.submitted', t, jobId: job }),
      );
    db.close();

    const store = openStore(file);
    expect(store.commands()).toEqual([
      { t: 1, key: 'jobs.submit', value: { id: 'early' } },
      { t: 5, key: 'jobs.submit', value: { id: 'late' } },
      { t: 5, key: 'policy', value: 'egs' },
    ]);
    expect(store.eventsFrom(0, 10).map((e) => [e.n, e.event.t])).toEqual([
      [0, 1],
      [1, 5],
    ]);
    expect(store.check()).toEqual([]);
    store.close();
  });
});

describe('store check', () => {
  it('finds a missing submission event, an event stored twice, a gap and a clock behind the events', () => {
    const { file } = storedRun();
    expect(openStore(file).check()).toEqual([]);
    const db = new Database(file);
    const submitted = db.prepare("SELECT n FROM events WHERE type = 'job.submitted' AND job_id = 'm2'").get() as {
      n: number;
    };
    db.prepare('DELETE FROM events WHERE n = ?').run(submitted.n);
    const m1 = db.prepare("SELECT body, t FROM events WHERE type = 'job.submitted' AND job_id = 'm1'").get() as {
      body: string;
      t: number;
    };
    db.prepare(
      "INSERT INTO events (n, t, type, job_id, body) VALUES ((SELECT max(n) + 1 FROM events), ?, 'job.submitted', 'm1', ?)",
    ).run(m1.t, m1.body);
    db.prepare('UPDATE run SET clock = 0').run();
    db.close();
    const problems = openStore(file).check();
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^events missing from the run's \\d+ \\(numbers\\): ${submitted.n}$`)),
      'jobs with job.submitted stored more than once: m1 (2×)',
      expect.stringMatching(/^accepted jobs without their job.submitted event: m2 \(accepted at t = [\d.]+ s\)$/),
      expect.stringMatching(/^the run's clock \(t = 0 s\) is behind what is stored/),
    ]);
  });
});

describe('resuming a stored run', () => {
  it('replays in slices while the API answers, then runs on with every job, none twice', async () => {
    const before = storedRun();
    // A slice of 0 ms: one instant per slice, so the replay spans many turns of the event loop.
    const { host, store } = hostOn(before.file, { sliceMs: 0 });
    const first = snapshot(host);
    expect(first.run).toMatchObject({ state: 'resuming', storedEvents: before.events });
    expect(host.call('jobs.submit', malleable('during'))).toEqual({
      ok: false,
      errors: [{ path: '', message: expect.stringMatching(/being resumed \(\d+ % replayed\)/) }],
    });
    await host.ready;
    expect(snapshot(host).run).toEqual({ state: 'running' });
    expect(host.world.engine.now).toBe(before.clock);
    expect(host.call('jobs.list', { limit: 100_000 })).toEqual(before.jobs);
    expect(host.call('settings.get', {})).toMatchObject({ ok: true, value: { policy: 'egs' } });
    // Nothing stored twice: the replayed events were compared, not written.
    expect(store.eventCount()).toBe(before.events);
    expect(host.call('jobs.submit', malleable('after')).ok).toBe(true);
    expect(store.check()).toEqual([]);
  });

  it('stops at the first event the replay does not give back, and writes nothing', async () => {
    const { file, events } = storedRun();
    const db = new Database(file);
    // The earlier bug's signature: an event of the run stored twice, shifting those after it.
    db.exec(
      "UPDATE events SET body = json_set(body, '$.position', 99) WHERE n = (SELECT min(n) FROM events WHERE type = 'job.queued')",
    );
    db.close();
    const { host, store } = hostOn(file);
    await host.ready;
    const run = snapshot(host).run;
    expect(run).toMatchObject({
      state: 'unresumable',
      reason: expect.stringMatching(
        /does not give back the stored history \(event \d+ differs: stored .*"position":99/,
      ),
    });
    expect(host.call('jobs.submit', malleable('x'))).toEqual({
      ok: false,
      errors: [{ path: '', message: expect.stringContaining('start a fresh run (sim.reset') }],
    });
    host.stop();
    expect(store.eventCount()).toBe(events);
  });

  it('a store that fails its check is not replayed: read-only shows it, a fresh run keeps a copy of it', async () => {
    const { file, events } = storedRun();
    const db = new Database(file);
    db.exec('UPDATE run SET clock = 1');
    db.close();
    const { host, store } = hostOn(file);
    await host.ready;
    expect(snapshot(host).run).toMatchObject({
      state: 'unresumable',
      reason: expect.stringContaining("the run's clock (t = 1 s) is behind"),
    });
    // Its history stays readable.
    expect(host.call('jobs.events', { jobId: 'm1' })).toMatchObject({
      ok: true,
      value: { events: expect.arrayContaining([expect.objectContaining({ type: 'job.submitted' })]) },
    });
    expect(host.call('run.openReadOnly', {})).toMatchObject({ ok: true, value: { state: 'read-only' } });
    expect(host.call('settings.set', { policy: 'fpsma' })).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringContaining('read-only') }],
    });

    const reset = host.call('sim.reset', { grid: 'das3', workload: 'none' });
    if (!reset.ok) throw new Error(JSON.stringify(reset.errors));
    const backup = reset.value.backup!;
    expect(path.dirname(backup)).toBe(path.dirname(file));
    const kept = openStore(backup, { readOnly: true });
    expect(kept.eventCount()).toBe(events);
    kept.close();
    expect(snapshot(host).run).toEqual({ state: 'running' });
    expect(store.eventCount()).toBeLessThan(events);
    expect(host.call('jobs.submit', malleable('fresh')).ok).toBe(true);
  });

  it('gives up a replay that takes longer than its limit, with how far it got', async () => {
    const { file } = storedRun();
    const { host } = hostOn(file, { sliceMs: 0, replayLimitS: 0 });
    await host.ready;
    expect(snapshot(host).run).toMatchObject({
      state: 'unresumable',
      reason: expect.stringMatching(/would take too long: \d+ of its \d+ events replayed/),
    });
  });

  it('read-only: replays without writing a byte, then accepts nothing', async () => {
    const before = storedRun();
    const bytes = () => createHash('sha256').update(readFileSync(before.file)).digest('hex');
    const original = bytes();
    const { host, store } = hostOn(before.file, { readOnly: true });
    await host.ready;
    expect(snapshot(host).run).toMatchObject({ state: 'read-only' });
    expect(host.call('jobs.list', { limit: 100_000 })).toEqual(before.jobs);
    for (const [method, payload] of [
      ['jobs.submit', malleable('no')],
      ['templates.save', { name: 't', spec: malleable('t') }],
      ['sim.reset', { grid: 'das3', workload: 'none' }],
    ] as const) {
      expect(host.call(method, payload)).toMatchObject({
        ok: false,
        errors: [{ message: expect.stringContaining('read-only') }],
      });
    }
    host.stop();
    expect(store.eventCount()).toBe(before.events);
    expect(bytes()).toBe(original);
  });
});

describe('a submission sent again', () => {
  it('with the same id and spec is the same job, before and after a restart; with another spec it is refused', async () => {
    const file = tempFile();
    const { host, store } = hostOn(file);
    const spec = { ...malleable('s1'), submissionId: 'form-1' };
    expect(host.call('jobs.submit', spec)).toEqual({ ok: true, value: { jobId: 's1' } });
    expect(host.call('jobs.submit', spec)).toEqual({ ok: true, value: { jobId: 's1' } });
    const noId = { kind: 'rigid', components: [{ processors: 2, program: 'x' }] };
    const a = host.call('jobs.submit', { ...noId, submissionId: 'form-2' });
    expect(host.call('jobs.submit', { ...noId, submissionId: 'form-2' })).toEqual(a);
    expect(
      host.call('jobs.submit', { ...noId, components: [{ processors: 3, program: 'x' }], submissionId: 'form-2' }),
    ).toEqual({
      ok: false,
      errors: [{ path: 'submissionId', message: `was already used for another job (${a.ok ? a.value.jobId : '?'})` }],
    });
    expect(store.commands().filter((c) => c.key === 'jobs.submit')).toHaveLength(2);
    host.stop();
    store.close();
    opened.splice(0);

    const again = hostOn(file);
    await again.host.ready;
    expect(again.host.call('jobs.submit', { ...noId, submissionId: 'form-2' })).toEqual(a);
    const list = again.host.call('jobs.list', { limit: 1000 });
    expect(list.ok && list.value.jobs.filter((j) => j.id === 's1' || (a.ok && j.id === a.value.jobId))).toHaveLength(2);
  });
});
