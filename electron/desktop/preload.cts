// The window's preload (sandboxed, so CommonJS and only `electron` may be required): exposes exactly two
// functions to the console page. The channel names are those of security.ts (a test keeps them equal).

/** The parts of Electron's renderer-side modules used here (Electron's own types are not installed everywhere). */
interface ElectronRenderer {
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  ipcRenderer: {
    invoke(channel: string, ...args: unknown[]): Promise<unknown>;
    send(channel: string, ...args: unknown[]): void;
    on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): void;
    removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): void;
  };
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload can only require('electron')
const { contextBridge, ipcRenderer } = require('electron') as ElectronRenderer;

const INVOKE_CHANNEL = 'concertina:invoke';
const SUBSCRIBE_CHANNEL = 'concertina:subscribe';
const UNSUBSCRIBE_CHANNEL = 'concertina:unsubscribe';
const EVENT_CHANNEL = 'concertina:event';

contextBridge.exposeInMainWorld('concertina', {
  invoke: (method: string, payload: unknown): Promise<unknown> =>
    ipcRenderer.invoke(INVOKE_CHANNEL, String(method), payload),
  subscribe: (listener: (message: unknown) => void): (() => void) => {
    const forward = (_event: unknown, message: unknown) => listener(message);
    ipcRenderer.on(EVENT_CHANNEL, forward);
    ipcRenderer.send(SUBSCRIBE_CHANNEL);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, forward);
      ipcRenderer.send(UNSUBSCRIBE_CHANNEL);
    };
  },
});
