// End to end in Chromium, in simulation: an interactive job submitted from the Submit form with an injected overrun
// (every second iteration computes 1.2 × C) runs its iterations on Leiden's simulated EDF worker nodes; the overrun is
// measured there, so Activity lists the deadline misses and the re-placement, and Leiden's Grid card counts them and
// shows its worker nodes' utilization and slack. Nothing is injected by the test beyond the form's fields.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifacts, browserReady, sharedSession } from './browser.js';

const ready = browserReady();
/** Screenshots also go here when set (a session looking at the console). */
const extra = process.env.CONCERTINA_SHOTS;

describe.skipIf(!ready)('interactive jobs simulated in Chromium', () => {
  const session = sharedSession({ workload: 'none', speed: '10x' });

  it('an overrun injected from the Submit form shows as misses and a re-placement in Activity and on the Grid card', async () => {
    const { page, server } = session();
    const shot = async (name: string, target: { screenshot(o: { path: string }): Promise<unknown> } = page) => {
      await target.screenshot({ path: path.join(artifacts, name) });
      if (extra) {
        mkdirSync(extra, { recursive: true });
        await target.screenshot({ path: path.join(extra, name) });
      }
    };
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    await page.getByTestId('tab-submit').click();
    await page.getByTestId('submit-view').waitFor();
    await page.getByTestId('kind-interactive').click();
    await page.getByTestId('field-overrunEvery').waitFor();
    for (const [field, value] of [
      ['overrunEvery', '2'],
      ['overrunFactor', '1.2'],
    ] as const) {
      const input = page.getByTestId(`field-${field}`).locator('input');
      await input.fill(value);
      await input.blur();
    }
    await expect.poll(() => page.getByTestId('submit-button').isDisabled()).toBe(false);
    await shot('submit-interactive-overrun.png');
    await page.getByTestId('submit-button').click();
    await page.getByTestId('submitted-id').waitFor();

    // T = 1 s: the second iteration overruns C (and D = 500 ms): its tasks miss, and the job is placed again.
    await page.getByTestId('tab-activity').click();
    await expect
      .poll(() => page.getByTestId('activity-misses').textContent(), { timeout: 60_000 })
      .toMatch(/[1-9]\d* deadline miss/);
    await expect
      .poll(() => page.getByTestId('activity-list').textContent(), { timeout: 60_000 })
      .toContain('over its cost bound: placed again on leiden');
    await shot('activity-interactive-simulated.png');

    await page.getByTestId('tab-grid').click();
    const card = page.getByTestId('cluster-card-leiden');
    await expect.poll(() => card.locator('[data-field="misses"]').textContent()).not.toBe('0 deadline misses');
    await expect
      .poll(() => card.locator('[data-testid^="node-leiden-"] [data-field="slack"]').count())
      .toBeGreaterThan(0);
    await shot('grid-interactive-simulated.png', card);
  }, 240_000);
});
