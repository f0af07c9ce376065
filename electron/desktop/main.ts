// The Electron main process: one host (the simulated grid, kept in the user's data folder so a restart resumes
// it), the console served from concertina:// with the window's CSP, the API over IPC, and a hardened window.
// Written against the few Electron objects it uses, so it is tested with stubs where Electron cannot run.
import path from 'node:path';
import { Host } from '../host/host.js';
import { DEFAULT_WARM_UP_S } from '../host/warm-up.js';
import { safeStorageCipher, type SafeStorageLike } from '../live/cluster-secrets.js';
import { openStore, type Store } from '../store/store.js';
import { openFailure } from '../store/errors.js';
import { serveAppRequest } from './app-protocol.js';
import {
  APP_ORIGIN,
  APP_SCHEME,
  denyPermissions,
  hardenContents,
  registerIpc,
  windowOptions,
  type ContentsLike,
  type IpcMainLike,
  type SessionLike,
} from './security.js';

export interface WindowLike {
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): void;
  show(): void;
}

export interface ElectronMain {
  app: {
    whenReady(): Promise<void>;
    getPath(name: 'userData'): string;
    on(event: 'web-contents-created', listener: (event: unknown, contents: ContentsLike) => void): void;
    on(event: 'window-all-closed' | 'before-quit', listener: () => void): void;
    quit(): void;
    exit(code: number): void;
  };
  dialog: { showErrorBox(title: string, content: string): void };
  protocol: {
    registerSchemesAsPrivileged(schemes: Array<{ scheme: string; privileges: Record<string, boolean> }>): void;
    handle(scheme: string, handler: (request: { url: string }) => Response | Promise<Response>): void;
  };
  session: { defaultSession: SessionLike };
  ipcMain: IpcMainLike;
  BrowserWindow: new (options: ReturnType<typeof windowOptions>) => WindowLike;
  /** The OS keychain: clusters' passwords and passphrases are stored only as its ciphertext. */
  safeStorage?: SafeStorageLike;
}

export interface DesktopPaths {
  /** dist/renderer: the built console. */
  readonly consoleDir: string;
  /** The compiled preload (preload.cjs). */
  readonly preload: string;
  /** The window's icon (a PNG). */
  readonly icon?: string;
}

export interface Desktop {
  readonly host: Host;
  readonly window: WindowLike;
}

/** Must run before the app is ready: the console's scheme behaves as a secure, standard origin. */
export function registerScheme(electron: ElectronMain): void {
  electron.protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

export async function startDesktop(
  electron: ElectronMain,
  paths: DesktopPaths,
  openRunStore: (file: string) => Store = openStore,
): Promise<Desktop> {
  const { app, protocol, session, ipcMain, BrowserWindow } = electron;
  // Every web contents, whoever creates it, is hardened before it loads anything.
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  await app.whenReady();
  denyPermissions(session.defaultSession);
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(request.url, paths.consoleDir));

  const file = path.join(app.getPath('userData'), 'run.db');
  let store: Store;
  try {
    store = openRunStore(file);
  } catch (error) {
    // A store this Concertina cannot open (newer, foreign, damaged) is left as it is: the user is told, not the log.
    electron.dialog.showErrorBox(
      'Concertina cannot open its run',
      `${file}: ${openFailure(error)}.\n\nThe file was left as it is. Move it aside (or open it with the Concertina that wrote it) to start again.`,
    );
    app.exit(2);
    throw error;
  }
  // Without OS encryption (e.g. no keyring on Linux), secrets are held for the session only, never written.
  const cipher = safeStorageCipher(electron.safeStorage);
  const host = new Host({ store, clusters: cipher ? { cipher } : {}, warmUpS: DEFAULT_WARM_UP_S });
  host.start();
  registerIpc(ipcMain, host.dispatch, (send) => host.stream(send));

  const window = new BrowserWindow(windowOptions(paths.preload, paths.icon));
  window.once('ready-to-show', () => window.show());
  await window.loadURL(`${APP_ORIGIN}/index.html`);

  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => {
    host.stop();
    store.close();
  });
  return { host, window };
}
