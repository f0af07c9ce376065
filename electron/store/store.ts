// Persistence behind a small interface: what a hosted run needs to come back after a restart or a crash —
// its configuration, every job accepted through the API with the virtual time it was accepted at, settings
// changes, and the scheduler's event history. SQLite in WAL mode; the schema is versioned with migrations.
import Database from 'better-sqlite3';
import type { SchedulerEvent } from '../../core/events.js';

export interface RunConfig {
  readonly grid: unknown;
  readonly workload: string;
  readonly seed: number;
}

export interface StoredSubmission {
  readonly t: number;
  readonly spec: unknown;
}

export interface StoredSetting {
  readonly t: number;
  readonly key: string;
  readonly value: unknown;
}

export interface Store {
  /** The run this store holds, or undefined for a new store. */
  run(): RunConfig | undefined;
  startRun(config: RunConfig): void;
  /** Durable before it returns: a job the API accepted is never lost. */
  addSubmission(submission: StoredSubmission): void;
  submissions(): StoredSubmission[];
  addSetting(setting: StoredSetting): void;
  settings(): StoredSetting[];
  /** Appends events (in one transaction). */
  addEvents(events: readonly SchedulerEvent[]): void;
  eventCount(): number;
  events(jobId?: string): SchedulerEvent[];
  /** The virtual time the run had reached. */
  setClock(t: number): void;
  clock(): number;
  close(): void;
}

/** Each migration takes the schema from version i to i + 1. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE run (id INTEGER PRIMARY KEY CHECK (id = 1), config TEXT NOT NULL, clock REAL NOT NULL DEFAULT 0);
   CREATE TABLE submissions (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, spec TEXT NOT NULL);
   CREATE TABLE settings (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
   CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, type TEXT NOT NULL, job_id TEXT, body TEXT NOT NULL);
   CREATE INDEX events_job ON events (job_id);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function openStore(file: string): Store {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // FULL: a commit is on disk when it returns, so an accepted job survives even a power cut.
  db.pragma('synchronous = FULL');
  migrate(db);

  const insertSubmission = db.prepare('INSERT INTO submissions (t, spec) VALUES (?, ?)');
  const insertSetting = db.prepare('INSERT INTO settings (t, key, value) VALUES (?, ?, ?)');
  const insertEvent = db.prepare('INSERT INTO events (t, type, job_id, body) VALUES (?, ?, ?, ?)');
  const addEvents = db.transaction((events: readonly SchedulerEvent[]) => {
    for (const e of events) insertEvent.run(e.t, e.type, 'jobId' in e ? e.jobId : null, JSON.stringify(e));
  });

  return {
    run() {
      const row = db.prepare('SELECT config FROM run WHERE id = 1').get() as { config: string } | undefined;
      return row ? (JSON.parse(row.config) as RunConfig) : undefined;
    },
    startRun(config) {
      db.prepare('INSERT INTO run (id, config) VALUES (1, ?)').run(JSON.stringify(config));
    },
    addSubmission(s) {
      insertSubmission.run(s.t, JSON.stringify(s.spec));
    },
    submissions() {
      return (db.prepare('SELECT t, spec FROM submissions ORDER BY seq').all() as Array<{ t: number; spec: string }>).map((r) => ({ t: r.t, spec: JSON.parse(r.spec) }));
    },
    addSetting(s) {
      insertSetting.run(s.t, s.key, JSON.stringify(s.value));
    },
    settings() {
      return (db.prepare('SELECT t, key, value FROM settings ORDER BY seq').all() as Array<{ t: number; key: string; value: string }>).map((r) => ({ t: r.t, key: r.key, value: JSON.parse(r.value) }));
    },
    addEvents(events) {
      if (events.length) addEvents(events);
    },
    eventCount() {
      return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    },
    events(jobId) {
      const rows = (jobId === undefined ? db.prepare('SELECT body FROM events ORDER BY seq').all() : db.prepare('SELECT body FROM events WHERE job_id = ? ORDER BY seq').all(jobId)) as Array<{ body: string }>;
      return rows.map((r) => JSON.parse(r.body) as SchedulerEvent);
    },
    setClock(t) {
      db.prepare('UPDATE run SET clock = ? WHERE id = 1').run(t);
    },
    clock() {
      return (db.prepare('SELECT clock FROM run WHERE id = 1').get() as { clock: number } | undefined)?.clock ?? 0;
    },
    close() {
      db.close();
    },
  };
}

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new Error(`the store's schema (version ${version}) is newer than this Concertina (${SCHEMA_VERSION})`);
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
