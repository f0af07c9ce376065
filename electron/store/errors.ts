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

/** Why a store could not be opened, in words: the store's own kinds, and SQLite's codes. */
export function openFailure(error: unknown): string {
  if (error instanceof StoreOpenError) return error.message;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB') return 'it is not an SQLite database';
  if (code === 'SQLITE_CANTOPEN') return 'it cannot be opened (missing, a directory, or not readable)';
  if (code === 'SQLITE_CORRUPT') return 'the SQLite file is damaged';
  return error instanceof Error ? error.message : String(error);
}
