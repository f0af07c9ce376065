// `concertina experiment dbes`: the DBES paper's evaluation on the modified ESP benchmark
// (core/sim/experiments/dbes.ts) run by run with a progress bar, then the figures on stdout (or one JSON object),
// report.md, the data as CSV and Figures 4, 6 and 7 as SVG charts. Strategies not registered are skipped and named.
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  DBES_DEFAULT_CONFIG,
  analyseDbes,
  dbesRunMatrix,
  runDbesCase,
  skippedStrategies,
  type DbesAnalysis,
  type DbesExperimentConfig,
  type DbesRun,
} from '../../core/sim/experiments/dbes.js';
import { UsageError, toCsv, prepareOutDir, writeOutput, type CsvValue } from './export.js';
import { lineChart } from './experiment-coorm.js';
import { observationJson, printOutcome } from './experiment-output.js';
import { alignColumns, emit, progressBar, type CliIo } from './terminal.js';

export interface DbesCommandOptions {
  readonly config: DbesExperimentConfig;
  readonly json?: boolean;
  readonly out: string;
}

const MAX_STRATEGIES = 20;

/** The run configuration from the flags: the paper's strategies unless --strategies names others. */
export function dbesConfigFromFlags(flags: {
  readonly seeds?: number | undefined;
  readonly strategies?: string | undefined;
}): DbesExperimentConfig {
  let strategies: readonly string[] = DBES_DEFAULT_CONFIG.strategies;
  if (flags.strategies !== undefined) {
    const names = [...new Set(flags.strategies.split(',').map((x) => x.trim()))];
    if (names.length > MAX_STRATEGIES || names.some((x) => !/^[a-z][a-z0-9-]{0,63}$/.test(x))) {
      throw new UsageError(
        `--strategies must be a comma-separated list of up to ${MAX_STRATEGIES} policy names (lower-case letters, digits, -) (got "${flags.strategies}")`,
      );
    }
    strategies = names;
  }
  return { ...DBES_DEFAULT_CONFIG, seeds: flags.seeds ?? DBES_DEFAULT_CONFIG.seeds, strategies };
}

export async function dbesExperimentCommand(o: DbesCommandOptions, io: CliIo): Promise<number> {
  const outDir = await prepareOutDir(o.out);
  for (const k of skippedStrategies(o.config.strategies))
    await emit(io.stderr, `Skipping strategy ${k.strategy}: ${k.reason}\n`);
  const matrix = dbesRunMatrix(o.config);
  const bar = io.stderr.isTTY && !o.json ? await progressBar(io.stderr, 'runs') : undefined;
  const runs: DbesRun[] = [];
  try {
    bar?.start(matrix.length, 0, { note: '' });
    for (const spec of matrix) {
      runs.push(runDbesCase(spec, o.config));
      bar?.update(runs.length, {
        note: `${spec.strategy} ${spec.scenario === 'mixed' ? 'mixed' : `${spec.scenario} %`} seed ${spec.seed}`,
      });
      await nextTurn();
    }
    bar?.update(matrix.length, { note: 'writing files' });
  } finally {
    bar?.stop();
  }
  const analysis = analyseDbes(runs, o.config);
  const written = await writeFiles(outDir, analysis, runs);
  const json = () => ({
    config: analysis.config,
    strategies: analysis.strategies,
    skipped: analysis.skipped,
    fig4: analysis.fig4,
    fig5: analysis.fig5,
    fig6: analysis.fig6,
    fig7: analysis.fig7,
    observations: analysis.observations.map(observationJson),
  });
  await printOutcome(io, o.json, outDir, written, json, () => textSummary(analysis));
  return 0;
}

const n = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');

