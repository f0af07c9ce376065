// The evolving applications experiment in the Lab, end to end in headless Chromium: a run of a few tests started from
// the form computes in the host's worker to done, and the Lab shows Table 1 (each variant's measured row, the paper's
// below it), Table 2 and the paper's observations with their verdicts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FPE_VARIANTS } from '../../core/fpe/registry.js';
import { PAPER_TABLE1, paperCell } from '../../core/sim/experiments/fpe-report.js';
import { artifacts, browserReady, openSession, type Session } from './browser.js';

const ready = browserReady();
let session: Session;

describe.skipIf(!ready)('the evolving applications experiment in the Lab', () => {
  beforeAll(async () => {
    session = await openSession({ workload: 'none', speed: 'pause' });
  });
  afterAll(async () => {
    await session?.close();
  });

  it("runs a few tests from the form and shows Table 1 beside the paper's, Table 2 and the observations", async () => {
    const { page, server, host } = session;
    await page.goto(server.url);
    await page.getByText('Lab', { exact: true }).first().click();
    await page.getByTestId('lab-view').waitFor();
    await page.getByTestId('lab-kind-fpe').click();
    await page.getByTestId('lab-field-tests').locator('input').fill('4');
    await page.getByTestId('lab-start').click();

    await expect.poll(() => host.lab.list().length, { timeout: 10_000 }).toBe(1);
    const run = host.lab.list()[0]!;
    expect(run.spec).toEqual({ kind: 'fpe', tests: 4 });
    await expect
      .poll(() => page.getByTestId(`lab-status-${run.runId}`).textContent(), { timeout: 30_000, interval: 100 })
      .toBe('done');

    // Done, the run is shown: Table 1 with a measured row per variant, the paper's row below each.
    const table1 = page.getByTestId('lab-table-table1');
    await table1.waitFor();
    expect(await table1.locator('th').allTextContents()).toEqual([
      'variant',
      'waste (%)',
      'utilisation (relative)',
      'eff. util. (%)',
      'makespan (relative)',
      'schedule time (ms)',
    ]);
    const measured = table1.locator('tbody tr[data-source="measured"]');
    expect(await measured.locator('td:first-child').allTextContents()).toEqual([...FPE_VARIANTS]);
    expect(await measured.first().locator('td').nth(2).textContent()).toBe('1.00 / 1.00 / 1.00'); // rigid against itself
    const paper = table1.locator('tbody tr[data-source="paper"]');
    expect(await paper.first().locator('td').nth(3).textContent()).toBe(paperCell(PAPER_TABLE1.rigid[2]));
    await page.getByTestId('lab-table-table2').waitFor();
    const verdicts = await page.getByTestId('lab-observations').locator('li').allTextContents();
    expect(verdicts.length).toBeGreaterThan(5);
    expect(verdicts.every((v) => /^(holds|does not hold)/.test(v.trim()))).toBe(true);
    expect(await page.getByTestId('lab-charts').count()).toBe(0);
    await page.screenshot({ path: path.join(artifacts, 'lab-fpe.png'), fullPage: true });
  });
});
