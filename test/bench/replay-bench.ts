// Whole-process figures of trace replay (issue 17): `concertina simulate` as a user runs it, start-up included, on the
// traces pyss was timed on, under koala, fcfs and easy; the start-up of a one-job run against a bare `node -e 0`; the
// peak memory of the NASA replay; the LCG grid trace on a grid built from it. Runs are interleaved (each round runs
// every command once) and figures are medians. Part of `npm run bench`; `node dist/test/bench/replay-bench.js`
// prints its figures alone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// dist/test/bench/ when built.
const repoRoot = path.resolve(here, '..', '..', '..');
const tracesDir = path.resolve(repoRoot, '..', 'shared', 'traces');
const bin = path.join(repoRoot, 'bin', 'concertina.js');
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The issue's traces: name, file, processors of the one cluster, jobs kept; pyss's FCFS and EASY wall seconds. */
export const REPLAY_TRACES = [
  { name: 'batsim', file: 'batsim-medium_late-32.swf.gz', processors: 32, pyss: { fcfs: 0.221, easy: 0.223 } },
  { name: 'hpc2n', file: 'HPC2N-2002-prefix3170.swf.gz', processors: 240, maxJobs: 3000, pyss: { fcfs: 0.337, easy: 0.375 } },
  { name: 'sdsc', file: 'SDSC-SP2-1998-prefix5K.swf.gz', processors: 128, pyss: { fcfs: 0.448, easy: 0.561 } },
  { name: 'nasa', file: 'NASA-iPSC-1993-3.1-cln.swf.gz', processors: 128, pyss: { fcfs: 1.412, easy: 1.421 } },
  { name: 'lublin', file: 'lublin_256.swf.gz', processors: 256, pyss: { fcfs: 0.551, easy: 5.088 } },
] as const;
export const REPLAY_POLICIES = ['koala', 'fcfs', 'easy'] as const;

/** A run longer than this is stopped and counts as +Infinity (null in the JSON; its target not met). */
const TIMEOUT_S = 120;

const seconds = (v: number | null | undefined) => (v === null || v === undefined ? 'not measured' : Number.isFinite(v) ? `${v} s` : `over ${TIMEOUT_S} s (stopped)`);

