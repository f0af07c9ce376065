// Section VII of the KOALA malleability paper as an experiment: FPSMA and EGS on W_m and W_mr under PRA (Figure 7)
// and on W'_m and W'_mr under PWA (Figure 8), several seeds each. Runs, pools and averages the data behind each
// panel, checks the paper's observations against it and writes the report text. Files and plots are the caller's.
import { gridSpecSchema, type GridSpec, type JobSpec } from '../../model/schemas.js';
import type { ThresholdScope } from '../../scheduler/cluster-state.js';
import type { GrowthAtPoll } from '../../scheduler/scheduler.js';
import { das3Grid, DAS3_BACKGROUND_UTILISATION } from '../grids.js';
import { ACTIVITY_BUCKET_S, type RunSummary } from '../metrics.js';
import { simulate } from '../simulate.js';
import { DEFAULT_POLL_INTERVAL_S } from '../world.js';
import { WORKLOAD_PRESETS, workloadPreset } from '../workloads/koala.js';

export type KoalaFigureId = 'fig7' | 'fig8';

export interface KoalaCase {
  readonly figure: KoalaFigureId;
  readonly approach: 'pra' | 'pwa';
  readonly policy: 'fpsma' | 'egs';
  readonly workload: 'wm' | 'wmr' | 'wm-fast' | 'wmr-fast';
  /** `<policy>-<workload>`, the name the series carries in every file. */
  readonly series: string;
}

function koalaCase(
  figure: KoalaFigureId,
  approach: KoalaCase['approach'],
  policy: KoalaCase['policy'],
  workload: KoalaCase['workload'],
): KoalaCase {
  return { figure, approach, policy, workload, series: `${policy}-${workload}` };
}

/** The paper pairs PRA with the 2-minute workloads and PWA with the 30-second ones, to load the grid enough. */
export const KOALA_CASES: readonly KoalaCase[] = [
  koalaCase('fig7', 'pra', 'fpsma', 'wm'),
  koalaCase('fig7', 'pra', 'egs', 'wm'),
  koalaCase('fig7', 'pra', 'fpsma', 'wmr'),
  koalaCase('fig7', 'pra', 'egs', 'wmr'),
  koalaCase('fig8', 'pwa', 'fpsma', 'wm-fast'),
  koalaCase('fig8', 'pwa', 'egs', 'wm-fast'),
  koalaCase('fig8', 'pwa', 'fpsma', 'wmr-fast'),
  koalaCase('fig8', 'pwa', 'egs', 'wmr-fast'),
];

const WORKLOAD_LABEL: Record<KoalaCase['workload'], string> = {
  wm: 'W_m',
  wmr: 'W_mr',
  'wm-fast': "W'_m",
  'wmr-fast': "W'_mr",
};

export const KOALA_DEFAULT_SEEDS = 4;
/** Width of the utilization samples. */
export const UTILIZATION_STEP_S = 60;
export { ACTIVITY_BUCKET_S };
/** A malleable job that never grew is at this size: the workloads' minimum. */
const MIN_SIZE = 2;

export interface KoalaRunSpec extends KoalaCase {
  readonly seed: number;
}

/** Every case with seeds 1..seeds, case by case. */
export function koalaRunMatrix(seeds: number): KoalaRunSpec[] {
  if (!Number.isInteger(seeds) || seeds < 1) throw new RangeError(`seeds must be a whole number >= 1, not ${seeds}`);
  const runs: KoalaRunSpec[] = [];
  for (const c of KOALA_CASES) for (let seed = 1; seed <= seeds; seed++) runs.push({ ...c, seed });
  return runs;
}

export interface KoalaOptions {
  /** Seconds between information-service polls; the simulator's default otherwise. */
  readonly pollIntervalS?: number;
  /** Share of DAS-3 kept busy by local users who bypass the scheduler (the paper does not give it), both figures. */
  readonly backgroundUtilization?: number;
  /** The same for Figure 7's (PRA) runs only, and for Figure 8's (PWA) runs only: the paper ran them at different times. */
  readonly praBackground?: number;
  readonly pwaBackground?: number;
  /** Each cluster's threshold as a fraction of its processors; DAS-3's preset (all but 2) otherwise. */
  readonly threshold?: number;
  /** What the threshold caps: everything Concertina holds (`all`) or only growth (`growth`). */
  readonly thresholdScope?: ThresholdScope;
  /** Seconds for a local job (a start, or one processor added by a grow) to launch. */
  readonly launchDelayS?: number;
  /** Seconds a malleable application takes to adapt to a new size. */
  readonly adaptS?: number;
  /** When a poll makes growth due: only when local users gave processors back (`freed`), or whenever some are idle. */
  readonly growthAtPoll?: GrowthAtPoll;
}

/** The experiment's parameters, every one given: what the report prints at its top. */
export interface KoalaParameters {
  readonly pollIntervalS: number;
  readonly praBackground: number;
  readonly pwaBackground: number;
  readonly threshold: number;
  readonly thresholdScope: ThresholdScope;
  readonly adaptS: number;
  readonly launchDelayS: number;
  readonly growthAtPoll: GrowthAtPoll;
}

/**
 * Defaults of what the paper leaves unstated, chosen to reproduce its loaded PWA regime (Figure 8) without breaking
 * Figure 7's observations where both can hold; report.md's sensitivity section shows how each choice matters.
 */
export const KOALA_DEFAULTS: KoalaParameters = {
  // Decision: the information service is polled every minute, as in the rest of Concertina.
  pollIntervalS: DEFAULT_POLL_INTERVAL_S,
  // Decision: Figure 7 ran on a lightly used DAS-3: its jobs grew to many processors, which they cannot on a busy one.
  praBackground: DAS3_BACKGROUND_UTILISATION,
  // Decision: Figure 8 ran on a busy DAS-3 (most jobs stuck at their minimum, high utilization): local users hold
  // most of it, which W'_m alone (300 small jobs) cannot do to 272 processors.
  pwaBackground: 0.9,
  // Decision: all but about 2 processors of each cluster, as the DAS-3 preset: local users always find a few free.
  threshold: 0.95,
  // Decision: the paper says the threshold caps growth ("never expands the total set of jobs it manages").
  thresholdScope: 'growth',
  // Decision: DYNACO adapts an FT or GADGET-2 run in seconds (redistribution of its data); 10 s stands for that.
  adaptS: 10,
  // Decision: a local job of one processor launches through SGE in a few seconds.
  launchDelayS: 5,
  // Decision: the paper's trigger (section V-B: growth when a poll finds processors local users gave back), so that
  // the experiment reproduces the paper; Concertina elsewhere also grows jobs at a poll that finds idle processors,
  // which makes Figure 7's jobs about twice as large on average (see the report's sensitivity section).
  growthAtPoll: 'freed',
};

