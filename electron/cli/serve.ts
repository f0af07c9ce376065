// `concertina serve`: the host in headless web mode, until interrupted.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Host } from '../host/host.js';
import { openStore } from '../store/store.js';
import { startWebServer, type WebServer } from '../web/server.js';
import { PROGRAM, emit, type CliIo } from './terminal.js';
import { listenError, openStoreFile } from './startup-errors.js';

export interface ServeOptions {
  port: number;
  host: string;
  /** SQLite file keeping the run; an existing one is resumed. */
  store?: string;
  /** Open the store without changing it: its run is shown as far as it replays, and nothing is accepted. */
  readOnly?: boolean;
  /** Virtual minutes a fresh run computes before its clock starts (default none). */
  warmUp?: number;
}

// dist/electron/cli/serve.js -> dist/renderer, where `npm run build` puts the console.
const CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'renderer');

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function serveCommand(o: ServeOptions, io: CliIo, stopped: Promise<void> = signalled()): Promise<number> {
  const storeIsNew = o.store !== undefined && !existsSync(o.store);
  const store = o.store
    ? openStoreFile('--store', o.store, (file) => openStore(file, { readOnly: o.readOnly === true }))
    : undefined;
  const host = new Host({ store, warmUpS: (o.warmUp ?? 0) * 60 });
  let server: WebServer;
  try {
    server = await startWebServer(host, { host: o.host, port: o.port, staticDir: CONSOLE_DIR });
  } catch (error) {
    store?.close();
    // Decision: a store this failed start created is removed, so that a failed start leaves nothing behind.
    if (storeIsNew) for (const suffix of ['', '-wal', '-shm']) rmSync(`${o.store}${suffix}`, { force: true });
    throw listenError(o.host, o.port, error);
  }
  host.start();
  if (!LOOPBACK.has(o.host))
    await emit(
      io.stderr,
      `concertina: warning: --host ${o.host} exposes the host beyond this machine; the token is its only guard\n`,
    );
  await emit(io.stdout, `Concertina is running (${host.startedWith}). Open: ${server.url}\n`);
  void host.ready.then(() => {
    const run = host.run;
    if (run.state === 'unresumable')
      void emit(
        io.stderr,
        `${PROGRAM}: warning: the stored run cannot be resumed: ${run.reason}. The console offers a fresh run (the store is kept as a backup) or to open it read-only.\n`,
      );
    else if (run.state === 'read-only') void emit(io.stderr, `${PROGRAM}: the run is open read-only: ${run.reason}\n`);
  });
  await stopped;
  // A live run's connections are closed before the store (its last state is written first, at once).
  await host.stop();
  await server.close();
  store?.close();
  return 0;
}

function signalled(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
