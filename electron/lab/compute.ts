// One Lab run, computed synchronously: the KOALA experiment (composed as `concertina experiment koala` composes it)
// or one simulation, reduced to the series the Lab plots. Runs in the lab worker; tests run it in-process too.
import { gridSpecSchema } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import {
  ACTIVITY_BUCKET_S,
  KOALA_CASES,
  KOALA_PANELS,
  UTILIZATION_STEP_S,
  analyseKoala,
  cdf,
  koalaRunMatrix,
  runKoalaCase,
  type KoalaAnalysis,
  type KoalaCdfPanel,
  type KoalaRun,
} from '../../core/sim/experiments/koala.js';
import type { ClusterUsage, JobMetrics } from '../../core/sim/metrics.js';
import { simulate } from '../../core/sim/simulate.js';
import { DEFAULT_POLL_INTERVAL_S } from '../../core/sim/world.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import type { KoalaLabSpec, LabCdfPanelId, LabOutcome, LabProgress, LabSeries, LabSpec, SimulateLabSpec } from './schemas.js';

const CDF_Y = 'cumulative fraction of jobs';
const koalaPanel = (p: KoalaCdfPanel) => KOALA_PANELS.find((k) => k.panel === p)!;

/** The panels in the Lab's order: wait, execution and response times first, then the sizes (the paper's a, b). */
const CDF_PANELS: ReadonlyArray<{ id: LabCdfPanelId; title: string; xName: string; koala?: KoalaCdfPanel }> = [
  { id: 'wait', title: 'Wait time', xName: 'wait time (s)' },
  { id: 'execution', title: koalaPanel('c').title, xName: koalaPanel('c').xName, koala: 'c' },
  { id: 'response', title: koalaPanel('d').title, xName: koalaPanel('d').xName, koala: 'd' },
  { id: 'avg_size', title: koalaPanel('a').title, xName: koalaPanel('a').xName, koala: 'a' },
  { id: 'max_size', title: koalaPanel('b').title, xName: koalaPanel('b').xName, koala: 'b' },
];

/** A label for a spec, shown in the list of runs. */
export function labLabel(spec: LabSpec): string {
  if (spec.kind === 'koala') {
    const extras = [spec.poll === undefined ? '' : `poll ${spec.poll} s`, spec.backgroundLoad === undefined ? '' : `background ${(spec.backgroundLoad * 100).toFixed(1)} %`];
    return [`KOALA experiment, seeds 1..${spec.seeds}`, ...extras].filter(Boolean).join(', ');
  }
  const jobs = spec.maxJobs === undefined ? '' : `, first ${spec.maxJobs} jobs`;
  return `${spec.workload} on ${spec.grid}, ${spec.approach}/${spec.policy}, seed ${spec.seed}${jobs}`;
}

/** How many simulation runs a spec makes. */
export function labRunsTotal(spec: LabSpec): number {
  return spec.kind === 'koala' ? KOALA_CASES.length * spec.seeds : 1;
}

export function computeLab(spec: LabSpec, onProgress: (p: LabProgress) => void = () => {}): LabOutcome {
  return spec.kind === 'koala' ? koalaOutcome(spec, onProgress) : simulateOutcome(spec, onProgress);
}

const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

// ---- KOALA experiment ----------------------------------------------------------------------------------------

const KOALA_METRICS = [
  'runs', 'completed', 'failed', 'refused', 'mean_wait_s', 'mean_execution_s', 'mean_response_s', 'mean_avg_size', 'mean_max_size',
  'utilization', 'grow_ops', 'shrink_ops', 'malleable_at_minimum',
] as const;

