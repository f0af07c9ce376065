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
