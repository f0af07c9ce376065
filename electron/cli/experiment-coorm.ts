// `concertina experiment coorm`: runs the matrix of core/sim/experiments/coorm.ts (the CooRMv2 paper's Figures 9, 10
// and 11) with a progress bar, then writes the report, the data as CSV and each panel as an SVG line chart.
import { setImmediate as nextTurn } from 'node:timers/promises';
import * as echarts from 'echarts';
import {
  COORM_DEFAULT_CONFIG,
  analyseCoorm,
  coormRunMatrix,
  runCoormCase,
  type CoormAnalysis,
  type CoormExperimentConfig,
  type CoormRun,
  type CoormRunFigures,
  type CoormRunSpec,
} from '../../core/sim/experiments/coorm.js';
import { UsageError, toCsv, prepareOutDir, writeOutput, type CsvValue } from './export.js';
import { observationJson, printOutcome } from './experiment-output.js';
import { alignColumns, progressBar, type CliIo } from './terminal.js';

export interface CoormCommandOptions {
  readonly config: CoormExperimentConfig;
  readonly json?: boolean;
  readonly out: string;
}

/** The flags of `experiment coorm`, as commander gives them (lists still as text). */
export interface CoormFlags {
  readonly seeds?: number | undefined;
  readonly steps?: number | undefined;
  readonly factors?: string | undefined;
  readonly intervals?: string | undefined;
  readonly twoPsaIntervals?: string | undefined;
}

const MAX_LIST = 100;

/** A comma-separated list of distinct numbers in [min, max], in increasing order. */
export function numberList(flag: string, text: string, min: number, max: number, exclusiveMin: boolean): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const values = parts.map((p) => (/^\d+(\.\d+)?$/.test(p) ? Number(p) : Number.NaN));
  const bad = parts.find((_, i) => {
    const v = values[i]!;
    return !Number.isFinite(v) || v > max || (exclusiveMin ? v <= min : v < min);
  });
  if (bad !== undefined || parts.length > MAX_LIST) {
    const range = `${exclusiveMin ? 'above' : 'from'} ${min}${max < Infinity ? ` to ${max}` : ''}`;
    throw new UsageError(
      `${flag} must be a comma-separated list of up to ${MAX_LIST} numbers ${range} (got "${text}")`,
    );
  }
  return [...new Set(values)].sort((a, b) => a - b);
}

/** The run configuration from the flags: the defaults where a flag is absent. */
export function coormConfigFromFlags(flags: CoormFlags): CoormExperimentConfig {
  const d = COORM_DEFAULT_CONFIG;
  return {
    ...d,
    seeds: flags.seeds ?? d.seeds,
    steps: flags.steps ?? d.steps,
    // Decision: φ up to 10, as the cluster grows with it (1400 nodes per unit) and so does each run's cost.
    overcommitFactors:
      flags.factors === undefined ? d.overcommitFactors : numberList('--factors', flags.factors, 0, 10, true),
    announceIntervalsS:
      flags.intervals === undefined ? d.announceIntervalsS : numberList('--intervals', flags.intervals, 0, 1e6, false),
    twoPsaIntervalsS:
      flags.twoPsaIntervals === undefined
        ? d.twoPsaIntervalsS
        : numberList('--two-psa-intervals', flags.twoPsaIntervals, 0, 1e6, false),
  };
}

const describeRun = (s: CoormRunSpec): string =>
  s.figure === 'overcommit'
    ? `fig 9, φ ${s.factor} ${s.mode}, seed ${s.seed}`
    : `fig ${s.figure === 'announce' ? 10 : 11}, ${s.intervalS} s${s.figure === 'two_psa' ? ` ${s.sharing}` : ''}, seed ${s.seed}`;

export async function coormExperimentCommand(o: CoormCommandOptions, io: CliIo): Promise<number> {
  const outDir = await prepareOutDir(o.out);
  const matrix = coormRunMatrix(o.config);
  const bar = io.stderr.isTTY && !o.json ? await progressBar(io.stderr, 'runs') : undefined;
  const runs: CoormRun[] = [];
  const cache = new Map<string, CoormRunFigures>();
  try {
    bar?.start(matrix.length, 0, { note: describeRun(matrix[0]!) });
    for (const spec of matrix) {
      runs.push(runCoormCase(spec, cache));
      const next = matrix[runs.length];
      bar?.update(runs.length, { note: next ? describeRun(next) : 'writing files' });
      // Each run is synchronous: yield so the bar can redraw between them.
      await nextTurn();
    }
  } finally {
    bar?.stop();
  }

  const analysis = analyseCoorm(runs, o.config);
  const written = await writeFiles(outDir, analysis);
  const json = () => ({
    overcommit: analysis.overcommit,
    announce: analysis.announce,
    two_psa: analysis.two_psa,
    observations: analysis.observations.map(observationJson),
  });
  await printOutcome(io, o.json, outDir, written, json, () => textSummary(analysis));
  return 0;
}

