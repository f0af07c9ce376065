// `concertina store check FILE`: verifies a store without changing it (read-only); prints what is wrong and exits 2
// when anything is, so a script can tell a whole store from a damaged one.
import { openStore } from '../store/store.js';
import { openFailure } from '../store/errors.js';
import { UsageError } from './export.js';
import { PROGRAM, emit, type CliIo } from './terminal.js';

export async function storeCheckCommand(file: string, io: CliIo): Promise<number> {
  let store;
  try {
    store = openStore(file, { readOnly: true });
  } catch (error) {
    throw new UsageError(`${file}: ${openFailure(error)}`);
  }
  try {
    const problems = store.check();
    if (problems.length) {
      await emit(io.stderr, problems.map((p) => `${PROGRAM}: ${file}: ${p}\n`).join(''));
      return 2;
    }
    const run = store.run();
    const what = run
      ? `a ${run.mode === 'live' ? 'live' : 'simulated'} run: ${store.eventCount()} events, ${store.commands().length} commands, clock t = ${store.clock()}`
      : 'no run';
    await emit(io.stdout, `${file}: whole (${what})\n`);
    return 0;
  } finally {
    store.close();
  }
}