/** Wall seconds of one run of `node args...`; throws when it fails. */
function wall(args: readonly string[], env: NodeJS.ProcessEnv = process.env): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: TIMEOUT_S * 1000 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.signal !== null && s >= TIMEOUT_S) return Number.POSITIVE_INFINITY;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} ended with ${r.status}: ${r.stderr}`);
  return s;
}

function simulateArgs(file: string, grid: string, queue: string, extra: readonly string[] = []): string[] {
  return [bin, 'simulate', '--grid', grid, '--workload', path.join(tracesDir, file), '--queue', queue, '--json', ...extra];
}

/** Interleaved medians of `rounds` runs of each command; a command whose first run takes over `slowS` runs once. */
function interleaved(commands: Record<string, string[]>, rounds: number, slowS = 5): Record<string, number> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [key, args] of Object.entries(commands)) {
      if (r > 0 && samples[key]![0]! > slowS) continue;
      samples[key]!.push(wall(args));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round(median(v))]));
}

export function replayBench(log: (message: string) => void, rounds = 5): Record<string, unknown> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-replay-bench-'));
  try {
    const one = path.join(tmp, 'one.swf');
    writeFileSync(one, '1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n');
    const start = interleaved({ bare: ['-e', '0'], cli: [bin, 'simulate', '--grid', 'single:4', '--workload', one, '--json'] }, Math.max(rounds, 9));
    const cli_startup_ms = round(start.cli! * 1000, 1);
    const node_bare_ms = round(start.bare! * 1000, 1);
    log(`start-up of a one-job simulate: ${cli_startup_ms} ms, bare node ${node_bare_ms} ms (${round(start.cli! / start.bare!, 2)}x; medians of ${Math.max(rounds, 9)}, interleaved)`);
    const out: Record<string, unknown> = { cli_startup_ms, node_bare_ms, cli_startup_ratio: round(start.cli! / start.bare!, 2) };
    if (!existsSync(tracesDir)) {
      log(`${tracesDir} not found: the trace replay figures are skipped`);
      return { ...out, replay_skipped_reason: `${tracesDir} not found` };
    }
    const commands: Record<string, string[]> = {};
    for (const t of REPLAY_TRACES) {
      for (const q of REPLAY_POLICIES) {
        commands[`replay_${t.name}_${q}_s`] = simulateArgs(t.file, `single:${t.processors}`, q, 'maxJobs' in t ? ['--max-jobs', String(t.maxJobs)] : []);
      }
    }
    const replays = interleaved(commands, rounds);
    for (const [k, v] of Object.entries(replays)) log(`${k}: ${seconds(v)}`);
    Object.assign(out, replays);

    const rssFile = path.join(tmp, 'rss');
    const preload = pathToFileURL(path.join(repoRoot, 'test', 'bench', 'replay-rss.mjs')).href;
    wall(['--import', preload, ...simulateArgs('NASA-iPSC-1993-3.1-cln.swf.gz', 'single:128', 'koala')], { ...process.env, CONCERTINA_RSS_FILE: rssFile });
    out.replay_nasa_peak_rss_mb = round(Number(readFileSync(rssFile, 'utf8')) / 1024, 1);
    log(`NASA replay peak RSS: ${out.replay_nasa_peak_rss_mb} MiB`);

    let lcg: Record<string, number | null>;
    try {
      lcg = interleaved(
      {
        lcg_s: simulateArgs('LCG-2005-1.swf.gz', 'from-trace', 'koala', ['--placement', 'wf']),
        lcg_easy_s: simulateArgs('LCG-2005-1.swf.gz', 'from-trace', 'easy', ['--placement', 'wf']),
        // The same trace on the far smaller DAS-3 preset: a queue of tens of thousands of waiting jobs, which the
        // placement queue's index must step over at each pass (46 s before it).
        lcg_das3_s: simulateArgs('LCG-2005-1.swf.gz', 'das3', 'koala'),
      },
      3,
      );
    } catch (error) {
      log(`LCG on --grid from-trace failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      lcg = { lcg_s: null, lcg_easy_s: null, lcg_das3_s: null };
    }
    log(`LCG (188,041 records) on its 170 partitions (--grid from-trace), Worst-Fit: koala ${seconds(lcg.lcg_s)}, easy ${seconds(lcg.lcg_easy_s)}`);
    log(`LCG on the DAS-3 preset (5 clusters, 272 processors), koala: ${seconds(lcg.lcg_das3_s)}`);
    return { ...out, ...lcg };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The issue's targets for these figures: start-up within 1.5x bare node; net of it, 10x pyss's figure per policy. */
export function replayTargets(f: Record<string, unknown>): Array<{ figure: string; target: string; value: number | null; met: boolean | null }> {
  const value = (key: string): number | null => (typeof f[key] === 'number' ? (f[key] as number) : null);
  const below = (figure: string, limit: number, v = value(figure)) => ({ figure, target: `< ${limit}`, value: v, met: v === null ? null : v < limit });
  const bare = value('node_bare_ms');
  const rows = [{ figure: 'cli_startup_ratio', target: '<= 1.5', value: value('cli_startup_ratio'), met: value('cli_startup_ratio') === null ? null : value('cli_startup_ratio')! <= 1.5 }];
  for (const t of REPLAY_TRACES) {
    for (const q of ['fcfs', 'easy'] as const) {
      // Whole process: the start-up target (1.5x bare node) plus a tenth of pyss's time.
      if (bare !== null) rows.push(below(`replay_${t.name}_${q}_s`, round((1.5 * bare) / 1000 + t.pyss[q] / 10)));
    }
  }
  // Decision: LCG on DAS-3 has no target in the issue beyond finishing; a minute is far above what it takes now.
  rows.push(below('replay_nasa_peak_rss_mb', 80), below('lcg_s', 3), below('lcg_easy_s', 3), below('lcg_das3_s', 60));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const figures = replayBench(log, Number(process.env.CONCERTINA_BENCH_ROUNDS ?? 5));
  const targets = replayTargets(figures);
  for (const t of targets) log(`target ${t.figure} ${t.target}: ${t.value === null ? 'not measured' : `${t.value} (${t.met ? 'met' : 'NOT met'})`}`);
  console.log(JSON.stringify({ ...figures, targets }));
}
