// Why a store file cannot be opened, as a kind the caller can act on (the CLI names its flag; the console offers a way out).
export type StoreOpenFailure = 'newer-schema' | 'older-schema' | 'foreign' | 'not-a-database' | 'unreadable';

export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';
  constructor(
    readonly kind: StoreOpenFailure,
    message: string,
  ) {
    super(message);
  }
}

// SQLite's primary result codes (node:sqlite gives the number, better-sqlite3 the name).
const SQLITE_CODES: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/** SQLite's reason for a failure, in words (said of the file), or undefined for another kind of error. */
export function sqliteReason(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  const name =
    typeof code === 'string' && code.startsWith('SQLITE_')
      ? code
      : typeof errcode === 'number'
        ? SQLITE_CODES[errcode & 0xff]
        : undefined;
  if (name === undefined) return undefined;
  if (name.startsWith('SQLITE_BUSY') || name.startsWith('SQLITE_LOCKED')) return 'is locked by another process';
  if (name.startsWith('SQLITE_READONLY')) return 'cannot be written (read-only)';
  if (name.startsWith('SQLITE_IOERR')) return 'cannot be read or written (input/output error)';
  if (name.startsWith('SQLITE_CORRUPT')) return 'is damaged (the SQLite database is malformed)';
  if (name.startsWith('SQLITE_FULL')) return 'no space left on the device';
  if (name.startsWith('SQLITE_CANTOPEN')) return 'cannot be opened';
  if (name.startsWith('SQLITE_NOTADB')) return 'is not an SQLite database';
  return undefined;
}

/** Why a store could not be opened, in words said of the file: the store's own kinds, then SQLite's codes. */
export function openFailure(error: unknown): string {
  if (error instanceof StoreOpenError) return error.message;
  return sqliteReason(error) ?? (error instanceof Error ? error.message : String(error));
}
