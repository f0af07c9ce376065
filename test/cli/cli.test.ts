// The command line, end to end: `node bin/concertina.js` as a user runs it (after `npm run build`), and main() in
// process. Misuse must exit 2 with one message naming the culprit and no stack trace.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliStream } from '../../electron/cli/main.js';
import { KOALA_DEFAULTS, averageSeries, cdf } from '../../core/sim/experiments/koala.js';
import { capture } from './harness.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repoRoot, 'bin', 'concertina.js');
const traces = path.resolve(repoRoot, '..', 'shared', 'traces');
const batsimTrace = path.join(traces, 'batsim-medium_late-32.swf.gz');
const haveTrace = existsSync(batsimTrace);
if (!haveTrace) console.warn(`cli.test: skipping the SWF trace test: ${batsimTrace} is absent`);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Run {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Exit 2, nothing on stdout, one `concertina: ...` message mentioning each of `mentions`, no stack trace. */
function expectUsageError(r: Run, ...mentions: string[]): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^concertina: /);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  for (const m of mentions) expect(r.stderr).toContain(m);
}

function parseSingleJson(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

let tmp: string;
const write = (name: string, text: string): string => {
  const file = path.join(tmp, name);
  writeFileSync(file, text);
  return file;
};

beforeAll(() => {
  if (!existsSync(path.join(repoRoot, 'dist', 'electron', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` before the CLI tests');
  }
  tmp = mkdtempSync(path.join(tmpdir(), 'concertina-cli-'));
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const JOBS = [
  { kind: 'rigid', components: [{ processors: 4, program: 'a' }], app: { model: 'fixed', runtime: 100 } },
  {
    kind: 'malleable',
    components: [{ min: 2, max: 8, program: 'b' }],
    submitTime: 10,
    app: { model: 'amdahl', serial: 10, parallel: 400 },
  },
  {
    kind: 'rigid',
    components: [{ processors: 2, program: 'c' }],
    submitTime: 20,
    app: { model: 'fixed', runtime: 50 },
  },
];

describe('concertina simulate', () => {
  it("takes the KOALA experiment's parameters: threshold and its scope, adapt time, launch delay, a figure's load", () => {
    const base = ['simulate', '--workload', 'wm-fast', '--approach', 'pwa', '--max-jobs', '40', '--json'];
    const loaded = cli(
      ...base,
      '--pwa-background',
      '0.85',
      '--threshold',
      '0.9',
      '--threshold-scope',
      'growth',
      '--adapt-s',
      '10',
      '--launch-delay-s',
      '5',
    );
    expect(loaded.code, loaded.stderr).toBe(0);
    const light = cli(...base);
    expect(light.code, light.stderr).toBe(0);
    const a = parseSingleJson(loaded.stdout);
    const b = parseSingleJson(light.stdout);
    expect(a.completed).toBe(40);
    // Local users hold most of DAS-3: the grid is far busier than at the preset's load.
    expect(a.background_utilization as number).toBeGreaterThan((b.background_utilization as number) * 3);
    expectUsageError(
      cli('simulate', '--grid', 'nope.json', '--pra-background', '0.5'),
      '--pra-background and --pwa-background apply to the das3 grid only',
    );
    expectUsageError(cli('simulate', '--threshold', '1.5'), '--threshold must be a fraction above 0 and at most 1');
    expectUsageError(cli('simulate', '--adapt-s', '-1'), '--adapt-s must be a number of seconds, at least 0');
  });

  it('--json prints one JSON object with the run summary in sane ranges', () => {
    const r = cli('simulate', '--json');
    expect(r.code, r.stderr).toBe(0);
    const s = parseSingleJson(r.stdout);
    expect(s).toMatchObject({
      grid: 'das3',
      workload: 'wm',
      approach: 'pra',
      policy: 'fpsma',
      seed: 1,
      refused: 0,
      jobs: 300,
    });
    for (const key of [
      'jobs',
      'completed',
      'failed',
      'cancelled',
      'makespan_s',
      'utilization',
      'mean_wait_s',
      'mean_response_s',
      'mean_execution_s',
      'mean_bounded_slowdown',
      'max_wait_s',
      'mean_avg_size',
      'mean_max_size',
      'grow_ops',
      'shrink_ops',
    ]) {
      expect(typeof s[key], key).toBe('number');
      expect(Number.isFinite(s[key]), key).toBe(true);
      expect(s[key] as number, key).toBeGreaterThanOrEqual(0);
    }
    const n = (k: string) => s[k] as number;
    expect(n('completed') + n('failed') + n('cancelled')).toBe(n('jobs'));
    expect(n('utilization')).toBeLessThanOrEqual(1);
    expect(n('makespan_s')).toBeGreaterThan(0);
    // W_m jobs run on 2 to 46 processors.
    expect(n('mean_avg_size')).toBeGreaterThanOrEqual(2);
    expect(n('mean_max_size')).toBeLessThanOrEqual(46);
    expect(n('mean_response_s')).toBeGreaterThanOrEqual(n('mean_execution_s'));
    expect(n('mean_bounded_slowdown')).toBeGreaterThanOrEqual(1);
    expect(n('max_wait_s')).toBeGreaterThanOrEqual(n('mean_wait_s'));
  });

  it('is deterministic: the same seed twice gives identical JSON, another seed another run', () => {
    const a = cli('simulate', '--json', '--seed', '7', '--workload', 'wmr');
    const b = cli('simulate', '--json', '--seed', '7', '--workload', 'wmr');
    const c = cli('simulate', '--json', '--seed', '8', '--workload', 'wmr');
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(c.code).toBe(0);
    expect(c.stdout).not.toBe(a.stdout);
  });

  it('runs the other policy, approach and a placement override', () => {
    const r = cli(
      'simulate',
      '--json',
      '--workload',
      'wm-fast',
      '--approach',
      'pwa',
      '--policy',
      'egs',
      '--placement',
      'cf',
      '--poll',
      '30',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(parseSingleJson(r.stdout)).toMatchObject({
      approach: 'pwa',
      policy: 'egs',
      placement: 'cf',
      poll_s: 30,
      jobs: 300,
    });
  });

  it('prints an aligned summary table without --json', async () => {
    const out = capture();
    const err = capture();
    const code = await main(['node', 'concertina', 'simulate', '--workload', 'wmr', '--no-background'], {
      stdout: out,
      stderr: err,
    });
    expect(code, err.text).toBe(0);
    expect(out.text).toMatch(/^Simulation: grid das3/);
    expect(out.text).toMatch(/^utilization\s+\d+\.\d\s+%/m);
    expect(out.text).toMatch(/^mean response\s+\d+\.\d\s+s/m);
    expect(out.text).toContain('background 0.0 %');
  });

  it('takes a jobs JSON file, and counts jobs the scheduler refuses without failing', () => {
    const ok = cli('simulate', '--json', '--workload', write('jobs.json', JSON.stringify({ jobs: JOBS })));
    expect(ok.code, ok.stderr).toBe(0);
    expect(parseSingleJson(ok.stdout)).toMatchObject({ jobs: 3, completed: 3, refused: 0 });

    const huge = {
      kind: 'rigid',
      components: [{ processors: 500, program: 'x' }],
      app: { model: 'fixed', runtime: 10 },
    };
    const r = cli('simulate', '--json', '--workload', write('huge.json', JSON.stringify([...JOBS, huge])));
    expect(r.code, r.stderr).toBe(0);
    expect(parseSingleJson(r.stdout)).toMatchObject({ jobs: 3, refused: 1 });
    expect(r.stderr).toContain('1 of 4 jobs refused');
    expect(r.stderr).toContain('job-3: components[0].processors');
  });

  it('refuses an invalid jobs file naming the file and the field', () => {
    const bad = [...JOBS, { kind: 'malleable', components: [{ min: 4, max: 2, program: 'd' }] }];
    const file = write('invalid.json', JSON.stringify({ jobs: bad }));
    expectUsageError(
      cli('simulate', '--workload', file),
      `${file}: jobs[3].components[0].min: must not exceed max (min 4 > max 2)`,
    );
    // A program with its arguments typed into it, as the Submit form and the API refuse it.
    const typed = write(
      'typed-args.json',
      JSON.stringify([{ kind: 'rigid', components: [{ processors: 1, program: 'a.out 400' }] }]),
    );
    expectUsageError(
      cli('simulate', '--workload', typed),
      `${typed}: jobs[0].components[0].program: must be the program alone, one word without spaces: put its arguments in args`,
    );
  });

  it('refuses malformed JSON, a missing file and a bad grid', () => {
    const broken = write('broken.json', '{ "jobs": [ {"kind": ');
    expectUsageError(cli('simulate', '--workload', broken), broken, 'not valid JSON');
    expectUsageError(
      cli('simulate', '--workload', path.join(tmp, 'nope.json')),
      '--workload',
      path.join(tmp, 'nope.json'),
      'no such file',
    );
    expectUsageError(cli('simulate', '--grid', 'das4'), '--grid', 'das4', 'das3');
    const grid = write('grid0.json', JSON.stringify({ clusters: [{ name: 'a', processors: 0 }] }));
    expectUsageError(cli('simulate', '--grid', grid), `${grid}: clusters[0].processors`);
  });

  it('refuses unknown flags, commands and bad values with exit 2', () => {
    expectUsageError(cli('simulate', '--frobnicate'), "unknown option '--frobnicate'");
    expectUsageError(cli('simulate', '--approach', 'foo'), '--approach must be one of pra, pwa (got "foo")');
    expectUsageError(cli('simulate', '--policy', 'greedy'), '--policy', 'fpsma, egs');
    expectUsageError(cli('simulate', '--seed', 'abc'), '--seed', 'abc');
    expectUsageError(cli('simulate', '--seed', '-1'), '--seed', '-1');
    expectUsageError(cli('simulate', '--seed'), '--seed');
    expectUsageError(cli('launch'), "unknown command 'launch'");
    expectUsageError(cli(), 'missing command');
    expectUsageError(cli('experiment', 'nope'), 'koala', 'nope');
    expectUsageError(
      cli('experiment', 'koala', '--background-load', '1.5'),
      '--background-load must be a fraction between 0 and 1',
    );
  });

  it('--out writes summary.json, jobs.csv, utilization.csv and activity.csv', () => {
    const dir = path.join(tmp, 'out', 'wm');
    const r = cli('simulate', '--json', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8'))).toEqual(parseSingleJson(r.stdout));
    const jobs = readFileSync(path.join(dir, 'jobs.csv'), 'utf8').trimEnd().split('\n');
    expect(jobs).toHaveLength(301);
    expect(jobs[0]).toBe(
      'id,name,kind,state,reason,cluster,submit,start,end,wait_s,execution_s,response_s,avg_size,max_size,grows,shrinks,tries,walltime_s,backfilled',
    );
    // W_m's jobs have no walltime: the column is empty.
    expect(jobs[1]).toMatch(/,(true|false)$/);
    expect(jobs[1]).toMatch(/,,(true|false)$/);
    expect(jobs[1]).toMatch(/^j0001,ft-0001|^j0001,gadget2-0001/);
    const utilization = readFileSync(path.join(dir, 'utilization.csv'), 'utf8').trimEnd().split('\n');
    expect(utilization[0]).toBe('t,cluster,concertina,background,processors');
    expect(utilization.some((l) => /^\d+(\.\d+)?,grid,/.test(l))).toBe(true);
    expect(utilization.some((l) => /^\d+(\.\d+)?,vu,.*,85$/.test(l))).toBe(true);
    const activity = readFileSync(path.join(dir, 'activity.csv'), 'utf8').trimEnd().split('\n');
    expect(activity[0]).toBe('t,grows,shrinks');
    expect(activity[2]).toMatch(/^600,\d+,\d+$/);
  });

  it('--grid single:N is one cluster of N processors without threshold or background load', () => {
    const swf = write(
      'walltimes.swf',
      [
        '1 0 -1 50 8 -1 -1 8 100 -1 1 -1 -1 -1 -1 -1 -1 -1', // 50 s of 100 requested
        '2 0 -1 130 8 -1 -1 8 120 -1 1 -1 -1 -1 -1 -1 -1 -1', // waits for 1; ran past its request: killed at 120 s
        '3 5 -1 40 16 -1 -1 16 -1 -1 1 -1 -1 -1 -1 -1 -1 -1', // no request: its run time is its walltime
        '',
      ].join('\n'),
    );
    const dir = path.join(tmp, 'out', 'single');
    const r = cli('simulate', '--json', '--grid', 'single:16', '--workload', swf, '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const s = parseSingleJson(r.stdout);
    // 1 runs 0-50 alone (8 of 16 processors) beside 2 (0-120); 3 needs all 16: 120-160.
    expect(s).toMatchObject({
      grid: 'single:16',
      jobs: 3,
      completed: 2,
      failed: 1,
      makespan_s: 160,
      background_utilization: 0,
      max_wait_s: 115,
    });
    expect(s.mean_bounded_slowdown).toBeCloseTo((1 + 155 / 40) / 2, 12);
    // Over all three, the killed job counted with its wait (0) and what it ran (120 s).
    expect(s.mean_wait_all_s).toBeCloseTo((0 + 0 + 115) / 3, 12);
    expect(s.mean_bounded_slowdown_all).toBeCloseTo((1 + 1 + 155 / 40) / 3, 12);
    expect(s.failure_reasons).toEqual([{ reason: 'killed by the batch system: walltime of N s exceeded', jobs: 1 }]);
    expect(r.stderr.match(/requested time/g)).toHaveLength(1);
    expect(r.stderr).toContain(
      '1 of 3 jobs give no requested time (SWF field 9): their run time is used as their walltime',
    );
    const rows = readFileSync(path.join(dir, 'jobs.csv'), 'utf8').trimEnd().split('\n');
    const killed = rows.find((l) => l.startsWith('swf-2,'))!;
    expect(killed).toContain(',failed,killed by the batch system: walltime of 120 s exceeded,single,');
    expect(killed).toMatch(/,120,false$/);
    // The textbook grid exactly: the utilization table has the one cluster of 16 processors.
    expect(readFileSync(path.join(dir, 'utilization.csv'), 'utf8')).toMatch(/^0,single,16,0,16$/m);
  });

  it('--queue koala|fcfs|easy|cbf: the same trace gives the hand-computed schedule of each', () => {
    // 4 processors. 1: 2 procs, 100 s (0-100). 2: all 4, 10 s, at 1. 3: 2 procs, 10 s, at 2. 4: 2 procs, 200 s, at 3.
    // koala: 3 at 2, 4 at 12 (when 3 ends), 2 at 212 (after 4): waits 0, 211, 0, 9; makespan 222.
    // easy: 2 reserved at 100; 3 backfills at 2 (ends 12); 4 would end past 100 and no processor is spare: it
    // starts at 110 after 2 (100-110): waits 0, 99, 0, 107; makespan 310.
    // fcfs: 2 at 100, then 3 and 4 at 110: waits 0, 99, 108, 107; makespan 310.
    // cbf: as easy here (2 reserved at 100-110; 3 fits before it; 4's earliest start is 110).
    // Backfilled: koala 3 and 4 (2 still waits), easy and cbf 3, fcfs none.
    const swf = write(
      'queues.swf',
      [
        '1 0 -1 100 2 -1 -1 2 100 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '2 1 -1 10 4 -1 -1 4 10 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '3 2 -1 10 2 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '4 3 -1 200 2 -1 -1 2 200 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '',
      ].join('\n'),
    );
    const expected = {
      koala: { makespan_s: 222, max_wait_s: 211, mean_wait_s: 220 / 4, backfilled: 2 },
      easy: { makespan_s: 310, max_wait_s: 107, mean_wait_s: 206 / 4, backfilled: 1 },
      fcfs: { makespan_s: 310, max_wait_s: 108, mean_wait_s: 314 / 4, backfilled: 0 },
      cbf: { makespan_s: 310, max_wait_s: 107, mean_wait_s: 206 / 4, backfilled: 1 },
    };
    for (const [queue, figures] of Object.entries(expected)) {
      const r = cli('simulate', '--json', '--grid', 'single:4', '--workload', swf, '--queue', queue);
      expect(r.code, r.stderr).toBe(0);
      expect(parseSingleJson(r.stdout), queue).toMatchObject({ completed: 4, queue, ...figures });
    }
    // The default is koala.
    expect(parseSingleJson(cli('simulate', '--json', '--grid', 'single:4', '--workload', swf).stdout)).toMatchObject(
      expected.koala,
    );
  });

  it('refuses a bad --queue naming --queue', () => {
    expectUsageError(cli('simulate', '--queue', 'sjf'), '--queue must be one of koala, fcfs, easy, cbf (got "sjf")');
  });

  it('--reservation-depth and --priority: a depth of 1 makes cbf easy; bad values and misplaced flags exit 2 naming the flag', () => {
    // 4 processors. 1: 2 procs, 100 s (0-100). 2: 3 procs, 10 s, at 1. 3: all 4, 10 s, at 2. 4: 1 proc, 200 s, at 3.
    // cbf: 2 reserved at 100-110, 3 at 110-120; 4 would overlap 3's reservation: it starts at 120. Waits 0, 99,
    // 108, 117 (mean 81); makespan 320.
    // easy (and cbf with depth 1): only 2 is reserved, which leaves 1 processor spare: 4 starts at 3; 3 waits for
    // it, 203. Waits 0, 99, 201, 0 (mean 75); makespan 213.
    const swf = write(
      'depth.swf',
      [
        '1 0 -1 100 2 -1 -1 2 100 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '2 1 -1 10 3 -1 -1 3 10 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '3 2 -1 10 4 -1 -1 4 10 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '4 3 -1 200 1 -1 -1 1 200 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '',
      ].join('\n'),
    );
    const run = (...flags: string[]) =>
      parseSingleJson(cli('simulate', '--json', '--grid', 'single:4', '--workload', swf, ...flags).stdout);
    expect(run('--queue', 'cbf')).toMatchObject({ mean_wait_s: 81, makespan_s: 320, backfilled: 0 });
    expect(run('--queue', 'easy')).toMatchObject({ mean_wait_s: 75, makespan_s: 213, backfilled: 1 });
    expect(run('--queue', 'cbf', '--reservation-depth', '1')).toMatchObject({
      mean_wait_s: 75,
      makespan_s: 213,
      queue: 'cbf',
    });
    expect(run('--queue', 'easy', '--reservation-depth', '2')).toMatchObject({
      mean_wait_s: 81,
      makespan_s: 320,
      queue: 'easy',
    });
    expect(run('--queue', 'fcfs', '--priority', 'size')).toMatchObject({ completed: 4 });
    expectUsageError(
      cli('simulate', '--queue', 'cbf', '--reservation-depth', '-1'),
      '--reservation-depth must be a whole number',
    );
    expectUsageError(
      cli('simulate', '--queue', 'easy', '--reservation-depth', 'two'),
      '--reservation-depth must be a whole number',
    );
    expectUsageError(
      cli('simulate', '--queue', 'fcfs', '--reservation-depth', '2'),
      '--reservation-depth applies to --queue easy or cbf only',
    );
    expectUsageError(
      cli('simulate', '--queue', 'cbf', '--priority', 'big'),
      '--priority must be one of submit, wait, size (got "big")',
    );
    expectUsageError(cli('simulate', '--priority', 'size'), '--priority applies to --queue fcfs, easy or cbf only');
  });

  it('refuses a bad --grid single:N naming --grid', () => {
    for (const bad of [
      'single:0',
      'single:-4',
      'single:1.5',
      'single:abc',
      'single:',
      'single:10000001',
      'single:99999999999999999999',
    ]) {
      expectUsageError(cli('simulate', '--grid', bad), '--grid', bad, 'from 1 to 10000000');
    }
  });

  it('refuses an --out that cannot be a directory', () => {
    const file = write('plain-file', 'x');
    expectUsageError(cli('simulate', '--out', file), '--out', file);
  });

  it.skipIf(!haveTrace)('runs an SWF trace (gzipped) on a one-cluster grid', () => {
    const grid = write('one32.json', JSON.stringify({ name: 'one32', clusters: [{ name: 'c1', processors: 32 }] }));
    const r = cli('simulate', '--json', '--grid', grid, '--workload', batsimTrace);
    expect(r.code, r.stderr).toBe(0);
    const s = parseSingleJson(r.stdout);
    expect(s.jobs).toBeGreaterThan(700);
    expect((s.completed as number) + (s.failed as number) + (s.cancelled as number)).toBe(s.jobs);
    expect(s.utilization).toBeGreaterThan(0);
    expect(s.utilization).toBeLessThanOrEqual(1);
    // Every job of this trace gives its requested time (field 9): no note about walltimes taken from run times.
    expect(r.stderr).not.toContain('requested time');
    // The shorthand is the same grid: the same schedule.
    const shorthand = cli('simulate', '--json', '--grid', 'single:32', '--workload', batsimTrace);
    expect(shorthand.code, shorthand.stderr).toBe(0);
    expect({ ...parseSingleJson(shorthand.stdout), grid: grid }).toEqual(s);
  });

  it('--grid from-trace builds one cluster per partition of the trace, sized by the most it ran at once', () => {
    // Partition 3 ran 2 + 4 at once (6), partition 7 ran 5: a 6-processor job fits only on p3's cluster.
    const record = (n: number, submit: number, runtime: number, procs: number, partition: number) =>
      `${n} ${submit} 0 ${runtime} ${procs} -1 -1 ${procs} ${runtime} -1 1 -1 -1 -1 -1 ${partition} -1 -1`;
    const swf = write(
      'parts.swf',
      [record(1, 0, 100, 2, 3), record(2, 10, 100, 4, 3), record(3, 20, 50, 5, 7), record(4, 30, 10, 6, 7), ''].join(
        '\n',
      ),
    );
    const out = path.join(tmp, 'from-trace-out');
    const r = cli('simulate', '--json', '--grid', 'from-trace', '--workload', swf, '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(parseSingleJson(r.stdout)).toMatchObject({ grid: 'from-trace', jobs: 4, completed: 4 });
    const rows = readFileSync(path.join(out, 'jobs.csv'), 'utf8').split('\n');
    expect(rows.find((l) => l.startsWith('swf-4,'))).toContain(',p3,');
    expectUsageError(cli('simulate', '--grid', 'from-trace', '--workload', 'wm'), 'from-trace needs an SWF trace');
  });

  it('skips malformed SWF lines and says so, or refuses them with --strict', () => {
    const record = (n: number, submit: number, runtime: number, procs: number) =>
      `${n} ${submit} -1 ${runtime} ${procs} -1 -1 ${procs} -1 -1 1 -1 -1 -1 -1 -1 -1 -1`;
    const swf = write(
      'small.swf',
      ['; MaxProcs: 8', record(1, 0, 100, 2), record(2, 10, 0, 2), '3 20 x 100', record(4, 30, 50, 4), ''].join('\n'),
    );
    const grid = write('one8.json', JSON.stringify({ clusters: [{ name: 'c1', processors: 8 }] }));
    const r = cli('simulate', '--json', '--grid', grid, '--workload', swf);
    expect(r.code, r.stderr).toBe(0);
    expect(parseSingleJson(r.stdout)).toMatchObject({ jobs: 2, completed: 2 });
    expect(r.stderr).toContain('skipped 2 of 4 records');
    expect(r.stderr).toContain('line 3: run time 0');
    expect(r.stderr).toContain('line 4: malformed');
    expectUsageError(cli('simulate', '--grid', grid, '--workload', swf, '--strict'), `${swf}:4: has 4 fields`);
    const gz = write('bad.swf.gz', 'not gzip');
    expectUsageError(cli('simulate', '--grid', grid, '--workload', gz), gz, 'gzip');
  });
});

describe('concertina experiment koala', () => {
  it('--seeds 1 --json --out DIR: 8 runs, the observations, the report, CSVs and SVGs', () => {
    const dir = path.join(tmp, 'koala');
    const r = cli('experiment', 'koala', '--seeds', '1', '--json', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const result = parseSingleJson(r.stdout) as {
      runs: Array<Record<string, unknown>>;
      observations: Array<Record<string, unknown>>;
    };
    expect(Object.keys(result).sort()).toEqual(['observations', 'parameters', 'runs']);
    // Every parameter the paper leaves unstated, at its default.
    expect((result as unknown as { parameters: unknown }).parameters).toEqual(KOALA_DEFAULTS);
    expect(result.runs).toHaveLength(8);
    for (const run of result.runs) {
      expect(run).toMatchObject({ seed: 1, jobs: 300 });
      expect(['pra', 'pwa']).toContain(run.approach);
      expect(['fpsma', 'egs']).toContain(run.policy);
    }
    expect(new Set(result.runs.map((x) => `${x.approach}/${x.policy}/${x.workload}`)).size).toBe(8);
    expect(result.observations.length).toBeGreaterThanOrEqual(10);
    for (const ob of result.observations) {
      expect(typeof ob.id).toBe('string');
      expect(typeof ob.text).toBe('string');
      expect(typeof ob.holds).toBe('boolean');
      expect(Object.values(ob.figures as Record<string, unknown>).every((v) => typeof v === 'number')).toBe(true);
    }

    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain('| egs-wm |');
    expect(report.indexOf('## Parameters')).toBeLessThan(report.indexOf('## What was run'));
    expect(report).toContain('| threshold (share of each cluster) | `--threshold` | 0.95 | 0.95 |');
    expect(report).toMatch(/## Failed jobs\n\n(No job failed in any run\.|\d+ of 8 runs had failed jobs)/);
    expect(report).toContain('## Sensitivity');
    expect(report).toMatch(/\| pwa-many-at-minimum \|/);
    expect(report).toMatch(/\*\*(holds|does not hold)\*\*/);
    expect(readFileSync(path.join(dir, 'runs.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(9);
    for (const fig of ['fig7', 'fig8']) {
      for (const base of [
        'a-avg-size-cdf',
        'b-max-size-cdf',
        'c-execution-cdf',
        'd-response-cdf',
        'e-utilization',
        'f-activity',
      ]) {
        expect(existsSync(path.join(dir, `${fig}-${base}.csv`)), `${fig}-${base}.csv`).toBe(true);
        expect(readFileSync(path.join(dir, `${fig}-${base}.svg`), 'utf8')).toMatch(/^<svg/);
      }
    }
    const cdfRows = readFileSync(path.join(dir, 'fig7-a-avg-size-cdf.csv'), 'utf8').trimEnd().split('\n');
    expect(cdfRows[0]).toBe('series,value,cumulative_fraction');
    expect(cdfRows.filter((l) => l.startsWith('egs-wmr,')).at(-1)).toMatch(/,1$/);
    expect(readFileSync(path.join(dir, 'fig8-e-utilization.csv'), 'utf8')).toMatch(
      /^t,series,utilization\n0,fpsma-wm-fast,/,
    );
    expect(readFileSync(path.join(dir, 'fig8-f-activity.csv'), 'utf8')).toMatch(
      /^t,series,grows,shrinks\n0,fpsma-wm-fast,/,
    );
  });

  it('takes every unstated parameter as a flag, and refuses --background-load beside a per-figure load', () => {
    const dir = path.join(tmp, 'koala-flags');
    const r = cli(
      'experiment',
      'koala',
      '--seeds',
      '1',
      '--json',
      '--out',
      dir,
      '--pwa-background',
      '0.5',
      '--threshold',
      '1',
      '--threshold-scope',
      'all',
      '--adapt-s',
      '0',
      '--launch-delay-s',
      '0',
      '--poll',
      '30',
      '--growth-at-poll',
      'idle',
    );
    expect(r.code, r.stderr).toBe(0);
    const result = parseSingleJson(r.stdout) as { parameters: unknown };
    expect(result.parameters).toEqual({
      pollIntervalS: 30,
      praBackground: KOALA_DEFAULTS.praBackground,
      pwaBackground: 0.5,
      threshold: 1,
      thresholdScope: 'all',
      adaptS: 0,
      launchDelayS: 0,
      growthAtPoll: 'idle',
    });
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain(
      '| what the threshold caps | `--threshold-scope` | all | growth |',
    );
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain(
      '| what makes growth due at a poll | `--growth-at-poll` | idle | freed |',
    );
    expectUsageError(
      cli('experiment', 'koala', '--growth-at-poll', 'always'),
      '--growth-at-poll must be one of idle, freed',
    );
    expectUsageError(
      cli('experiment', 'koala', '--background-load', '0.3', '--pwa-background', '0.5'),
      '--background-load sets both figures',
    );
    expectUsageError(
      cli('experiment', 'koala', '--threshold-scope', 'some'),
      '--threshold-scope must be one of growth, all',
    );
    expectUsageError(cli('experiment', 'coorm', '--adapt-s', '3'), '--adapt-s applies to experiment koala only');
  });

  it('pools CDFs with ties and averages series of unequal length', () => {
    expect(cdf([3, 1, 2, 2, Number.NaN])).toEqual([
      { value: 1, fraction: 0.25 },
      { value: 2, fraction: 0.75 },
      { value: 3, fraction: 1 },
    ]);
    expect(averageSeries([[1, 2, 3], [3]])).toEqual([2, 2, 3]);
    expect(averageSeries([[1, 2, 3], [3]], 0)).toEqual([2, 1, 1.5]);
  });
});

describe('main() and bin', () => {
  it('returns the exit code in process: 0 for help, 2 for misuse', async () => {
    const out = capture();
    const err = capture();
    expect(await main(['node', 'concertina', '--help'], { stdout: out, stderr: err })).toBe(0);
    expect(out.text).toContain('simulate');
    const err2 = capture();
    expect(await main(['node', 'concertina', 'simulate', '--tries', '0'], { stdout: capture(), stderr: err2 })).toBe(2);
    expect(err2.text).toBe('concertina: --tries must be a whole number from 1 to 9007199254740991 (got "0")\n');
  });

  it('reports an unexpected error with its message, exit 1 and no stack trace', async () => {
    const broken: CliStream = {
      write() {
        throw new Error('disk on fire');
      },
    };
    const err = capture();
    expect(
      await main(['node', 'concertina', 'simulate', '--workload', 'wm', '--max-jobs', '5'], {
        stdout: broken,
        stderr: err,
      }),
    ).toBe(1);
    expect(err.text).toMatch(/^concertina: internal error: disk on fire/);
    expect(err.text).not.toMatch(/^\s+at /m);
  });

  it('bin says to run npm install when dist/ is missing', () => {
    const root = path.join(tmp, 'unbuilt');
    mkdirSync(path.join(root, 'bin'), { recursive: true });
    copyFileSync(bin, path.join(root, 'bin', 'concertina.js'));
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ type: 'module' }));
    const r = spawnSync(process.execPath, [path.join(root, 'bin', 'concertina.js'), 'simulate'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('npm install');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
