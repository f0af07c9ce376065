// The Electron main process and preload, with Electron stubbed at its boundary (its binary cannot be downloaded
// here): what the window loads, from where, with which CSP, and what the page can reach.
import { readFileSync } from 'node:fs';
import { mkdtempSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { serveAppRequest } from '../../electron/desktop/app-protocol.js';
import { registerScheme, startDesktop, type ElectronMain } from '../../electron/desktop/main.js';
import {
  APP_ORIGIN,
  APP_SCHEME,
  EVENT_CHANNEL,
  INVOKE_CHANNEL,
  SUBSCRIBE_CHANNEL,
  UNSUBSCRIBE_CHANNEL,
  WINDOW_CSP,
  registerIpc,
  type IpcEventLike,
} from '../../electron/desktop/security.js';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function consoleDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'concertina-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(path.dirname(dir), 'secret.txt'), 'no');
  return dir;
}

describe('concertina:// protocol', () => {
  const dir = consoleDir();
  it('serves the console with the window CSP and the right types', async () => {
    const page = serveAppRequest(`${APP_ORIGIN}/index.html`, dir);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(WINDOW_CSP);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('id="app"');
    const script = serveAppRequest(`${APP_ORIGIN}/assets/app.js`, dir);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(serveAppRequest(`${APP_ORIGIN}/`, dir).status).toBe(200);
  });

  it('answers nothing outside the console folder or from another origin', () => {
    expect(serveAppRequest(`${APP_ORIGIN}/..%2Fsecret.txt`, dir).status).toBe(404);
    expect(serveAppRequest(`${APP_ORIGIN}/%2e%2e/secret.txt`, dir).status).toBe(404);
    expect(serveAppRequest(`${APP_SCHEME}://other/index.html`, dir).status).toBe(404);
    expect(serveAppRequest(`${APP_ORIGIN}/missing.js`, dir).status).toBe(404);
    expect(serveAppRequest(`${APP_ORIGIN}/%E0%A4%A`, dir).status).toBe(404);
  });
});

describe('IPC streams', () => {
  it('gives a reloaded window one stream, not two, and ends it on unsubscribe', () => {
    const host = new Host({ workload: 'none' });
    const handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
    registerIpc({ handle: (c, h) => handlers.set(c, h), on: (c, l) => handlers.set(c, l) }, host.dispatch, (send) =>
      host.stream(send, 60_000),
    );
    const received: unknown[] = [];
    const event: IpcEventLike = {
      senderFrame: { url: `${APP_ORIGIN}/index.html` },
      sender: { id: 7, send: (_c, m) => received.push(m), once: () => undefined },
    };
    handlers.get(SUBSCRIBE_CHANNEL)!(event);
    handlers.get(SUBSCRIBE_CHANNEL)!(event); // the page reloaded
    received.length = 0;
    handlers.get(INVOKE_CHANNEL)!(event, 'jobs.submit', {
      id: 'once',
      kind: 'rigid',
      components: [{ processors: 1, program: 'x' }],
    });
    const submitted = received.filter((m) => (m as { event?: { type: string } }).event?.type === 'job.submitted');
    expect(submitted).toHaveLength(1);
    handlers.get(UNSUBSCRIBE_CHANNEL)!(event);
    received.length = 0;
    handlers.get(INVOKE_CHANNEL)!(event, 'jobs.submit', {
      id: 'after',
      kind: 'rigid',
      components: [{ processors: 1, program: 'x' }],
    });
    expect(received).toEqual([]);
  });
});