/** Every parameter, the defaults filling what `options` leaves out (`backgroundUtilization` sets both figures'). */
export function koalaParameters(options: KoalaOptions = {}): KoalaParameters {
  const d = KOALA_DEFAULTS;
  const both = options.backgroundUtilization;
  return {
    pollIntervalS: options.pollIntervalS ?? d.pollIntervalS,
    praBackground: options.praBackground ?? both ?? d.praBackground,
    pwaBackground: options.pwaBackground ?? both ?? d.pwaBackground,
    threshold: options.threshold ?? d.threshold,
    thresholdScope: options.thresholdScope ?? d.thresholdScope,
    adaptS: options.adaptS ?? d.adaptS,
    launchDelayS: options.launchDelayS ?? d.launchDelayS,
    growthAtPoll: options.growthAtPoll ?? d.growthAtPoll,
  };
}

/** What the panels need of one job. */
export interface KoalaJob {
  readonly app: string;
  readonly kind: string;
  readonly state: string;
  readonly avg_size: number;
  readonly max_size: number;
  readonly execution_s: number;
  readonly response_s: number;
}

export interface KoalaRun extends KoalaRunSpec {
  readonly summary: RunSummary;
  readonly refused: number;
  readonly jobs: readonly KoalaJob[];
  /** Grid utilization (0..1, Concertina's and background) averaged over each UTILIZATION_STEP_S from t = 0. */
  readonly utilization: readonly number[];
  /** Grow and mandatory shrink operations per ACTIVITY_BUCKET_S from t = 0. */
  readonly activity: ReadonlyArray<{ readonly grows: number; readonly shrinks: number }>;
}

const grids = new Map<string, GridSpec>();
function das3(backgroundUtilization = DAS3_BACKGROUND_UTILISATION, threshold?: number): GridSpec {
  const key = `${backgroundUtilization}/${threshold}`;
  let grid = grids.get(key);
  if (!grid) grids.set(key, (grid = gridSpecSchema.parse(das3Grid(backgroundUtilization, threshold))));
  return grid;
}

/** One run of the matrix, reduced to what the analysis uses (the step functions are not kept). */
export function runKoalaCase(spec: KoalaRunSpec, options: KoalaOptions = {}): KoalaRun {
  const jobs: JobSpec[] = workloadPreset(spec.workload, spec.seed)!;
  const appOf = new Map(jobs.map((j) => [j.id!, j.app?.model ?? 'unknown']));
  const p = koalaParameters(options);
  const outcome = simulate({
    grid: das3(spec.approach === 'pra' ? p.praBackground : p.pwaBackground, p.threshold),
    launchDelayS: p.launchDelayS,
    adaptS: p.adaptS,
    jobs,
    seed: spec.seed,
    scheduler: {
      approach: spec.approach,
      policy: spec.policy,
      thresholdScope: p.thresholdScope,
      growthAtPoll: p.growthAtPoll,
    },
    pollIntervalS: p.pollIntervalS,
  });
  const capacity = outcome.clusters.reduce((s, c) => s + c.processors, 0);
  const end = Math.max(0, outcome.summary.makespan_s);
  const utilization: number[] = [];
  for (let t = 0; t < end; t += UTILIZATION_STEP_S) {
    const to = Math.min(end, t + UTILIZATION_STEP_S);
    let busy = 0;
    for (const c of outcome.clusters) busy += c.concertina.integral(t, to) + c.background.integral(t, to);
    utilization.push(capacity > 0 ? busy / (capacity * (to - t)) : 0);
  }
  return {
    ...spec,
    summary: outcome.summary,
    refused: outcome.refused.length,
    jobs: outcome.jobs.map((j) => ({
      app: appOf.get(j.id) ?? 'unknown',
      kind: j.kind,
      state: j.state,
      avg_size: j.avg_size,
      max_size: j.max_size,
      execution_s: j.execution_s,
      response_s: j.response_s,
    })),
    utilization,
    activity: outcome.activity(ACTIVITY_BUCKET_S).map((b) => ({ grows: b.grows, shrinks: b.shrinks })),
  };
}

// ---- data of the panels --------------------------------------------------------------------------------------

export interface CdfPoint {
  readonly value: number;
  /** Share of the values at or below `value`. */
  readonly fraction: number;
}

/**
 * Empirical CDF: one point per distinct value, where the cumulative fraction steps up. NaNs are left out. Values are
 * first rounded to 12 significant digits, so that equal sizes computed along different paths count as ties.
 */
export function cdf(values: readonly number[]): CdfPoint[] {
  const sorted = values
    .filter((v) => !Number.isNaN(v))
    .map((v) => Number(v.toPrecision(12)))
    .sort((a, b) => a - b);
  const n = sorted.length;
  const points: CdfPoint[] = [];
  for (let i = 0; i < n; i++) {
    // Ties: only the last of a run of equal values carries the step.
    if (i + 1 < n && sorted[i + 1] === sorted[i]) continue;
    points.push({ value: sorted[i]!, fraction: (i + 1) / n });
  }
  return points;
}

/**
 * Index-wise mean of series of unequal lengths. `missing` stands in where a series has ended; undefined leaves
 * those out of the mean instead (each index is then the mean of the series that reach it).
 */
export function averageSeries(series: ReadonlyArray<readonly number[]>, missing?: number): number[] {
  const length = series.reduce((m, s) => Math.max(m, s.length), 0);
  const out: number[] = [];
  for (let i = 0; i < length; i++) {
    let sum = 0;
    let count = 0;
    for (const s of series) {
      const v = i < s.length ? s[i]! : missing;
      if (v === undefined) continue;
      sum += v;
      count++;
    }
    out.push(count > 0 ? sum / count : 0);
  }
  return out;
}

export type KoalaCdfPanel = 'a' | 'b' | 'c' | 'd';
export type KoalaPanelId = KoalaCdfPanel | 'e' | 'f';

