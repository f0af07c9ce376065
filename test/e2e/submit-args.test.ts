// End to end in Chromium on the simulated grid: the Submit form's program field refuses arguments typed into it
// (at the field, with a hint, the Submit button disabled), its arguments field takes them as words and says what a
// demo's arguments are, a fixed cluster is chosen from the grid's, and a template keeps both. The API refuses the
// same program naming the field.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifacts, browserReady, sharedSession } from './browser.js';

const ready = browserReady();

describe.skipIf(!ready)('the Submit form’s program, arguments and cluster in Chromium', () => {
  const session = sharedSession({ workload: 'none', speed: 'pause' });

  it('refuses arguments in the program field, takes them in the arguments field, with a fixed cluster', async () => {
    const { page, server, host } = session();
    await page.goto(server.url);
    await page.getByTestId('grid-view').waitFor();
    await page.getByTestId('tab-submit').click();
    await page.getByTestId('submit-view').waitFor();
    const program = page.getByTestId('field-program').locator('input');
    await program.fill('{assets}/apps/ft-demo.mjs 4000 12');
    await page.getByTestId('error-program').waitFor();
    expect(await page.getByTestId('error-program').textContent()).toBe(
      'must be the program alone, one word without spaces: put its arguments in args',
    );
    expect(await page.getByTestId('submit-button').isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'submit-program-refused.png') });

    await program.fill('{assets}/apps/ft-demo.mjs');
    await page.getByTestId('error-program').waitFor({ state: 'detached' });
    // The demo's arguments and its amount of work are described under the arguments field.
    await expect.poll(() => page.getByTestId('hint-args').textContent()).toContain('[blocks] [log2-points]');
    expect(await page.getByTestId('hint-args').textContent()).toContain('400000 by default');
    await page.getByTestId('field-args').locator('input').fill(' 4000  12 ');
    await page.getByTestId('field-cluster').click();
    await page.locator('.n-base-select-option', { hasText: 'leiden' }).click();
    await expect.poll(() => page.getByTestId('submit-button').isDisabled()).toBe(false);
    await page.getByTestId('submit-button').click();
    const jobId = (await page.getByTestId('submitted-id').textContent())!.trim();
    const spec = host.world.scheduler.job(jobId)!.spec;
    expect(spec.components[0]).toMatchObject({
      program: '{assets}/apps/ft-demo.mjs',
      args: ['4000', '12'],
      cluster: 'leiden',
    });
  }, 180_000);

  it('keeps the arguments and the cluster in a template', async () => {
    const { page } = session();
    await page.getByTestId('template-name').locator('input').fill('ft-leiden');
    await page.getByTestId('template-save').click();
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => page.getByTestId('field-args').locator('input').inputValue()).toBe('');
    await page.getByTestId('template-choice').click();
    await page.locator('.n-base-select-option', { hasText: 'ft-leiden' }).click();
    await page.getByTestId('template-apply').click();
    await expect.poll(() => page.getByTestId('field-args').locator('input').inputValue()).toBe('4000 12');
    expect(await page.getByTestId('field-cluster').textContent()).toContain('leiden');
    expect(await page.getByTestId('field-program').locator('input').inputValue()).toBe('{assets}/apps/ft-demo.mjs');
  }, 120_000);

  it('is refused by the API too, naming the field', async () => {
    const answer = await session().host.call('jobs.submit', {
      kind: 'rigid',
      components: [{ processors: 1, program: 'app.mjs 400' }],
    });
    expect(answer).toMatchObject({
      ok: false,
      errors: [{ path: 'components[0].program', message: expect.stringContaining('one word without spaces') }],
    });
  });
});
