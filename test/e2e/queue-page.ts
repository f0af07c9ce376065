// Driving the Queue view with many jobs, shared by its end-to-end test (which checks what is in the page) and the
// benchmark (which times it): jobs loaded through the API, the view opened, its rows counted, and its virtual list
// scrolled frame by frame.
import type { Page } from 'playwright-core';
import type { Host } from '../../electron/host/host.js';

/** The id of the i-th job loaded (1-based), padded so that ids sort as they were submitted. */
export const queueJobId = (i: number) => `q${String(i).padStart(5, '0')}`;

/** Submits `count` jobs through the host's API (rigid and malleable, on every cluster); a paused host keeps them queued. */
export function loadJobs(host: Host, count: number): void {
  for (let i = 1; i <= count; i++) {
    const spec =
      i % 3 === 0
        ? {
            id: queueJobId(i),
            name: `malleable-${i}`,
            kind: 'malleable',
            app: { model: 'gadget2' },
            components: [{ min: 2, max: 16, program: 'gadget2' }],
          }
        : {
            id: queueJobId(i),
            name: `rigid-${i}`,
            kind: 'rigid',
            app: { model: 'fixed', runtime: 600 },
            components: [{ processors: 1 + (i % 8), program: 'x' }],
          };
    const r = host.call('jobs.submit', spec);
    if (!r.ok) throw new Error(`job ${i} refused: ${JSON.stringify(r.errors)}`);
  }
}

/** The queue's row elements in the page (the virtual list renders only those near the view). */
export function rowCount(page: Page): Promise<number> {
  return page.locator('[data-testid="queue-view"] tbody tr[data-testid^="job-row-"]').count();
}

/** Opens the Queue view and waits until it lists `total` jobs and shows its first row; the milliseconds it took. */
export async function openQueue(page: Page, total: number): Promise<number> {
  const t0 = Date.now();
  await page.getByTestId('tab-queue').click();
  await page
    .getByTestId('queue-count')
    .filter({ hasText: `${total} shown of ${total}` })
    .waitFor({ timeout: 30_000 });
  await page.getByTestId(`job-row-${queueJobId(1)}`).waitFor({ timeout: 30_000 });
  return Date.now() - t0;
}

/** The virtual list's scrolling element, marked so that page scripts find it. */
async function markScroller(page: Page): Promise<void> {
  await page.evaluate(() => {
    const doc = (
      globalThis as unknown as {
        document: {
          querySelectorAll(
            s: string,
          ): ArrayLike<{ scrollHeight: number; clientHeight: number; setAttribute(k: string, v: string): void }>;
        };
      }
    ).document;
    const candidates = Array.from(doc.querySelectorAll('[data-testid="queue-view"] *'));
    const scroller = candidates.find((el) => el.scrollHeight > el.clientHeight + 1000);
    if (!scroller) throw new Error('the queue has no scrolling list');
    scroller.setAttribute('data-queue-scroller', '');
  });
}

/**
 * Scrolls the list in `steps` equal steps from top to bottom; for each, the milliseconds from the scroll to the
 * second animation frame after it (the frame that shows the rows rendered for the new position).
 */
export async function scrollFrames(page: Page, steps: number): Promise<number[]> {
  await markScroller(page);
  return page.evaluate(async (n) => {
    const g = globalThis as unknown as {
      document: {
        querySelector(s: string): { scrollHeight: number; clientHeight: number; scrollTo(x: number, y: number): void };
      };
      requestAnimationFrame(cb: () => void): void;
      performance: { now(): number };
    };
    const el = g.document.querySelector('[data-queue-scroller]');
    const frame = () => new Promise<void>((resolve) => g.requestAnimationFrame(() => resolve()));
    const out: number[] = [];
    const end = el.scrollHeight - el.clientHeight;
    for (let i = 1; i <= n; i++) {
      const t0 = g.performance.now();
      el.scrollTo(0, Math.round((end * i) / n));
      await frame();
      await frame();
      out.push(g.performance.now() - t0);
    }
    return out;
  }, steps);
}

/**
 * Scrolls the list by `px` at a time (120: a mouse wheel's notch) for `steps` steps from where it is; for each, the
 * milliseconds from the scroll to the second animation frame after it.
 */
export async function wheelFrames(page: Page, px: number, steps: number): Promise<number[]> {
  await markScroller(page);
  return page.evaluate(
    async ([by, n]) => {
      const g = globalThis as unknown as {
        document: { querySelector(s: string): { scrollTop: number; scrollTo(x: number, y: number): void } };
        requestAnimationFrame(cb: () => void): void;
        performance: { now(): number };
      };
      const el = g.document.querySelector('[data-queue-scroller]');
      const frame = () => new Promise<void>((resolve) => g.requestAnimationFrame(() => resolve()));
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = g.performance.now();
        el.scrollTo(0, el.scrollTop + by);
        await frame();
        await frame();
        out.push(g.performance.now() - t0);
      }
      return out;
    },
    [px, steps] as const,
  );
}

/** Scrolls the list to its very end (again once the rows there are measured: their height may differ from the estimate). */
export async function scrollToBottom(page: Page): Promise<void> {
  await markScroller(page);
  for (let i = 0; i < 2; i++) {
    await page.evaluate(() => {
      const el = (
        globalThis as unknown as {
          document: { querySelector(s: string): { scrollHeight: number; scrollTo(x: number, y: number): void } };
        }
      ).document.querySelector('[data-queue-scroller]');
      el.scrollTo(0, el.scrollHeight);
    });
    await page.waitForTimeout(100);
  }
}

/** Whether the row of a job is wholly inside the list's visible area. */
export async function rowInView(page: Page, jobId: string): Promise<boolean> {
  await markScroller(page);
  const rowLocator = page.getByTestId(`job-row-${jobId}`);
  if ((await rowLocator.count()) === 0) return false; // not rendered at all
  const [row, list] = await Promise.all([
    rowLocator.boundingBox(),
    page.locator('[data-queue-scroller]').boundingBox(),
  ]);
  return row !== null && list !== null && row.y >= list.y - 0.5 && row.y + row.height <= list.y + list.height + 0.5;
}

export function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