function textSummary(a: DbesAnalysis): string {
  const s = a.strategies;
  const fig4 = [
    ['malleable %', ...s],
    ...a.config.percents.map((p) => [
      String(p),
      ...s.map((x) => n(a.fig4.find((f) => f.strategy === x && f.malleable_percent === p)?.completion_s ?? Number.NaN)),
    ]),
  ];
  const fig6 = [
    ['malleable %', ...s],
    ...a.config.percents.map((p) => [
      String(p),
      ...s.map((x) =>
        n((a.fig6.find((f) => f.strategy === x && f.malleable_percent === p)?.utilization ?? Number.NaN) * 100, 1),
      ),
    ]),
  ];
  const fig7 = [
    ['strategy', 'completion (s)', 'evolving satisfied', 'shrunk for them'],
    ...a.fig7.map((r) => [r.strategy, n(r.completion_s), n(r.evolving_satisfied, 1), n(r.shrunk_for_evolving, 1)]),
  ];
  const held = a.observations.filter((ob) => ob.holds === true).length;
  const unchecked = a.observations.filter((ob) => ob.holds === null).length;
  const lines = [
    `DBES on the modified ESP benchmark: 120 cores, seeds 1..${a.config.seeds}; strategies run: ${s.join(', ') || 'none'}`,
    ...a.skipped.map((k) => `  skipped ${k.strategy}: ${k.reason}`),
    '',
    'Figure 4: time to complete the workload (s)',
    alignColumns(fig4),
    '',
    'Figure 6: average utilization (%)',
    alignColumns(fig6),
    '',
    'Figure 7 and Table II: 10 % evolving, 40 % malleable, 50 % rigid',
    alignColumns(fig7),
    '',
    `Observations of the paper: ${held} of ${a.observations.length} hold (${unchecked} not checked)`,
    ...a.observations.map(
      (ob) =>
        `  [${ob.holds === null ? 'unchecked' : ob.holds ? 'holds' : 'fails'}] ${ob.text}\n          ${ob.measured}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

// Six strategies: the coorm charts' four colours and two more.
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#7f7f7f'] as const;
const color = (i: number) => COLORS[i % COLORS.length]!;

async function writeFiles(dir: string, a: DbesAnalysis, runs: readonly DbesRun[]): Promise<number> {
  let count = 0;
  const write = async (name: string, text: string) => {
    await writeOutput(dir, name, text);
    count++;
  };
  await write(
    'fig4.csv',
    toCsv(
      ['malleable_percent', 'strategy', 'completion_s'],
      a.fig4.map((p): CsvValue[] => [p.malleable_percent, p.strategy, p.completion_s]),
    ),
  );
  await write(
    'fig5.csv',
    toCsv(
      ['strategy', 'type', 'expanded', 'malleable'],
      a.fig5.map((b): CsvValue[] => [b.strategy, b.type, b.expanded, b.malleable]),
    ),
  );
  await write(
    'fig6.csv',
    toCsv(
      ['malleable_percent', 'strategy', 'utilization'],
      a.fig6.map((p): CsvValue[] => [p.malleable_percent, p.strategy, p.utilization]),
    ),
  );
  await write(
    'fig7.csv',
    toCsv(
      [
        'strategy',
        'completion_s',
        'evolving_requests',
        'evolving_satisfied',
        'shrunk_for_evolving',
        'shrunk_first_step',
        'shrunk_second_step',
        'shrunk_step_unknown',
      ],
      a.fig7.map((r): CsvValue[] => [
        r.strategy,
        r.completion_s,
        r.evolving_requests,
        r.evolving_satisfied,
        r.shrunk_for_evolving,
        r.shrunk_first_step,
        r.shrunk_second_step,
        r.shrunk_step_unknown,
      ]),
    ),
  );
  await write(
    'runs.csv',
    toCsv(
      [
        'strategy',
        'scenario',
        'seed',
        'completion_s',
        'utilization',
        'jobs',
        'completed',
        'evolving_requests',
        'evolving_satisfied',
        'shrunk_for_evolving',
        'z_wait_s',
        'events',
      ],
      runs.map((r): CsvValue[] => [
        r.strategy,
        r.scenario,
        r.seed,
        r.completion_s,
        r.utilization,
        r.jobs,
        r.completed,
        r.evolving_requests,
        r.evolving_satisfied,
        r.shrunk_for_evolving,
        r.z_wait_s,
        r.events,
      ]),
    ),
  );
  const byStrategy = <P extends { strategy: string; malleable_percent: number }>(
    points: readonly P[],
    value: (p: P) => number,
  ) =>
    a.strategies.map((s, i) => ({
      name: s,
      color: color(i),
      data: points.filter((p) => p.strategy === s).map((p): [number, number] => [p.malleable_percent, value(p)]),
    }));
  await write(
    'fig4.svg',
    lineChart(
      'Figure 4: modified ESP workload',
      'time to complete the workload (mean over seeds)',
      'malleable jobs (%)',
      's',
      byStrategy(a.fig4, (p) => p.completion_s),
    ),
  );
  await write(
    'fig6.svg',
    lineChart(
      'Figure 6: modified ESP workload',
      'average utilization (mean over seeds)',
      'malleable jobs (%)',
      '% of the cores',
      byStrategy(a.fig6, (p) => p.utilization * 100),
    ),
  );
  // Figure 7 is one value per strategy: a line over the strategies' indices, named in the legend.
  await write(
    'fig7.svg',
    lineChart(
      'Figure 7: 10 % evolving, 40 % malleable, 50 % rigid',
      'time to complete the workload per strategy (mean over seeds)',
      'strategy',
      's',
      a.fig7.map((r, i) => ({ name: r.strategy, color: color(i), data: [[i + 1, r.completion_s]] })),
    ),
  );
  await write('report.md', a.report);
  return count;
}
