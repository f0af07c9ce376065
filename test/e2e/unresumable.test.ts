// End to end with real `concertina serve` processes and Chromium: a run kept by `serve --store`, then corrupted (its
// clock put behind its stored events), cannot be resumed. The console says why above every view and refuses commands
// at their form; "Open read-only" shows the read-only notice; "Start a fresh run" starts a running grid and names the
// copy of the stored run, which exists.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { artifacts, browserReady, openPage, repoRoot } from './browser.js';

const ready = browserReady();

interface Served {
  url: string;
  call(method: string, payload?: unknown): Promise<{ ok: boolean; value?: unknown; errors?: unknown }>;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** `concertina serve --store FILE` on a free port, once it has printed its URL. */
async function serve(store: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, 'bin', 'concertina.js'), 'serve', '--store', store, '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => (running.delete(child), resolve(code))),
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /Open: (\S+)/.exec(stdout);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before it was ready: ${stderr}`)));
  });
  const { origin, searchParams } = new URL(url);
  const token = searchParams.get('token')!;
  return {
    url,
    async call(method, payload = {}) {
      const response = await fetch(`${origin}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      return (await response.json()) as { ok: boolean; value?: unknown };
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const snapshotOf = async (served: Served) =>
  (await served.call('grid.snapshot')).value as { time: number; run: { state: string; reason?: string } };

let work: string;
let store: string;
let browser: Browser;
let page: Page;
let second: Served | undefined;

/** A picture of the page from its top (the header and the banner). */
async function picture(name: string) {
  await page.getByTestId('speed-buttons').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(artifacts, name) });
}

describe.skipIf(!ready)('a stored run that cannot be resumed, in Chromium', () => {
  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'concertina-e2e-unresumable-'));
    store = path.join(work, 'run.db');
    // A run with a history: the grid lives a few virtual minutes, and a job is submitted.
    const first = await serve(store);
    expect((await first.call('sim.setSpeed', { speed: '100x' })).ok).toBe(true);
    await vi.waitFor(async () => expect((await snapshotOf(first)).time).toBeGreaterThan(120), {
      timeout: 30_000,
      interval: 100,
    });
    const submitted = await first.call('jobs.submit', {
      kind: 'rigid',
      components: [{ program: 'ft', processors: 4 }],
    });
    expect(submitted.ok).toBe(true);
    expect(await first.stop()).toBe(0);
    // Its clock put behind its stored events: the store fails its check at the next start.
    const db = new Database(store);
    db.prepare('UPDATE run SET clock = 1').run();
    db.close();
    second = await serve(store);
    ({ browser, page } = await openPage());
  });

  afterAll(async () => {
    await browser?.close();
    for (const child of running) child.kill('SIGTERM');
    await second?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('says why the run cannot be resumed, and a form shows the refused command', async () => {
    await page.goto(second!.url);
    const banner = page.locator('[data-testid="run-banner"][data-state="unresumable"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('The stored run cannot be resumed');
    expect(await page.getByTestId('run-banner-reason').textContent()).toMatch(/^the store failed its check: .*clock/);
    await page.getByTestId('tab-submit').click();
    await page.getByTestId('submit-button').click();
    await page.getByTestId('error-form').waitFor();
    expect(await page.getByTestId('error-form').textContent()).toContain('the stored run cannot be resumed');
    await picture('run-unresumable.png');
  });

  it('opens the stored run read-only', async () => {
    await page.getByTestId('run-open-read-only').click();
    await page.locator('[data-testid="run-banner"][data-state="read-only"]').waitFor();
    expect(await page.getByTestId('run-banner').textContent()).toContain('open read-only');
    expect(await page.getByTestId('run-banner-reason').textContent()).toMatch(/^the store failed its check/);
    expect(await page.getByTestId('run-open-read-only').count()).toBe(0);
    expect((await snapshotOf(second!)).run.state).toBe('read-only');
    await picture('run-read-only.png');
  });

  it('starts a fresh run that runs, and names the copy of the stored run, which exists', async () => {
    await page.getByTestId('run-fresh').click();
    expect(await page.getByTestId('run-fresh-confirmation').textContent()).toContain(
      'The stored run is kept as a copy',
    );
    await page.getByTestId('run-fresh-confirm').click();
    await page.getByTestId('run-backup-path').waitFor();
    const backup = (await page.getByTestId('run-backup-path').textContent())!.trim();
    expect(path.dirname(backup)).toBe(work);
    expect(existsSync(backup)).toBe(true);
    await page.getByTestId('run-banner').waitFor({ state: 'detached' });
    expect((await snapshotOf(second!)).run.state).toBe('running');
    await page.getByTestId('tab-grid').click();
    await page.getByTestId('cluster-card-vu').waitFor();
    const shown = await page.getByTestId('virtual-time').textContent();
    await expect
      .poll(() => page.getByTestId('virtual-time').textContent(), { timeout: 20_000, interval: 200 })
      .not.toBe(shown);
    await picture('run-fresh.png');
  });
});
