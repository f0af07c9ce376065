// Persistence behind a small interface: what a hosted run needs to come back after a restart or a crash —
// its configuration, every job accepted through the API with the virtual time it was accepted at, settings
// changes, and the scheduler's event history. SQLite in WAL mode; the schema is versioned with migrations.
import { openDatabase, transaction, type SqliteDatabase, type SqliteDriverName } from './sqlite.js';
import type { SchedulerEvent } from '../../core/events.js';

export interface RunConfig {
  readonly grid: unknown;
  readonly workload: string;
  readonly seed: number;
  /** `live`: a run on the real clusters configured (table `clusters`); absent for a simulated run. */
  readonly mode?: 'live';
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

export interface StoredTemplate {
  readonly name: string;
  readonly spec: unknown;
}

export type SecretKind = 'password' | 'passphrase';

export interface Store {
  /** The run this store holds, or undefined for a new store. */
  run(): RunConfig | undefined;
  /** Starts a new run, dropping the one held (its jobs, settings, commands and events). */
  startRun(config: RunConfig): void;
  /** Durable before it returns: a job the API accepted is never lost. */
  addSubmission(submission: StoredSubmission): void;
  submissions(): StoredSubmission[];
  /** Settings changes and operator commands (cancel, resize), replayed in order on resume. */
  addSetting(setting: StoredSetting): void;
  settings(): StoredSetting[];
  /** Appends events (in one transaction). */
  addEvents(events: readonly SchedulerEvent[]): void;
  eventCount(): number;
  events(jobId?: string): SchedulerEvent[];
  /** The virtual time the run had reached. */
  setClock(t: number): void;
  clock(): number;
  /** Submit-form templates, by name (not part of a run: a reset keeps them). */
  templates(): StoredTemplate[];
  /** Saves or replaces the template of that name. */
  saveTemplate(template: StoredTemplate): void;
  /** False when there was none of that name. */
  deleteTemplate(name: string): boolean;
  /** Live clusters' configurations (validated by the caller), by name; not part of a run. */
  clusters(): Array<{ readonly name: string; readonly config: unknown }>;
  saveCluster(name: string, config: unknown): void;
  /** Also forgets the cluster's secrets. False when there was none of that name. */
  deleteCluster(name: string): boolean;
  /** A cluster's password or key passphrase, only ever as ciphertext (base64) from the OS keychain. */
  saveSecret(cluster: string, kind: SecretKind, ciphertext: string): void;
  secret(cluster: string, kind: SecretKind): string | undefined;
  /** A live run's world state (LiveWorld.persistentState()), rewritten as it changes; part of the run. */
  saveLiveState(state: unknown): void;
  liveState(): unknown;
  /** Lab runs (not part of a run either): an ended run's info and result, replacing any kept for that run id. */
  addLabRun(info: { readonly runId: string }, result: unknown): void;
  /** The kept lab runs' infos, oldest first. */
  labRuns(): unknown[];
  /** A kept lab run's result, or undefined. */
  labResult(runId: string): unknown;
  /** The grid's downsampled utilization history (one row, replaced as it grows). */
  saveGridHistory(history: unknown): void;
  gridHistory(): unknown;
  close(): void;
}

/** Each migration takes the schema from version i to i + 1. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE run (id INTEGER PRIMARY KEY CHECK (id = 1), config TEXT NOT NULL, clock REAL NOT NULL DEFAULT 0);
   CREATE TABLE submissions (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, spec TEXT NOT NULL);
   CREATE TABLE settings (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
   CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, type TEXT NOT NULL, job_id TEXT, body TEXT NOT NULL);
   CREATE INDEX events_job ON events (job_id);`,
  `CREATE TABLE templates (name TEXT PRIMARY KEY, spec TEXT NOT NULL);`,
  `CREATE TABLE lab_results (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE, info TEXT NOT NULL, result TEXT);`,
  `CREATE TABLE clusters (name TEXT PRIMARY KEY, config TEXT NOT NULL);
   CREATE TABLE secrets (cluster TEXT NOT NULL, kind TEXT NOT NULL, ciphertext TEXT NOT NULL, PRIMARY KEY (cluster, kind));
   CREATE TABLE live_state (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);`,
  `CREATE TABLE grid_history (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Why a file that SQLite opens cannot be used as this Concertina's store. */
export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';
  constructor(
    readonly reason: 'foreign' | 'newer-schema',
    message: string,
  ) {
    super(message);
  }
}

