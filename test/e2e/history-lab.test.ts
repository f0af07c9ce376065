// End to end in headless Chromium: a console opened after the run has gone on at max speed shows the past (the
// Activity view's operations since the start, the Queue's finished jobs and a finished job's history in its drawer),
// a Grid card leads to the Queue filtered to its cluster, and the CooRMv2 experiment started from the Lab runs to its
// charts, which export as CSV. Screenshots go to test-artifacts/e2e.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifacts, browserReady, openSession, type Session } from './browser.js';

const ready = browserReady();
let session: Session;

/** The host's own answer to `method`, or a failed test. */
function ask<T>(answer: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!answer.ok) throw new Error(`the host refused: ${JSON.stringify(answer.errors)}`);
  return answer.value;
}

describe.skipIf(!ready)('a console opened late, and the Lab experiments, in Chromium', () => {
  beforeAll(async () => {
    // The embedded default (das3, W_m) at max speed, with no page open yet.
    session = await openSession({ speed: 'max' });
  });
  afterAll(async () => {
    await session?.close();
  });

  it('shows in Activity the operations that happened before the page opened', async () => {
    const { page, server, host } = session;
    await expect
      .poll(() => ask(host.call('activity.history', {})).totals.grows, { timeout: 60_000, interval: 200 })
      .toBeGreaterThan(50);
    const completed = () => ask(host.call('jobs.list', { states: ['completed'], limit: 1 })).total;
    await expect.poll(completed, { timeout: 60_000, interval: 200 }).toBeGreaterThan(20);
    ask(host.call('sim.setSpeed', { speed: 'pause' }));
    const history = ask(host.call('activity.history', {}));

    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    await page.getByTestId('tab-activity').click();
    await page.getByTestId('activity-view').waitFor();
    const totals = page.getByTestId('activity-totals');
    await expect
      .poll(() => totals.textContent(), { timeout: 10_000, interval: 100 })
      .toBe(
        `${history.totals.grows} grows · ${history.totals.shrinks} shrinks · ${history.totals.updates} evolving updates`,
      );
    expect(await page.getByText('No grow, shrink or evolve operations yet').count()).toBe(0);
    // The latest operation the host saw, listed in the page.
    const last = history.latest.at(-1) as unknown as { jobId: string };
    await page.getByTestId('activity-list').getByText(last.jobId).first().waitFor();
    // The chart spans the run: its bars are drawn (SVG paths in the card).
    await expect
      .poll(() => page.getByTestId('activity-view').locator('svg path').count(), { timeout: 10_000 })
      .toBeGreaterThan(10);
    await page.screenshot({ path: path.join(artifacts, 'activity-opened-late.png'), fullPage: true });
  });

  it('lists the finished jobs in the Queue and a finished job history in its drawer', async () => {
    const { page, host } = session;
    const all = ask(host.call('jobs.list', { limit: 100_000 }));
    await page.getByTestId('tab-queue').click();
    await page.getByTestId('queue-view').waitFor();
    await expect
      .poll(() => page.getByTestId('queue-count').textContent(), { timeout: 10_000, interval: 100 })
      .toBe(`${all.total} shown of ${all.total}`);
    // The latest finished job: without a store (as here) the host keeps its last 20,000 job events for jobs.events
    // (RECENT_EVENTS, however long the grid has been polled since); with one (npm start) every job's whole history.
    const done = all.jobs.filter((j) => j.state === 'completed').at(-1)!;
    await page.getByTestId('job-search').locator('input').fill(done.id);
    await page.getByTestId(`job-link-${done.id}`).click();
    const events = page.getByTestId('job-events');
    await events.waitFor();
    for (const type of ['job.submitted', 'job.started', 'job.ended'])
      await events.getByText(type, { exact: true }).first().waitFor();
    await page.screenshot({ path: path.join(artifacts, 'queue-finished-job.png') });
    await page.keyboard.press('Escape');
    await page.getByTestId('job-events').waitFor({ state: 'detached' });
    await page.getByTestId('job-search').locator('input').fill('');
  });

  it('goes from a Grid card to the Queue filtered to that cluster', async () => {
    const { page, host } = session;
    const all = ask(host.call('jobs.list', { limit: 100_000 }));
    const onDelft = all.jobs.filter((j) => j.clusters.includes('delft')).length;
    expect(onDelft).toBeGreaterThan(0);
    await page.getByTestId('tab-grid').click();
    await page.getByTestId('cluster-card-delft').waitFor();
    await page.screenshot({ path: path.join(artifacts, 'grid-opened-late.png'), fullPage: true });
    await page.getByTestId('cluster-jobs-delft').click();
    await page.getByTestId('queue-cluster-filter').waitFor();
    await expect
      .poll(() => page.getByTestId('queue-count').textContent(), { timeout: 10_000, interval: 100 })
      .toBe(`${onDelft} shown of ${all.total}`);
    await page.screenshot({ path: path.join(artifacts, 'queue-cluster-delft.png') });
    // Closing the filter shows every job again.
    await page.getByTestId('queue-cluster-filter').locator('.n-base-close').click();
    await expect
      .poll(() => page.getByTestId('queue-count').textContent(), { timeout: 10_000, interval: 100 })
      .toBe(`${all.total} shown of ${all.total}`);
  });

  it('runs the CooRMv2 experiment from the Lab to its charts, and exports one as CSV', async () => {
    const { page, host } = session;
    await page.getByTestId('tab-lab').click();
    await page.getByTestId('lab-view').waitFor();
    await page.getByTestId('lab-kind-coorm').click();
    await page.getByTestId('lab-field-seeds').locator('input').fill('1');
    await page.getByTestId('lab-field-steps').locator('input').fill('40');
    await page.getByTestId('lab-field-factors').locator('input').fill('0.5, 1');
    await page.getByTestId('lab-field-intervals').locator('input').fill('0, 300');
    await page.getByTestId('lab-field-twoPsaIntervals').locator('input').fill('0, 300');
    await page.getByTestId('lab-start').click();

    await expect.poll(() => host.lab.list().length, { timeout: 10_000 }).toBe(1);
    const run = host.lab.list()[0]!;
    expect(run.spec).toEqual({
      kind: 'coorm',
      seeds: 1,
      steps: 40,
      factors: [0.5, 1],
      intervals: [0, 300],
      twoPsaIntervals: [0, 300],
    });
    expect(run.runsTotal).toBe(10);
    const status = page.getByTestId(`lab-status-${run.runId}`);
    await expect.poll(() => status.textContent(), { timeout: 60_000, interval: 100 }).toBe('done');
    expect(await page.getByTestId(`lab-progress-${run.runId}`).getAttribute('aria-valuenow')).toBe('100');

    // Done, it is charted: each figure's panel draws on its canvas.
    for (const id of [
      'fig9-amr-used',
      'fig9-psa-waste',
      'fig10-psa-waste',
      'fig10-used',
      'fig10-amr-end',
      'fig11-used',
    ]) {
      const canvas = page.getByTestId(`lab-chart-${id}`).locator('canvas').first();
      await canvas.waitFor();
      await expect
        .poll(
          () =>
            canvas.evaluate((element) => {
              const c = element as unknown as {
                width: number;
                height: number;
                getContext(
                  k: '2d',
                ): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
              };
              const pixels = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
              let painted = 0;
              for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
              return painted;
            }),
          { timeout: 10_000, interval: 100 },
        )
        .toBeGreaterThan(1000);
    }
    await page.getByTestId('lab-metrics').getByText('fig 11 CooRMv2').waitFor();
    await page.getByTestId('lab-observations').waitFor();
    await page.screenshot({ path: path.join(artifacts, 'lab-coorm.png'), fullPage: true });

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('lab-csv-fig10-used').click()]);
    expect(csv.suggestedFilename()).toBe(`${run.runId}-fig10-used.csv`);
    const lines = readFileSync(await csv.path(), 'utf8')
      .trim()
      .split('\n');
    expect(lines[0]).toBe('series,announce interval (s),% of the cluster');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['used,0', 'used,300']);
  });
});
