// End to end in Chromium: Settings → Clusters adds a cluster on this machine (a `local` login, so no sshd is
// needed), tests its connection and shows what was found; a bad value is refused at its field; then a live run on
// it (the real LiveWorld) shows the cluster's card with its connection.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { artifacts, browserReady, openSession, type Session } from './browser.js';

const ready = browserReady();
let session: Session;
let work: string;

describe.skipIf(!ready)('Settings → Clusters in Chromium', () => {
  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'concertina-e2e-clusters-'));
    session = await openSession({ workload: 'none', clusters: { knownHosts: new KnownHosts(path.join(work, 'known_hosts'), []) } });
  });

  afterAll(async () => {
    await session?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('adds a local cluster, tests it and shows the manager and processors found', async () => {
    const { page, server, host } = session;
    await page.goto(server.url);
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('clusters-section').waitFor();

    // A name the host refuses: the error is at the name field, and nothing is saved.
    await page.getByTestId('cluster-name').fill('no spaces here');
    await page.getByTestId('cluster-via-local').click();
    await page.getByTestId('cluster-save').click();
    await page.getByTestId('cluster-error-name').waitFor();
    expect(await page.getByTestId('cluster-error-name').textContent()).toMatch(/letters, digits/);
    const none = host.call('clusters.list', {});
    expect(none.ok && none.value.clusters).toEqual([]);

    await page.getByTestId('cluster-name').fill('workstation');
    await page.getByTestId('cluster-system').click();
    await page.getByText('local (plain processes)', { exact: true }).click();
    await page.getByTestId('cluster-slots').fill('2');
    await page.getByLabel('work root').fill(path.join(work, 'root'));
    await page.getByTestId('cluster-save').click();
    await page.getByTestId('cluster-message').filter({ hasText: 'Saved workstation.' }).waitFor();
    await page.getByTestId('clusters-table').getByText('workstation').waitFor();
    const saved = host.call('clusters.list', {});
    expect(saved.ok && saved.value.clusters.map((c) => [c.config.name, c.config.login.via, c.config.system, c.config.slots])).toEqual([['workstation', 'local', 'local', 2]]);

    await page.getByTestId('cluster-test').click();
    await page.getByTestId('test-system').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('test-system').textContent()).toBe('local');
    expect(await page.getByTestId('cluster-test-result').textContent()).toMatch(/2 processors, 2 idle, 0 background/);
    await page.getByTestId('cluster-test-result').scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(artifacts, 'clusters.png') });
  });

  it('switches to a live run on that cluster: its card shows the connection', async () => {
    const { page, host } = session;
    await page.getByTestId('live-switch').scrollIntoViewIfNeeded();
    await page.getByTestId('live-switch').click();
    await page.getByTestId('live-started').filter({ hasText: 'Live run on workstation.' }).waitFor({ timeout: 30_000 });
    const snapshot = host.call('grid.snapshot', {});
    expect(snapshot.ok && snapshot.value.mode).toBe('live');
    await page.getByTestId('tab-grid').click();
    const card = page.getByTestId('cluster-card-workstation');
    await card.waitFor();
    await expect.poll(() => card.locator('[data-field="connection"]').textContent(), { timeout: 20_000, interval: 200 }).toBe('connected');
    expect(await card.locator('[data-field="processors"]').textContent()).toBe('2');
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(artifacts, 'clusters-live-grid.png') });
  });
});