export interface KoalaPanel {
  readonly panel: KoalaPanelId;
  /** File base name after `figN-`. */
  readonly name: string;
  readonly title: string;
  readonly xName: string;
  readonly yName: string;
}

export const KOALA_PANELS: readonly KoalaPanel[] = [
  {
    panel: 'a',
    name: 'a-avg-size-cdf',
    title: 'Average job size (time-weighted)',
    xName: 'average size (processors)',
    yName: 'cumulative fraction of jobs',
  },
  {
    panel: 'b',
    name: 'b-max-size-cdf',
    title: 'Maximum job size',
    xName: 'maximum size (processors)',
    yName: 'cumulative fraction of jobs',
  },
  {
    panel: 'c',
    name: 'c-execution-cdf',
    title: 'Execution time',
    xName: 'execution time (s)',
    yName: 'cumulative fraction of jobs',
  },
  {
    panel: 'd',
    name: 'd-response-cdf',
    title: 'Response time',
    xName: 'response time (s)',
    yName: 'cumulative fraction of jobs',
  },
  {
    panel: 'e',
    name: 'e-utilization',
    title: 'Grid utilization (mean over seeds)',
    xName: 'time (s)',
    yName: 'utilization (fraction of processors)',
  },
  {
    panel: 'f',
    name: 'f-activity',
    title: 'Malleability manager activity (mean over seeds, per 10 min)',
    xName: 'time (s)',
    yName: 'operations per 10 min',
  },
];

const CDF_FIELD: Record<KoalaCdfPanel, keyof Pick<KoalaJob, 'avg_size' | 'max_size' | 'execution_s' | 'response_s'>> = {
  a: 'avg_size',
  b: 'max_size',
  c: 'execution_s',
  d: 'response_s',
};

export interface KoalaCdfSeries {
  readonly series: string;
  readonly points: readonly CdfPoint[];
}

export interface KoalaUtilizationSeries {
  readonly series: string;
  readonly points: ReadonlyArray<{ readonly t: number; readonly utilization: number }>;
}

export interface KoalaActivitySeries {
  readonly series: string;
  readonly points: ReadonlyArray<{ readonly t: number; readonly grows: number; readonly shrinks: number }>;
}

export interface KoalaFigure {
  readonly figure: KoalaFigureId;
  readonly approach: KoalaCase['approach'];
  readonly title: string;
  /** Panels a..d, completed jobs of all seeds pooled per series. */
  readonly cdfs: Readonly<Record<KoalaCdfPanel, readonly KoalaCdfSeries[]>>;
  readonly utilization: readonly KoalaUtilizationSeries[];
  readonly activity: readonly KoalaActivitySeries[];
}

const completedJobs = (runs: readonly KoalaRun[]): KoalaJob[] =>
  runs.flatMap((r) => r.jobs.filter((j) => j.state === 'completed'));

function figureData(figure: KoalaFigureId, runs: readonly KoalaRun[]): KoalaFigure {
  const cases = KOALA_CASES.filter((c) => c.figure === figure);
  const runsOf = (c: KoalaCase) => runs.filter((r) => r.series === c.series);
  const cdfFor = (panel: KoalaCdfPanel) =>
    cases.map((c) => ({ series: c.series, points: cdf(completedJobs(runsOf(c)).map((j) => j[CDF_FIELD[panel]])) }));
  return {
    figure,
    approach: cases[0]!.approach,
    title:
      figure === 'fig7'
        ? 'Figure 7: FPSMA vs EGS under PRA (no shrinking), W_m and W_mr'
        : "Figure 8: FPSMA vs EGS under PWA (growing and shrinking), W'_m and W'_mr",
    cdfs: { a: cdfFor('a'), b: cdfFor('b'), c: cdfFor('c'), d: cdfFor('d') },
    utilization: cases.map((c) => ({
      series: c.series,
      // A run that has ended no longer says anything about utilization: later samples average the others.
      points: averageSeries(runsOf(c).map((r) => r.utilization)).map((u, i) => ({
        t: i * UTILIZATION_STEP_S,
        utilization: u,
      })),
    })),
    activity: cases.map((c) => {
      const rs = runsOf(c);
      // After a run has ended it does nothing, which counts as zero operations.
      const grows = averageSeries(
        rs.map((r) => r.activity.map((b) => b.grows)),
        0,
      );
      const shrinks = averageSeries(
        rs.map((r) => r.activity.map((b) => b.shrinks)),
        0,
      );
      return {
        series: c.series,
        points: grows.map((g, i) => ({ t: i * ACTIVITY_BUCKET_S, grows: g, shrinks: shrinks[i] ?? 0 })),
      };
    }),
  };
}

// ---- per-series means ----------------------------------------------------------------------------------------

export interface KoalaSeriesMeans extends KoalaCase {
  readonly runs: number;
  readonly jobs: number;
  readonly completed: number;
  readonly failed: number;
  readonly refused: number;
  readonly mean_avg_size: number;
  readonly mean_max_size: number;
  readonly mean_execution_s: number;
  readonly mean_response_s: number;
  readonly mean_wait_s: number;
  readonly utilization: number;
  readonly grow_ops: number;
  readonly shrink_ops: number;
  /** Completed malleable jobs whose size never went above the minimum, over all completed malleable jobs. */
  readonly malleable_at_minimum: number;
  /** The same over all completed jobs, rigid ones (always at 2) included. */
  readonly jobs_at_minimum: number;
  /** Quantiles (25, 50, 75, 90 %) of the completed malleable jobs' average and maximum sizes: Figures 7a and 7b. */
  readonly malleable_avg_size_quantiles: readonly number[];
  readonly malleable_max_size_quantiles: readonly number[];
  /** Runs of the series in which some job failed. */
  readonly runs_with_failures: number;
  readonly ft_mean_execution_s: number;
  readonly gadget2_mean_execution_s: number;
}

/** The quantiles the size observations compare. */
export const SIZE_QUANTILES = [0.25, 0.5, 0.75, 0.9] as const;

/** Empirical quantiles (lower value at each rank) of `xs`; NaN for none. */
function quantiles(xs: readonly number[]): number[] {
  const sorted = [...xs].sort((a, b) => a - b);
  return SIZE_QUANTILES.map((q) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : Number.NaN,
  );
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);
const share = <T>(xs: readonly T[], test: (x: T) => boolean): number =>
  xs.length ? xs.filter(test).length / xs.length : Number.NaN;

