// End to end in Chromium: Settings → Clusters adds a cluster on this machine (a `local` login, so no sshd is
// needed), tests its connection and shows what was found; a bad value is refused at its field; adding and editing
// stay apart (a rename is asked first, a name taken is refused, nothing is replaced unasked); then a live run on it
// (the real LiveWorld) shows the cluster's card with its connection, its speed fixed with the reason, a job's
// Cancel asked first, and switching the live run off asked first.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { artifacts, browserReady, openSession, type Session } from './browser.js';
import type { Page } from 'playwright-core';
import type { Host } from '../../electron/host/host.js';

const ready = browserReady();
let session: Session;
let work: string;

/** The configured clusters as `name:slots:workRoot's last folder`, by name. */
function listed(host: Host): string[] {
  const r = host.call('clusters.list', {});
  return r.ok
    ? r.value.clusters.map((c) => `${c.config.name}:${c.config.slots}:${path.basename(c.config.workRoot)}`)
    : [];
}

/**
 * Waits until a pop-confirm is fully open: its opening transition over, so a click lands on the button it was aimed
 * at. Before that the dialog is already visible (to Playwright, even at opacity 0) and can still move.
 */
async function opened(page: Page, testId: string, text: string): Promise<void> {
  await page.getByTestId(testId).filter({ hasText: text }).waitFor();
  await expect
    .poll(
      () =>
        page.getByTestId(testId).evaluate((el) => {
          // The page's DOM, typed here by what is used (the tests compile without the DOM library).
          type Node = { closest(selector: string): Node | null; getAnimations(o: { subtree: boolean }): unknown[] };
          const window = globalThis as unknown as { getComputedStyle(node: Node): { opacity: string } };
          const dialog = (el as unknown as Node).closest('.n-popover');
          return (
            dialog !== null &&
            window.getComputedStyle(dialog).opacity === '1' &&
            dialog.getAnimations({ subtree: true }).length === 0
          );
        }),
      { timeout: 30_000, interval: 50 },
    )
    .toBe(true);
}

function stateOf(host: Host, jobId: string): string | undefined {
  const r = host.call('jobs.list', {});
  return r.ok ? r.value.jobs.find((j) => j.id === jobId)?.state : undefined;
}

