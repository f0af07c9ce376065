// One simulation in the Lab, as `concertina simulate` runs it: a grid and workload preset, an approach and a policy,
// a seed, optionally only the first N jobs; reduced to CDFs, utilization, activity and its summary.
import { z } from 'zod';
import { APPROACHES, gridSpecSchema } from '../../../core/model/schemas.js';
import { malleabilityPolicies } from '../../../core/malleability/registry.js';
import { GRID_PRESETS, gridPreset } from '../../../core/sim/grids.js';
import { WORKLOAD_PRESETS, workloadPreset } from '../../../core/sim/workloads/koala.js';
import { ACTIVITY_BUCKET_S, UTILIZATION_STEP_S } from '../../../core/sim/experiments/koala.js';
import type { ClusterUsage, JobMetrics } from '../../../core/sim/metrics.js';
import { simulate } from '../../../core/sim/simulate.js';
import { DEFAULT_POLL_INTERVAL_S } from '../../../core/sim/world.js';
import { MAX_SEED, SIMULATION_COLUMNS, oneOf, pollSchema, whole, type LabCdfPanelId } from '../schemas.js';
import { activitySeries, cdfCharts, cdfPoints, finiteOrNull } from './shared.js';
import { defineExperiment } from './experiment.js';

const GRIDS = Object.keys(GRID_PRESETS);
const WORKLOADS = Object.keys(WORKLOAD_PRESETS);
const POLICIES = Object.keys(malleabilityPolicies);

const SIMULATE_METRICS = [
  'jobs',
  'completed',
  'failed',
  'cancelled',
  'makespan_s',
  'utilization',
  'concertina_utilization',
  'background_utilization',
  'mean_wait_s',
  'mean_execution_s',
  'mean_response_s',
  'mean_avg_size',
  'mean_max_size',
  'grow_ops',
  'shrink_ops',
  'voluntary_releases',
  'events',
] as const;

const CDF_FIELD: Record<
  LabCdfPanelId,
  keyof Pick<JobMetrics, 'wait_s' | 'execution_s' | 'response_s' | 'avg_size' | 'max_size'>
> = {
  wait: 'wait_s',
  execution: 'execution_s',
  response: 'response_s',
  avg_size: 'avg_size',
  max_size: 'max_size',
};

const schema = z.strictObject({
  kind: z.literal('simulate'),
  grid: oneOf(GRIDS),
  workload: oneOf(WORKLOADS),
  approach: oneOf(APPROACHES),
  policy: oneOf(POLICIES),
  seed: whole(0, MAX_SEED),
  poll: pollSchema.optional(),
  /** Only the first N jobs of the workload. */
  maxJobs: whole(1, 100_000).optional(),
});
export type SimulateLabSpec = z.infer<typeof schema>;

function label(spec: SimulateLabSpec): string {
  const jobs = spec.maxJobs === undefined ? '' : `, first ${spec.maxJobs} jobs`;
  return `${spec.workload} on ${spec.grid}, ${spec.approach}/${spec.policy}, seed ${spec.seed}${jobs}`;
}

export const simulateExperiment = defineExperiment({
  name: 'simulate',
  title: 'simulation',
  description: 'One simulated run of a workload on a grid with an approach and a policy.',
  schema,
  params: [
    { name: 'grid', label: 'grid', type: 'choice', required: true, initial: 'das3', options: GRIDS },
    { name: 'workload', label: 'workload', type: 'choice', required: true, initial: 'wm', options: WORKLOADS },
    { name: 'approach', label: 'approach', type: 'choice', required: true, initial: 'pra', options: [...APPROACHES] },
    { name: 'policy', label: 'policy', type: 'choice', required: true, initial: 'fpsma', options: POLICIES },
    { name: 'seed', label: 'seed', type: 'whole', required: true, initial: 1, min: 0, max: MAX_SEED },
    {
      name: 'maxJobs',
      label: 'first jobs only',
      type: 'whole',
      required: false,
      initial: null,
      min: 1,
      max: 100_000,
      placeholder: 'all',
    },
    {
      name: 'poll',
      label: 'poll interval (s)',
      type: 'number',
      required: false,
      initial: null,
      min: 1,
      max: 86_400,
      placeholder: String(DEFAULT_POLL_INTERVAL_S),
    },
  ],
  label,
  runsTotal: () => 1,
  compute(spec, onProgress) {
    const all = workloadPreset(spec.workload, spec.seed)!;
    const jobs = spec.maxJobs === undefined ? all : all.slice(0, spec.maxJobs);
    const grid = gridSpecSchema.parse(gridPreset(spec.grid));
    onProgress({ fraction: 0, runsDone: 0, runsTotal: 1, note: `0 of ${jobs.length} jobs` });
    const outcome = simulate(
      {
        grid,
        jobs,
        seed: spec.seed,
        pollIntervalS: spec.poll ?? DEFAULT_POLL_INTERVAL_S,
        scheduler: { approach: spec.approach, policy: spec.policy },
      },
      {
        onProgress: (ended, total) =>
          onProgress({
            fraction: total > 0 ? ended / total : 1,
            runsDone: 0,
            runsTotal: 1,
            note: `${ended} of ${total} jobs`,
          }),
      },
    );
    const series = `${spec.policy}-${spec.workload}`;
    const completed = outcome.jobs.filter((j) => j.state === 'completed');
    // The Lab's summary holds figures only; why jobs failed is the CLI's and summary.json's to list.
    const { failure_reasons: _failureReasons, ...figures } = outcome.summary;
    const summary: Record<string, number> = { ...figures, refused: outcome.refused.length };
    return {
      kind: 'simulate',
      label: label(spec),
      panels: [
        ...cdfCharts((p) => [{ name: series, points: cdfPoints(completed.map((j) => j[CDF_FIELD[p.id]])) }]),
        {
          id: 'utilization',
          title: `Grid utilization (per ${UTILIZATION_STEP_S} s)`,
          xName: 'time (s)',
          yName: 'utilization (fraction of processors)',
          step: false,
          series: [
            { name: series, points: utilizationPoints(outcome.clusters, Math.max(0, outcome.summary.makespan_s)) },
          ],
        },
        {
          id: 'activity',
          title: `Malleability manager activity (per ${ACTIVITY_BUCKET_S / 60} min)`,
          xName: 'time (s)',
          yName: `operations per ${ACTIVITY_BUCKET_S / 60} min`,
          step: true,
          series: activitySeries(series, outcome.activity(ACTIVITY_BUCKET_S)),
        },
      ],
      metrics: [
        {
          series,
          values: Object.fromEntries([...SIMULATE_METRICS, 'refused'].map((k) => [k, finiteOrNull(summary[k]!)])),
        },
      ],
      columns: SIMULATION_COLUMNS,
      observations: [],
    };
  },
});

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