function seriesMeans(c: KoalaCase, runs: readonly KoalaRun[]): KoalaSeriesMeans {
  const rs = runs.filter((r) => r.series === c.series);
  const avg = (f: (s: RunSummary) => number) => mean(rs.map((r) => f(r.summary)));
  const done = completedJobs(rs);
  const malleable = done.filter((j) => j.kind === 'malleable');
  return {
    ...c,
    runs: rs.length,
    jobs: avg((s) => s.jobs),
    completed: avg((s) => s.completed),
    failed: avg((s) => s.failed),
    refused: mean(rs.map((r) => r.refused)),
    mean_avg_size: avg((s) => s.mean_avg_size),
    mean_max_size: avg((s) => s.mean_max_size),
    mean_execution_s: avg((s) => s.mean_execution_s),
    mean_response_s: avg((s) => s.mean_response_s),
    mean_wait_s: avg((s) => s.mean_wait_s),
    utilization: avg((s) => s.utilization),
    grow_ops: avg((s) => s.grow_ops),
    shrink_ops: avg((s) => s.shrink_ops),
    malleable_at_minimum: share(malleable, (j) => j.max_size <= MIN_SIZE),
    jobs_at_minimum: share(done, (j) => j.max_size <= MIN_SIZE),
    malleable_avg_size_quantiles: quantiles(malleable.map((j) => j.avg_size)),
    malleable_max_size_quantiles: quantiles(malleable.map((j) => j.max_size)),
    runs_with_failures: rs.filter((r) => r.summary.failed > 0).length,
    ft_mean_execution_s: mean(done.filter((j) => j.app === 'ft').map((j) => j.execution_s)),
    gadget2_mean_execution_s: mean(done.filter((j) => j.app === 'gadget2').map((j) => j.execution_s)),
  };
}

// ---- the paper's observations --------------------------------------------------------------------------------

export interface KoalaObservation {
  readonly id: string;
  /** The claim, in the paper's terms. */
  readonly text: string;
  readonly holds: boolean;
  /** The measured numbers the verdict rests on, by name. */
  readonly figures: Readonly<Record<string, number>>;
  /** Those numbers in words, for the report. */
  readonly measured: string;
}

/** Thresholds the paper leaves qualitative; stated here so the verdicts can be read against them. */
export const OBSERVATION_THRESHOLDS = {
  /** "Two groups": at least this share of FT jobs below 200 s and of GADGET-2 jobs above 400 s. */
  twoGroupsShare: 0.9,
  ftBelowS: 200,
  gadget2AboveS: 400,
  /** "Many jobs stuck at their minimal size": at least this share of the malleable jobs. */
  manyAtMinimum: 0.25,
  /**
   * "Beyond a certain time, no change but initial placements" (Figure 8(f)). Decision: at most this share of a PWA
   * series' grow and shrink operations fall in the second half of its runs (a uniform spread would put half there).
   */
  lateOperationsShare: 0.1,
} as const;

const fmt = (x: number, digits: number): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const pct = (x: number): string => `${fmt(x * 100, 1)} %`;

