// What the CLI writes out is safe to open: no terminal control in what it prints of users' text, no spreadsheet
// formula in its CSV files; and the JSON it reads may start with a byte-order mark, its errors saying line and column.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/concertina.js', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// C0 but line feed, DEL and C1: none may reach the terminal.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const HOSTILE = 'evil\u001b[31m\u0007\u009b2J\u001b]0;owned\u0007';

let tmp: string;
const write = (name: string, text: string | Buffer): string => {
  const file = path.join(tmp, name);
  writeFileSync(file, text);
  return file;
};
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

beforeAll(() => {
  if (!existsSync(path.join(repoRoot, 'dist', 'electron', 'cli', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  tmp = mkdtempSync(path.join(tmpdir(), 'concertina-safety-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const rigid = (id: string, processors: number) => ({
  id,
  kind: 'rigid',
  components: [{ processors, program: 'a' }],
  app: { model: 'fixed', runtime: 10 },
});

describe('terminal output of users’ text', () => {
  it('the refused-jobs warning prints a job id with escape sequences and a BEL without them', () => {
    const file = write('hostile.json', JSON.stringify([rigid('fine', 2), rigid(HOSTILE, 100_000)]));
    const r = cli('simulate', '--json', '--workload', file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('1 of 2 jobs refused');
    expect(r.stderr).toContain('\n  evil: components[0].processors: is larger than every cluster');
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it('an input error naming a hostile job id, exit 2', () => {
    const file = write('duplicate.json', JSON.stringify([rigid(HOSTILE, 2), rigid(HOSTILE, 2)]));
    const r = cli('simulate', '--workload', file);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('jobs[1].id: duplicates id "evil');
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it('the skip reasons of an SWF file quoting its text', () => {
    const record = (n: number, third: string) => `${n} 0 ${third} 100 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1`;
    const swf = write('hostile.swf', [record(1, '-1'), record(2, `x\u001b[2J\u0007`), ''].join('\n'));
    const r = cli(
      'simulate',
      '--json',
      '--grid',
      write('g.json', JSON.stringify({ clusters: [{ name: 'c', processors: 8 }] })),
      '--workload',
      swf,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('line 2: malformed: field 3 "x" is not a number');
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it('an unknown flag and a file name with escape sequences', () => {
    expect(cli('simulate', `--${HOSTILE}`).stderr).not.toMatch(CONTROL);
    const r = cli('simulate', '--workload', path.join(tmp, `${HOSTILE}.json`));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot read the file');
    expect(r.stderr).not.toMatch(CONTROL);
  });
});

describe('CSV files', () => {
  it('jobs.csv writes a job named like a formula as text, numbers as numbers', () => {
    const jobs = [
      { ...rigid('=HYPERLINK("http://x","y")', 2), name: '@SUM(A1:A9)' },
      { ...rigid('-2+3', 2), name: 'plain' },
    ];
    const dir = path.join(tmp, 'out');
    const r = cli(
      'simulate',
      '--json',
      '--no-background',
      '--workload',
      write('formulas.json', JSON.stringify(jobs)),
      '--out',
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(path.join(dir, 'jobs.csv'), 'utf8').trimEnd().split('\n');
    const byId = (prefix: string) => lines.find((l) => l.startsWith(prefix))!;
    expect(byId(`"'=HYPERLINK(""http://x"",""y"")",'@SUM(A1:A9),rigid,completed,`)).toBeDefined();
    expect(byId(`'-2+3,plain,rigid,completed,`)).toBeDefined();
    for (const line of lines.slice(1)) expect(line).not.toMatch(/(^|,)[=+@-](?!\d)/);
    expect(readFileSync(path.join(dir, 'utilization.csv'), 'utf8')).toMatch(
      /^t,cluster,concertina,background,processors\n0,/,
    );
  });
});

describe('JSON input', () => {
  it('accepts grid and jobs files that start with a UTF-8 byte-order mark', () => {
    const grid = write(
      'bom-grid.json',
      Buffer.concat([BOM, Buffer.from(JSON.stringify({ clusters: [{ name: 'c', processors: 8 }] }))]),
    );
    const jobs = write('bom-jobs.json', Buffer.concat([BOM, Buffer.from(JSON.stringify([rigid('a', 2)]))]));
    const r = cli('simulate', '--json', '--grid', grid, '--workload', jobs);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ jobs: 1, completed: 1 });
  });

  it('names the file, line and column of a syntax error, even where the engine gives no position', () => {
    const grid = write('cut-grid.json', '{\n  "clusters": [\n    {"name": "c", "processors": 8},\n  ]\n}');
    const r = cli('simulate', '--grid', grid);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^concertina: ${grid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:3: is not valid JSON: Unexpected token ']'\n$`,
      ),
    );
    const jobs = write('bad-word.json', '[\n  {"kind": tru}\n]');
    expect(cli('simulate', '--workload', jobs).stderr).toContain(`${jobs}:2:15: is not valid JSON`);
  });
});
