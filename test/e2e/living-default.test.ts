// End to end in headless Chromium: the embedded default as `npm start` opens it — warmed up, with the first start's
// hint saying so — every view screenshot after the warm-up; then left at max past the end of W_m, its malleable jobs
// still running and growing (the living stream). Screenshots go to test-artifacts/e2e.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WARM_UP_S } from '../../electron/host/warm-up.js';
import { artifacts, browserReady, sharedSession } from './browser.js';

const ready = browserReady();
/** W_m submits its last job at 299 x 120 s; its jobs last minutes. */
const WM_END_S = 299 * 120 + 3600;
const VIEWS = ['grid', 'queue', 'submit', 'activity', 'settings', 'lab'] as const;

function ask<T>(answer: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!answer.ok) throw new Error(`the host refused: ${JSON.stringify(answer.errors)}`);
  return answer.value;
}

describe.skipIf(!ready)('the living default in Chromium', () => {
  const shared = sharedSession({ warmUpS: DEFAULT_WARM_UP_S, speed: '1x' });

  it('opens warmed up, says so, and every view shows the run', async () => {
    const { page, server, host } = shared();
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    const hint = page.getByTestId('first-start-hint');
    await hint.waitFor();
    // At least 3 h, and on until a job waits (seed 1: 3 h 8 min).
    expect(await page.getByTestId('warm-up-note').textContent()).toMatch(
      /first [3-6] h( \d{1,2} min)? of virtual time were simulated before the clock started/,
    );
    const running = ask(host.call('jobs.list', { states: ['running'], limit: 100 })).jobs;
    expect(running.length).toBeGreaterThan(1);
    for (const view of VIEWS) {
      await page.getByTestId(`tab-${view}`).click();
      await page.getByTestId(`${view}-view`).waitFor();
      if (view === 'queue')
        await expect
          .poll(() => page.getByTestId('queue-count').textContent(), { timeout: 30_000, interval: 100 })
          .toMatch(/^[1-9]\d* shown of /);
      if (view === 'activity')
        await expect
          .poll(() => page.getByTestId('activity-view').locator('svg path').count(), { timeout: 30_000 })
          .toBeGreaterThan(10);
      await page.screenshot({ path: path.join(artifacts, `first-start-${view}.png`), fullPage: true });
    }
    // Dismissed, the hint stays away after a reload.
    await page.getByTestId('tab-grid').click();
    await page.getByTestId('first-start-dismiss').click();
    await hint.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('cluster-card-vu').waitFor();
    expect(await page.getByTestId('first-start-hint').count()).toBe(0);
  }, 180_000);

  it('left at max past the end of W_m, still runs malleable jobs and grows them', async () => {
    const { page, host } = shared();
    await page.getByTestId('speed-max').click();
    const time = () => ask(host.call('grid.snapshot', {})).time;
    await expect.poll(time, { timeout: 120_000, interval: 200 }).toBeGreaterThan(WM_END_S + 6 * 3600);
    // A grow of a stream job (W_m's are j0001..j0300), after W_m's end, is among the latest operations.
    const grownLate = () =>
      ask(host.call('activity.history', {})).latest.find((e) => {
        const op = e as unknown as { type: string; t: number; jobId: string };
        return op.type === 'job.grown' && op.t > WM_END_S && op.jobId.startsWith('s');
      }) as unknown as { jobId: string } | undefined;
    await expect.poll(grownLate, { timeout: 60_000, interval: 200 }).toBeDefined();
    ask(host.call('sim.setSpeed', { speed: 'pause' }));
    const grown = grownLate()!;

    // The cards count malleable jobs running now.
    await page.getByTestId('tab-grid').click();
    const counts = async () => {
      const tags = await page.getByText(/\d+ malleable running/).allTextContents();
      return tags.reduce((sum, t) => sum + Number(t.split(' ')[0]), 0);
    };
    const malleableNow = ask(host.call('grid.snapshot', {})).clusters.reduce((s, c) => s + c.runningMalleable, 0);
    expect(malleableNow).toBeGreaterThan(0);
    await expect.poll(counts, { timeout: 30_000, interval: 100 }).toBe(malleableNow);
    await page.screenshot({ path: path.join(artifacts, 'living-default-after-wm-grid.png'), fullPage: true });
    // Activity lists that grow.
    await page.getByTestId('tab-activity').click();
    await page.getByTestId('activity-list').getByText(grown.jobId).first().waitFor();
    await page.screenshot({ path: path.join(artifacts, 'living-default-after-wm-activity.png'), fullPage: true });
  }, 300_000);
});
