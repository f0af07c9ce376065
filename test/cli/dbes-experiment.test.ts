// `concertina experiment dbes`, in process through main(): one seed and one registered policy that is not one of the
// paper's (it runs under PWA with backfilling) beside one that does not exist, so that it runs in seconds; the JSON on
// stdout, the files of --out, the skipped strategy's reason, the text summary and misuse (exit 2).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDirForFile } from './harness.js';

const tmpDir = tempDirForFile('concertina-dbes-');
const run = runCli;

describe('concertina experiment dbes', () => {
  it('--json prints one object with fig4, fig6, fig7 and the observations; --out writes the report, CSVs and SVGs', async () => {
    const dir = path.join(tmpDir.path, 'out');
    const r = await run(
      'experiment',
      'dbes',
      '--seeds',
      '1',
      '--strategies',
      'equipartition,no-such-policy',
      '--json',
      '--out',
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as Record<string, unknown>;
    for (const key of ['fig4', 'fig6', 'fig7', 'observations']) expect(result, key).toHaveProperty(key);
    const fig4 = result.fig4 as Array<Record<string, unknown>>;
    expect(fig4.map((p) => p.malleable_percent)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    for (const p of fig4) {
      expect(Object.keys(p).sort()).toEqual(['completion_s', 'malleable_percent', 'strategy']);
      expect(p.strategy).toBe('equipartition');
      expect(p.completion_s as number).toBeGreaterThan(0);
    }
    const fig6 = result.fig6 as Array<Record<string, unknown>>;
    expect(fig6).toHaveLength(10);
    for (const p of fig6) {
      expect(Object.keys(p).sort()).toEqual(['malleable_percent', 'strategy', 'utilization']);
      expect(p.utilization as number).toBeGreaterThan(0);
      expect(p.utilization as number).toBeLessThanOrEqual(1);
    }
    const fig7 = result.fig7 as Array<Record<string, unknown>>;
    expect(fig7).toHaveLength(1);
    expect(fig7[0]).toMatchObject({ strategy: 'equipartition' });
    for (const key of ['completion_s', 'evolving_satisfied', 'shrunk_for_evolving'])
      expect(typeof fig7[0]![key], key).toBe('number');
    const observations = result.observations as Array<{ id: string; holds: boolean | null; measured: string }>;
    expect(observations.length).toBeGreaterThan(0);
    for (const ob of observations) expect([true, false, null]).toContain(ob.holds);
    expect(result.skipped).toEqual([
      { strategy: 'no-such-policy', reason: expect.stringContaining('no malleability policy named "no-such-policy"') },
    ]);
    expect(r.stderr).toContain('Skipping strategy no-such-policy: no malleability policy named "no-such-policy"');

    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain("# The DBES paper's evaluation on the modified ESP benchmark");
    expect(report).toContain('## Figure 4');
    expect(report).toContain('## Figure 7 and Table II');
    expect(readFileSync(path.join(dir, 'fig4.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(11);
    const runsCsv = readFileSync(path.join(dir, 'runs.csv'), 'utf8').trimEnd().split('\n');
    expect(runsCsv).toHaveLength(1 + 11);
    expect(runsCsv[0]).toContain('shrunk_for_evolving,z_wait_s,events');
    for (const svg of ['fig4', 'fig6', 'fig7'])
      expect(readFileSync(path.join(dir, `${svg}.svg`), 'utf8'), svg).toMatch(/^<svg/);
    expect(existsSync(path.join(dir, 'fig5.csv'))).toBe(true);
    expect(r.stderr).toContain(`Wrote 9 files to ${dir}`);
  });

  it('without a registered strategy runs nothing and names every strategy it skipped, and why', async () => {
    const r = await run(
      'experiment',
      'dbes',
      '--seeds',
      '1',
      '--strategies',
      'no-such-policy,other-missing',
      '--out',
      path.join(tmpDir.path, 'none'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('strategies run: none');
    expect(r.stderr).toContain('Skipping strategy no-such-policy');
    expect(r.stderr).toContain('Skipping strategy other-missing');
    expect(r.stdout).toMatch(/Observations of the paper: 0 of \d+ hold/);
  });

  it('is listed in the help of experiment with its flag', async () => {
    const r = await run('experiment', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/koala, coorm, fpe, interactive or\s+dbes/);
    expect(r.stdout).toMatch(/--strategies <list>\s+dbes:/);
    expect(r.stdout).toContain('dbes 3');
  });

  it('refuses bad flags with exit 2 and one message naming the flag', async () => {
    const cases: Array<[string[], string]> = [
      [['experiment', 'dbes', '--seeds', '0'], '--seeds must be a whole number from 1'],
      [['experiment', 'dbes', '--strategies', 'Bad Name'], '--strategies must be a comma-separated list'],
      [['experiment', 'dbes', '--poll', '30'], '--poll applies to experiment koala only'],
      [['experiment', 'dbes', '--tests', '3'], '--tests applies to experiment fpe only'],
      [['experiment', 'koala', '--strategies', 'egs'], '--strategies applies to experiment dbes only'],
      [['experiment', 'fpe', '--strategies', 'egs'], '--strategies applies to experiment dbes only'],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.stdout).toBe('');
    }
  });
});
