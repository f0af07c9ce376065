// The Queue at 10,000 jobs: the host's jobs.list (what a console polls every 2 s, as the transport sends it) and, in
// Debian's Chromium when it is installed, the time to open the Queue view and the frame times while scrolling it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { Host } from '../../electron/host/host.js';
import { startWebServer } from '../../electron/web/server.js';
import { loadJobs, openQueue, percentile, rowCount, scrollFrames, wheelFrames } from '../e2e/queue-page.js';

const CHROMIUM = '/usr/bin/chromium';
const JOBS = 10_000;
const round = (x: number, digits = 1) => Number(x.toFixed(digits));
const median = (xs: readonly number[]) => percentile(xs, 50);

export interface QueueBrowserFigures {
  /** From the click on the Queue tab to its first row, the 10,000 jobs fetched and listed. */
  render_ms: number;
  rows_in_dom: number;
  /** Scrolled by a wheel notch (120 px) at a time: from scrollTo to the second animation frame after it. */
  wheel_frame_p50_ms: number;
  wheel_frame_p95_ms: number;
  /** Scrolled through the whole list in 50 jumps (every row in view replaced). */
  jump_frame_p95_ms: number;
}

export interface QueueFigures {
  /** jobs.list of 10,000 jobs through the dispatcher and JSON.stringify, as the web transport answers it (median). */
  jobs_list_ms: number;
  /** The same when nothing changed since the version the console holds. */
  jobs_list_unchanged_ms: number;
  jobs_list_bytes: number;
  browser: QueueBrowserFigures | null;
  browser_skipped_reason?: string;
}

function timed(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

export async function queueBench(repoRoot: string, log: (message: string) => void): Promise<QueueFigures> {
  // Paused on an empty DAS-3: the 10,000 jobs stay queued as the API put them.
  const host = new Host({ workload: 'none', speed: 'pause' });
  loadJobs(host, JOBS);
  const answer = () => JSON.stringify(host.dispatch('jobs.list', { limit: 100_000 }));
  const first = host.dispatch('jobs.list', { limit: 100_000 });
  if (!first.ok) throw new Error('jobs.list failed');
  const version = (first.value as { version: string }).version;
  const full: number[] = [];
  const unchanged: number[] = [];
  for (let i = 0; i < 13; i++) {
    full.push(timed(answer));
    unchanged.push(timed(() => JSON.stringify(host.dispatch('jobs.list', { limit: 100_000, since: version }))));
  }
  const figures: QueueFigures = {
    jobs_list_ms: round(median(full.slice(3))),
    jobs_list_unchanged_ms: round(median(unchanged.slice(3)), 2),
    jobs_list_bytes: answer().length,
    browser: null,
  };
  log(
    `jobs.list of ${JOBS} jobs: ${figures.jobs_list_ms} ms (${Math.round(figures.jobs_list_bytes / 1024)} KiB), unchanged: ${figures.jobs_list_unchanged_ms} ms`,
  );

  const consoleDir = path.join(repoRoot, 'dist', 'renderer');
  const missing = !existsSync(CHROMIUM)
    ? `${CHROMIUM} is not installed`
    : !existsSync(path.join(consoleDir, 'index.html'))
      ? `the console is not built (${consoleDir})`
      : '';
  if (missing) {
    figures.browser_skipped_reason = `${missing}: the Queue's browser figures are skipped`;
    log(figures.browser_skipped_reason);
    return figures;
  }
  const server = await startWebServer(host, { staticDir: consoleDir });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    const render_ms = await openQueue(page, JOBS);
    const rows_in_dom = await rowCount(page);
    await wheelFrames(page, 120, 20); // warm up
    const wheel = await wheelFrames(page, 120, 200);
    const jumps = await scrollFrames(page, 50);
    figures.browser = {
      render_ms,
      rows_in_dom,
      wheel_frame_p50_ms: round(percentile(wheel, 50)),
      wheel_frame_p95_ms: round(percentile(wheel, 95)),
      jump_frame_p95_ms: round(percentile(jumps, 95)),
    };
    log(
      `Queue of ${JOBS} jobs in Chromium: shown in ${render_ms} ms with ${rows_in_dom} rows in the page; wheel scroll p50 ${figures.browser.wheel_frame_p50_ms} ms, p95 ${figures.browser.wheel_frame_p95_ms} ms; jumps p95 ${figures.browser.jump_frame_p95_ms} ms`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
  return figures;
}
