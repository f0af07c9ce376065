// End to end in Chromium on the console's DAS-3 (Leiden has 16 interactive worker nodes): an interactive job submitted
// from the Submit form (T, σ, D, A; a deadline past the period refused at its field) is admitted, Leiden's Grid card
// shows the worker nodes its tasks hold with their utilization and slack, a job the nodes cannot take any more is
// refused under the fields with the host's reason, and a deadline miss an application reports is in Activity.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifacts, browserReady, sharedSession } from './browser.js';

const ready = browserReady();

describe.skipIf(!ready)('interactive jobs in Chromium', () => {
  const session = sharedSession({ workload: 'none', speed: 'pause' });

  it('submits an interactive job, shows its nodes on the Grid card, refuses one that does not fit, and lists a miss in Activity', async () => {
    const { page, server, host } = session();
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    await page.getByTestId('tab-submit').click();
    await page.getByTestId('submit-view').waitFor();
    await page.getByTestId('kind-interactive').click();
    await page.getByTestId('field-periodMs').waitFor();
    expect(await page.getByTestId('field-min').count()).toBe(0);
    // D > T is refused at the deadline, before anything is sent.
    const deadline = page.getByTestId('field-deadlineMs').locator('input');
    await deadline.fill('1500');
    await deadline.blur();
    await expect
      .poll(() => page.getByTestId('error-deadlineMs').textContent())
      .toBe('must not exceed the period (D ≤ T)');
    expect(await page.getByTestId('submit-button').isDisabled()).toBe(true);
    await deadline.fill('500');
    await deadline.blur();
    await page.getByTestId('error-deadlineMs').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('submit-button').isDisabled()).toBe(false);
    await page.screenshot({ path: path.join(artifacts, 'submit-interactive.png') });
    await page.getByTestId('submit-button').click();
    const jobId = (await page.getByTestId('submitted-id').textContent())!.trim();
    expect(host.world.scheduler.job(jobId)!.spec).toMatchObject({
      kind: 'interactive',
      components: [{ cluster: 'leiden' }],
      interactive: { periodMs: 1000, dataUnits: 20, deadlineMs: 500 },
    });

    // Four more fill 15 of the 16 nodes (3 tasks each, one per node); the next is refused under the fields.
    for (let i = 0; i < 4; i++)
      expect(
        host.call('jobs.submit', {
          kind: 'interactive',
          components: [{ program: 'p' }],
          interactive: { periodMs: 1000, dataUnits: 20, deadlineMs: 500 },
        }).ok,
      ).toBe(true);
    await page.getByTestId('field-dataUnits').locator('input').fill('21');
    await page.getByTestId('field-dataUnits').locator('input').blur();
    await expect.poll(() => page.getByTestId('submit-button').isDisabled()).toBe(false);
    await page.getByTestId('submit-button').click();
    await expect
      .poll(() => page.getByTestId('error-interactive').textContent())
      .toMatch(/^refused: task 2 of 3 .* fits on no node/);

    await page.getByTestId('tab-grid').click();
    const card = page.getByTestId('cluster-card-leiden');
    await expect.poll(() => card.locator('[data-field="interactiveJobs"]').textContent()).toBe('5');
    const busy = card.locator('[data-testid^="node-leiden-"]', { hasText: '45 %' });
    await expect.poll(() => busy.count()).toBe(15);
    expect(await busy.first().locator('[data-field="slack"]').textContent()).toBe('S 54 ms');
    expect(await page.getByTestId('cluster-card-vu').locator('[data-field="interactive"]').count()).toBe(0);
    await card.screenshot({ path: path.join(artifacts, 'grid-interactive-nodes.png') });

    // A deadline miss reported by the job's application (as the live runner delivers it).
    host.world.scheduler.receive(
      { type: 'iteration', jobId, task: 0, executedMs: 510, missed: true },
      host.world.engine.now,
    );
    await expect.poll(() => card.locator('[data-field="misses"]').textContent()).toBe('1 deadline misses');
    await page.getByTestId('tab-activity').click();
    await expect.poll(() => page.getByTestId('activity-misses').textContent()).toContain('1 deadline miss');
    await expect
      .poll(() => page.getByTestId('activity-list').textContent())
      .toContain('deadline missed: missed its deadline of 500 ms');
    await page.screenshot({ path: path.join(artifacts, 'activity-interactive-miss.png') });
  }, 240_000);
});
