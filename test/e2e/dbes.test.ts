// DBES in Chromium against a real web-mode host, on the DBES paper's example (one cluster of 4 processors; A and B
// malleable, C rigid of 3 submitted after they start): Settings offers dbes from the host with its description and the
// run takes it; the Activity view says which expansion was the second step, which was made for C and which shrink
// served C; the Plan view marks A as expanded for C and names dbes as what scheduled the queue.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { malleabilityPolicies } from '../../core/malleability/registry.js';
import { artifacts, browserReady, sharedSession } from './browser.js';

const ready = browserReady();

const spec = (id: string, kind: 'malleable' | 'rigid', min: number, max: number, seconds: number) => ({
  id,
  name: id,
  kind,
  walltime: seconds,
  app: kind === 'malleable' ? { model: 'amdahl', serial: 0, parallel: seconds } : { model: 'fixed', runtime: seconds },
  components: [kind === 'malleable' ? { min, max, program: 'x' } : { processors: min, program: 'x' }],
});

/** Waits until `check` holds (polled), or fails with `what` after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!ready)('DBES in the console, in Chromium', () => {
  const grid = gridSpecSchema.parse({ name: 'four', clusters: [{ name: 'c', processors: 4 }] });
  const session = sharedSession({ grid, workload: 'none', speed: 'pause' });

  it('Settings offers dbes, served by the host with its description, and the run takes it', async () => {
    const { page, server, host } = session();
    await page.goto(server.url);
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('settings-view').waitFor();
    await page.getByTestId('field-policy').click();
    await page.locator('.n-base-select-option', { hasText: /^dbes$/ }).click();
    await expect.poll(() => page.getByTestId('hint-policy').textContent()).toBe(malleabilityPolicies.dbes!.description);
    await page.getByTestId('save-settings').click();
    await page.getByTestId('settings-saved').waitFor();
    expect(host.call('settings.get', {})).toMatchObject({ ok: true, value: { policy: 'dbes' } });
  }, 180_000);

  it('Activity tells the second step, the expansion for C and the shrink for C apart; Plan marks A as expanded for C', async () => {
    const { page, host } = session();
    const scheduler = host.world.scheduler;
    // A and B start together (the run paused while they are submitted), C once they run.
    for (const s of [spec('A', 'malleable', 1, 4, 3600), spec('B', 'malleable', 1, 4, 1800)])
      expect(host.call('jobs.submit', s)).toMatchObject({ ok: true });
    expect(host.call('sim.setSpeed', { speed: '1x' })).toMatchObject({ ok: true });
    await until(
      () => scheduler.job('A')?.state === 'running' && scheduler.job('B')?.state === 'running',
      'A and B to run',
    );
    expect(host.call('jobs.submit', spec('C', 'rigid', 3, 3, 600))).toMatchObject({ ok: true });
    await page.getByTestId('tab-activity').click();
    const list = page.getByTestId('activity-list');
    await expect.poll(() => list.textContent(), { timeout: 60_000 }).toContain('expanded for job C (step 1)');
    const text = (await list.textContent()) ?? '';
    expect(text).toContain('expanded (second step)');
    expect(text).toContain('shrunk to expand C, from its second-step expansion');
    await page.screenshot({ path: path.join(artifacts, 'dbes-activity.png') });

    await page.getByTestId('tab-plan').click();
    await expect
      .poll(() => page.getByTestId('plan-expanded-c').textContent(), { timeout: 30_000 })
      .toMatch(/A [^·]*\+1 for C/);
    // DBES schedules the queue in the queue policy's place: the Plan view says so, not "koala, which plans none".
    expect(await page.getByTestId('plan-planner').textContent()).toBe('dbes');
    await page.screenshot({ path: path.join(artifacts, 'dbes-plan.png') });
  }, 180_000);
});
