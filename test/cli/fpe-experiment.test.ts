// `concertina experiment fpe`, in process through main(): a few tests so that it runs in a second; the JSON on stdout,
// the files of --out, the same tables for the same seed, and misuse (exit 2, the flag named).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDirForFile } from './harness.js';

const tmpDir = tempDirForFile('concertina-fpe-');
const run = runCli;

type Stat = { min: number | null; avg: number | null; max: number | null };
type Row = Record<string, Stat> & { variant: string };
interface Result {
  config: { tests: number; seed: number; nodes: number };
  table1: Row[];
  table2: Row[];
  observations: Array<{ id: string; text: string; holds: boolean; measured: string }>;
}

const VARIANTS = ['rigid', 'noX', '2X', '2X+c', 'infX', 'infX+c'];

async function json(...args: string[]): Promise<Result> {
  const r = await run(
    'experiment',
    'fpe',
    '--json',
    '--out',
    path.join(tmpDir.path, `json-${args.join('-')}`),
    ...args,
  );
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Result;
}

/** The tables without the scheduling times, which are wall-clock measurements. */
const untimed = (r: Result) => ({ table1: r.table1.map(({ schedule_ms: _ms, ...rest }) => rest), table2: r.table2 });

describe('concertina experiment fpe', () => {
  it('--json prints one object with both tables and the observations; --out writes the report and the CSV files', async () => {
    const dir = path.join(tmpDir.path, 'out');
    const r = await run('experiment', 'fpe', '--tests', '6', '--seed', '3', '--json', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as Result;
    expect(Object.keys(result).sort()).toEqual(['config', 'observations', 'table1', 'table2']);
    expect(result.config).toEqual({ tests: 6, seed: 3, nodes: 100 });
    expect(result.table1.map((x) => x.variant)).toEqual(VARIANTS);
    expect(result.table2.map((x) => x.variant)).toEqual(VARIANTS);
    for (const row of result.table1) {
      expect(Object.keys(row).sort()).toEqual([
        'effective_utilisation_percent',
        'makespan_relative',
        'schedule_ms',
        'utilisation_relative',
        'variant',
        'waste_percent',
      ]);
      for (const k of Object.keys(row).filter((k) => k !== 'variant')) {
        const s = row[k]!;
        expect(Object.keys(s).sort(), `${row.variant} ${k}`).toEqual(['avg', 'max', 'min']);
        expect(s.min!).toBeLessThanOrEqual(s.avg!);
        expect(s.avg!).toBeLessThanOrEqual(s.max! + 1e-9);
      }
    }
    for (const row of result.table2) {
      expect(Object.keys(row).sort()).toEqual([
        'app_waste_percent',
        'completion_relative',
        'expanded_percent',
        'expansion_percent',
        'variant',
        'waiting_relative',
      ]);
    }
    const t1 = (v: string) => result.table1.find((x) => x.variant === v)!;
    const t2 = (v: string) => result.table2.find((x) => x.variant === v)!;
    // The baseline is relative to itself; noX never wastes nor expands.
    expect(t1('rigid').makespan_relative).toEqual({ min: 1, avg: 1, max: 1 });
    expect(t1('noX').waste_percent).toEqual({ min: 0, avg: 0, max: 0 });
    expect(t2('noX').expansion_percent).toEqual({ min: 0, avg: 0, max: 0 });
    expect(t1('rigid').waste_percent!.min!).toBeGreaterThan(0);
    expect(t1('2X+c').schedule_ms!.avg!).toBeGreaterThan(0);
    expect(result.observations.length).toBeGreaterThan(5);
    for (const ob of result.observations) {
      expect(typeof ob.holds).toBe('boolean');
      expect(ob.measured.length).toBeGreaterThan(0);
    }

    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain('# Fully-predictably evolving applications');
    expect(report).toContain('## The cluster size');
    expect(report).toMatch(/\*\*(holds|does not hold)\*\*/);
    expect(readFileSync(path.join(dir, 'tests.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(1 + 6 * 6);
    expect(readFileSync(path.join(dir, 'table1.csv'), 'utf8')).toMatch(
      /^variant,metric,min,avg,max\nrigid,waste_percent,/,
    );
    expect(readFileSync(path.join(dir, 'table2.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(1 + 6 * 5);
    expect(r.stderr).toContain(`Wrote 4 files to ${dir}`);
  });

  it('gives the same tables for the same seed (the scheduling times aside), other tables for another seed or cluster', async () => {
    const a = await json('--tests', '4', '--seed', '11');
    const b = await json('--tests', '4', '--seed', '11');
    const c = await json('--tests', '4', '--seed', '12');
    const d = await json('--tests', '4', '--seed', '11', '--nodes', '150');
    expect(untimed(b)).toEqual(untimed(a));
    expect(untimed(c)).not.toEqual(untimed(a));
    expect(untimed(d)).not.toEqual(untimed(a));
    expect(d.config.nodes).toBe(150);
  });

  it('without --json prints both tables and the observations', async () => {
    const r = await run('experiment', 'fpe', '--tests', '3', '--out', path.join(tmpDir.path, 'text'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Table 1 (system-centric)');
    expect(r.stdout).toContain('Table 2 (user-centric)');
    expect(r.stdout).toMatch(/Observations of the paper: \d+ of \d+ hold/);
    expect(existsSync(path.join(tmpDir.path, 'text', 'report.md'))).toBe(true);
    expect(r.stderr).toBe('');
  });

  it('is listed in the help of experiment with its flags', async () => {
    const r = await run('experiment', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/koala, coorm, fpe, interactive or\s+dbes/);
    expect(r.stdout).toMatch(/--tests <n>\s+fpe:/);
    expect(r.stdout).toMatch(/--nodes <n>\s+fpe:/);
  });

  it('refuses bad flags with exit 2 and one message naming the flag', async () => {
    const cases: Array<[string[], string]> = [
      [['experiment', 'fpe', '--tests', '0'], '--tests must be a whole number from 1'],
      [['experiment', 'fpe', '--tests', 'many'], '--tests must be a whole number'],
      [['experiment', 'fpe', '--nodes', '50'], '--nodes must be a whole number from 75'],
      [['experiment', 'fpe', '--seed', '-1'], '--seed must be a whole number from 0'],
      [['experiment', 'fpe', '--seeds', '2'], '--seeds applies to experiments koala, coorm, interactive and dbes only'],
      [['experiment', 'fpe', '--steps', '10'], '--steps applies to experiment coorm only'],
      [['experiment', 'fpe', '--poll', '30'], '--poll applies to experiment koala only'],
      [['experiment', 'koala', '--tests', '10'], '--tests applies to experiment fpe only'],
      [['experiment', 'coorm', '--nodes', '100'], '--nodes applies to experiment fpe only'],
      [['experiment', 'evolving'], 'koala, coorm, fpe'],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args, '--out', path.join(tmpDir.path, 'never'));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
      expect(r.stdout).toBe('');
    }
    expect(existsSync(path.join(tmpDir.path, 'never'))).toBe(false);
  });
});
