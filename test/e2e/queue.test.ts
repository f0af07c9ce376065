// The Queue view with 10,000 jobs in headless Chromium: the table keeps only a window of rows in the page, scrolls
// to the last job, and the keyboard alone opens a job (Enter on its row) and closes it (Escape).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifacts, browserReady, openSession, type Session } from './browser.js';
import {
  loadJobs,
  openQueue,
  queueJobId,
  rowCount,
  rowInView,
  scrollFrames,
  scrollToBottom,
  wheelFrames,
} from './queue-page.js';

const JOBS = 10_000;
const ready = browserReady();
let session: Session;

describe.skipIf(!ready)('the Queue at 10,000 jobs in Chromium', () => {
  beforeAll(async () => {
    // Paused on an empty DAS-3: the jobs stay where the API put them.
    session = await openSession({ workload: 'none', speed: 'pause' });
    loadJobs(session.host, JOBS);
  });
  afterAll(async () => {
    await session?.close();
  });

  it('renders only a window of the rows, and scrolls to the last job', async () => {
    const { page, server } = session;
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    await openQueue(page, JOBS);
    const rows = await rowCount(page);
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(200);

    // A few wheel notches, then through the list in big steps, then to its very end.
    expect(await wheelFrames(page, 120, 10)).toHaveLength(10);
    expect(await rowInView(page, queueJobId(1))).toBe(false);
    expect(await scrollFrames(page, 20)).toHaveLength(20);
    await scrollToBottom(page);
    await page.getByTestId(`job-row-${queueJobId(JOBS)}`).waitFor({ timeout: 10_000 });
    expect(await rowInView(page, queueJobId(JOBS))).toBe(true);
    expect(await rowCount(page)).toBeLessThan(200);
    await page.screenshot({ path: path.join(artifacts, 'queue-10k.png') });
  });

  it('opens the job of a row with Enter and closes it with Escape', async () => {
    const { page } = session;
    const last = page.getByTestId(`job-row-${queueJobId(JOBS)}`);
    await last.focus();
    await page.keyboard.press('Enter');
    const drawer = page.getByTestId('job-drawer');
    await drawer.waitFor();
    expect(await drawer.textContent()).toContain(`rigid-${JOBS}`);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  });
});
