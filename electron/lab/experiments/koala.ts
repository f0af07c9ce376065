// The KOALA experiment in the Lab, composed as `concertina experiment koala` composes it: the eight cases of the
// paper's Figures 7 and 8 over seeds 1..n, reduced to CDFs, utilization, activity, metrics and observations.
import { z } from 'zod';
import {
  ACTIVITY_BUCKET_S,
  KOALA_CASES,
  KOALA_DEFAULTS,
  UTILIZATION_STEP_S,
  analyseKoala,
  koalaRunMatrix,
  runKoalaCase,
  type KoalaAnalysis,
  type KoalaCdfPanel,
  type KoalaRun,
} from '../../../core/sim/experiments/koala.js';
import { GROWTH_AT_POLL } from '../../../core/scheduler/scheduler.js';
import { DEFAULT_POLL_INTERVAL_S } from '../../../core/sim/world.js';
import { LAB_MAX_SEEDS, SIMULATION_COLUMNS, pollSchema, whole, type LabSeries } from '../schemas.js';
import { activitySeries, cdfCharts, cdfPoints, finiteOrNull, runMatrix } from './shared.js';
import { defineExperiment } from './experiment.js';

const KOALA_METRICS = [
  'runs',
  'completed',
  'failed',
  'refused',
  'mean_wait_s',
  'mean_execution_s',
  'mean_response_s',
  'mean_avg_size',
  'mean_max_size',
  'utilization',
  'grow_ops',
  'shrink_ops',
  'malleable_at_minimum',
] as const;

const share = z.number({ error: 'must be a number' }).gt(0, 'must be above 0').lt(1, 'must be below 1');
const THRESHOLD_SCOPES = ['growth', 'all'] as const;
// Decision: an hour bounds the adapt and launch times: beyond it a malleable job of the paper's workloads (minutes
// long) never sees its grows, and the run says nothing more.
const delayS = z
  .number({ error: 'must be a number' })
  .min(0, 'must be at least 0 s')
  .max(3_600, 'must be at most 3600 s');

const schema = z.strictObject({
  kind: z.literal('koala'),
  seeds: whole(1, LAB_MAX_SEEDS),
  /** Seconds between information-service polls (the simulator's 60 s otherwise). */
  poll: pollSchema.optional(),
  /** Share of DAS-3 kept busy by local users, both figures (each figure's own default otherwise). */
  backgroundLoad: share.optional(),
  /** The same for Figure 7's runs (PRA) only, and for Figure 8's (PWA) only; they win over backgroundLoad. */
  praBackground: share.optional(),
  pwaBackground: share.optional(),
  /** Each cluster's threshold as a fraction of its processors. */
  threshold: z.number({ error: 'must be a number' }).gt(0, 'must be above 0').max(1, 'must be at most 1').optional(),
  thresholdScope: z.enum(THRESHOLD_SCOPES, { error: `must be one of ${THRESHOLD_SCOPES.join(', ')}` }).optional(),
  adaptS: delayS.optional(),
  launchDelayS: delayS.optional(),
  growthAtPoll: z.enum(GROWTH_AT_POLL, { error: `must be one of ${GROWTH_AT_POLL.join(', ')}` }).optional(),
});
export type KoalaLabSpec = z.infer<typeof schema>;

/** The fields that are set (exactOptionalPropertyTypes: an option is absent, never undefined). */
function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

const percent = (x: number) => `${(x * 100).toFixed(1)} %`;

function label(spec: KoalaLabSpec): string {
  const extras = [
    spec.poll === undefined ? '' : `poll ${spec.poll} s`,
    spec.backgroundLoad === undefined ? '' : `background ${percent(spec.backgroundLoad)}`,
    spec.praBackground === undefined ? '' : `PRA background ${percent(spec.praBackground)}`,
    spec.pwaBackground === undefined ? '' : `PWA background ${percent(spec.pwaBackground)}`,
    spec.threshold === undefined ? '' : `threshold ${percent(spec.threshold)}`,
    spec.thresholdScope === undefined ? '' : `threshold caps ${spec.thresholdScope}`,
    spec.adaptS === undefined ? '' : `adapt ${spec.adaptS} s`,
    spec.launchDelayS === undefined ? '' : `launch ${spec.launchDelayS} s`,
    spec.growthAtPoll === undefined ? '' : `growth at a poll: ${spec.growthAtPoll}`,
  ];
  return [`KOALA experiment, seeds 1..${spec.seeds}`, ...extras].filter(Boolean).join(', ');
}