function observations(means: readonly KoalaSeriesMeans[], runs: readonly KoalaRun[]): KoalaObservation[] {
  const m = (series: string): KoalaSeriesMeans => means.find((s) => s.series === series)!;
  const out: KoalaObservation[] = [];

  // One claim "a beats b" checked on several pairs; holds only if it does on each.
  const compare = (
    id: string,
    text: string,
    pairs: ReadonlyArray<{ label: string; a: string; b: string }>,
    field: keyof KoalaSeriesMeans,
    better: 'higher' | 'lower',
    show: (x: number) => string,
  ) => {
    const figures: Record<string, number> = {};
    let holds = true;
    const parts: string[] = [];
    for (const p of pairs) {
      const a = m(p.a)[field] as number;
      const b = m(p.b)[field] as number;
      figures[p.a] = a;
      figures[p.b] = b;
      if (!(better === 'higher' ? a > b : a < b)) holds = false;
      parts.push(`${p.label}: ${show(a)} vs ${show(b)}`);
    }
    out.push({ id, text, holds, figures, measured: parts.join('; ') + failureNote(pairs.flatMap((p) => [p.a, p.b])) });
  };
  // A comparison of means leaves failed jobs out: say so where it rests on runs that had any.
  const failureNote = (series: readonly string[]): string => {
    const with_ = [...new Set(series)].filter((s) => m(s).runs_with_failures > 0);
    return with_.length
      ? ` (rests on runs with failed jobs: ${with_.map((s) => `${s} ${m(s).runs_with_failures} of ${m(s).runs}`).join(', ')})`
      : '';
  };
  // Figures 7a and 7b are CDFs: one policy gives larger sizes when its CDF of the malleable jobs' sizes lies to the
  // right — fewer jobs never left their minimum, and no quantile below the other's, one above.
  const cdfRight = (
    id: string,
    text: string,
    field: 'malleable_avg_size_quantiles' | 'malleable_max_size_quantiles',
    pairs: ReadonlyArray<{ label: string; a: string; b: string }>,
  ) => {
    const figures: Record<string, number> = {};
    let holds = true;
    const parts: string[] = [];
    for (const p of pairs) {
      const qa = m(p.a)[field];
      const qb = m(p.b)[field];
      const minA = m(p.a).malleable_at_minimum;
      const minB = m(p.b).malleable_at_minimum;
      figures[`${p.a} at minimum`] = minA;
      figures[`${p.b} at minimum`] = minB;
      SIZE_QUANTILES.forEach((q, i) => {
        figures[`${p.a} q${q * 100}`] = qa[i]!;
        figures[`${p.b} q${q * 100}`] = qb[i]!;
      });
      const right = minA <= minB && qa.every((x, i) => x >= qb[i]!) && (minA < minB || qa.some((x, i) => x > qb[i]!));
      if (!right) holds = false;
      const qs = (q: readonly number[]) => q.map((x) => fmt(x, 1)).join('/');
      parts.push(
        `${p.label}: never left the minimum ${pct(minA)} vs ${pct(minB)}, quantiles 25/50/75/90 % ${qs(qa)} vs ${qs(qb)} processors`,
      );
    }
    out.push({ id, text, holds, figures, measured: parts.join('; ') + failureNote(pairs.flatMap((p) => [p.a, p.b])) });
  };
  const secs = (x: number) => `${fmt(x, 0)} s`;
  const ops = (x: number) => `${fmt(x, 1)} grows per run`;

  const egsVsFpsma = [
    { label: 'W_m, EGS vs FPSMA', a: 'egs-wm', b: 'fpsma-wm' },
    { label: 'W_mr, EGS vs FPSMA', a: 'egs-wmr', b: 'fpsma-wmr' },
  ];
  cdfRight(
    'pra-egs-larger-average-size',
    'Under PRA, EGS gives malleable jobs a larger average size than FPSMA (its CDF lies to the right), on W_m and on W_mr',
    'malleable_avg_size_quantiles',
    egsVsFpsma,
  );
  cdfRight(
    'pra-egs-larger-maximum-size',
    'Under PRA, EGS gives malleable jobs a larger maximum size than FPSMA (its CDF lies to the right), on W_m and on W_mr',
    'malleable_max_size_quantiles',
    egsVsFpsma,
  );
  const wmVsWmr = [
    { label: 'FPSMA, W_m vs W_mr', a: 'fpsma-wm', b: 'fpsma-wmr' },
    { label: 'EGS, W_m vs W_mr', a: 'egs-wm', b: 'egs-wmr' },
  ];
  compare(
    'pra-wm-shorter-execution',
    'Under PRA, jobs execute faster with W_m (all malleable) than with W_mr, with both policies',
    wmVsWmr,
    'mean_execution_s',
    'lower',
    secs,
  );
  compare(
    'pra-wm-shorter-response',
    'Under PRA, response times are shorter with W_m than with W_mr, with both policies',
    wmVsWmr,
    'mean_response_s',
    'lower',
    secs,
  );
  compare(
    'pra-egs-higher-utilization',
    'Under PRA on W_m, EGS keeps the grid more utilized than FPSMA',
    [{ label: 'W_m, EGS vs FPSMA', a: 'egs-wm', b: 'fpsma-wm' }],
    'utilization',
    'higher',
    pct,
  );
  compare(
    'pra-wm-higher-utilization',
    'Under PRA, utilization is higher with W_m than with W_mr, with both policies',
    wmVsWmr,
    'utilization',
    'higher',
    pct,
  );
  compare(
    'pra-wm-more-grows',
    'Under PRA, there are more grow operations with W_m than with W_mr, with both policies',
    wmVsWmr,
    'grow_ops',
    'higher',
    ops,
  );
  compare(
    'pra-egs-more-grows',
    'Under PRA, EGS makes more grow operations than FPSMA, on W_m and on W_mr',
    [
      { label: 'W_m, EGS vs FPSMA', a: 'egs-wm', b: 'fpsma-wm' },
      { label: 'W_mr, EGS vs FPSMA', a: 'egs-wmr', b: 'fpsma-wmr' },
    ],
    'grow_ops',
    'higher',
    ops,
  );

  {
    const t = OBSERVATION_THRESHOLDS;
    const done = completedJobs(runs.filter((r) => r.approach === 'pra'));
    const ft = done.filter((j) => j.app === 'ft').map((j) => j.execution_s);
    const gadget = done.filter((j) => j.app === 'gadget2').map((j) => j.execution_s);
    const ftBelow = share(ft, (x) => x < t.ftBelowS);
    const gadgetAbove = share(gadget, (x) => x > t.gadget2AboveS);
    const between = share(done, (j) => j.execution_s >= t.ftBelowS && j.execution_s <= t.gadget2AboveS);
    const ftMax = ft.length ? Math.max(...ft) : Number.NaN;
    const gadgetMin = gadget.length ? Math.min(...gadget) : Number.NaN;
    out.push({
      id: 'pra-execution-two-groups',
      text: `Under PRA, execution times fall into two groups: FT below ${t.ftBelowS} s and GADGET-2 above ${t.gadget2AboveS} s`,
      holds: ftBelow >= t.twoGroupsShare && gadgetAbove >= t.twoGroupsShare,
      figures: {
        ft_below_share: ftBelow,
        gadget2_above_share: gadgetAbove,
        between_share: between,
        ft_max_s: ftMax,
        gadget2_min_s: gadgetMin,
      },
      measured:
        `FT below ${t.ftBelowS} s: ${pct(ftBelow)} (longest ${secs(ftMax)}); GADGET-2 above ${t.gadget2AboveS} s: ${pct(gadgetAbove)} ` +
        `(shortest ${secs(gadgetMin)}); jobs in between: ${pct(between)}; a group counts when it holds ${pct(t.twoGroupsShare)} of its jobs`,
    });
  }

  const pwaSeries = ['fpsma-wm-fast', 'egs-wm-fast', 'fpsma-wmr-fast', 'egs-wmr-fast'];
  {
    const figures: Record<string, number> = {};
    for (const s of pwaSeries) {
      figures[s] = m(s).malleable_at_minimum;
      figures[`${s} (all jobs)`] = m(s).jobs_at_minimum;
    }
    const threshold = OBSERVATION_THRESHOLDS.manyAtMinimum;
    out.push({
      id: 'pwa-many-at-minimum',
      text: `Under PWA, many malleable jobs never grow beyond their minimum of ${MIN_SIZE} processors (at least ${pct(threshold)} of them), whatever the workload and policy`,
      holds: pwaSeries.every((s) => m(s).malleable_at_minimum >= threshold),
      figures,
      measured: pwaSeries
        .map(
          (s) =>
            `${label(m(s))}: ${pct(m(s).malleable_at_minimum)} of malleable jobs (${pct(m(s).jobs_at_minimum)} of all jobs)`,
        )
        .join('; '),
    });
  }
  {
    // Over each series' runs: operations in buckets starting in the second half of the run, against all of them.
    const figures: Record<string, number> = {};
    const lateShare = (series: string): number => {
      let late = 0;
      let all = 0;
      for (const r of runs.filter((x) => x.series === series)) {
        const half = r.summary.makespan_s / 2;
        r.activity.forEach((b, i) => {
          const n = b.grows + b.shrinks;
          all += n;
          if (i * ACTIVITY_BUCKET_S >= half) late += n;
        });
      }
      return all > 0 ? late / all : 0;
    };
    for (const s of pwaSeries) figures[s] = lateShare(s);
    const limit = OBSERVATION_THRESHOLDS.lateOperationsShare;
    out.push({
      id: 'pwa-few-operations-late',
      text: `Under PWA, beyond some time the malleability manager grows and shrinks nothing more (at most ${pct(limit)} of the operations in the second half of a run)`,
      holds: pwaSeries.every((s) => figures[s]! <= limit),
      figures,
      measured:
        pwaSeries
          .map((s) => `${label(m(s))}: ${pct(figures[s]!)} of its grows and shrinks in the second half`)
          .join('; ') + failureNote(pwaSeries),
    });
  }
  compare(
    'pwa-egs-more-at-minimum',
    'Under PWA, more malleable jobs stay at their minimum size with EGS than with FPSMA, on both workloads',
    [
      { label: "W'_m, EGS vs FPSMA", a: 'egs-wm-fast', b: 'fpsma-wm-fast' },
      { label: "W'_mr, EGS vs FPSMA", a: 'egs-wmr-fast', b: 'fpsma-wmr-fast' },
    ],
    'malleable_at_minimum',
    'higher',
    pct,
  );

  {
    const pairs = KOALA_CASES.filter((c) => c.approach === 'pwa').map((c) => ({
      pwa: c.series,
      pra: `${c.policy}-${c.workload.replace('-fast', '')}`,
    }));
    const figures: Record<string, number> = {};
    const parts: string[] = [];
    let holds = true;
    for (const p of pairs) {
      const pwa = m(p.pwa).gadget2_mean_execution_s;
      const pra = m(p.pra).gadget2_mean_execution_s;
      figures[p.pwa] = pwa;
      figures[p.pra] = pra;
      if (!(pwa > pra)) holds = false;
      // Rounded before signing, so that a small decrease does not print as "-0 %".
      const change = Math.round((pwa / pra - 1) * 100) || 0;
      parts.push(
        `${label(m(p.pwa))} vs ${label(m(p.pra))}: ${secs(pwa)} vs ${secs(pra)} (${change > 0 ? '+' : ''}${fmt(change, 0)} %)`,
      );
    }
    out.push({
      id: 'pwa-gadget2-slower',
      text: 'GADGET-2 jobs execute longer under PWA than under PRA (the paper: about 30 % longer, some 600 s)',
      holds,
      figures,
      measured: parts.join('; '),
    });
  }

  {
    const figures: Record<string, number> = {};
    for (const s of pwaSeries) figures[s] = m(s).mean_response_s;
    const worst = pwaSeries.reduce((w, s) => (m(s).mean_response_s > m(w).mean_response_s ? s : w));
    out.push({
      id: 'pwa-egs-wm-worst-response',
      text: "Under PWA, EGS on W'_m has the worst response time of the four combinations",
      holds:
        worst === 'egs-wm-fast' &&
        pwaSeries.every((s) => s === worst || m(s).mean_response_s < m(worst).mean_response_s),
      figures,
      measured: pwaSeries.map((s) => `${label(m(s))}: ${secs(m(s).mean_response_s)}`).join('; '),
    });
  }
  return out;
}

