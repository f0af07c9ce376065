// The Plan view in headless Chromium against a real web-mode host under EASY: on one cluster of 12 processors, a and b
// (4 each) run, h (6) waits with a reservation at a's end, c (2) is backfilled beside it. The Plan view draws the
// reservation, and hovering it in the chart says it waits for job a; the Queue shows h's planned start. Under koala the
// view explains that no reservation is planned.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { artifacts, browserReady, openSession, type Session } from './browser.js';

const ready = browserReady();
let session: Session;

const rigid = (id: string, processors: number, runtime: number) => ({
  id,
  name: id,
  kind: 'rigid',
  app: { model: 'fixed', runtime },
  walltime: runtime,
  components: [{ processors, program: 'x' }],
});

/** Waits until `check` holds (polled), or fails with `what` after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!ready)('the Plan view in Chromium', () => {
  beforeAll(async () => {
    const grid = gridSpecSchema.parse({ name: 'one', clusters: [{ name: 'a', processors: 12 }] });
    session = await openSession({ grid, workload: 'none', speed: '1x' });
    expect(session.host.call('settings.set', { queue: 'easy' })).toMatchObject({ ok: true });
    for (const spec of [rigid('a', 4, 3600), rigid('b', 4, 7200)])
      expect(session.host.call('jobs.submit', spec)).toMatchObject({ ok: true });
    const scheduler = session.host.world.scheduler;
    await until(
      () => scheduler.job('a')?.state === 'running' && scheduler.job('b')?.state === 'running',
      'a and b to run',
    );
    for (const spec of [rigid('h', 6, 600), rigid('c', 2, 1800)])
      expect(session.host.call('jobs.submit', spec)).toMatchObject({ ok: true });
    await until(
      () => scheduler.job('h')?.plannedStart !== undefined && scheduler.job('c')?.state === 'running',
      'h reserved and c running',
    );
  });
  afterAll(async () => {
    await session?.close();
  });

  it('draws the reservation, and hovering it names the running job it waits for', async () => {
    const { page, server } = session;
    await page.goto(server.url);
    await page.getByTestId('tab-plan').click();
    await page.getByTestId('plan-view').waitFor();
    const card = page.getByTestId('plan-cluster-a');
    await card.waitFor();
    await expect.poll(() => page.getByTestId('plan-policy').textContent()).toBe('easy');
    // The reservations table lists h with the job it waits for.
    const table = page.getByTestId('plan-reservations-a');
    await table.getByText('h', { exact: true }).waitFor();
    await expect.poll(() => table.textContent()).toMatch(/h\s*6\s*1:00:\d\d\s*1:10:\d\d\s*a/);
    // Hover the reservation in the chart where the chart says it drew it.
    const chart = card.locator('.plan-chart');
    await expect
      .poll(async () =>
        JSON.parse((await chart.getAttribute('data-reserved-points')) ?? '[]').map((p: { id: string }) => p.id),
      )
      .toEqual(['h']);
    const [point] = JSON.parse((await chart.getAttribute('data-reserved-points'))!) as Array<{ x: number; y: number }>;
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + point!.x, box.y + point!.y);
    const tip = card.getByText(/job h reserved · 6 processors · starts 1:00:\d\d · .* · waits for job a$/);
    await tip.waitFor();
    expect(await tip.textContent()).not.toContain('job b');
    await page.screenshot({ path: path.join(artifacts, 'plan.png') });
  });

  it("shows the waiting job's planned start in the Queue", async () => {
    const { page } = session;
    await page.getByTestId('tab-queue').click();
    const cell = page.getByTestId('planned-start-h');
    await cell.waitFor();
    expect(await cell.textContent()).toMatch(/^1:00:\d\d · a$/);
    expect(await page.getByTestId('planned-start-c').count()).toBe(0);
  });

  it('under koala, explains that no reservation is planned', async () => {
    const { page, host } = session;
    expect(host.call('settings.set', { queue: 'koala' })).toMatchObject({ ok: true });
    await page.getByTestId('tab-plan').click();
    await expect.poll(() => page.getByTestId('plan-policy').textContent(), { timeout: 10_000 }).toBe('koala');
    await expect
      .poll(() => page.getByTestId('plan-empty').textContent())
      .toContain('the queue policy is koala, which plans none');
    await page.screenshot({ path: path.join(artifacts, 'plan-koala.png') });
  });
});