function koalaOutcome(spec: KoalaLabSpec, onProgress: (p: LabProgress) => void): LabOutcome {
  const settings = {
    seeds: spec.seeds,
    pollIntervalS: spec.poll ?? DEFAULT_POLL_INTERVAL_S,
    // Unset: each figure's own default load (KOALA_DEFAULTS).
    ...(spec.backgroundLoad === undefined ? {} : { backgroundUtilization: spec.backgroundLoad }),
  };
  const matrix = koalaRunMatrix(spec.seeds);
  const runs: KoalaRun[] = [];
  const note = (i: number) => (i < matrix.length ? `${matrix[i]!.series} seed ${matrix[i]!.seed}` : 'analysing');
  onProgress({ fraction: 0, runsDone: 0, runsTotal: matrix.length, note: note(0) });
  for (const run of matrix) {
    runs.push(runKoalaCase(run, settings));
    onProgress({ fraction: runs.length / matrix.length, runsDone: runs.length, runsTotal: matrix.length, note: note(runs.length) });
  }
  const analysis = analyseKoala(runs, settings);
  return {
    kind: 'koala',
    label: labLabel(spec),
    cdfs: cdfCharts((p) => (p.koala ? koalaCdfSeries(analysis, p.koala) : koalaWaitSeries(runs))),
    utilization: {
      id: 'utilization',
      title: `Grid utilization (mean over seeds, per ${UTILIZATION_STEP_S} s)`,
      xName: 'time (s)',
      yName: 'utilization (fraction of processors)',
      series: analysis.figures.flatMap((f) => f.utilization.map((s) => ({ name: s.series, points: s.points.map((p): [number, number] => [p.t, p.utilization]) }))),
    },
    activity: {
      id: 'activity',
      title: `Malleability manager activity (mean over seeds, per ${ACTIVITY_BUCKET_S / 60} min)`,
      xName: 'time (s)',
      yName: `operations per ${ACTIVITY_BUCKET_S / 60} min`,
      series: analysis.figures.flatMap((f) => f.activity.flatMap((s) => activitySeries(s.series, s.points))),
    },
    metrics: analysis.means.map((m) => ({ series: m.series, values: Object.fromEntries(KOALA_METRICS.map((k) => [k, finiteOrNull(m[k])])) })),
    observations: analysis.observations.map((o) => ({ id: o.id, text: o.text, holds: o.holds, measured: o.measured })),
  };
}

/** One CDF chart per panel, each with the series `seriesOf` gives it. */
function cdfCharts(seriesOf: (panel: (typeof CDF_PANELS)[number]) => LabSeries[]) {
  return CDF_PANELS.map((p) => ({ id: p.id, title: p.title, xName: p.xName, yName: CDF_Y, series: seriesOf(p) }));
}

function koalaCdfSeries(analysis: KoalaAnalysis, panel: KoalaCdfPanel): LabSeries[] {
  return analysis.figures.flatMap((f) => f.cdfs[panel].map((s) => ({ name: s.series, points: s.points.map((p): [number, number] => [p.value, p.fraction]) })));
}

/** Decision: a completed job's wait is its response time minus its execution time (the KOALA runs keep only those). */
function koalaWaitSeries(runs: readonly KoalaRun[]): LabSeries[] {
  return KOALA_CASES.map((c) => ({
    name: c.series,
    points: cdfPoints(runs.filter((r) => r.series === c.series).flatMap((r) => r.jobs.filter((j) => j.state === 'completed').map((j) => j.response_s - j.execution_s))),
  }));
}

// ---- one simulation ------------------------------------------------------------------------------------------

const SIMULATE_METRICS = [
  'jobs', 'completed', 'failed', 'cancelled', 'makespan_s', 'utilization', 'concertina_utilization', 'background_utilization', 'mean_wait_s',
  'mean_execution_s', 'mean_response_s', 'mean_avg_size', 'mean_max_size', 'grow_ops', 'shrink_ops', 'voluntary_releases', 'events',
] as const;

