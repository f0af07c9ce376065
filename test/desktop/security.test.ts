// The Electron window's security settings and IPC handlers, with Electron stubbed at the boundary.
import { describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import {
  APP_ORIGIN,
  EVENT_CHANNEL,
  INVOKE_CHANNEL,
  SUBSCRIBE_CHANNEL,
  WINDOW_CSP,
  denyPermissions,
  hardenContents,
  registerIpc,
  windowOptions,
  type IpcEventLike,
} from '../../electron/desktop/security.js';

describe('Electron window', () => {
  it('isolates and sandboxes the renderer, without Node', () => {
    const { webPreferences } = windowOptions('/app/preload.js');
    expect(webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    });
    expect(WINDOW_CSP).toContain("script-src 'self'");
    expect(WINDOW_CSP).toContain("connect-src 'self'");
    expect(WINDOW_CSP).not.toContain('ws:');
  });

  it('denies new windows, foreign navigation, webviews and permissions', () => {
    const listeners = new Map<string, (e: { preventDefault(): void }, url?: string) => void>();
    let openHandler: ((d: { url: string }) => { action: string }) | undefined;
    hardenContents({ setWindowOpenHandler: (h) => (openHandler = h), on: (name, l) => listeners.set(name, l) });
    expect(openHandler!({ url: 'https://example.org' })).toEqual({ action: 'deny' });
    const prevented = (name: string, url?: string) => {
      let p = false;
      listeners.get(name)!({ preventDefault: () => (p = true) }, url);
      return p;
    };
    expect(prevented('will-navigate', 'https://example.org/')).toBe(true);
    expect(prevented('will-navigate', `${APP_ORIGIN}/index.html`)).toBe(false);
    expect(prevented('will-redirect', 'file:///etc/passwd')).toBe(true);
    expect(prevented('will-attach-webview')).toBe(true);

    const answers: boolean[] = [];
    let check: (() => boolean) | undefined;
    denyPermissions({
      setPermissionRequestHandler: (h) => h(null, 'media', (g) => answers.push(g)),
      setPermissionCheckHandler: (h) => (check = h),
    });
    expect(answers).toEqual([false]);
    expect(check!()).toBe(false);
  });

  it('answers IPC only from the console, through the same dispatcher as the web mode', () => {
    const host = new Host({ workload: 'none' });
    const handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
    registerIpc({ handle: (c, h) => handlers.set(c, h), on: (c, l) => handlers.set(c, l) }, host.dispatch, (send) =>
      host.stream(send, 60_000),
    );
    const sent: Array<[string, unknown]> = [];
    const sender = { id: 1, send: (c: string, p: unknown) => sent.push([c, p]), once: () => undefined };
    const fromApp: IpcEventLike = { senderFrame: { url: `${APP_ORIGIN}/index.html` }, sender };
    const leaked: unknown[] = [];
    const fromElsewhere: IpcEventLike = {
      senderFrame: { url: 'https://evil.example/' },
      sender: { id: 2, send: (_c, p) => leaked.push(p), once: () => undefined },
    };
    const invoke = handlers.get(INVOKE_CHANNEL)!;
    expect(invoke(fromElsewhere, 'grid.snapshot', {})).toEqual({
      ok: false,
      errors: [{ path: '', message: 'refused: the caller is not the Concertina console' }],
    });
    expect(
      invoke(fromApp, 'jobs.submit', { kind: 'rigid', components: [{ processors: 0, program: 'x' }] }),
    ).toMatchObject({ ok: false, errors: [{ path: 'components[0].processors' }] });
    handlers.get(SUBSCRIBE_CHANNEL)!(fromApp);
    handlers.get(SUBSCRIBE_CHANNEL)!(fromElsewhere);
    expect(
      invoke(fromApp, 'jobs.submit', { id: 'ipc-1', kind: 'rigid', components: [{ processors: 2, program: 'x' }] }),
    ).toEqual({ ok: true, value: { jobId: 'ipc-1' } });
    expect(
      sent.some(
        ([c, m]) =>
          c === EVENT_CHANNEL && (m as { topic: string; event?: { type: string } }).event?.type === 'job.submitted',
      ),
    ).toBe(true);
    expect(sent.some(([c, m]) => c === EVENT_CHANNEL && (m as { topic: string }).topic === 'snapshot')).toBe(true);
    expect(leaked).toEqual([]); // a foreign frame gets no events
  });
});
