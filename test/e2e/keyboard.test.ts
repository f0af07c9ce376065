// The console with the keyboard only, in headless Chromium at 1280×800: "g" then a letter switches views, "?" shows
// the shortcuts, Tab reaches the tabs and the queue's rows with a visible focus, Enter opens a job, the operator
// grows it from the drawer, and Escape closes the drawer. Screenshots of each step for a look at 1280×800.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifacts, browserReady, openSession, type Session } from './browser.js';

const ready = browserReady();
let session: Session;

/** Presses Tab until the focused element matches `selector` (at most `limit` times); false if it never does. */
async function tabTo(session: Session, selector: string, limit = 40): Promise<boolean> {
  for (let i = 0; i < limit; i++) {
    await session.page.keyboard.press('Tab');
    if (
      await session.page.evaluate(
        (s) =>
          (
            globalThis as unknown as { document: { activeElement: { matches(s: string): boolean } | null } }
          ).document.activeElement?.matches(s) ?? false,
        selector,
      )
    )
      return true;
  }
  return false;
}

const focusVisible = (s: Session) =>
  s.page.evaluate(
    () =>
      (
        globalThis as unknown as { document: { activeElement: { matches(s: string): boolean } | null } }
      ).document.activeElement?.matches(':focus-visible') ?? false,
  );

describe.skipIf(!ready)('the console with the keyboard in Chromium', () => {
  beforeAll(async () => {
    // An empty DAS-3 with one malleable job, run until it has started, then paused for the operator. At 1x: started
    // at once, it is paused long before a poll (one a minute) could grow it into the idle processors.
    session = await openSession({ workload: 'none', speed: '1x' });
    const r = session.host.call('jobs.submit', {
      id: 'wide',
      name: 'wide',
      kind: 'malleable',
      app: { model: 'gadget2' },
      walltime: 1e6,
      components: [{ min: 2, max: 40, program: 'gadget2' }],
    });
    expect(r.ok).toBe(true);
    const started = Date.now();
    while (session.host.world.scheduler.job('wide')!.state !== 'running' && Date.now() - started < 20_000)
      await new Promise((resolve) => setTimeout(resolve, 50));
    session.host.call('sim.setSpeed', { speed: 'pause' });
  });
  afterAll(async () => {
    await session?.close();
  });

  it('switches views with g and a letter, and lists the shortcuts with ?', async () => {
    const { page, server } = session;
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    for (const [key, view] of [
      ['q', 'queue'],
      ['p', 'plan'],
      ['s', 'submit'],
      ['a', 'activity'],
      ['e', 'settings'],
      ['l', 'lab'],
      ['g', 'grid'],
    ] as const) {
      await page.keyboard.press('g');
      await page.keyboard.press(key);
      await page.getByTestId(`${view}-view`).waitFor();
    }
    await page.keyboard.press('?');
    await page.getByTestId('shortcuts-help').waitFor();
    await page.screenshot({ path: path.join(artifacts, 'keyboard-help.png') });
    await page.keyboard.press('Escape');
    await page.getByTestId('shortcuts-help').waitFor({ state: 'detached' });
  });

  it('names every button that Tab reaches, in every view, for assistive technology', async () => {
    const { page } = session;
    for (const [key, view] of [
      ['g', 'grid'],
      ['q', 'queue'],
      ['p', 'plan'],
      ['s', 'submit'],
      ['a', 'activity'],
      ['e', 'settings'],
      ['l', 'lab'],
    ] as const) {
      await page.keyboard.press('g');
      await page.keyboard.press(key);
      await page.getByTestId(`${view}-view`).waitFor();
      const unnamed = await page.evaluate(() => {
        const doc = (
          globalThis as unknown as {
            document: {
              querySelectorAll(s: string): ArrayLike<{
                outerHTML: string;
                textContent: string | null;
                getAttribute(n: string): string | null;
                getClientRects(): ArrayLike<unknown>;
              }>;
            };
          }
        ).document;
        return (
          Array.from(doc.querySelectorAll('button, [role="button"], [role="switch"]'))
            // Visible and reachable by Tab (a number field's −/+ are not: its arrow keys do the same).
            .filter((b) => b.getClientRects().length > 0 && b.getAttribute('tabindex') !== '-1')
            .filter(
              (b) =>
                !(
                  b.getAttribute('aria-label') ||
                  b.getAttribute('aria-labelledby') ||
                  b.getAttribute('title') ||
                  b.textContent?.trim()
                ),
            )
            .map((b) => b.outerHTML.slice(0, 120))
        );
      });
      expect(unnamed, `unnamed buttons in the ${view} view`).toEqual([]);
    }
  });

  it('reaches a tab with Tab and opens its view with Enter, the focus visible', async () => {
    const { page } = session;
    expect(await tabTo(session, '[data-testid="tab-settings"]')).toBe(true);
    expect(await focusVisible(session)).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'keyboard-tab-focus.png') });
    await page.keyboard.press('Enter');
    await page.getByTestId('settings-view').waitFor();
  });

  it('opens a job from its queue row with Enter, grows it from the drawer, and closes the drawer with Escape', async () => {
    const { page, host } = session;
    await page.keyboard.press('g');
    await page.keyboard.press('q');
    await page.getByTestId('job-row-wide').waitFor();
    expect(await tabTo(session, '[data-testid="job-row-wide"]')).toBe(true);
    expect(await focusVisible(session)).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'keyboard-queue-focus.png') });
    await page.keyboard.press('Enter');
    await page.getByTestId('job-drawer').waitFor();

    // In the drawer: the number of processors, then Grow, all with the keyboard.
    expect(await tabTo(session, '[data-testid="resize-by"] input', 10)).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('3');
    expect(await tabTo(session, '[data-testid="grow-job"]', 5)).toBe(true);
    const size = host.world.scheduler.job('wide')!.size;
    await page.keyboard.press('Enter');
    await page.getByTestId('resize-done').waitFor();
    expect(await page.getByTestId('resize-done').textContent()).toContain('offered 3 more');
    host.call('sim.setSpeed', { speed: '100x' });
    // The application took the 3 the operator offered (a poll may grow it further afterwards, into idle processors).
    const operatorGrows = () => {
      const r = host.call('jobs.events', { jobId: 'wide' });
      return r.ok
        ? r.value.events
            .filter((e) => e.type === 'job.grown' || (e.type === 'grow.answered' && e.operator))
            .map((e) => (e.type === 'job.grown' ? `grown ${e.size}` : `took ${e.accepted}`))
        : [];
    };
    await expect
      .poll(operatorGrows, { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['took 3', `grown ${size + 3}`]));
    host.call('sim.setSpeed', { speed: 'pause' });
    await page.screenshot({ path: path.join(artifacts, 'keyboard-drawer.png') });

    await page.keyboard.press('Escape');
    await page.getByTestId('job-drawer').waitFor({ state: 'detached' });
  });
});
