// `concertina experiment coorm`, in process through main(): a reduced configuration (one seed, a short AMR, a few
// points per figure) so that it runs in seconds; the JSON on stdout, the files of --out, and misuse (exit 2).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDirForFile } from './harness.js';

const tmpDir = tempDirForFile('concertina-coorm-');
const run = runCli;

const REDUCED = [
  '--seeds',
  '1',
  '--steps',
  '100',
  '--factors',
  '0.5,1,2',
  '--intervals',
  '0,300,600',
  '--two-psa-intervals',
  '0,300',
];

describe('concertina experiment coorm', () => {
  it('--json prints one object with the three figures; --out writes the report, CSVs and SVGs', async () => {
    const dir = path.join(tmpDir.path, 'out');
    const r = await run('experiment', 'coorm', ...REDUCED, '--json', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as Record<string, Array<Record<string, unknown>>>;
    expect(Object.keys(result).sort()).toEqual(['announce', 'observations', 'overcommit', 'two_psa']);

    expect(result.overcommit).toHaveLength(6);
    for (const p of result.overcommit!) {
      expect(Object.keys(p).sort()).toEqual(['amr_used_node_s', 'factor', 'mode', 'psa_waste_node_s']);
      expect([0.5, 1, 2]).toContain(p.factor);
      expect(['static', 'dynamic']).toContain(p.mode);
      expect(p.amr_used_node_s as number).toBeGreaterThan(0);
      expect(p.psa_waste_node_s as number).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(result.overcommit!.map((p) => `${String(p.factor)}/${String(p.mode)}`)).size).toBe(6);

    expect(result.announce!.map((p) => p.interval_s)).toEqual([0, 300, 600]);
    for (const p of result.announce!) {
      expect(Object.keys(p).sort()).toEqual(['amr_end_time_s', 'interval_s', 'psa_waste_node_s', 'used_percent']);
      expect(p.used_percent as number).toBeGreaterThan(0);
      expect(p.used_percent as number).toBeLessThanOrEqual(100);
      expect(p.amr_end_time_s as number).toBeGreaterThan(0);
    }
    expect(result.two_psa).toHaveLength(4);
    for (const p of result.two_psa!) {
      expect(Object.keys(p).sort()).toEqual(['interval_s', 'mode', 'used_percent']);
      expect(['coorm', 'strict']).toContain(p.mode);
    }
    for (const ob of result.observations!) {
      expect(typeof ob.text).toBe('string');
      expect(typeof ob.holds).toBe('boolean');
    }

    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain('# CooRMv2 evaluation');
    expect(report).toMatch(/\*\*(holds|does not hold)\*\*/);
    const runs = readFileSync(path.join(dir, 'runs.csv'), 'utf8').trimEnd().split('\n');
    // 3 factors × 2 modes + 3 intervals + 2 intervals × 2 sharings, one seed
    expect(runs).toHaveLength(1 + 6 + 3 + 4);
    expect(runs[0]).toMatch(/^figure,seed,factor,mode,interval_s,/);
    expect(readFileSync(path.join(dir, 'fig9-overcommit.csv'), 'utf8')).toMatch(
      /^factor,mode,amr_used_node_s,psa_waste_node_s\n0.5,static,/,
    );
    expect(readFileSync(path.join(dir, 'fig10-announce.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(4);
    expect(readFileSync(path.join(dir, 'fig11-two-psa.csv'), 'utf8')).toMatch(
      /^interval_s,mode,used_percent\n0,coorm,/,
    );
    for (const svg of [
      'fig9-amr-used',
      'fig9-psa-waste',
      'fig10-psa-waste',
      'fig10-used',
      'fig10-amr-end',
      'fig11-used',
    ]) {
      expect(existsSync(path.join(dir, `${svg}.svg`)), svg).toBe(true);
      expect(readFileSync(path.join(dir, `${svg}.svg`), 'utf8')).toMatch(/^<svg/);
    }
    expect(r.stderr).toContain(`Wrote 11 files to ${dir}`);
  });

  it('without --json prints a summary table and the observations', async () => {
    const r = await run('experiment', 'coorm', ...REDUCED, '--out', path.join(tmpDir.path, 'text'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Figure 9 (spontaneous updates)');
    expect(r.stdout).toMatch(/Observations of the paper: \d+ of \d+ hold/);
    expect(r.stderr).toBe('');
  });

  it('is listed in the help of experiment, with its own default seeds', async () => {
    const r = await run('experiment', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/koala, coorm, fpe, interactive or\s+dbes/);
    expect(r.stdout).toContain('coorm 3');
  });

  it('refuses bad flags with exit 2 and one message, no stack trace', async () => {
    const cases: Array<[string[], string]> = [
      [['experiment', 'coorm', '--factors', '1,abc'], '--factors must be a comma-separated list'],
      [['experiment', 'coorm', '--factors', '0'], '--factors must be a comma-separated list'],
      [['experiment', 'coorm', '--intervals', '-5'], '--intervals must be a comma-separated list'],
      [['experiment', 'coorm', '--seeds', '0'], '--seeds must be a whole number from 1'],
      [['experiment', 'coorm', '--steps', 'ten'], '--steps must be a whole number'],
      [['experiment', 'coorm', '--poll', '30'], '--poll applies to experiment koala only'],
      [['experiment', 'koala', '--steps', '10'], '--steps applies to experiment coorm only'],
      [['experiment', 'koala', '--two-psa-intervals', '10'], '--two-psa-intervals applies to experiment coorm only'],
      [['experiment', 'amr'], 'koala, coorm'],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args, '--out', path.join(tmpDir.path, 'never'));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^concertina: /);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
  });
});
