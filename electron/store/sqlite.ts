// The SQLite driver under the store: `node:sqlite` where the runtime has it (Electron's bundled Node, Node 22.13+),
// better-sqlite3 elsewhere (Node 20). Both are used through the few calls they share, so the store is written once.
import { createRequire } from 'node:module';

export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

export interface OpenedDatabase {
  readonly db: SqliteDatabase;
  readonly driver: SqliteDriverName;
}

const require = createRequire(import.meta.url);

/** Whether this runtime has `node:sqlite` (without flags). */
export function hasNodeSqlite(): boolean {
  try {
    require('node:sqlite');
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens `file` with the preferred driver, or the first available. Both are loaded lazily: better-sqlite3 is a
 * native addon built for one Node ABI and would fail to load inside Electron, where node:sqlite serves instead.
 */
export function openDatabase(file: string, prefer?: SqliteDriverName, readOnly = false): OpenedDatabase {
  const order: SqliteDriverName[] =
    prefer === 'better-sqlite3' ? ['better-sqlite3', 'node:sqlite'] : ['node:sqlite', 'better-sqlite3'];
  const failures: string[] = [];
  for (const driver of order) {
    try {
      return { db: open(driver, file, readOnly), driver };
    } catch (error) {
      if (isMissing(error)) failures.push(`${driver}: ${(error as Error).message.split('\n')[0]}`);
      else throw error;
    }
  }
  throw new Error(`no SQLite driver available (${failures.join('; ')})`);
}

function open(driver: SqliteDriverName, file: string, readOnly: boolean): SqliteDatabase {
  if (driver === 'node:sqlite') {
    const { DatabaseSync } = require('node:sqlite') as {
      DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => SqliteDatabase;
    };
    return new DatabaseSync(file, { readOnly });
  }
  const BetterSqlite = require('better-sqlite3') as new (
    path: string,
    options?: { readonly?: boolean; fileMustExist?: boolean },
  ) => SqliteDatabase;
  return new BetterSqlite(file, { readonly: readOnly, fileMustExist: readOnly });
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return (
    code === 'ERR_UNKNOWN_BUILTIN_MODULE' ||
    code === 'MODULE_NOT_FOUND' ||
    code === 'ERR_DLOPEN_FAILED' ||
    /NODE_MODULE_VERSION/.test(String((error as Error).message))
  );
}

/** Runs `body` in one transaction (BEGIN IMMEDIATE: the writer lock is taken at once), rolled back if it throws. */
export function transaction<T>(db: SqliteDatabase, body: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = body();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
