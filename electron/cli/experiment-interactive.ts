// `concertina experiment interactive`: runs core/sim/experiments/interactive.ts (interactive periodic divisible jobs,
// interleaved against exclusive, under rising load, with and without overruns) with a progress bar, then writes the
// report, the data as CSV and the figures as SVG line charts.
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  INTERACTIVE_DEFAULT_CONFIG,
  INTERACTIVE_LIMITS,
  INTERACTIVE_MODELS,
  analyseInteractive,
  interactiveRunMatrix,
  runInteractiveCase,
  type InteractiveAnalysis,
  type InteractiveExperimentConfig,
  type InteractivePoint,
  type InteractiveRun,
  type InteractiveRunSpec,
} from '../../core/sim/experiments/interactive.js';
import { UsageError, toCsv, prepareOutDir, writeOutput, type CsvValue } from './export.js';
import { COLORS, lineChart, numberList } from './experiment-coorm.js';
import { observationJson, printOutcome } from './experiment-output.js';
import { alignColumns, progressBar, type CliIo } from './terminal.js';

export interface InteractiveFlags {
  readonly seeds?: number | undefined;
  readonly loads?: string | undefined;
  readonly overrunShare?: string | undefined;
  readonly minutes?: number | undefined;
}

export function interactiveConfigFromFlags(flags: InteractiveFlags): InteractiveExperimentConfig {
  const d = INTERACTIVE_DEFAULT_CONFIG;
  let overrunShare = d.overrunShare;
  if (flags.overrunShare !== undefined) {
    const text = flags.overrunShare.trim();
    const n = /^(0(\.\d+)?|1(\.0*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
    if (!(n > 0 && n <= 1))
      throw new UsageError(
        `--overrun-share must be a fraction above 0 and at most 1, e.g. 0.2 (got "${flags.overrunShare}")`,
      );
    overrunShare = n;
  }
  return {
    ...d,
    seeds: flags.seeds ?? d.seeds,
    loads:
      flags.loads === undefined ? d.loads : numberList('--loads', flags.loads, 0, INTERACTIVE_LIMITS.maxLoad, true),
    overrunShare,
    horizonMs: flags.minutes === undefined ? d.horizonMs : flags.minutes * 60_000,
  };
}

const describeRun = (s: InteractiveRunSpec): string =>
  `${s.kind === 'policy' ? `${s.placement}, ` : ''}load ${s.load}, ${s.model}${s.overruns ? ' with overruns' : ''}, seed ${s.seed}`;

export async function interactiveExperimentCommand(
  o: { config: InteractiveExperimentConfig; json?: boolean; out: string },
  io: CliIo,
): Promise<number> {
  const outDir = await prepareOutDir(o.out);
  const matrix = interactiveRunMatrix(o.config);
  const bar = io.stderr.isTTY && !o.json ? await progressBar(io.stderr, 'runs') : undefined;
  const runs: InteractiveRun[] = [];
  try {
    bar?.start(matrix.length, 0, { note: describeRun(matrix[0]!) });
    for (const spec of matrix) {
      runs.push(runInteractiveCase(spec, o.config));
      const next = matrix[runs.length];
      bar?.update(runs.length, { note: next ? describeRun(next) : 'writing files' });
      await nextTurn();
    }
  } finally {
    bar?.stop();
  }
  const analysis = analyseInteractive(runs, o.config);
  const written = await writeFiles(outDir, analysis);
  const json = () => ({
    points: analysis.points,
    policies: analysis.policies,
    observations: analysis.observations.map(observationJson),
  });
  await printOutcome(io, o.json, outDir, written, json, () => textSummary(analysis));
  return 0;
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');

function textSummary(a: InteractiveAnalysis): string {
  const at = (m: string, l: number, over: boolean) =>
    a.points.find((p) => p.model === m && p.load === l && p.overruns === over)!;
  const loads = [...a.config.loads].sort((x, y) => x - y);
  const rows = [
    ['load', 'utilisation (%)', '', '', 'admitted (%)', '', '', 'misses with overruns', '', ''],
    [
      '',
      'exclusive',
      'interleaved',
      'widened',
      'exclusive',
      'interleaved',
      'widened',
      'exclusive',
      'interleaved',
      'widened',
    ],
    ...loads.map((l) => [
      String(l),
      ...INTERACTIVE_MODELS.map((m) => f1(at(m, l, false).utilization_percent)),
      ...INTERACTIVE_MODELS.map((m) => f1(at(m, l, false).admitted_percent)),
      ...INTERACTIVE_MODELS.map((m) => f1(at(m, l, true).misses)),
    ]),
  ];
  const held = a.observations.filter((ob) => ob.holds).length;
  return `${[
    `Interactive periodic divisible jobs: ${a.runs.length} runs (${a.config.nodes} nodes, seeds 1..${a.config.seeds}), means over seeds`,
    '',
    alignColumns(rows, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    '',
    `Claims of the paper: ${held} of ${a.observations.length} hold`,
    ...a.observations.map((ob) => `  [${ob.holds ? 'holds' : 'fails'}] ${ob.text}\n          ${ob.measured}`),
  ].join('\n')}\n`;
}

const POINT_COLUMNS = [
  'model',
  'load',
  'overruns',
  'placement',
  'utilization_percent',
  'admitted_percent',
  'admitted',
  'arrived',
  'mean_nodes_per_job',
  'misses',
  'misses_without_overrun',
  'misses_per_1000_instances',
  'overrun_instances',
  'overrun_share_after_growth_percent',
  'replacements',
  'dropped_on_replacement',
  'divisions_per_job',
  'iterations_per_job',
] as const satisfies ReadonlyArray<keyof InteractivePoint>;

async function writeFiles(dir: string, a: InteractiveAnalysis): Promise<number> {
  let count = 0;
  const write = async (name: string, text: string) => {
    await writeOutput(dir, name, text);
    count++;
  };
  await write(
    'runs.csv',
    toCsv(
      [
        'kind',
        'seed',
        'load',
        'model',
        'overruns',
        'placement',
        'arrived',
        'admitted',
        'refused_no_placement',
        'refused_other',
        'widened',
        'mean_nodes_per_job',
        'utilization_percent',
        'iterations',
        'instances',
        'misses',
        'misses_after_overrun',
        'misses_without_overrun',
        'overrun_instances',
        'instances_after_growth',
        'replacements',
        'dropped_on_replacement',
        'divisions',
      ],
      a.runs.map((r): CsvValue[] => [
        r.kind,
        r.seed,
        r.load,
        r.model,
        r.overruns,
        r.placement,
        r.arrived,
        r.admitted,
        r.refusedNoPlacement,
        r.refusedOther,
        r.widened,
        r.meanNodesPerJob,
        r.utilizationPercent,
        r.iterations,
        r.instances,
        r.misses,
        r.missesAfterOverrun,
        r.missesWithoutOverrun,
        r.overrunInstances,
        r.instancesAfterGrowth,
        r.replacements,
        r.droppedOnReplacement,
        r.divisions,
      ]),
    ),
  );
  await write(
    'points.csv',
    toCsv(
      POINT_COLUMNS,
      a.points.map((p) => POINT_COLUMNS.map((c) => p[c])),
    ),
  );
  await write(
    'policies.csv',
    toCsv(
      POINT_COLUMNS,
      a.policies.map((p) => POINT_COLUMNS.map((c) => p[c])),
    ),
  );
  const series = (overruns: boolean, y: (p: InteractivePoint) => number) =>
    INTERACTIVE_MODELS.map((m, i) => ({
      name: m,
      color: COLORS[i]!,
      data: a.points
        .filter((p) => p.model === m && p.overruns === overruns)
        .map((p): [number, number] => [p.load, y(p)]),
    }));
  const title = 'Interactive periodic divisible jobs';
  await write(
    'utilization.svg',
    lineChart(
      title,
      'Cluster utilisation, no overruns (mean over seeds)',
      'offered load',
      '% of the processor time',
      series(false, (p) => p.utilization_percent),
    ),
  );
  await write(
    'admitted.svg',
    lineChart(
      title,
      'Jobs admitted, no overruns (mean over seeds)',
      'offered load',
      '% of the arriving jobs',
      series(false, (p) => p.admitted_percent),
    ),
  );
  await write(
    'misses.svg',
    lineChart(
      title,
      'Deadline misses with overrun injection (mean over seeds)',
      'offered load',
      'missed instances per run',
      series(true, (p) => p.misses),
    ),
  );
  await write('report.md', a.report);
  return count;
}