function label(c: KoalaCase): string {
  return `${c.policy.toUpperCase()} ${WORKLOAD_LABEL[c.workload]}`;
}

// ---- the whole experiment ------------------------------------------------------------------------------------

export interface KoalaSettings extends KoalaOptions {
  readonly seeds: number;
}

export interface KoalaAnalysis {
  readonly settings: KoalaSettings;
  readonly runs: readonly KoalaRun[];
  readonly figures: readonly KoalaFigure[];
  readonly means: readonly KoalaSeriesMeans[];
  readonly observations: readonly KoalaObservation[];
  /** report.md. */
  readonly report: string;
}

/** Everything the experiment reports, from its runs (any order; every case needs at least one run). */
export function analyseKoala(
  runs: readonly KoalaRun[],
  settings: KoalaSettings,
  sensitivity?: KoalaSensitivity,
): KoalaAnalysis {
  for (const c of KOALA_CASES) {
    if (!runs.some((r) => r.series === c.series)) throw new RangeError(`no run of ${c.series}`);
  }
  const figures = (['fig7', 'fig8'] as const).map((f) => figureData(f, runs));
  const means = KOALA_CASES.map((c) => seriesMeans(c, runs));
  const obs = observations(means, runs);
  return {
    settings,
    runs,
    figures,
    means,
    observations: obs,
    report: koalaReport(settings, runs, means, obs, sensitivity),
  };
}

export interface KoalaExperimentOptions extends KoalaOptions {
  readonly seeds?: number;
  /** After each run, with the runs done so far and the total. */
  onRun?(done: number, total: number, run: KoalaRun): void;
}

/** Runs the whole matrix in one go (the CLI runs it step by step to keep its progress bar moving). */
export function runKoalaExperiment(options: KoalaExperimentOptions = {}): KoalaAnalysis {
  const seeds = options.seeds ?? KOALA_DEFAULT_SEEDS;
  const matrix = koalaRunMatrix(seeds);
  const runs = matrix.map((spec, i) => {
    const run = runKoalaCase(spec, options);
    options.onRun?.(i + 1, matrix.length, run);
    return run;
  });
  const { onRun: _onRun, ...rest } = options;
  return analyseKoala(runs, { ...rest, seeds });
}

// ---- report.md -----------------------------------------------------------------------------------------------

/** Base names of the files the CLI writes next to the report, listed in it. */
export function koalaFileBases(): string[] {
  return (['fig7', 'fig8'] as const).flatMap((f) => KOALA_PANELS.map((p) => `${f}-${p.name}`));
}

