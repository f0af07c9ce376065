// Whole-process figures of trace replay (issue 17): `concertina simulate` as a user runs it, start-up included, on the
// traces pyss was timed on, under fcfs, easy and cbf; the start-up of a one-job run against a bare `node -e 0`; the
// peak memory of the NASA replay; the LCG grid trace on a grid built from it. Each figure is the process's CPU time
// (user + system, read by a preloaded module as it exits: the machine may be shared, so wall time would measure the
// others too), the median of interleaved runs (each round runs every command once); the wall time of the same runs is
// beside each (`_wall_s`), for a quiet machine, where it is what a user waits. Each replay is also timed warm
// (`replay_<trace>_<policy>_warm_s`: once V8 has compiled it, in one process), which is the engine's own cost; the
// rest of the whole-process figure is start-up and V8's warm-up. Part of `npm run bench`;
// `node dist/test/bench/replay-bench.js` prints its figures alone.
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
const usagePreload = pathToFileURL(path.join(repoRoot, 'test', 'bench', 'replay-usage.mjs')).href;
const warmRunner = path.join(repoRoot, 'test', 'bench', 'replay-warm.mjs');
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The issue's traces: name, file, processors of the one cluster, jobs kept; pyss's wall seconds per policy. */
export const REPLAY_TRACES = [
  {
    name: 'batsim',
    file: 'batsim-medium_late-32.swf.gz',
    processors: 32,
    pyss: { fcfs: 0.221, easy: 0.223, cbf: 0.197 },
  },
  {
    name: 'hpc2n',
    file: 'HPC2N-2002-prefix3170.swf.gz',
    processors: 240,
    maxJobs: 3000,
    pyss: { fcfs: 0.337, easy: 0.375, cbf: 0.458 },
  },
  {
    name: 'sdsc',
    file: 'SDSC-SP2-1998-prefix5K.swf.gz',
    processors: 128,
    pyss: { fcfs: 0.448, easy: 0.561, cbf: 0.654 },
  },
  {
    name: 'nasa',
    file: 'NASA-iPSC-1993-3.1-cln.swf.gz',
    processors: 128,
    pyss: { fcfs: 1.412, easy: 1.421, cbf: 1.156 },
  },
  { name: 'lublin', file: 'lublin_256.swf.gz', processors: 256, pyss: { fcfs: 0.551, easy: 5.088, cbf: 71.9 } },
] as const;
export const REPLAY_POLICIES = ['fcfs', 'easy', 'cbf'] as const;

/**
 * A run longer than this (wall clock) is stopped and counts as +Infinity (null in the JSON; its target not met).
 * Generous: on a loaded machine a run's wall time is many times its CPU time.
 */
const TIMEOUT_S = 300;

const seconds = (v: number | null | undefined) =>
  v === null || v === undefined ? 'not measured' : Number.isFinite(v) ? `${v} s` : `over ${TIMEOUT_S} s (stopped)`;

interface Usage {
  /** CPU seconds, user + system. */
  cpu_s: number;
  max_rss_kib: number;
  /**
   * Wall seconds from spawn to exit, as `time` gives them (the issue's pyss figures are wall times). On a quiet
   * machine they are below the CPU seconds: V8 compiles on other threads while the program runs.
   */
  wall_s: number;
}