function stubElectron() {
  const calls: string[] = [];
  const appListeners = new Map<string, (...args: unknown[]) => void>();
  let protocolHandler: ((r: { url: string }) => Response | Promise<Response>) | undefined;
  const ipc = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
  const windows: Array<{ options: unknown; url?: string; shown: boolean }> = [];
  const electron: ElectronMain = {
    app: {
      whenReady: async () => undefined,
      getPath: () => mkdtempSync(path.join(tmpdir(), 'concertina-userdata-')),
      on: ((name: string, listener: (...args: unknown[]) => void) =>
        void appListeners.set(name, listener)) as ElectronMain['app']['on'],
      quit: () => calls.push('quit'),
      exit: (code) => calls.push(`exit:${code}`),
    },
    dialog: { showErrorBox: (title, content) => calls.push(`error-box:${title}: ${content}`) },
    protocol: {
      registerSchemesAsPrivileged: (schemes) => calls.push(`privileged:${schemes.map((s) => s.scheme).join(',')}`),
      handle: (scheme, handler) => {
        calls.push(`handle:${scheme}`);
        protocolHandler = handler;
      },
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: () => calls.push('permissions'),
        setPermissionCheckHandler: () => undefined,
      },
    },
    ipcMain: { handle: (c, h) => ipc.set(c, h), on: (c, l) => ipc.set(c, l) },
    BrowserWindow: class {
      private readonly record: { options: unknown; url?: string; shown: boolean };
      private ready: (() => void) | undefined;
      constructor(options: unknown) {
        this.record = { options, shown: false };
        windows.push(this.record);
      }
      async loadURL(url: string) {
        this.record.url = url;
        this.ready?.();
      }
      once(_event: 'ready-to-show', listener: () => void) {
        this.ready = listener;
      }
      show() {
        this.record.shown = true;
      }
    },
  };
  return { electron, calls, appListeners, ipc, windows, protocol: () => protocolHandler! };
}

