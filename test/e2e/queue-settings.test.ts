// End to end in Chromium on the simulated grid: choosing EASY backfilling in Settings (the policy's description shown
// under it) reaches the run's scheduler; the Submit form then marks the walltime required, says why, refuses a bad
// one at its field, and submits the walltime typed as h:mm:ss in seconds.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { queuePolicies } from '../../core/queue/registry.js';
import { artifacts, browserReady, sharedSession } from './browser.js';

const ready = browserReady();

describe.skipIf(!ready)('queue settings and the Submit form’s walltime in Chromium', () => {
  const session = sharedSession({ workload: 'none', speed: 'pause' });

  it('chooses easy in Settings, with its description, and the run takes it', async () => {
    const { page, server, host } = session();
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('settings-view').waitFor();
    await expect.poll(() => page.getByTestId('hint-queue').textContent()).toBe(queuePolicies.koala.description);
    await page.getByTestId('field-queue').click();
    await page.locator('.n-base-select-option', { hasText: /^easy$/ }).click();
    await expect.poll(() => page.getByTestId('hint-queue').textContent()).toBe(queuePolicies.easy.description);
    await page.getByTestId('save-settings').click();
    await page.getByTestId('settings-saved').waitFor();
    expect(host.world.scheduler.queuePolicyName).toBe('easy');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(artifacts, 'settings-queue-easy.png') });
  }, 180_000);

  it('the Submit form then requires a walltime, refuses a bad one at its field, and sends it in seconds', async () => {
    const { page, host } = session();
    await page.getByTestId('tab-submit').click();
    await page.getByTestId('submit-view').waitFor();
    await page.getByTestId('error-walltime').waitFor();
    expect(await page.getByTestId('error-walltime').textContent()).toMatch(/^is required: the queue policy easy/);
    expect(await page.getByTestId('submit-view').textContent()).toContain('walltime (required)');
    expect(await page.getByTestId('submit-button').isDisabled()).toBe(true);

    const walltime = page.getByTestId('field-walltime').locator('input');
    await walltime.fill('90 minutes');
    await expect
      .poll(() => page.getByTestId('error-walltime').textContent())
      .toBe('must be seconds (5400) or h:mm:ss (1:30:00) (got "90 minutes")');
    expect(await page.getByTestId('submit-button').isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'submit-walltime-refused.png') });

    await walltime.fill('1:30:00');
    await page.getByTestId('error-walltime').waitFor({ state: 'detached' });
    expect(await page.getByTestId('hint-walltime').textContent()).toContain('planned as never ending');
    await expect.poll(() => page.getByTestId('submit-button').isDisabled()).toBe(false);
    await page.getByTestId('submit-button').click();
    await page.getByTestId('submitted-id').waitFor();
    const jobId = (await page.getByTestId('submitted-id').textContent())!.trim();
    expect(host.world.scheduler.job(jobId)!.spec.walltime).toBe(5400);
  }, 180_000);
});
