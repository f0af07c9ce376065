// Persistence behind a small interface: what a hosted run needs to come back after a restart or a crash —
// its configuration, every job accepted through the API with the virtual time it was accepted at, settings
// changes, and the scheduler's event history. SQLite in WAL mode; the schema is versioned with migrations.
import { openDatabase, transaction, type SqliteDatabase, type SqliteDriverName } from './sqlite.js';
import { checkStore } from './check.js';
import { StoreOpenError } from './errors.js';
import type { SchedulerEvent } from '../../core/events.js';

export interface RunConfig {
  readonly grid: unknown;
  readonly workload: string;
  readonly seed: number;
  /** `live`: a run on the real clusters configured (table `clusters`); absent for a simulated run. */
  readonly mode?: 'live';
  /** `start`: the living stream's jobs arrive from the start, beside the workload's; absent (runs stored before):
   *  after the workload's last job. */
  readonly streamFrom?: 'start';
  /** The queue settings the run started with (later changes are stored commands); absent: the scheduler's defaults. */
  readonly queue?: StoredQueueSettings;
}

/** A run's queue settings as stored: policy and priority by name, reservation depth (null: the policy's own). */
export interface StoredQueueSettings {
  readonly queue: string;
  readonly reservationDepth: number | null;
  readonly priority: string;
}

/**
 * What the API accepted that changes the run, in the order it was accepted, replayed in that order on resume: a job
 * submission (`jobs.submit`, value: the job spec), a settings change (its name) or an operator command
 * (`jobs.cancel`, `jobs.resize`).
 */
export interface StoredCommand {
  /** The run's time when it was accepted. */
  readonly t: number;
  readonly key: string;
  readonly value: unknown;
  /** A submission's id from the console: a retry with the same id is the same submission (never a second job). */
  readonly submissionId?: string;
  /** The job a submission made. */
  readonly jobId?: string;
}

/** One event as stored: `n` is its place in the run's event stream (0, 1, 2, ...), which identifies it. */
export interface StoredEvent {
  readonly n: number;
  readonly event: SchedulerEvent;
}

/** Everything one flush writes, in one transaction: all of it is stored, or none. */
export interface Commit {
  readonly command?: StoredCommand;
  /** Events in run order; the first is event number `firstEvent` of the run. */
  readonly events?: readonly SchedulerEvent[];
  readonly firstEvent?: number;
  /** The run's time reached. */
  readonly clock?: number;
  readonly liveState?: unknown;
  readonly gridHistory?: unknown;
}

export interface StoredTemplate {
  readonly name: string;
  readonly spec: unknown;
}

export type SecretKind = 'password' | 'passphrase';

export interface Store {
  /** The SQLite file. */
  readonly file: string;
  /** Opened read-only: every write throws. */
  readonly readOnly: boolean;
  /** The run this store holds, or undefined for a new store. */
  run(): RunConfig | undefined;
  /** Starts a new run, dropping the one held (its commands, events, history and live state). */
  startRun(config: RunConfig): void;
  /** Writes a command, events, the clock, the live state and the grid history in one transaction; durable when it returns. */
  commit(commit: Commit): void;
  commands(): StoredCommand[];
  eventCount(): number;
  /** A job's events, or the whole run's, in run order. */
  events(jobId?: string): SchedulerEvent[];
  /** Up to `limit` events of the run from number `first` on. */
  eventsFrom(first: number, limit: number): StoredEvent[];
  /** The run's time reached. */
  clock(): number;
  /** What is wrong with the stored run (empty when it is whole): see store/check.ts. */
  check(): string[];
  /** Writes a consistent copy of the whole store to `file` (which must not exist). */
  backup(file: string): void;
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
  /** A live run's world state (LiveWorld.persistentState()), part of the run; written by commit. */
  liveState(): unknown;
  /** Lab runs (not part of a run either): an ended run's info and result, replacing any kept for that run id. */
  addLabRun(info: { readonly runId: string }, result: unknown): void;
  /** The kept lab runs' infos, oldest first. */
  labRuns(): unknown[];
  /** A kept lab run's result, or undefined. */
  labResult(runId: string): unknown;
  /** The grid's downsampled utilization history (one row, replaced by commit). */
  gridHistory(): unknown;
  close(): void;
}

