// End to end in Chromium (issue 12): a console page whose host goes away. While the host cannot be reached the page
// says the connection is lost and tries again; a host back at the same address with the same token (the stream only
// dropped) is reconnected by itself. A host restarted there has a new token: the page says the host was restarted
// and how to open it again, and its cluster cards stop claiming their clusters are connected.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { startWebServer, type WebServer } from '../../electron/web/server.js';
import { artifacts, browserReady, consoleDir, openPage } from './browser.js';

const ready = browserReady();

let browser: Browser;
let page: Page;
const hosts: Host[] = [];
const servers: WebServer[] = [];

async function serve(port: number, token?: string): Promise<{ host: Host; server: WebServer }> {
  const host = new Host({ workload: 'none' });
  host.start(50);
  hosts.push(host);
  return { host, server: await serveHost(host, port, token) };
}

async function serveHost(host: Host, port: number, token?: string): Promise<WebServer> {
  const server = await startWebServer(host, {
    staticDir: consoleDir,
    snapshotIntervalMs: 250,
    port,
    ...(token ? { token } : {}),
  });
  servers.push(server);
  return server;
}

const connection = () => page.getByTestId('host-connection').getAttribute('data-state');
const banner = () => page.getByTestId('connection-banner');

describe.skipIf(!ready)('a console page whose host goes away', () => {
  beforeAll(async () => {
    ({ browser, page } = await openPage());
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.close();
    for (const h of hosts) await h.stop();
  });

  it('reconnects by itself after a drop; after a restart says the host restarted and how to open it again', async () => {
    const first = await serve(0);
    const port = first.server.port;
    await page.goto(first.server.url);
    await expect.poll(connection, { timeout: 30_000, interval: 100 }).toBe('open');
    await expect(banner().count()).resolves.toBe(0);

    // The stream drops (the server goes away, the host stays): lost, tried again; back with the same token: reconnected.
    await first.server.close();
    await expect
      .poll(async () => (await banner().count()) > 0 && (await banner().textContent()), {
        timeout: 30_000,
        interval: 100,
      })
      .toContain('The connection to the host is lost');
    await page.screenshot({ path: path.join(artifacts, 'connection-lost.png') });
    await serveHost(first.host, port, first.server.token);
    await expect.poll(connection, { timeout: 60_000, interval: 100 }).toBe('open');
    await expect.poll(() => banner().count(), { timeout: 10_000, interval: 100 }).toBe(0);

    // The host restarts on the same address: a new host, a new token. (A live run's cluster cards stop saying
    // "connected" then: test/renderer/host-connection.test.ts; this simulated grid's cards have no link state.)
    await servers.at(-1)!.close();
    await first.host.stop();
    const second = await serve(port);
    await expect.poll(connection, { timeout: 60_000, interval: 100 }).toBe('refused');
    const text = await banner().textContent();
    expect(text).toContain('The host was restarted');
    expect(text).toContain('Open: http://127.0.0.1:…/?token=…');
    await expect(page.getByTestId('host-connection').textContent()).resolves.toBe('host restarted');
    await page.screenshot({ path: path.join(artifacts, 'host-restarted.png') });

    // Opened again at the address the new host printed: connected, nothing to say.
    await page.goto(second.server.url);
    await expect.poll(connection, { timeout: 30_000, interval: 100 }).toBe('open');
    await expect(banner().count()).resolves.toBe(0);
  }, 180_000);
});