function koalaReport(
  settings: KoalaSettings,
  runs: readonly KoalaRun[],
  means: readonly KoalaSeriesMeans[],
  obs: readonly KoalaObservation[],
  sensitivity: KoalaSensitivity | undefined,
): string {
  const p = koalaParameters(settings);
  const grid = das3(p.praBackground, p.threshold);
  const processors = grid.clusters.reduce((sum, c) => sum + c.processors, 0);
  const jobsPerRun = WORKLOAD_PRESETS.wm!.count;
  const refused = runs.reduce((sum, r) => sum + r.refused, 0);
  const lines: string[] = [];
  lines.push('# KOALA malleability experiment (paper section VII)', '');
  lines.push('## Parameters', '');
  lines.push(
    'What the paper leaves unstated, as set for this run (defaults in brackets, and why they are the defaults):',
    '',
  );
  lines.push('| parameter | flag | value | default | why the default |', '|---|---|---:|---:|---|');
  for (const d of PARAMETER_DOCS) {
    lines.push(`| ${d.label} | \`${d.flag}\` | ${d.show(p[d.key])} | ${d.show(KOALA_DEFAULTS[d.key])} | ${d.why} |`);
  }
  lines.push('');
  lines.push('## What was run', '');
  lines.push(
    `- Grid: the DAS-3 preset, ${grid.clusters.length} clusters, ${processors} processors; local users who bypass the scheduler keep ` +
      `about ${pct(p.praBackground)} of it busy in Figure 7's runs and ${pct(p.pwaBackground)} in Figure 8's.`,
    `- Figure 7 (PRA, jobs never shrunk): FPSMA and EGS on W_m and W_mr (one job every ${WORKLOAD_PRESETS.wm!.interarrivalS} s).`,
    `- Figure 8 (PWA, jobs grown and shrunk): FPSMA and EGS on W'_m and W'_mr (one job every ${WORKLOAD_PRESETS['wm-fast']!.interarrivalS} s).`,
    `- ${jobsPerRun} jobs per run (FT or GADGET-2, minimum 2 processors; W_mr and W'_mr half rigid of 2), Worst Fit placement.`,
    `- Seeds 1..${settings.seeds} for each of the ${KOALA_CASES.length} combinations: ${runs.length} runs; the seed fixes both the workload and the background load.`,
    '- A grow is one single-processor local job per processor; the application adapts to those that started.',
    `- Jobs refused by the scheduler over all runs: ${refused}.`,
    '',
  );
  const failedRuns = runs.filter((r) => r.summary.failed > 0);
  lines.push('## Failed jobs', '');
  if (failedRuns.length === 0) lines.push('No job failed in any run.', '');
  else {
    lines.push(
      `${failedRuns.length} of ${runs.length} runs had failed jobs; the means below leave them out, and every observation resting on such runs says so.`,
      '',
      '| series | seed | failed | completed |',
      '|---|---:|---:|---:|',
      ...failedRuns.map((r) => `| ${r.series} | ${r.seed} | ${r.summary.failed} | ${r.summary.completed} |`),
      '',
    );
  }
  lines.push('## Means per series (over seeds)', '');
  lines.push(
    '| series | approach | completed | failed | avg size (proc.) | max size (proc.) | execution (s) | response (s) | wait (s) | utilization | grows/run | shrinks/run | malleable at min. |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const m of means) {
    lines.push(
      `| ${m.series} | ${m.approach.toUpperCase()} | ${fmt(m.completed, 1)} | ${fmt(m.failed, 1)} | ${fmt(m.mean_avg_size, 1)} | ${fmt(m.mean_max_size, 1)} | ` +
        `${fmt(m.mean_execution_s, 0)} | ${fmt(m.mean_response_s, 0)} | ${fmt(m.mean_wait_s, 0)} | ${pct(m.utilization)} | ${fmt(m.grow_ops, 1)} | ` +
        `${fmt(m.shrink_ops, 1)} | ${pct(m.malleable_at_minimum)} |`,
    );
  }
  lines.push('');
  lines.push(
    'Sizes of the completed malleable jobs (Figures 7a and 7b as CDFs: share that never left the minimum, quantiles 25/50/75/90 %):',
    '',
  );
  lines.push('| series | never left minimum | average size quantiles | maximum size quantiles |', '|---|---:|---|---|');
  for (const m of means) {
    const qs = (q: readonly number[]) => q.map((x) => fmt(x, 1)).join(' / ');
    lines.push(
      `| ${m.series} | ${pct(m.malleable_at_minimum)} | ${qs(m.malleable_avg_size_quantiles)} | ${qs(m.malleable_max_size_quantiles)} |`,
    );
  }
  lines.push('');
  const held = obs.filter((o) => o.holds).length;
  lines.push("## The paper's observations", '', `${held} of ${obs.length} hold here.`, '');
  for (const o of obs) lines.push(`- ${o.text}: **${o.holds ? 'holds' : 'does not hold'}** (${o.measured}).`);
  lines.push('');
  lines.push(...OPPOSED, '');
  if (sensitivity) lines.push(...sensitivityLines(sensitivity), '');
  lines.push('## Files', '');
  lines.push(
    '- `runs.csv`: one row per run with its summary.',
    '- `figN-a..d-*-cdf.csv`: series, value, cumulative fraction of the completed jobs of all seeds.',
    `- \`figN-e-utilization.csv\`: t (s), series, grid utilization averaged over each ${UTILIZATION_STEP_S} s and over the seeds.`,
    `- \`figN-f-activity.csv\`: t (s), series, grow and shrink operations per ${ACTIVITY_BUCKET_S / 60} minutes, averaged over the seeds.`,
    '- An SVG plot next to each CSV, with the same base name.',
    '',
  );
  return lines.join('\n');
}

// ---- parameters and sensitivity ----------------------------------------------------------------------------------

type ParameterKey = keyof KoalaParameters;

interface ParameterDoc {
  readonly key: ParameterKey;
  readonly label: string;
  readonly flag: string;
  readonly show: (v: KoalaParameters[ParameterKey]) => string;
  readonly why: string;
  /** Values the sensitivity section tries, the default among them. */
  readonly range: ReadonlyArray<KoalaParameters[ParameterKey]>;
}

const showFraction = (v: KoalaParameters[ParameterKey]) =>
  typeof v === 'number' ? fmt(v, 3).replace(/0+$/, '').replace(/\.$/, '') : String(v);
const showSeconds = (v: KoalaParameters[ParameterKey]) => `${v} s`;