export const koalaExperiment = defineExperiment({
  name: 'koala',
  title: 'KOALA',
  description:
    "The KOALA paper's Figures 7 and 8: PRA and PWA with FPSMA and EGS on W_m and W_mr (and their fast variants) on DAS-3.",
  schema,
  params: [
    { name: 'seeds', label: 'seeds per case', type: 'whole', required: true, initial: 1, min: 1, max: LAB_MAX_SEEDS },
    {
      name: 'backgroundLoad',
      label: 'background load',
      type: 'number',
      required: false,
      initial: null,
      min: 0,
      max: 1,
      step: 0.025,
      placeholder: "each figure's own",
      help: 'both figures; PRA and PWA below win over it',
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
    {
      name: 'praBackground',
      label: 'background, PRA runs',
      type: 'number',
      required: false,
      initial: null,
      min: 0,
      max: 1,
      step: 0.025,
      placeholder: String(KOALA_DEFAULTS.praBackground),
      help: "Figure 7's load; wins over background load",
    },
    {
      name: 'pwaBackground',
      label: 'background, PWA runs',
      type: 'number',
      required: false,
      initial: null,
      min: 0,
      max: 1,
      step: 0.025,
      placeholder: String(KOALA_DEFAULTS.pwaBackground),
      help: "Figure 8's load; wins over background load",
    },
    {
      name: 'threshold',
      label: 'threshold (share of each cluster)',
      type: 'number',
      required: false,
      initial: null,
      min: 0,
      max: 1,
      step: 0.05,
      placeholder: String(KOALA_DEFAULTS.threshold),
    },
    {
      name: 'thresholdScope',
      label: 'threshold caps',
      type: 'choice',
      required: false,
      initial: KOALA_DEFAULTS.thresholdScope,
      options: [...THRESHOLD_SCOPES],
      help: 'growth: only what growth adds; all: everything Concertina holds',
    },
    {
      name: 'adaptS',
      label: 'adapt time (s)',
      type: 'number',
      required: false,
      initial: null,
      min: 0,
      max: 3_600,
      placeholder: String(KOALA_DEFAULTS.adaptS),
    },
    {
      name: 'launchDelayS',
      label: 'launch delay (s)',
      type: 'number',
      required: false,
      initial: null,
      min: 0,
      max: 3_600,
      placeholder: String(KOALA_DEFAULTS.launchDelayS),
    },
    {
      name: 'growthAtPoll',
      label: 'growth at a poll',
      type: 'choice',
      required: false,
      initial: KOALA_DEFAULTS.growthAtPoll,
      options: [...GROWTH_AT_POLL],
      help: "freed: the paper's, when local users gave processors back; idle: whenever some are idle",
    },
  ],
  label,
  runsTotal: (spec) => KOALA_CASES.length * spec.seeds,
  compute(spec, onProgress) {
    // Unset: each figure's own default (KOALA_DEFAULTS), as on the command line.
    const settings = {
      seeds: spec.seeds,
      pollIntervalS: spec.poll ?? DEFAULT_POLL_INTERVAL_S,
      ...definedOnly({
        backgroundUtilization: spec.backgroundLoad,
        praBackground: spec.praBackground,
        pwaBackground: spec.pwaBackground,
        threshold: spec.threshold,
        thresholdScope: spec.thresholdScope,
        adaptS: spec.adaptS,
        launchDelayS: spec.launchDelayS,
        growthAtPoll: spec.growthAtPoll,
      }),
    };
    const matrix = koalaRunMatrix(spec.seeds);
    const runs: KoalaRun[] = runMatrix(
      matrix,
      (run) => runKoalaCase(run, settings),
      (run) => `${run.series} seed ${run.seed}`,
      onProgress,
    );
    const analysis = analyseKoala(runs, settings);
    return {
      kind: 'koala',
      label: label(spec),
      panels: [
        ...cdfCharts((p) => (p.koala ? koalaCdfSeries(analysis, p.koala) : koalaWaitSeries(runs))),
        {
          id: 'utilization',
          title: `Grid utilization (mean over seeds, per ${UTILIZATION_STEP_S} s)`,
          xName: 'time (s)',
          yName: 'utilization (fraction of processors)',
          step: false,
          series: analysis.figures.flatMap((f) =>
            f.utilization.map((s) => ({
              name: s.series,
              points: s.points.map((p): [number, number] => [p.t, p.utilization]),
            })),
          ),
        },
        {
          id: 'activity',
          title: `Malleability manager activity (mean over seeds, per ${ACTIVITY_BUCKET_S / 60} min)`,
          xName: 'time (s)',
          yName: `operations per ${ACTIVITY_BUCKET_S / 60} min`,
          step: true,
          series: analysis.figures.flatMap((f) => f.activity.flatMap((s) => activitySeries(s.series, s.points))),
        },
      ],
      metrics: analysis.means.map((m) => ({
        series: m.series,
        values: Object.fromEntries(KOALA_METRICS.map((k) => [k, finiteOrNull(m[k])])),
      })),
      columns: SIMULATION_COLUMNS,
      observations: analysis.observations.map((o) => ({
        id: o.id,
        text: o.text,
        holds: o.holds,
        measured: o.measured,
      })),
    };
  },
});

function koalaCdfSeries(analysis: KoalaAnalysis, panel: KoalaCdfPanel): LabSeries[] {
  return analysis.figures.flatMap((f) =>
    f.cdfs[panel].map((s) => ({
      name: s.series,
      points: s.points.map((p): [number, number] => [p.value, p.fraction]),
    })),
  );
}

/** Decision: a completed job's wait is its response time minus its execution time (the KOALA runs keep only those). */
function koalaWaitSeries(runs: readonly KoalaRun[]): LabSeries[] {
  return KOALA_CASES.map((c) => ({
    name: c.series,
    points: cdfPoints(
      runs
        .filter((r) => r.series === c.series)
        .flatMap((r) => r.jobs.filter((j) => j.state === 'completed').map((j) => j.response_s - j.execution_s)),
    ),
  }));
}
