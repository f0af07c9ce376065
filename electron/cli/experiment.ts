// `concertina experiment koala`: runs the matrix of core/sim/experiments/koala.ts with a progress bar, then writes
// the report, the data of every panel of Figures 7 and 8 as CSV and each panel as an SVG line chart.
import { setImmediate as nextTurn } from 'node:timers/promises';
import * as echarts from 'echarts';
import {
  KOALA_CASES,
  KOALA_PANELS,
  analyseKoala,
  koalaRunMatrix,
  koalaParameters,
  koalaSensitivity,
  runKoalaCase,
  type KoalaOptions,
  type KoalaSensitivity,
  type KoalaAnalysis,
  type KoalaFigure,
  type KoalaPanel,
  type KoalaRun,
} from '../../core/sim/experiments/koala.js';
import type { RunSummary } from '../../core/sim/metrics.js';
import type { ThresholdScope } from '../../core/scheduler/cluster-state.js';
import type { GrowthAtPoll } from '../../core/scheduler/scheduler.js';
import { toCsv, prepareOutDir, writeOutput, type CsvValue } from './export.js';
import { observationJson, printOutcome } from './experiment-output.js';
import { alignColumns, progressBar, type CliIo } from './terminal.js';

export interface KoalaCommandOptions {
  seeds: number;
  poll: number;
  praBackground: number;
  pwaBackground: number;
  threshold: number;
  thresholdScope: ThresholdScope;
  adaptS: number;
  launchDelayS: number;
  growthAtPoll: GrowthAtPoll;
  json?: boolean;
  out: string;
}

const SUMMARY_FIELDS = [
  'jobs',
  'completed',
  'failed',
  'cancelled',
  'makespan_s',
  'utilization',
  'concertina_utilization',
  'background_utilization',
  'mean_wait_s',
  'mean_response_s',
  'mean_execution_s',
  'mean_avg_size',
  'mean_max_size',
  'grow_ops',
  'shrink_ops',
  'voluntary_releases',
  'events',
] as const satisfies ReadonlyArray<keyof RunSummary>;

export async function koalaExperimentCommand(o: KoalaCommandOptions, io: CliIo): Promise<number> {
  const outDir = await prepareOutDir(o.out);
  const matrix = koalaRunMatrix(o.seeds);
  const options: KoalaOptions = {
    pollIntervalS: o.poll,
    praBackground: o.praBackground,
    pwaBackground: o.pwaBackground,
    threshold: o.threshold,
    thresholdScope: o.thresholdScope,
    adaptS: o.adaptS,
    launchDelayS: o.launchDelayS,
    growthAtPoll: o.growthAtPoll,
  };
  const bar = io.stderr.isTTY && !o.json ? await progressBar(io.stderr, 'runs') : undefined;
  const runs: KoalaRun[] = [];
  let sensitivity: KoalaSensitivity;
  try {
    bar?.start(matrix.length, 0, { note: `${matrix[0]!.series} seed ${matrix[0]!.seed}` });
    for (const spec of matrix) {
      runs.push(runKoalaCase(spec, options));
      const next = matrix[runs.length];
      bar?.update(runs.length, { note: next ? `${next.series} seed ${next.seed}` : 'sensitivity' });
      // Each run is synchronous: yield so the bar can redraw between them.
      await nextTurn();
    }
    // Decision: the sensitivity runs are synchronous and fast (about 100 runs a seed, seconds); the bar shows them once done.
    sensitivity = koalaSensitivity(options, o.seeds, (done, total) =>
      bar?.update(runs.length, { note: `sensitivity ${done}/${total}` }),
    );
  } finally {
    bar?.stop();
  }

  const analysis = analyseKoala(runs, { ...options, seeds: o.seeds }, sensitivity);
  const written = await writeFiles(outDir, analysis);
  const json = () => ({
    parameters: koalaParameters(options),
    runs: runs.map((r) => ({
      approach: r.approach,
      policy: r.policy,
      workload: r.workload,
      seed: r.seed,
      series: r.series,
      ...r.summary,
      refused: r.refused,
    })),
    observations: analysis.observations.map(observationJson),
  });
  await printOutcome(io, o.json, outDir, written, json, () => textSummary(analysis));
  return 0;
}