export function openStore(file: string, driver?: SqliteDriverName): Store {
  const { db } = openDatabase(file, driver);
  refuseForeign(db); // before anything writes: the WAL pragma alone would change someone else's file
  db.exec('PRAGMA journal_mode = WAL');
  // FULL: a commit is on disk when it returns, so an accepted job survives even a power cut.
  db.exec('PRAGMA synchronous = FULL');
  // Another process (a second console on the same file) may hold the write lock for a moment: wait, not fail.
  db.exec('PRAGMA busy_timeout = 5000');
  migrate(db);

  const insertSubmission = db.prepare('INSERT INTO submissions (t, spec) VALUES (?, ?)');
  const insertSetting = db.prepare('INSERT INTO settings (t, key, value) VALUES (?, ?, ?)');
  const insertEvent = db.prepare('INSERT INTO events (t, type, job_id, body) VALUES (?, ?, ?, ?)');
  const addEvents = (events: readonly SchedulerEvent[]) =>
    transaction(db, () => {
      for (const e of events) insertEvent.run(e.t, e.type, 'jobId' in e ? e.jobId : null, JSON.stringify(e));
    });

  return {
    run() {
      const row = db.prepare('SELECT config FROM run WHERE id = 1').get() as { config: string } | undefined;
      return row ? (JSON.parse(row.config) as RunConfig) : undefined;
    },
    startRun(config) {
      transaction(db, () => {
        for (const table of ['run', 'submissions', 'settings', 'events', 'grid_history', 'live_state']) db.exec(`DELETE FROM ${table}`);
        db.prepare('INSERT INTO run (id, config) VALUES (1, ?)').run(JSON.stringify(config));
      });
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
    templates() {
      return (db.prepare('SELECT name, spec FROM templates ORDER BY name').all() as Array<{ name: string; spec: string }>).map((r) => ({ name: r.name, spec: JSON.parse(r.spec) }));
    },
    saveTemplate(template) {
      db.prepare('INSERT INTO templates (name, spec) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec').run(template.name, JSON.stringify(template.spec));
    },
    deleteTemplate(name) {
      // Both drivers answer a run with the number of rows it changed.
      return Number((db.prepare('DELETE FROM templates WHERE name = ?').run(name) as { changes: number | bigint }).changes) > 0;
    },
    clusters() {
      return (db.prepare('SELECT name, config FROM clusters ORDER BY name').all() as Array<{ name: string; config: string }>).map((r) => ({ name: r.name, config: JSON.parse(r.config) as unknown }));
    },
    saveCluster(name, config) {
      db.prepare('INSERT INTO clusters (name, config) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET config = excluded.config').run(name, JSON.stringify(config));
    },
    deleteCluster(name) {
      return transaction(db, () => {
        db.prepare('DELETE FROM secrets WHERE cluster = ?').run(name);
        return Number((db.prepare('DELETE FROM clusters WHERE name = ?').run(name) as { changes: number | bigint }).changes) > 0;
      });
    },
    saveSecret(cluster, kind, ciphertext) {
      db.prepare('INSERT INTO secrets (cluster, kind, ciphertext) VALUES (?, ?, ?) ON CONFLICT (cluster, kind) DO UPDATE SET ciphertext = excluded.ciphertext').run(cluster, kind, ciphertext);
    },
    secret(cluster, kind) {
      return (db.prepare('SELECT ciphertext FROM secrets WHERE cluster = ? AND kind = ?').get(cluster, kind) as { ciphertext: string } | undefined)?.ciphertext;
    },
    saveLiveState(state) {
      db.prepare('INSERT INTO live_state (id, body) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body').run(JSON.stringify(state));
    },
    liveState() {
      const row = db.prepare('SELECT body FROM live_state WHERE id = 1').get() as { body: string } | undefined;
      return row ? (JSON.parse(row.body) as unknown) : undefined;
    },
    addLabRun(info, result) {
      db.prepare('INSERT INTO lab_results (run_id, info, result) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET info = excluded.info, result = excluded.result').run(
        info.runId,
        JSON.stringify(info),
        result === undefined ? null : JSON.stringify(result),
      );
    },
    labRuns() {
      return (db.prepare('SELECT info FROM lab_results ORDER BY seq').all() as Array<{ info: string }>).map((r) => JSON.parse(r.info) as unknown);
    },
    saveGridHistory(history) {
      db.prepare('INSERT INTO grid_history (id, body) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body').run(JSON.stringify(history));
    },
    gridHistory() {
      const row = db.prepare('SELECT body FROM grid_history WHERE id = 1').get() as { body: string } | undefined;
      return row ? (JSON.parse(row.body) as unknown) : undefined;
    },
    labResult(runId) {
      const row = db.prepare('SELECT result FROM lab_results WHERE run_id = ?').get(runId) as { result: string | null } | undefined;
      return row?.result ? (JSON.parse(row.result) as unknown) : undefined;
    },
    close() {
      db.close();
    },
  };
}

/**
 * Closes `db` and throws when it is not a Concertina store: a new store has no tables and schema version 0, one of
 * ours a version and our tables.
 */
function refuseForeign(db: SqliteDatabase): void {
  const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
  const ours = version === 0 ? tables.length === 0 : tables.includes('run') && tables.includes('events');
  if (ours) return;
  db.close();
  const shown = tables.length ? `tables ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', ...' : ''}` : 'no tables';
  throw new StoreOpenError('foreign', `is an SQLite database but not a Concertina store (schema version ${version}, ${shown})`);
}

function migrate(db: SqliteDatabase): void {
  const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  if (version > SCHEMA_VERSION) throw new StoreOpenError('newer-schema', `the store's schema (version ${version}) is newer than this Concertina (${SCHEMA_VERSION})`);
  for (let v = version; v < SCHEMA_VERSION; v++) {
    transaction(db, () => {
      db.exec(MIGRATIONS[v]!);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    });
  }
}