/** CPU time, wall time and peak memory of one run of `node args...`; throws when it fails. */
function run(args: readonly string[], usageFile: string): Usage {
  rmSync(usageFile, { force: true });
  const begun = performance.now();
  const r = spawnSync(process.execPath, ['--import', usagePreload, ...args], {
    cwd: repoRoot,
    env: { ...process.env, CONCERTINA_USAGE_FILE: usageFile },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: TIMEOUT_S * 1000,
  });
  const wall_s = (performance.now() - begun) / 1000;
  if (r.signal !== null && !existsSync(usageFile)) {
    return { cpu_s: Number.POSITIVE_INFINITY, max_rss_kib: Number.NaN, wall_s: Number.POSITIVE_INFINITY };
  }
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} ended with ${r.status}: ${r.stderr}`);
  return { ...(JSON.parse(readFileSync(usageFile, 'utf8')) as Omit<Usage, 'wall_s'>), wall_s };
}

/** CPU seconds one replay is run for in one process (replay-warm.mjs); the median of its last three runs is warm. */
const WARM_BUDGET_S = 3;

/**
 * CPU seconds of one replay once V8 has compiled what it runs (`args`: a simulate command as for `run`), or +Infinity
 * when it did not finish in time: the engine's own cost, which no start-up or warm-up work can go below.
 */
function warmReplay(args: readonly string[]): number {
  const r = spawnSync(process.execPath, [warmRunner, String(WARM_BUDGET_S), ...args.slice(2)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: TIMEOUT_S * 1000,
  });
  if (r.signal !== null) return Number.POSITIVE_INFINITY;
  if (r.status !== 0) throw new Error(`replay-warm ${args.join(' ')} ended with ${r.status}: ${r.stderr}`);
  const cpu = JSON.parse(r.stdout) as number[];
  return round(median(cpu.slice(-3)));
}

function simulateArgs(file: string, grid: string, queue: string, extra: readonly string[] = []): string[] {
  return [
    bin,
    'simulate',
    '--grid',
    grid,
    '--workload',
    path.join(tracesDir, file),
    '--queue',
    queue,
    '--json',
    ...extra,
  ];
}

/**
 * Interleaved medians of `rounds` runs of each command: CPU seconds and peak RSS (MiB); a command whose first run
 * takes over `slowS` runs once.
 */
function interleaved(
  commands: Record<string, string[]>,
  rounds: number,
  usageFile: string,
  slowS = 5,
): Record<string, { cpu_s: number; rss_mb: number; wall_s: number }> {
  const samples: Record<string, Usage[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [key, args] of Object.entries(commands)) {
      if (r > 0 && samples[key]![0]!.cpu_s > slowS) continue;
      samples[key]!.push(run(args, usageFile));
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [
      k,
      {
        cpu_s: round(median(v.map((u) => u.cpu_s))),
        rss_mb: round(median(v.map((u) => u.max_rss_kib)) / 1024, 1),
        wall_s: round(median(v.map((u) => u.wall_s))),
      },
    ]),
  );
}

export function replayBench(log: (message: string) => void, rounds = 3): Record<string, unknown> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-replay-bench-'));
  const usageFile = path.join(tmp, 'usage.json');
  try {
    const one = path.join(tmp, 'one.swf');
    writeFileSync(one, '1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n');
    const startRounds = Math.max(rounds, 9);
    const start = interleaved(
      { bare: ['-e', '0'], cli: [bin, 'simulate', '--grid', 'single:4', '--workload', one, '--json'] },
      startRounds,
      usageFile,
    );
    const cli_startup_ms = round(start.cli!.cpu_s * 1000, 1);
    const node_bare_ms = round(start.bare!.cpu_s * 1000, 1);
    const cli_startup_ratio = round(start.cli!.cpu_s / start.bare!.cpu_s, 2);
    log(
      `start-up of a one-job simulate: ${cli_startup_ms} ms CPU, bare node ${node_bare_ms} ms (${cli_startup_ratio}x; medians of ${startRounds}, interleaved)`,
    );
    const out: Record<string, unknown> = {
      cli_startup_ms,
      node_bare_ms,
      cli_startup_ratio,
      cli_startup_peak_rss_mb: start.cli!.rss_mb,
      cli_startup_wall_ms: round(start.cli!.wall_s * 1000, 1),
      node_bare_wall_ms: round(start.bare!.wall_s * 1000, 1),
      node_bare_peak_rss_mb: start.bare!.rss_mb,
    };
    log(`peak RSS of a one-job simulate: ${start.cli!.rss_mb} MiB, bare node ${start.bare!.rss_mb} MiB`);
    if (!existsSync(tracesDir)) {
      log(`${tracesDir} not found: the trace replay figures are skipped`);
      return { ...out, replay_skipped_reason: `${tracesDir} not found` };
    }
    const commands: Record<string, string[]> = {};
    for (const t of REPLAY_TRACES) {
      if (!existsSync(path.join(tracesDir, t.file))) {
        log(`${t.file} not found in ${tracesDir}: replay_${t.name}_* skipped`);
        continue;
      }
      for (const q of REPLAY_POLICIES) {
        commands[`replay_${t.name}_${q}_s`] = simulateArgs(
          t.file,
          `single:${t.processors}`,
          q,
          'maxJobs' in t ? ['--max-jobs', String(t.maxJobs)] : [],
        );
      }
    }
    const replays = interleaved(commands, rounds, usageFile);
    for (const [k, v] of Object.entries(replays)) {
      log(`${k}: ${seconds(v.cpu_s)} CPU, ${seconds(v.wall_s)} wall`);
      out[k] = v.cpu_s;
      out[k.replace(/_s$/, '_wall_s')] = v.wall_s;
      // The NASA replay's peak memory under each policy, from the same runs.
      if (k.startsWith('replay_nasa_')) out[k.replace(/_s$/, '_peak_rss_mb')] = v.rss_mb;
    }
    // The same replays warm: how much of each whole-process figure is the engine's work and how much V8's warm-up.
    for (const [k, args] of Object.entries(commands)) {
      const warm = warmReplay(args);
      out[k.replace(/_s$/, '_warm_s')] = warm;
      log(`${k.replace(/_s$/, '_warm_s')}: ${seconds(warm)} CPU once warm (median of the last 3 runs in one process)`);
    }

    const nasa = 'NASA-iPSC-1993-3.1-cln.swf.gz';
    if (existsSync(path.join(tracesDir, nasa))) {
      const rss = interleaved(
        {
          nasa: simulateArgs(nasa, 'single:128', 'koala'),
          // With its tables written (--out): they are streamed, not built whole on top of the run's heap.
          nasaOut: simulateArgs(nasa, 'single:128', 'koala', ['--out', path.join(tmp, 'nasa-out')]),
        },
        rounds,
        usageFile,
      );
      out.replay_nasa_peak_rss_mb = rss.nasa!.rss_mb;
      out.replay_nasa_out_peak_rss_mb = rss.nasaOut!.rss_mb;
      log(
        `NASA replay (koala) peak RSS: ${out.replay_nasa_peak_rss_mb} MiB, ${out.replay_nasa_out_peak_rss_mb} MiB with --out (medians of ${rounds})`,
      );
    }

    const lcgFile = 'LCG-2005-1.swf.gz';
    let lcg: Record<string, number | null> = { lcg_s: null, lcg_easy_s: null, lcg_das3_s: null };
    if (!existsSync(path.join(tracesDir, lcgFile))) {
      log(`${lcgFile} not found in ${tracesDir}: lcg_* skipped`);
    } else {
      try {
        const runs = interleaved(
          {
            lcg_s: simulateArgs(lcgFile, 'from-trace', 'koala', ['--placement', 'wf']),
            lcg_easy_s: simulateArgs(lcgFile, 'from-trace', 'easy', ['--placement', 'wf']),
            // The same trace on the far smaller DAS-3 preset: a queue of tens of thousands of waiting jobs, which the
            // placement queue's index must step over at each pass (46 s before it).
            lcg_das3_s: simulateArgs(lcgFile, 'das3', 'koala'),
          },
          rounds,
          usageFile,
          // Long runs too get their median of `rounds`: a single one on a shared machine says little.
          Number.POSITIVE_INFINITY,
        );
        lcg = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.cpu_s]));
        out.lcg_peak_rss_mb = runs.lcg_s!.rss_mb;
      } catch (error) {
        log(
          `LCG on --grid from-trace failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        );
      }
      log(
        `LCG (188,041 records) on its 170 partitions (--grid from-trace), Worst-Fit: koala ${seconds(lcg.lcg_s)}, easy ${seconds(lcg.lcg_easy_s)} CPU`,
      );
      log(`LCG on the DAS-3 preset (5 clusters, 272 processors), koala: ${seconds(lcg.lcg_das3_s)} CPU`);
    }
    return { ...out, ...lcg };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The issue's targets for these figures: start-up within 1.5x bare node; net of it, 10x pyss's figure per policy. */
export function replayTargets(
  f: Record<string, unknown>,
): Array<{ figure: string; target: string; value: number | null; met: boolean | null }> {
  const value = (key: string): number | null => (typeof f[key] === 'number' ? (f[key] as number) : null);
  const below = (figure: string, limit: number, v = value(figure)) => ({
    figure,
    target: `< ${limit}`,
    value: v,
    met: v === null ? null : v < limit,
  });
  const bare = value('node_bare_ms');
  const rows = [
    {
      figure: 'cli_startup_ratio',
      target: '<= 1.5',
      value: value('cli_startup_ratio'),
      met: value('cli_startup_ratio') === null ? null : value('cli_startup_ratio')! <= 1.5,
    },
  ];
  for (const t of REPLAY_TRACES) {
    for (const q of REPLAY_POLICIES) {
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
  const figures = replayBench(log, Number(process.env.CONCERTINA_BENCH_ROUNDS ?? 3));
  const targets = replayTargets(figures);
  for (const t of targets)
    log(
      `target ${t.figure} ${t.target}: ${t.value === null ? 'not measured' : `${t.value} (${t.met ? 'met' : 'NOT met'})`}`,
    );
  console.log(JSON.stringify({ ...figures, targets }));
}