function textSummary(a: KoalaAnalysis): string {
  const n = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const rows = [
    ['series', 'approach', 'avg size', 'max size', 'execution', 'response', 'utilization', 'grows/run', 'shrinks/run'],
    ['', '', '(proc.)', '(proc.)', '(s)', '(s)', '(%)', '', ''],
    ...a.means.map((s) => [
      s.series,
      s.approach.toUpperCase(),
      n(s.mean_avg_size, 1),
      n(s.mean_max_size, 1),
      n(s.mean_execution_s, 0),
      n(s.mean_response_s, 0),
      n(s.utilization * 100, 1),
      n(s.grow_ops, 1),
      n(s.shrink_ops, 1),
    ]),
  ];
  const held = a.observations.filter((ob) => ob.holds).length;
  const lines = [
    `KOALA experiment: ${a.runs.length} runs (${KOALA_CASES.length} combinations x seeds 1..${a.settings.seeds}), poll ${a.settings.pollIntervalS} s`,
    '',
    alignColumns(rows, [2, 3, 4, 5, 6, 7, 8]),
    '',
    `Observations of the paper: ${held} of ${a.observations.length} hold`,
    ...a.observations.map((ob) => `  [${ob.holds ? 'holds' : 'fails'}] ${ob.text}\n          ${ob.measured}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function writeFiles(dir: string, a: KoalaAnalysis): Promise<number> {
  let count = 0;
  const write = async (name: string, text: string) => {
    await writeOutput(dir, name, text);
    count++;
  };
  for (const figure of a.figures) {
    for (const panel of KOALA_PANELS) {
      const base = `${figure.figure}-${panel.name}`;
      await write(`${base}.csv`, panelCsv(figure, panel));
      await write(`${base}.svg`, panelSvg(figure, panel));
    }
  }
  await write(
    'runs.csv',
    toCsv(
      ['series', 'figure', 'approach', 'policy', 'workload', 'seed', 'refused', ...SUMMARY_FIELDS],
      a.runs.map((r): CsvValue[] => [
        r.series,
        r.figure,
        r.approach,
        r.policy,
        r.workload,
        r.seed,
        r.refused,
        ...SUMMARY_FIELDS.map((f) => r.summary[f]),
      ]),
    ),
  );
  await write('report.md', a.report);
  return count;
}

function panelCsv(figure: KoalaFigure, panel: KoalaPanel): string {
  switch (panel.panel) {
    case 'e':
      return toCsv(
        ['t', 'series', 'utilization'],
        figure.utilization.flatMap((s) => s.points.map((p) => [p.t, s.series, p.utilization])),
      );
    case 'f':
      return toCsv(
        ['t', 'series', 'grows', 'shrinks'],
        figure.activity.flatMap((s) => s.points.map((p) => [p.t, s.series, p.grows, p.shrinks])),
      );
    default:
      return toCsv(
        ['series', 'value', 'cumulative_fraction'],
        figure.cdfs[panel.panel].flatMap((s) => s.points.map((p) => [s.series, p.value, p.fraction])),
      );
  }
}

// ---- plots ---------------------------------------------------------------------------------------------------

const WIDTH = 900;
const HEIGHT = 520;
// The same colour for a policy/workload pair in every panel: FPSMA blues and greens, EGS reds and oranges.
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e'];

interface LineSeries {
  name: string;
  color: string;
  data: Array<[number, number]>;
  step?: 'end';
  dashed?: boolean;
}

function panelSvg(figure: KoalaFigure, panel: KoalaPanel): string {
  const color = (i: number) => COLORS[i % COLORS.length]!;
  let lines: LineSeries[];
  let yMax: number | undefined;
  switch (panel.panel) {
    case 'e':
      lines = figure.utilization.map((s, i) => ({
        name: s.series,
        color: color(i),
        data: s.points.map((p) => [p.t, p.utilization]),
      }));
      yMax = 1;
      break;
    case 'f': {
      lines = figure.activity.map((s, i) => ({
        name: `${s.series} grows`,
        color: color(i),
        step: 'end',
        data: s.points.map((p) => [p.t, p.grows]),
      }));
      // Under PRA nothing is ever shrunk; four flat zero lines would only crowd the legend.
      figure.activity.forEach((s, i) => {
        if (s.points.some((p) => p.shrinks > 0)) {
          lines.push({
            name: `${s.series} shrinks`,
            color: color(i),
            step: 'end',
            dashed: true,
            data: s.points.map((p) => [p.t, p.shrinks]),
          });
        }
      });
      break;
    }
    default:
      // A CDF starts at 0 just before its smallest value, and steps at every value after.
      lines = figure.cdfs[panel.panel].map((s, i) => ({
        name: s.series,
        color: color(i),
        step: 'end',
        data: s.points.length
          ? [[s.points[0]!.value, 0], ...s.points.map((p): [number, number] => [p.value, p.fraction])]
          : [],
      }));
      yMax = 1;
  }
  return lineChart({
    title: `${figure.title}`,
    subtitle: `(${panel.panel}) ${panel.title}`,
    xName: panel.xName,
    yName: panel.yName,
    yMax,
    lines,
  });
}

function lineChart(c: {
  title: string;
  subtitle: string;
  xName: string;
  yName: string;
  yMax: number | undefined;
  lines: LineSeries[];
}): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    chart.setOption({
      animation: false,
      backgroundColor: '#ffffff',
      title: {
        text: c.title,
        subtext: c.subtitle,
        left: 'center',
        textStyle: { fontSize: 15 },
        subtextStyle: { fontSize: 13 },
      },
      // Server-side text widths are estimates: generous gaps keep the legend entries apart.
      legend: { top: 58, left: 'center', itemGap: 28, data: c.lines.map((l) => l.name) },
      grid: { left: 80, right: 40, top: 110, bottom: 70 },
      xAxis: { type: 'value', name: c.xName, nameLocation: 'middle', nameGap: 32, min: 0, scale: false },
      yAxis: {
        type: 'value',
        name: c.yName,
        nameLocation: 'middle',
        nameGap: 55,
        min: 0,
        ...(c.yMax === undefined ? {} : { max: c.yMax }),
      },
      series: c.lines.map((l) => ({
        type: 'line',
        name: l.name,
        data: l.data,
        showSymbol: false,
        ...(l.step ? { step: l.step } : {}),
        itemStyle: { color: l.color },
        lineStyle: { color: l.color, width: 1.6, ...(l.dashed ? { type: 'dashed' } : {}) },
      })),
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
