// `concertina experiment interactive`, in process through main(): one seed, two loads, one simulated minute per run,
// so it runs in seconds; the JSON on stdout, the files of --out, the text summary and misuse (exit 2).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDirForFile } from './harness.js';

const tmpDir = tempDirForFile('concertina-interactive-');
const run = runCli;

const REDUCED = ['--seeds', '1', '--loads', '2,0.5', '--minutes', '1'];

describe('concertina experiment interactive', () => {
  it('--json prints one object with the points, the policies and the claims; --out writes the report, CSVs and SVGs', async () => {
    const dir = path.join(tmpDir.path, 'out');
    const r = await run('experiment', 'interactive', ...REDUCED, '--json', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as Record<string, Array<Record<string, unknown>>>;
    expect(Object.keys(result).sort()).toEqual(['observations', 'points', 'policies']);
    // 2 loads × 3 models × with and without overruns, loads in increasing order
    expect(result.points).toHaveLength(12);
    expect(result.points!.map((p) => p.load)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 2, 2, 2, 2, 2, 2]);
    for (const p of result.points!) {
      expect(['exclusive', 'interleaved', 'interleaved-widened']).toContain(p.model);
      expect(p.utilization_percent as number).toBeGreaterThan(0);
      expect(p.utilization_percent as number).toBeLessThanOrEqual(100);
      expect(p.admitted_percent as number).toBeLessThanOrEqual(100);
      expect(p.misses_without_overrun).toBe(0);
      if (p.overruns === false) expect(p.misses).toBe(0);
    }
    // 3 policies × 2 interleaved models at load 1
    expect(result.policies).toHaveLength(6);
    expect(new Set(result.policies!.map((p) => p.placement))).toEqual(new Set(['first-fit', 'best-fit', 'worst-fit']));
    expect(result.observations!.map((o) => o.id)).toEqual([
      'utilization-interleaved',
      'utilization-interleaved-widened',
      'throughput',
      'guarantee',
      'overrun',
      'rescheduling',
    ]);
    for (const ob of result.observations!) expect(typeof ob.holds).toBe('boolean');
    expect(result.observations!.find((o) => o.id === 'guarantee')!.holds).toBe(true);

    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain('# Interactive periodic divisible jobs');
    expect(report).toMatch(/\*\*(holds|does not hold)\*\*/);
    expect(report).toContain('n_min = ⌈ln γ / ln β⌉');
    const runs = readFileSync(path.join(dir, 'runs.csv'), 'utf8').trimEnd().split('\n');
    expect(runs).toHaveLength(1 + 12 + 6);
    expect(runs[0]).toMatch(/^kind,seed,load,model,overruns,placement,arrived,admitted,/);
    expect(readFileSync(path.join(dir, 'points.csv'), 'utf8')).toMatch(
      /^model,load,overruns,placement,utilization_percent,/,
    );
    expect(readFileSync(path.join(dir, 'policies.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(7);
    for (const svg of ['utilization', 'admitted', 'misses']) {
      expect(existsSync(path.join(dir, `${svg}.svg`)), svg).toBe(true);
      expect(readFileSync(path.join(dir, `${svg}.svg`), 'utf8')).toMatch(/^<svg/);
    }
    expect(r.stderr).toContain(`Wrote 7 files to ${dir}`);
  });

  it('without --json prints a summary table and the claims', async () => {
    const r = await run('experiment', 'interactive', ...REDUCED, '--out', path.join(tmpDir.path, 'text'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Interactive periodic divisible jobs: 18 runs (64 nodes, seeds 1..1)');
    expect(r.stdout).toMatch(/Claims of the paper: \d of 6 hold/);
    expect(r.stderr).toBe('');
  });

  it('is listed in the help of experiment, with its flags and default seeds', async () => {
    const r = await run('experiment', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('interactive 3');
    expect(r.stdout).toContain('--loads <list>');
    expect(r.stdout).toContain('--overrun-share <fraction>');
    expect(r.stdout).toContain('--minutes <n>');
  });

  it('refuses bad flags with exit 2, naming the flag, no stack trace', async () => {
    const cases: Array<[string[], string]> = [
      [['experiment', 'interactive', '--loads', '1,abc'], '--loads must be a comma-separated list'],
      [['experiment', 'interactive', '--loads', '0'], '--loads must be a comma-separated list'],
      [['experiment', 'interactive', '--loads', '11'], '--loads must be a comma-separated list'],
      [['experiment', 'interactive', '--overrun-share', '1.5'], '--overrun-share must be a fraction'],
      [['experiment', 'interactive', '--overrun-share', '0'], '--overrun-share must be a fraction'],
      [['experiment', 'interactive', '--minutes', '0'], '--minutes must be a whole number from 1'],
      [['experiment', 'interactive', '--seeds', 'x'], '--seeds must be a whole number'],
      [['experiment', 'interactive', '--steps', '10'], '--steps applies to experiment coorm only'],
      [['experiment', 'interactive', '--poll', '30'], '--poll applies to experiment koala only'],
      [['experiment', 'koala', '--loads', '1'], '--loads applies to experiment interactive only'],
      [['experiment', 'coorm', '--overrun-share', '0.5'], '--overrun-share applies to experiment interactive only'],
      [['experiment', 'coorm', '--minutes', '5'], '--minutes applies to experiment interactive only'],
      [['experiment', 'fcfs'], 'koala, coorm, fpe, interactive'],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args, '--out', path.join(tmpDir.path, 'never'));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^concertina: /);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
    expect(existsSync(path.join(tmpDir.path, 'never'))).toBe(false);
  });
});