/** Each migration takes the schema from version i to i + 1. */
export const MIGRATIONS: readonly string[] = [
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
  // Submissions and settings become one sequence of commands (their order at one instant was lost between two
  // tables); events are numbered by their place in the run, which identifies them (a second copy cannot be stored).
  // Decision: commands of old stores at the same instant keep the old replay order, submissions first.
  `CREATE TABLE commands (seq INTEGER PRIMARY KEY, t REAL NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, submission_id TEXT UNIQUE, job_id TEXT);
   INSERT INTO commands (t, key, value)
     SELECT t, key, value FROM (SELECT t, 0 AS source, seq, 'jobs.submit' AS key, spec AS value FROM submissions
                                UNION ALL SELECT t, 1, seq, key, value FROM settings)
     ORDER BY t, source, seq;
   DROP TABLE submissions;
   DROP TABLE settings;
   CREATE TABLE numbered_events (n INTEGER PRIMARY KEY, t REAL NOT NULL, type TEXT NOT NULL, job_id TEXT, body TEXT NOT NULL);
   INSERT INTO numbered_events SELECT row_number() OVER (ORDER BY seq) - 1, t, type, job_id, body FROM events;
   DROP TABLE events;
   ALTER TABLE numbered_events RENAME TO events;
   CREATE INDEX events_job ON events (job_id);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The tables of a Concertina store: a file holding other tables and none of these is someone else's database. */
const OWN_TABLES = ['run', 'events'];

export interface OpenStoreOptions {
  readonly driver?: SqliteDriverName;
  /** Open without writing anything (no migration, no journal change): for inspecting a store. */
  readonly readOnly?: boolean;
}

export function openStore(file: string, options: OpenStoreOptions = {}): Store {
  const { db } = openDatabase(file, options.driver, options.readOnly === true);
  const readOnly = options.readOnly === true;
  refuseForeign(db); // before anything writes: the WAL pragma alone would change someone else's file
  if (!readOnly) {
    db.exec('PRAGMA journal_mode = WAL');
    // FULL: a commit is on disk when it returns, so an accepted job survives even a power cut.
    db.exec('PRAGMA synchronous = FULL');
  }
  // Another process (a second console on the same file) may hold the write lock for a moment: wait, not fail.
  db.exec('PRAGMA busy_timeout = 5000');
  if (readOnly) requireCurrentSchema(db);
  else migrate(db);

  const insertCommand = readOnly
    ? undefined
    : db.prepare('INSERT INTO commands (t, key, value, submission_id, job_id) VALUES (?, ?, ?, ?, ?)');
  const insertEvent = readOnly
    ? undefined
    : db.prepare('INSERT INTO events (n, t, type, job_id, body) VALUES (?, ?, ?, ?, ?)');
  const json = (row: { body: string }) => JSON.parse(row.body) as SchedulerEvent;

  return {
    file,
    readOnly,
    run() {
      const row = db.prepare('SELECT config FROM run WHERE id = 1').get() as { config: string } | undefined;
      return row ? (JSON.parse(row.config) as RunConfig) : undefined;
    },
    startRun(config) {
      transaction(db, () => {
        for (const table of ['run', 'commands', 'events', 'grid_history', 'live_state'])
          db.exec(`DELETE FROM ${table}`);
        db.prepare('INSERT INTO run (id, config) VALUES (1, ?)').run(JSON.stringify(config));
      });
    },
    commit(c) {
      if (
        !c.command &&
        !c.events?.length &&
        c.clock === undefined &&
        c.liveState === undefined &&
        c.gridHistory === undefined
      )
        return;
      transaction(db, () => {
        if (c.command) {
          const { t, key, value, submissionId, jobId } = c.command;
          insertCommand!.run(t, key, JSON.stringify(value), submissionId ?? null, jobId ?? null);
        }
        // An event's number is its primary key: storing one twice fails the whole commit.
        const first = c.firstEvent ?? 0;
        c.events?.forEach((e, i) =>
          insertEvent!.run(first + i, e.t, e.type, 'jobId' in e ? e.jobId : null, JSON.stringify(e)),
        );
        if (c.liveState !== undefined)
          db.prepare(
            'INSERT INTO live_state (id, body) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body',
          ).run(JSON.stringify(c.liveState));
        if (c.gridHistory !== undefined)
          db.prepare(
            'INSERT INTO grid_history (id, body) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body',
          ).run(JSON.stringify(c.gridHistory));
        if (c.clock !== undefined) db.prepare('UPDATE run SET clock = ? WHERE id = 1').run(c.clock);
      });
    },
    commands() {
      const rows = db.prepare('SELECT t, key, value, submission_id, job_id FROM commands ORDER BY seq').all() as Array<{
        t: number;
        key: string;
        value: string;
        submission_id: string | null;
        job_id: string | null;
      }>;
      return rows.map((r) => ({
        t: r.t,
        key: r.key,
        value: JSON.parse(r.value) as unknown,
        ...(r.submission_id === null ? {} : { submissionId: r.submission_id }),
        ...(r.job_id === null ? {} : { jobId: r.job_id }),
      }));
    },
    eventCount() {
      return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    },
    events(jobId) {
      const rows = (
        jobId === undefined
          ? db.prepare('SELECT body FROM events ORDER BY n').all()
          : db.prepare('SELECT body FROM events WHERE job_id = ? ORDER BY n').all(jobId)
      ) as Array<{ body: string }>;
      return rows.map(json);
    },
    eventsFrom(first, limit) {
      const rows = db.prepare('SELECT n, body FROM events WHERE n >= ? ORDER BY n LIMIT ?').all(first, limit) as Array<{
        n: number;
        body: string;
      }>;
      return rows.map((r) => ({ n: r.n, event: json(r) }));
    },
    clock() {
      return (db.prepare('SELECT clock FROM run WHERE id = 1').get() as { clock: number } | undefined)?.clock ?? 0;
    },
    check() {
      return checkStore(db);
    },
    backup(target) {
      db.prepare('VACUUM INTO ?').run(target);
    },
    templates() {
      return (
        db.prepare('SELECT name, spec FROM templates ORDER BY name').all() as Array<{ name: string; spec: string }>
      ).map((r) => ({ name: r.name, spec: JSON.parse(r.spec) }));
    },
    saveTemplate(template) {
      db.prepare(
        'INSERT INTO templates (name, spec) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec',
      ).run(template.name, JSON.stringify(template.spec));
    },
    deleteTemplate(name) {
      // Both drivers answer a run with the number of rows it changed.
      return (
        Number((db.prepare('DELETE FROM templates WHERE name = ?').run(name) as { changes: number | bigint }).changes) >
        0
      );
    },
    clusters() {
      return (
        db.prepare('SELECT name, config FROM clusters ORDER BY name').all() as Array<{ name: string; config: string }>
      ).map((r) => ({ name: r.name, config: JSON.parse(r.config) as unknown }));
    },
    saveCluster(name, config) {
      db.prepare(
        'INSERT INTO clusters (name, config) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET config = excluded.config',
      ).run(name, JSON.stringify(config));
    },
    deleteCluster(name) {
      return transaction(db, () => {
        db.prepare('DELETE FROM secrets WHERE cluster = ?').run(name);
        return (
          Number(
            (db.prepare('DELETE FROM clusters WHERE name = ?').run(name) as { changes: number | bigint }).changes,
          ) > 0
        );
      });
    },
    saveSecret(cluster, kind, ciphertext) {
      db.prepare(
        'INSERT INTO secrets (cluster, kind, ciphertext) VALUES (?, ?, ?) ON CONFLICT (cluster, kind) DO UPDATE SET ciphertext = excluded.ciphertext',
      ).run(cluster, kind, ciphertext);
    },
    secret(cluster, kind) {
      return (
        db.prepare('SELECT ciphertext FROM secrets WHERE cluster = ? AND kind = ?').get(cluster, kind) as
          { ciphertext: string } | undefined
      )?.ciphertext;
    },
    liveState() {
      const row = db.prepare('SELECT body FROM live_state WHERE id = 1').get() as { body: string } | undefined;
      return row ? (JSON.parse(row.body) as unknown) : undefined;
    },
    addLabRun(info, result) {
      db.prepare(
        'INSERT INTO lab_results (run_id, info, result) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET info = excluded.info, result = excluded.result',
      ).run(info.runId, JSON.stringify(info), result === undefined ? null : JSON.stringify(result));
    },
    labRuns() {
      return (db.prepare('SELECT info FROM lab_results ORDER BY seq').all() as Array<{ info: string }>).map(
        (r) => JSON.parse(r.info) as unknown,
      );
    },
    gridHistory() {
      const row = db.prepare('SELECT body FROM grid_history WHERE id = 1').get() as { body: string } | undefined;
      return row ? (JSON.parse(row.body) as unknown) : undefined;
    },
    labResult(runId) {
      const row = db.prepare('SELECT result FROM lab_results WHERE run_id = ?').get(runId) as
        { result: string | null } | undefined;
      return row?.result ? (JSON.parse(row.result) as unknown) : undefined;
    },
    close() {
      db.close();
    },
  };
}

function schemaVersion(db: SqliteDatabase): number {
  return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
}

function tables(db: SqliteDatabase): Set<string> {
  return new Set(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(
      (r) => r.name,
    ),
  );
}

function newerSchema(version: number): StoreOpenError {
  return new StoreOpenError(
    'newer-schema',
    `was written by a newer Concertina (store schema ${version}; this one reads up to ${SCHEMA_VERSION})`,
  );
}

/**
 * Closes `db` and throws when it is not a Concertina store: a new store has no tables and schema version 0, one of
 * ours a version and our tables. Never migrate, or even journal, someone else's database.
 */
function refuseForeign(db: SqliteDatabase): void {
  const version = schemaVersion(db);
  const present = [...tables(db)].filter((t) => !t.startsWith('sqlite_')).sort();
  const ours = version === 0 ? present.length === 0 : OWN_TABLES.every((t) => present.includes(t));
  if (ours) return;
  db.close();
  const shown = present.length
    ? `tables ${present.slice(0, 5).join(', ')}${present.length > 5 ? ', ...' : ''}`
    : 'no tables';
  throw new StoreOpenError(
    'foreign',
    `is an SQLite database but not a Concertina store (schema version ${version}, ${shown})`,
  );
}

function requireCurrentSchema(db: SqliteDatabase): void {
  const version = schemaVersion(db);
  if (version > SCHEMA_VERSION) throw newerSchema(version);
  if (version < SCHEMA_VERSION)
    throw new StoreOpenError(
      'older-schema',
      `must be upgraded (store schema ${version}) before it can be read (\`concertina serve --store FILE\` upgrades it)`,
    );
}

function migrate(db: SqliteDatabase): void {
  const version = schemaVersion(db);
  if (version > SCHEMA_VERSION) throw newerSchema(version);
  for (let v = version; v < SCHEMA_VERSION; v++) {
    transaction(db, () => {
      db.exec(MIGRATIONS[v]!);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    });
  }
}