describe.skipIf(!ready)('Settings → Clusters in Chromium', () => {
  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'concertina-e2e-clusters-'));
    session = await openSession({
      workload: 'none',
      clusters: { knownHosts: new KnownHosts(path.join(work, 'known_hosts'), []) },
    });
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
    expect(
      saved.ok && saved.value.clusters.map((c) => [c.config.name, c.config.login.via, c.config.system, c.config.slots]),
    ).toEqual([['workstation', 'local', 'local', 2]]);

    await page.getByTestId('cluster-test').click();
    await page.getByTestId('test-system').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('test-system').textContent()).toBe('local');
    expect(await page.getByTestId('cluster-test-result').textContent()).toMatch(/2 processors, 2 idle, 0 background/);
    await page.getByTestId('cluster-test-result').scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(artifacts, 'clusters.png') });
  });

  it('keeps adding and editing apart: a rename is asked first, a name taken is refused, nothing is replaced unasked', async () => {
    const { page, host } = session;
    const form = page.getByTestId('cluster-form-mode');
    // After Add cluster the form edits the cluster added, and says so.
    expect(await form.textContent()).toBe('Editing workstation');
    expect(await page.getByTestId('cluster-save').textContent()).toBe('Save changes');

    // A new name and work root typed over it, then Save changes: a rename, asked first; kept editing, nothing changed.
    await page.getByTestId('cluster-name').fill('other');
    await page.getByLabel('work root').fill(path.join(work, 'other'));
    await page.getByTestId('cluster-save').click();
    await page.getByTestId('cluster-rename-confirm').filter({ hasText: 'Rename workstation to other?' }).waitFor();
    await page.getByRole('button', { name: 'Keep editing' }).click();
    await page.getByTestId('cluster-rename-confirm').waitFor({ state: 'hidden' });
    expect(listed(host)).toEqual(['workstation:2:root']);

    // Add as a new cluster: the one edited stays.
    await page.getByTestId('cluster-add-new').click();
    await page.getByTestId('cluster-message').filter({ hasText: 'Saved other.' }).waitFor();
    expect(listed(host)).toEqual(['other:2:other', 'workstation:2:root']);
    expect(await form.textContent()).toBe('Editing other');

    // A new cluster under a name taken: refused at the name, the cluster of that name as it was.
    await page.getByTestId('cluster-new').click();
    expect(await form.textContent()).toBe('New cluster');
    await page.getByTestId('cluster-name').fill('workstation');
    await page.getByTestId('cluster-via-local').click();
    await page.getByTestId('cluster-system').click();
    await page.getByText('local (plain processes)', { exact: true }).click();
    await page.getByTestId('cluster-slots').fill('1');
    await page.getByTestId('cluster-save').click();
    await page.getByTestId('cluster-error-name').filter({ hasText: 'is configured already' }).waitFor();
    expect(listed(host)).toEqual(['other:2:other', 'workstation:2:root']);

    // Edit other, rename it and say so: renamed, and the other cluster untouched.
    await page.getByTestId('cluster-edit-other').click();
    expect(await form.textContent()).toBe('Editing other');
    await page.getByTestId('cluster-name').fill('renamed');
    await page.getByTestId('cluster-save').click();
    await page.getByTestId('cluster-rename-confirm').filter({ hasText: 'Rename other to renamed?' }).waitFor();
    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByTestId('cluster-message').filter({ hasText: 'Renamed other to renamed.' }).waitFor();
    expect(listed(host)).toEqual(['renamed:2:other', 'workstation:2:root']);

    // The threshold says it is a share; Grid Engine's form suggests its own options, not Slurm's.
    await page.getByTestId('clusters-table').getByText('100 %').first().waitFor();
    expect(await page.getByLabel('threshold, a share of the processors from 0 to 1').count()).toBe(1);
    await page.getByTestId('cluster-new').click();
    await page.getByTestId('cluster-system').click();
    await page.getByText('Grid Engine', { exact: true }).click();
    const options = page.getByLabel('more submit options');
    expect(await options.getAttribute('placeholder')).not.toContain('--qos');
    expect(await options.getAttribute('placeholder')).toContain('h_rt');
    expect(await page.getByLabel('environment', { exact: true }).getAttribute('placeholder')).toMatch(/^SGE_ROOT=/);

    // Removed (asked first), for the live run to be on one cluster.
    await page.getByTestId('cluster-remove-renamed').click();
    // This confirmation, not an earlier one still leaving (its close animation keeps it in the page a moment).
    const confirm = page.locator('.n-popconfirm', { hasText: 'Remove renamed?' });
    await confirm.getByRole('button', { name: 'Remove', exact: true }).click();
    // The confirmation closes once answered; the host's list follows the console's call (slow on a loaded machine).
    await confirm.waitFor({ state: 'hidden' });
    await page.getByTestId('clusters-table').getByText('renamed').waitFor({ state: 'detached' });
    expect(listed(host)).toEqual(['workstation:2:root']);
    await page.getByTestId('cluster-edit-workstation').click();
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
    await expect
      .poll(() => card.locator('[data-field="connection"]').textContent(), { timeout: 20_000, interval: 200 })
      .toBe('connected');
    expect(await card.locator('[data-field="processors"]').textContent()).toBe('2');
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(artifacts, 'clusters-live-grid.png') });
  });

  it("in the live run the speed buttons are disabled with the host's reason; a cancel, and switching the run off, are asked first", async () => {
    const { page, host } = session;
    await page.getByTestId('speed-fixed').filter({ hasText: 'a live run follows real time' }).waitFor();
    for (const s of ['pause', '1x', '10x', '100x', 'max'])
      expect(await page.getByTestId(`speed-${s}`).isDisabled()).toBe(true);
    await page.screenshot({
      path: path.join(artifacts, 'clusters-live-speed.png'),
      clip: { x: 0, y: 0, width: 1280, height: 120 },
    });

    expect(
      host.call('jobs.submit', {
        id: 'long',
        kind: 'rigid',
        components: [{ processors: 1, program: '/bin/sh', args: ['-c', 'sleep 120'] }],
      }).ok,
    ).toBe(true);
    await expect.poll(() => stateOf(host, 'long'), { timeout: 30_000, interval: 100 }).toBe('running');
    await page.getByTestId('tab-queue').click();
    await page.getByTestId('job-link-long').click();
    await page.getByTestId('job-drawer').waitFor();
    await page.getByTestId('job-drawer').getByText('rigid · running').waitFor();

    // Cancel asks; kept, the job runs on.
    await page.getByTestId('cancel-job').click();
    await page.getByTestId('cancel-confirm').filter({ hasText: 'Cancel long? It is stopped on workstation' }).waitFor();
    await page.getByRole('button', { name: 'Keep it' }).click();
    await page.getByTestId('cancel-confirm').waitFor({ state: 'hidden' });
    expect(stateOf(host, 'long')).toBe('running');

    await page.getByTestId('cancel-job').click();
    await page.getByRole('button', { name: 'Cancel the job' }).click();
    await expect.poll(() => stateOf(host, 'long'), { timeout: 30_000, interval: 100 }).toBe('cancelled');
    await page.getByTestId('job-drawer').getByText('rigid · cancelled').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('job-drawer').waitFor({ state: 'hidden' });

    // Switching the live run off is asked too: kept, the run stays live; said so, a simulated run replaces it.
    const mode = () => {
      const r = host.call('grid.snapshot', {});
      return r.ok ? r.value.mode : undefined;
    };
    // Settings loaded (the settings above the switch and the clusters below it), so the page no longer shifts.
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('hint-queue').waitFor();
    await page.getByTestId('clusters-table').getByText('workstation').waitFor();
    await page.getByTestId('live-switch').click();
    await opened(page, 'live-stop-confirm', 'Switch the live run off?');
    await page.getByRole('button', { name: 'Keep the live run' }).click();
    await page.getByTestId('live-stop-confirm').waitFor({ state: 'hidden' });
    expect(mode()).toBe('live');
    await page.getByTestId('live-switch').click();
    await opened(page, 'live-stop-confirm', 'Switch the live run off?');
    await page.getByRole('button', { name: 'Switch it off' }).click();
    await expect.poll(mode, { timeout: 30_000, interval: 100 }).toBe('sim');
    await page.getByTestId('speed-fixed').waitFor({ state: 'detached' });
    expect(await page.getByTestId('speed-10x').isDisabled()).toBe(false);
  });
});
