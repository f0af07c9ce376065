// The Electron window's security, kept apart from Electron itself so it is unit-tested with Electron stubbed:
// isolated, sandboxed renderer without Node, a strict CSP, every IPC sender checked, and no new windows,
// navigation, webviews or permissions.
import { CONTENT_SECURITY_POLICY } from '../web/server.js';
import type { Dispatch } from '../api/dispatcher.js';
import type { StreamMessage } from '../api/contract.js';

/** The custom protocol the console is served from in the window. */
export const APP_SCHEME = 'concertina';
export const APP_ORIGIN = `${APP_SCHEME}://app`;
export const INVOKE_CHANNEL = 'concertina:invoke';
export const SUBSCRIBE_CHANNEL = 'concertina:subscribe';
export const EVENT_CHANNEL = 'concertina:event';
export const UNSUBSCRIBE_CHANNEL = 'concertina:unsubscribe';

export function windowOptions(preload: string, icon?: string) {
  return {
    ...(icon ? { icon } : {}),
    width: 1440,
    height: 900,
    minWidth: 1280,
    minHeight: 800,
    show: false,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  } as const;
}

/** The CSP of the window: the web mode's, without WebSocket sources (the window speaks IPC). */
export const WINDOW_CSP = CONTENT_SECURITY_POLICY.replace(/connect-src [^;]*/, "connect-src 'self'");

/** The small parts of Electron's objects this file touches (so tests pass plain stubs). */
export interface ContentsLike {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
  on(
    event: 'will-navigate' | 'will-redirect' | 'will-attach-webview',
    listener: (event: { preventDefault(): void }, url?: string) => void,
  ): void;
}
export interface SessionLike {
  setPermissionRequestHandler(
    handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: () => boolean): void;
}
export interface IpcEventLike {
  senderFrame: { url: string } | null;
  sender: {
    readonly id: number;
    send(channel: string, payload: unknown): void;
    once(event: 'destroyed', listener: () => void): void;
  };
}
export interface IpcMainLike {
  handle(channel: string, handler: (event: IpcEventLike, ...args: unknown[]) => unknown): void;
  on(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => void): void;
}

export function isAppUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return new URL(url).origin === APP_ORIGIN || url.startsWith(`${APP_ORIGIN}/`);
  } catch {
    return false;
  }
}

export function hardenContents(contents: ContentsLike): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

export function denyPermissions(session: SessionLike): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/** The API over IPC: the same dispatcher and event stream as the web mode, answering only the app's own frames. */
export function registerIpc(
  ipcMain: IpcMainLike,
  dispatch: Dispatch,
  stream: (send: (message: StreamMessage) => void) => () => void,
): void {
  // One stream per window: a reloaded page subscribes again and replaces its previous stream.
  const streams = new Map<number, () => void>();
  const end = (senderId: number) => {
    streams.get(senderId)?.();
    streams.delete(senderId);
  };
  ipcMain.handle(INVOKE_CHANNEL, (event, method, payload) => {
    if (!isAppUrl(event.senderFrame?.url))
      return { ok: false, errors: [{ path: '', message: 'refused: the caller is not the Concertina console' }] };
    return dispatch(String(method), payload);
  });
  ipcMain.on(SUBSCRIBE_CHANNEL, (event) => {
    if (!isAppUrl(event.senderFrame?.url)) return;
    const { sender } = event;
    const known = streams.has(sender.id);
    end(sender.id);
    streams.set(
      sender.id,
      stream((message) => sender.send(EVENT_CHANNEL, message)),
    );
    if (!known) sender.once('destroyed', () => end(sender.id));
  });
  ipcMain.on(UNSUBSCRIBE_CHANNEL, (event) => end(event.sender.id));
}