describe('Electron main process', () => {
  it('registers the scheme, serves the console, answers IPC, opens one hardened window and stops cleanly', async () => {
    const stub = stubElectron();
    registerScheme(stub.electron);
    const dir = consoleDir();
    let store: ReturnType<typeof openStore> | undefined;
    const desktop = await startDesktop(
      stub.electron,
      { consoleDir: dir, preload: '/app/preload.cjs' },
      (file) => (store = openStore(file)),
    );
    expect(stub.calls).toEqual(['privileged:concertina', 'permissions', 'handle:concertina']);
    expect(stub.windows).toHaveLength(1);
    expect(stub.windows[0]).toMatchObject({
      url: `${APP_ORIGIN}/index.html`,
      shown: true,
      options: {
        webPreferences: { preload: '/app/preload.cjs', sandbox: true, contextIsolation: true, nodeIntegration: false },
      },
    });
    expect(stub.appListeners.has('web-contents-created')).toBe(true);
    const page = await stub.protocol()({ url: `${APP_ORIGIN}/index.html` });
    expect(page.headers.get('content-security-policy')).toBe(WINDOW_CSP);
    const event: IpcEventLike = {
      senderFrame: { url: `${APP_ORIGIN}/index.html` },
      sender: { id: 1, send: () => undefined, once: () => undefined },
    };
    expect(stub.ipc.get(INVOKE_CHANNEL)!(event, 'settings.get', {})).toMatchObject({
      ok: true,
      value: { approach: 'pra' },
    });
    expect(store).toBeDefined();
    stub.appListeners.get('before-quit')!();
    expect(() => store!.clock()).toThrow(); // closed, after the host's last flush
    expect(desktop.host.call('grid.snapshot', {}).ok).toBe(true);
  });

  it('says why in a dialog and exits 2 when its store cannot be opened, leaving the file as it is', async () => {
    const stub = stubElectron();
    let file = '';
    const bytes = Buffer.from('not a database at all, but the user may need it\n'.repeat(200));
    await expect(
      startDesktop(stub.electron, { consoleDir: consoleDir(), preload: '/app/preload.cjs' }, (f) => {
        writeFileSync((file = f), bytes);
        return openStore(f);
      }),
    ).rejects.toThrow();
    expect(stub.calls.filter((c) => c.startsWith('error-box:') || c.startsWith('exit:'))).toEqual([
      expect.stringMatching(
        /^error-box:Concertina cannot open its run: .*run\.db: is not an SQLite database\.\n\nThe file was left as it is/,
      ),
      'exit:2',
    ]);
    expect(stub.windows).toHaveLength(0);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it("keeps clusters' secrets encrypted by safeStorage: only its ciphertext reaches the store file", async () => {
    const stub = stubElectron();
    const encrypted: string[] = [];
    // A reversible stand-in for the OS keychain (the real one is the OS's): what it returns is what gets stored.
    stub.electron.safeStorage = {
      isEncryptionAvailable: () => true,
      encryptString: (plain) => {
        encrypted.push(plain);
        return Buffer.from(Buffer.from(plain, 'utf8').map((b) => b ^ 0x5a));
      },
      decryptString: (buffer) => Buffer.from(buffer.map((b) => b ^ 0x5a)).toString('utf8'),
    };
    let file = '';
    const desktop = await startDesktop(stub.electron, { consoleDir: consoleDir(), preload: '/app/preload.cjs' }, (f) =>
      openStore((file = f)),
    );
    const event: IpcEventLike = {
      senderFrame: { url: `${APP_ORIGIN}/index.html` },
      sender: { id: 1, send: () => undefined, once: () => undefined },
    };
    const invoke = (method: string, payload: unknown) => stub.ipc.get(INVOKE_CHANNEL)!(event, method, payload);
    expect(
      invoke('clusters.save', { name: 'lab1', login: { via: 'ssh', host: 'login.example.org' }, system: 'slurm' }),
    ).toMatchObject({ ok: true });
    expect(invoke('clusters.setSecret', { cluster: 'lab1', kind: 'password', value: 'hunter2-plain' })).toEqual({
      ok: true,
      value: { cluster: 'lab1', kind: 'password', persistent: true },
    });
    expect(encrypted).toEqual(['hunter2-plain']);
    const source = desktop.host.clusters.secrets.sourceFor({
      name: 'lab1',
      login: { via: 'ssh', host: 'login.example.org', keepaliveS: 20 },
      system: 'slurm',
      workRoot: '.c',
      env: {},
      threshold: 1,
      pollIntervalS: 10,
      batch: {},
    });
    expect(
      await source.get({
        kind: 'password',
        user: 'u',
        host: 'login.example.org',
        port: 22,
        destination: true,
        connection: 'lab1',
      }),
    ).toBe('hunter2-plain');
    stub.appListeners.get('before-quit')!();
    for (const name of readdirSync(path.dirname(file)))
      expect(readFileSync(path.join(path.dirname(file), name)).includes(Buffer.from('hunter2-plain')), name).toBe(
        false,
      );
  });
});

describe('preload', () => {
  it('exposes only invoke and subscribe, on the channels the main process listens to', () => {
    const source = ts.transpileModule(readFileSync(path.join(repoRoot, 'electron/desktop/preload.cts'), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const exposed = new Map<string, Record<string, (...args: unknown[]) => unknown>>();
    const sent: unknown[][] = [];
    const listeners = new Map<string, (...args: unknown[]) => void>();
    const fakeElectron = {
      contextBridge: {
        exposeInMainWorld: (key: string, api: Record<string, (...args: unknown[]) => unknown>) => exposed.set(key, api),
      },
      ipcRenderer: {
        invoke: async (...args: unknown[]) => args,
        send: (...args: unknown[]) => sent.push(args),
        on: (c: string, l: (...args: unknown[]) => void) => listeners.set(c, l),
        removeListener: (c: string) => listeners.delete(c),
      },
    };
    const required: string[] = [];
    const module = { exports: {} };
    vm.runInNewContext(source, {
      require: (name: string) => {
        required.push(name);
        return fakeElectron;
      },
      module,
      exports: module.exports,
    });
    expect(required).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual(['concertina']);
    const api = exposed.get('concertina')!;
    expect(Object.keys(api).sort()).toEqual(['invoke', 'subscribe']);
    return (api.invoke!('grid.snapshot', {}) as Promise<unknown[]>).then((args) => {
      expect(args).toEqual([INVOKE_CHANNEL, 'grid.snapshot', {}]);
      const got: unknown[] = [];
      const stop = api.subscribe!((m: unknown) => got.push(m)) as () => void;
      expect(sent).toEqual([[SUBSCRIBE_CHANNEL]]);
      listeners.get(EVENT_CHANNEL)!({}, { topic: 'snapshot' });
      expect(got).toEqual([{ topic: 'snapshot' }]);
      stop();
      expect(sent).toEqual([[SUBSCRIBE_CHANNEL], [UNSUBSCRIBE_CHANNEL]]);
      expect(listeners.has(EVENT_CHANNEL)).toBe(false);
    });
  });
});
