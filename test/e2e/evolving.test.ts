// End to end in Chromium on the simulated grid: an evolving job submitted through the form (a bad initial size
// refused at its field first) starts with its pre-allocation, which the Grid view shows as its own segment on the
// job's cluster, the Queue shows beside its kind, and the job's drawer charts as its views; its updates are listed
// on the Activity view.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifacts, browserReady, sharedSession } from './browser.js';

const ready = browserReady();
let jobId = '';

describe.skipIf(!ready)('evolving jobs in Chromium', () => {
  const session = sharedSession({ workload: 'none', speed: '10x' });

  it('submits an evolving job through the form, a bad initial size refused at its field first', async () => {
    const { page, server, host } = session();
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    await page.getByTestId('tab-submit').click();
    await page.getByTestId('submit-view').waitFor();
    await page.getByTestId('kind-evolving').click();
    await page.getByTestId('hint-max').waitFor();
    await page.getByTestId('field-name').locator('input').fill('amr-e2e');
    await page.getByTestId('field-min').locator('input').fill('2');
    await page.getByTestId('field-max').locator('input').fill('24');
    // The evolving model came with the kind: many short phases, so that the job evolves within the test and runs
    // past its end (30 minutes of virtual time, 3 of the wall clock at 10x).
    await page.getByTestId('field-phases').locator('input').fill('30');
    await page.getByTestId('field-phaseS').locator('input').fill('60');
    await page.getByTestId('field-initial').locator('input').fill('40');
    await page.getByTestId('field-initial').locator('input').blur();
    await page.getByTestId('error-initial').waitFor();
    expect(await page.getByTestId('error-initial').textContent()).toBe('must lie within min..max');
    expect(await page.getByTestId('submit-button').isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'evolving-submit-error.png') });

    await page.getByTestId('field-initial').locator('input').fill('4');
    await page.getByTestId('field-initial').locator('input').blur();
    await expect.poll(() => page.getByTestId('submit-button').isDisabled()).toBe(false);
    await page.getByTestId('submit-button').click();
    jobId = (await page.getByTestId('submitted-id').textContent())!.trim();
    const job = host.world.scheduler.job(jobId);
    expect(job?.kind).toBe('evolving');
    expect([job?.min, job?.max]).toEqual([2, 24]);
    expect(job?.spec.app).toEqual({ model: 'evolving', phases: 30, phaseS: 60, announceS: 0 });
    await expect.poll(() => host.world.scheduler.job(jobId)!.state, { timeout: 20_000, interval: 200 }).toBe('running');
  }, 180_000);

  it('shows its pre-allocation on the Grid view, on its cluster and in the total', async () => {
    const { page, host } = session();
    const list = host.call('jobs.list', {});
    const cluster = list.ok ? list.value.jobs.find((j) => j.id === jobId)!.clusters[0]! : '';
    await page.getByTestId('tab-grid').click();
    const card = page.getByTestId(`cluster-card-${cluster}`);
    await card.waitFor();
    // What the job does not use of its 24: 20 at its start, less once it grows.
    await expect
      .poll(async () => Number(await card.locator('[data-field="preallocated"]').textContent()), {
        timeout: 10_000,
        interval: 200,
      })
      .toBeGreaterThan(0);
    const shown = Number(await card.locator('[data-field="preallocated"]').textContent());
    const job = host.world.scheduler.job(jobId)!;
    expect(shown).toBeLessThanOrEqual(24 - job.min);
    expect(
      Number(await page.getByTestId('total-preallocated').locator('.n-statistic-value__content').textContent()),
    ).toBeGreaterThan(0);
    // Its own segment, named in the chart's legend.
    await card.locator('svg text', { hasText: 'pre-allocated' }).first().waitFor();
    await page.waitForTimeout(500);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(artifacts, 'evolving-grid.png') });
  }, 180_000);

  it('shows the pre-allocation in the Queue and the job’s views as step charts in its drawer', async () => {
    const { page } = session();
    await page.getByTestId('tab-queue').click();
    await page.getByTestId('queue-view').waitFor();
    await page.getByTestId(`job-row-${jobId}`).getByText('evolving · PA 24').waitFor();
    await page.getByTestId(`job-link-${jobId}`).click();
    await page.getByTestId('job-drawer').waitFor();
    expect(await page.getByTestId('job-preallocation').textContent()).toContain('pre-allocation 24');
    const views = page.getByTestId('job-views');
    await views.waitFor({ timeout: 10_000 });
    for (const name of ['non-preemptive view', 'preemptive view', 'allocated'])
      await views.locator('svg text', { hasText: name }).first().waitFor();
    // Three step lines drawn (paths in the SVG), not an empty chart.
    expect(await views.locator('svg path').count()).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId('views-error').count()).toBe(0);
    await page.getByTestId('job-events').getByText('pre-allocation 24 held').waitFor();
    // Its phases ask for other sizes: the updates appear in words as they happen.
    await page
      .getByTestId('job-events')
      .getByText(/^now \d+ of its pre-allocation of 24 on /)
      .first()
      .waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(artifacts, 'evolving-drawer.png') });
  }, 180_000);

  it('lists the job’s updates on the Activity view in words', async () => {
    const { page } = session();
    await page.keyboard.press('Escape');
    await page.getByTestId('job-drawer').waitFor({ state: 'detached' });
    await page.getByTestId('tab-activity').click();
    const list = page.getByTestId('activity-list');
    await list.getByText('evolved (pre-allocation 24)').first().waitFor();
    await list
      .getByText(/^asks for \d+ on \w+ now$/)
      .first()
      .waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(artifacts, 'evolving-activity.png') });
  }, 180_000);
});
