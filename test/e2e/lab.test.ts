// The Lab end to end in headless Chromium: a small simulation started from the form computes in the host's worker,
// its progress bar reaches done, its charts render, and a chart exports as PNG and as CSV.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifacts, browserReady, openSession, type Session } from './browser.js';

/** The little of a page's canvas read here, typed locally whether or not DOM typings are loaded. */
interface PageCanvas {
  width: number;
  height: number;
  getContext(
    kind: '2d',
  ): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}

const ready = browserReady();
let session: Session;

describe.skipIf(!ready)('the Lab in Chromium', () => {
  beforeAll(async () => {
    session = await openSession({ speed: '1x' });
  });
  afterAll(async () => {
    await session?.close();
  });

  it('runs a small simulation from the form, shows its progress to done, and charts it', async () => {
    const { page, server, host } = session;
    await page.goto(server.url);
    await page.getByText('Lab', { exact: true }).first().click();
    await page.getByTestId('lab-view').waitFor();
    await page.getByTestId('lab-kind-simulate').click();
    await page.getByTestId('lab-field-seed').locator('input').fill('2');
    await page.getByTestId('lab-field-maxJobs').locator('input').fill('60');
    await page.getByTestId('lab-start').click();

    await expect.poll(() => host.lab.list().length, { timeout: 10_000 }).toBe(1);
    const run = host.lab.list()[0]!;
    expect(run.spec).toEqual({
      kind: 'simulate',
      grid: 'das3',
      workload: 'wm',
      approach: 'pra',
      policy: 'fpsma',
      seed: 2,
      maxJobs: 60,
    });
    const status = page.getByTestId(`lab-status-${run.runId}`);
    await expect.poll(() => status.textContent(), { timeout: 30_000, interval: 100 }).toBe('done');
    const bar = page.getByTestId(`lab-progress-${run.runId}`);
    expect(await bar.getAttribute('role')).toBe('progressbar');
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');

    // Done, the run is charted: a canvas with something drawn on it in each panel.
    for (const id of ['wait', 'execution', 'response', 'utilization'])
      await page.getByTestId(`lab-chart-${id}`).locator('canvas').first().waitFor();
    const drawn = await page
      .getByTestId('lab-chart-response')
      .locator('canvas')
      .first()
      .evaluate((element) => {
        const canvas = element as unknown as PageCanvas;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
        return painted;
      });
    expect(drawn).toBeGreaterThan(1000);
    await page.getByTestId('lab-metrics').waitFor();
    await page.waitForTimeout(300); // let the charts settle before the picture
    await page.screenshot({ path: path.join(artifacts, 'lab.png'), fullPage: true });
  });

  it('exports a chart as PNG and its data as CSV', async () => {
    const { page } = session;
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('lab-png-response').click()]);
    expect(png.suggestedFilename()).toMatch(/^lab-1-response\.png$/);
    const pngFile = await png.path();
    expect(readFileSync(pngFile).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('lab-csv-response').click()]);
    expect(csv.suggestedFilename()).toBe('lab-1-response.csv');
    const lines = readFileSync(await csv.path(), 'utf8')
      .trim()
      .split('\n');
    expect(lines[0]).toBe('series,response time (s),cumulative fraction of jobs');
    expect(lines.at(-1)).toMatch(/^fpsma-wm,[\d.]+,1$/);
  });
});
