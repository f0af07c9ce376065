// What the end-to-end tests share: where the built console and Debian's Chromium are, whether they can run (and
// why not, printed; in CI a missing browser is a failure), and a host in web mode with a browser page on it.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { Host, type HostOptions } from '../../electron/host/host.js';
import { startWebServer, type WebServer } from '../../electron/web/server.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = '/usr/bin/chromium';
export const consoleDir = path.join(repoRoot, 'dist', 'renderer');
export const artifacts = path.join(repoRoot, 'test-artifacts', 'e2e');

/** Whether the browser tests can run here; prints why not (and throws in CI, where they must run). */
export function browserReady(): boolean {
  if (existsSync(CHROMIUM) && existsSync(path.join(consoleDir, 'index.html'))) return true;
  const why = !existsSync(CHROMIUM)
    ? `${CHROMIUM} is not installed (scripts/install-test-deps.sh installs it as root)`
    : `the console is not built (${consoleDir})`;
  if (process.env.CI) throw new Error(`end-to-end tests cannot run: ${why}`);
  console.warn(`Skipping the end-to-end tests: ${why}.`);
  return false;
}

export interface Session {
  host: Host;
  server: WebServer;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/** Headless Chromium with a 1280×800 page (downloads accepted); the artifacts folder exists. */
export async function openPage(): Promise<{ browser: Browser; page: Page }> {
  mkdirSync(artifacts, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  return { browser, page };
}

/** A ticking host serving the built console, and a page on it (openPage). */
export async function openSession(options: HostOptions = {}): Promise<Session> {
  const host = new Host(options);
  host.start(50);
  const server = await startWebServer(host, { staticDir: consoleDir, snapshotIntervalMs: 250 });
  const { browser, page } = await openPage();
  return {
    host,
    server,
    browser,
    page,
    async close() {
      await browser.close();
      host.stop();
      await server.close();
    },
  };
}

/**
 * One session for a describe block's tests, opened before them and closed after. Browser actions wait up to 60 s:
 * two cores shared with other work make a slow machine, not a failure.
 */
export function sharedSession(options: HostOptions): () => Session {
  let session: Session | undefined;
  beforeAll(async () => {
    session = await openSession(options);
    session.page.setDefaultTimeout(60_000);
  }, 120_000);
  afterAll(async () => {
    await session?.close();
  }, 60_000);
  return () => session!;
}
