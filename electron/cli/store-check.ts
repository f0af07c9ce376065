// `concertina store check FILE`: verifies a store without changing it (read-only); prints what is wrong and exits 2
// when anything is, so a script can tell a whole store from a damaged one.
import { openStore } from '../store/store.js';
import { StoreOpenError } from '../store/errors.js';
import { UsageError } from './export.js';
import { emit, PROGRAM, type CliIo } from './main.js';

export async function storeCheckCommand(file: string, io: CliIo): Promise<number> {
  let store;
  try {
    store = openStore(file, { readOnly: true });
  } catch (error) {
    throw new UsageError(`${file}: cannot be checked: ${openFailure(error)}`);
  }
  try {
    const problems = store.check();
    if (problems.length) {
      await emit(io.stderr, problems.map((p) => `${PROGRAM}: ${file}: ${p}\n`).join(''));
      return 2;
    }
    const run = store.run();
    const what = run ? `a ${run.mode === 'live' ? 'live' : 'simulated'} run: ${store.eventCount()} events, ${store.commands().length} commands, clock t = ${store.clock()}` : 'no run';
    await emit(io.stdout, `${file}: whole (${what})\n`);
    return 0;
  } finally {
    store.close();
  }
}

/** Why a store could not be opened, in words (SQLite's codes and the store's own kinds). */
export function openFailure(error: unknown): string {
  if (error instanceof StoreOpenError) return error.message;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB') return 'it is not an SQLite database';
  if (code === 'SQLITE_CANTOPEN') return 'it cannot be opened (missing, a directory, or not readable)';
  if (code === 'SQLITE_CORRUPT') return 'the SQLite file is damaged';
  return error instanceof Error ? error.message : String(error);
}