const CDF_FIELD: Record<LabCdfPanelId, keyof Pick<JobMetrics, 'wait_s' | 'execution_s' | 'response_s' | 'avg_size' | 'max_size'>> = {
  wait: 'wait_s',
  execution: 'execution_s',
  response: 'response_s',
  avg_size: 'avg_size',
  max_size: 'max_size',
};

function simulateOutcome(spec: SimulateLabSpec, onProgress: (p: LabProgress) => void): LabOutcome {
  const all = workloadPreset(spec.workload, spec.seed)!;
  const jobs = spec.maxJobs === undefined ? all : all.slice(0, spec.maxJobs);
  const grid = gridSpecSchema.parse(gridPreset(spec.grid));
  onProgress({ fraction: 0, runsDone: 0, runsTotal: 1, note: `0 of ${jobs.length} jobs` });
  const outcome = simulate(
    { grid, jobs, seed: spec.seed, pollIntervalS: spec.poll ?? DEFAULT_POLL_INTERVAL_S, scheduler: { approach: spec.approach, policy: spec.policy } },
    { onProgress: (ended, total) => onProgress({ fraction: total > 0 ? ended / total : 1, runsDone: 0, runsTotal: 1, note: `${ended} of ${total} jobs` }) },
  );
  const series = `${spec.policy}-${spec.workload}`;
  const completed = outcome.jobs.filter((j) => j.state === 'completed');
  const summary: Record<string, number> = { ...outcome.summary, refused: outcome.refused.length };
  return {
    kind: 'simulate',
    label: labLabel(spec),
    cdfs: cdfCharts((p) => [{ name: series, points: cdfPoints(completed.map((j) => j[CDF_FIELD[p.id]])) }]),
    utilization: {
      id: 'utilization',
      title: `Grid utilization (per ${UTILIZATION_STEP_S} s)`,
      xName: 'time (s)',
      yName: 'utilization (fraction of processors)',
      series: [{ name: series, points: utilizationPoints(outcome.clusters, Math.max(0, outcome.summary.makespan_s)) }],
    },
    activity: {
      id: 'activity',
      title: `Malleability manager activity (per ${ACTIVITY_BUCKET_S / 60} min)`,
      xName: 'time (s)',
      yName: `operations per ${ACTIVITY_BUCKET_S / 60} min`,
      series: activitySeries(series, outcome.activity(ACTIVITY_BUCKET_S)),
    },
    metrics: [{ series, values: Object.fromEntries([...SIMULATE_METRICS, 'refused'].map((k) => [k, finiteOrNull(summary[k]!)])) }],
    observations: [],
  };
}

/** Busy processors (Concertina's and background) over all, averaged over each UTILIZATION_STEP_S from t = 0. */
function utilizationPoints(clusters: readonly ClusterUsage[], end: number): Array<[number, number]> {
  const capacity = clusters.reduce((s, c) => s + c.processors, 0);
  const points: Array<[number, number]> = [];
  for (let t = 0; t < end; t += UTILIZATION_STEP_S) {
    const to = Math.min(end, t + UTILIZATION_STEP_S);
    let busy = 0;
    for (const c of clusters) busy += c.concertina.integral(t, to) + c.background.integral(t, to);
    points.push([t, capacity > 0 ? busy / (capacity * (to - t)) : 0]);
  }
  return points;
}

// ---- shared --------------------------------------------------------------------------------------------------

const cdfPoints = (values: readonly number[]): Array<[number, number]> => cdf(values).map((p) => [p.value, p.fraction]);

/** Grows, and shrinks only where there are any: under PRA nothing is shrunk, and flat zero lines crowd a chart. */
function activitySeries(name: string, points: ReadonlyArray<{ t: number; grows: number; shrinks: number }>): LabSeries[] {
  const out: LabSeries[] = [{ name: `${name} grows`, points: points.map((p) => [p.t, p.grows]) }];
  if (points.some((p) => p.shrinks > 0)) out.push({ name: `${name} shrinks`, points: points.map((p) => [p.t, p.shrinks]) });
  return out;
}