const PARAMETER_DOCS: readonly ParameterDoc[] = [
  {
    key: 'praBackground',
    label: "local users' load, Figure 7 (PRA)",
    flag: '--pra-background',
    show: showFraction,
    why: 'a lightly used DAS-3, on which PRA jobs grow far',
    range: [0.075, 0.3, 0.6],
  },
  {
    key: 'pwaBackground',
    label: "local users' load, Figure 8 (PWA)",
    flag: '--pwa-background',
    show: showFraction,
    why: 'a busy DAS-3: most PWA jobs stay at their minimum, utilization high',
    range: [0.5, 0.75, 0.9, 0.95],
  },
  {
    key: 'threshold',
    label: 'threshold (share of each cluster)',
    flag: '--threshold',
    show: showFraction,
    why: 'all but a couple of processors per cluster, as the DAS-3 preset',
    range: [0.8, 0.95, 1],
  },
  {
    key: 'thresholdScope',
    label: 'what the threshold caps',
    flag: '--threshold-scope',
    show: (v) => String(v),
    why: 'the paper: KOALA never expands the jobs it manages over it (growth)',
    range: ['growth', 'all'],
  },
  {
    key: 'adaptS',
    label: 'adapt time of an application',
    flag: '--adapt-s',
    show: showSeconds,
    why: 'DYNACO redistributes an FT or GADGET-2 run in seconds',
    range: [0, 10, 60],
  },
  {
    key: 'launchDelayS',
    label: 'launch delay of a local job',
    flag: '--launch-delay-s',
    show: showSeconds,
    why: 'a single-processor SGE job starts within seconds',
    range: [0, 5, 30],
  },
  {
    key: 'pollIntervalS',
    label: 'information-service poll interval',
    flag: '--poll',
    show: showSeconds,
    why: 'a poll a minute, as elsewhere in Concertina',
    range: [30, 60, 120],
  },
  {
    key: 'growthAtPoll',
    label: 'what makes growth due at a poll',
    flag: '--growth-at-poll',
    show: (v) => String(v),
    why: 'the paper: processors local users gave back (freed); idle: any idle under the threshold',
    range: ['freed', 'idle'],
  },
];

/** Observations that pull against each other, as measured while choosing the defaults. */
const OPPOSED = [
  '## Observations that pull against each other',
  '',
  '- "Many malleable jobs stay at their minimum under PWA" and "GADGET-2 runs longer under PWA than under PRA" need Figure 8\'s runs on a busy ' +
    "DAS-3 (local users holding most of it); on the lightly used DAS-3 that Figure 7's growth needs, W'_m alone leaves most of 272 processors free: " +
    'its jobs grow, and GADGET-2 runs faster under PWA than under PRA. Hence two background loads, one per figure (see the sensitivity section).',
  '- "More jobs stay at their minimum with EGS than with FPSMA under PWA" goes against how EGS shares: it spreads every grow over all running jobs, ' +
    'so fewer of them stay at their minimum than under FPSMA, which gives everything to the oldest; no setting tried here reverses that.',
];

export interface KoalaSensitivityVariant {
  readonly parameter: ParameterKey;
  readonly value: KoalaParameters[ParameterKey];
  readonly holds: Readonly<Record<string, boolean>>;
  readonly failedJobs: number;
}

export interface KoalaSensitivity {
  readonly seeds: number;
  readonly observations: ReadonlyArray<{ readonly id: string; readonly text: string }>;
  readonly variants: readonly KoalaSensitivityVariant[];
}

/**
 * Runs the experiment again with each unstated parameter set to each value of its range, the others as in
 * `options`: which observations hold at each. Runs that one parameter does not touch (a figure's background load)
 * are shared. `onRun` after each simulation, with the runs done and the total.
 */
export function koalaSensitivity(
  options: KoalaOptions,
  seeds: number,
  onRun?: (done: number, total: number) => void,
): KoalaSensitivity {
  const base = koalaParameters(options);
  const cache = new Map<string, KoalaRun>();
  const matrix = koalaRunMatrix(seeds);
  const plans = PARAMETER_DOCS.flatMap((d) =>
    d.range.map((value) => ({ parameter: d.key, value, parameters: { ...base, [d.key]: value } as KoalaParameters })),
  );
  const keyOf = (spec: KoalaRunSpec, p: KoalaParameters) =>
    JSON.stringify([
      spec.series,
      spec.seed,
      spec.approach === 'pra' ? p.praBackground : p.pwaBackground,
      p.threshold,
      p.thresholdScope,
      p.adaptS,
      p.launchDelayS,
      p.pollIntervalS,
      p.growthAtPoll,
    ]);
  const total = new Set(plans.flatMap((plan) => matrix.map((spec) => keyOf(spec, plan.parameters)))).size;
  let observationsText: Array<{ id: string; text: string }> = [];
  const variants = plans.map((plan) => {
    const runs = matrix.map((spec) => {
      const key = keyOf(spec, plan.parameters);
      let run = cache.get(key);
      if (!run) {
        cache.set(key, (run = runKoalaCase(spec, plan.parameters)));
        onRun?.(cache.size, total);
      }
      return run;
    });
    const means = KOALA_CASES.map((c) => seriesMeans(c, runs));
    const obs = observations(means, runs);
    observationsText = obs.map((o) => ({ id: o.id, text: o.text }));
    return {
      parameter: plan.parameter,
      value: plan.value,
      holds: Object.fromEntries(obs.map((o) => [o.id, o.holds])),
      failedJobs: runs.reduce((sum, r) => sum + r.summary.failed, 0),
    };
  });
  return { seeds, observations: observationsText, variants };
}

function sensitivityLines(s: KoalaSensitivity): string[] {
  const docs = PARAMETER_DOCS;
  const lines = [
    '## Sensitivity',
    '',
    `Each unstated parameter varied alone over a sensible range, the others at this run's values (seeds 1..${s.seeds}). ` +
      'A cell lists the values at which the observation holds (— at none).',
    '',
    `| observation | ${docs.map((d) => `${d.flag} (${d.range.map((v) => d.show(v)).join(', ')})`).join(' | ')} |`,
    `|---|${docs.map(() => '---').join('|')}|`,
  ];
  for (const o of s.observations) {
    const cells = docs.map((d) => {
      const at = s.variants.filter((v) => v.parameter === d.key && v.holds[o.id]).map((v) => d.show(v.value));
      return at.length === d.range.length ? 'all' : at.length ? at.join(', ') : '—';
    });
    lines.push(`| ${o.id} | ${cells.join(' | ')} |`);
  }
  const failed = s.variants.filter((v) => v.failedJobs > 0);
  lines.push(
    '',
    failed.length
      ? `Settings with failed jobs: ${failed.map((v) => `${docs.find((d) => d.key === v.parameter)!.flag} ${v.value} (${v.failedJobs})`).join(', ')}.`
      : 'No job failed at any of these settings.',
  );
  return lines;
}