function textSummary(a: CoormAnalysis): string {
  const n = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const mns = (x: number) => n(x / 1e6, 2);
  const fig9 = [
    ['φ', 'static AMR used', 'dynamic AMR used', 'PSA waste'],
    ['', '(M node·s)', '(M node·s)', '(M node·s)'],
    ...a.config.overcommitFactors.map((f) => {
      const s = a.overcommit.find((p) => p.factor === f && p.mode === 'static')!;
      const d = a.overcommit.find((p) => p.factor === f && p.mode === 'dynamic')!;
      return [String(f), mns(s.amr_used_node_s), mns(d.amr_used_node_s), mns(d.psa_waste_node_s)];
    }),
  ];
  const fig10 = [
    ['interval (s)', 'PSA waste', 'used', 'AMR end', 'used, 2 PSAs', 'strict'],
    ['', '(M node·s)', '(%)', '(s)', '(%)', '(%)'],
    ...[...new Set([...a.config.announceIntervalsS, ...a.config.twoPsaIntervalsS])]
      .sort((x, y) => x - y)
      .map((i) => {
        const p = a.announce.find((q) => q.interval_s === i);
        const c = a.two_psa.find((q) => q.interval_s === i && q.mode === 'coorm');
        const s = a.two_psa.find((q) => q.interval_s === i && q.mode === 'strict');
        return [
          String(i),
          p ? mns(p.psa_waste_node_s) : '',
          p ? n(p.used_percent, 2) : '',
          p ? n(p.amr_end_time_s, 0) : '',
          c ? n(c.used_percent, 2) : '',
          s ? n(s.used_percent, 2) : '',
        ];
      }),
  ];
  const held = a.observations.filter((ob) => ob.holds).length;
  const lines = [
    `CooRMv2 experiment: ${a.runs.length} runs (seeds 1..${a.config.seeds}, ${a.config.steps} AMR steps), medians over seeds`,
    '',
    'Figure 9 (spontaneous updates)',
    alignColumns(fig9, [0, 1, 2, 3]),
    '',
    'Figures 10 and 11 (announced updates, φ = 1)',
    alignColumns(fig10, [0, 1, 2, 3, 4, 5]),
    '',
    `Observations of the paper: ${held} of ${a.observations.length} hold`,
    ...a.observations.map(
      (ob) => `  [${ob.holds ? 'holds' : 'fails'}] Figure ${ob.figure}: ${ob.text}\n          ${ob.measured}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

async function writeFiles(dir: string, a: CoormAnalysis): Promise<number> {
  let count = 0;
  const write = async (name: string, text: string) => {
    await writeOutput(dir, name, text);
    count++;
  };
  await write(
    'runs.csv',
    toCsv(
      [
        'figure',
        'seed',
        'factor',
        'mode',
        'interval_s',
        'sharing',
        'psa_task_s',
        'steps',
        'cluster_nodes',
        'n_eq',
        'preallocation',
        'amr_peak_nodes',
        'amr_end_time_s',
        'amr_used_node_s',
        'amr_updates',
        'psa_waste_node_s',
        'killed_tasks',
        'used_percent',
        'rms_kills',
      ],
      a.runs.map((r): CsvValue[] => [
        r.figure,
        r.seed,
        r.factor,
        r.mode,
        r.intervalS,
        r.sharing,
        r.psaTaskS.join(' '),
        r.steps,
        r.clusterNodes,
        r.nEq,
        r.preallocation,
        r.amrPeakNodes,
        r.amrEndTimeS,
        r.amrUsedNodeS,
        r.amrUpdates,
        r.psaWasteNodeS,
        r.killedTasks,
        r.usedPercent,
        r.rmsKills,
      ]),
    ),
  );
  await write(
    'fig9-overcommit.csv',
    toCsv(
      ['factor', 'mode', 'amr_used_node_s', 'psa_waste_node_s'],
      a.overcommit.map((p) => [p.factor, p.mode, p.amr_used_node_s, p.psa_waste_node_s]),
    ),
  );
  await write(
    'fig10-announce.csv',
    toCsv(
      ['interval_s', 'psa_waste_node_s', 'used_percent', 'amr_end_time_s'],
      a.announce.map((p) => [p.interval_s, p.psa_waste_node_s, p.used_percent, p.amr_end_time_s]),
    ),
  );
  await write(
    'fig11-two-psa.csv',
    toCsv(
      ['interval_s', 'mode', 'used_percent'],
      a.two_psa.map((p) => [p.interval_s, p.mode, p.used_percent]),
    ),
  );

  const byMode = <T extends { mode: string }>(
    points: readonly T[],
    mode: string,
    x: (p: T) => number,
    y: (p: T) => number,
  ): Array<[number, number]> => points.filter((p) => p.mode === mode).map((p) => [x(p), y(p)]);
  const fig9 = 'Figure 9: spontaneous updates';
  await write(
    'fig9-amr-used.svg',
    lineChart(fig9, 'AMR used resources (median over seeds)', 'overcommit factor φ', 'node·s', [
      {
        name: 'static',
        color: COLORS[1],
        data: byMode(
          a.overcommit,
          'static',
          (p) => p.factor,
          (p) => p.amr_used_node_s,
        ),
      },
      {
        name: 'dynamic',
        color: COLORS[0],
        data: byMode(
          a.overcommit,
          'dynamic',
          (p) => p.factor,
          (p) => p.amr_used_node_s,
        ),
      },
    ]),
  );
  await write(
    'fig9-psa-waste.svg',
    lineChart(fig9, 'PSA waste (median over seeds)', 'overcommit factor φ', 'node·s', [
      {
        name: 'dynamic AMR',
        color: COLORS[0],
        data: byMode(
          a.overcommit,
          'dynamic',
          (p) => p.factor,
          (p) => p.psa_waste_node_s,
        ),
      },
      {
        name: 'static AMR',
        color: COLORS[1],
        data: byMode(
          a.overcommit,
          'static',
          (p) => p.factor,
          (p) => p.psa_waste_node_s,
        ),
      },
    ]),
  );
  const fig10 = 'Figure 10: announced updates (φ = 1)';
  const ann = (y: (p: CoormAnalysis['announce'][number]) => number): Array<[number, number]> =>
    a.announce.map((p) => [p.interval_s, y(p)]);
  await write(
    'fig10-psa-waste.svg',
    lineChart(fig10, 'PSA waste (median over seeds)', 'announce interval (s)', 'node·s', [
      { name: 'PSA waste', color: COLORS[0], data: ann((p) => p.psa_waste_node_s) },
    ]),
  );
  await write(
    'fig10-used.svg',
    lineChart(fig10, 'Used resources (median over seeds)', 'announce interval (s)', '% of the cluster', [
      { name: 'used', color: COLORS[2], data: ann((p) => p.used_percent) },
    ]),
  );
  await write(
    'fig10-amr-end.svg',
    lineChart(fig10, 'AMR end time (median over seeds)', 'announce interval (s)', 's', [
      { name: 'AMR end time', color: COLORS[3], data: ann((p) => p.amr_end_time_s) },
    ]),
  );
  await write(
    'fig11-used.svg',
    lineChart(
      'Figure 11: two PSAs (φ = 1)',
      'Used resources (median over seeds)',
      'announce interval (s)',
      '% of the cluster',
      [
        {
          name: 'CooRMv2 (filling)',
          color: COLORS[0],
          data: byMode(
            a.two_psa,
            'coorm',
            (p) => p.interval_s,
            (p) => p.used_percent,
          ),
        },
        {
          name: 'strict equi-partitioning',
          color: COLORS[1],
          data: byMode(
            a.two_psa,
            'strict',
            (p) => p.interval_s,
            (p) => p.used_percent,
          ),
        },
      ],
    ),
  );
  await write('report.md', a.report);
  return count;
}

// ---- plots -----------------------------------------------------------------------------------------------------

const WIDTH = 900;
const HEIGHT = 520;
export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e'] as const;

interface LineSeries {
  name: string;
  color: string;
  data: Array<[number, number]>;
}

export function lineChart(title: string, subtitle: string, xName: string, yName: string, lines: LineSeries[]): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    chart.setOption({
      animation: false,
      backgroundColor: '#ffffff',
      title: {
        text: title,
        subtext: subtitle,
        left: 'center',
        textStyle: { fontSize: 15 },
        subtextStyle: { fontSize: 13 },
      },
      legend: { top: 58, left: 'center', itemGap: 28, data: lines.map((l) => l.name) },
      grid: { left: 90, right: 40, top: 110, bottom: 70 },
      xAxis: { type: 'value', name: xName, nameLocation: 'middle', nameGap: 32, min: 0 },
      yAxis: { type: 'value', name: yName, nameLocation: 'middle', nameGap: 65, min: 0 },
      series: lines.map((l) => ({
        type: 'line',
        name: l.name,
        data: l.data,
        symbolSize: 6,
        itemStyle: { color: l.color },
        lineStyle: { color: l.color, width: 1.6 },
      })),
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
