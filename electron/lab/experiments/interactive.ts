// The interactive periodic divisible jobs experiment in the Lab, with the parameters of `concertina experiment
// interactive`: exclusive against interleaved nodes under rising load, with and without overruns, and the three
// placement policies at one load; utilisation, admissions and deadline misses per load and model as charts, the
// means per point as metrics, and the paper's claims.
import { z } from 'zod';
import { TASK_PLACEMENTS } from '../../../core/interactive/placement/index.js';
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
  type InteractiveRunSpec,
} from '../../../core/sim/experiments/interactive.js';
import { LAB_MAX_SEEDS, whole, type LabColumn, type LabPanel } from '../schemas.js';
import { finiteOrNull, runMatrix } from './shared.js';
import { defineExperiment } from './experiment.js';

const d = INTERACTIVE_DEFAULT_CONFIG;
const L = INTERACTIVE_LIMITS;
const MINUTE_MS = 60_000;

const schema = z.strictObject({
  kind: z.literal('interactive'),
  seeds: whole(1, LAB_MAX_SEEDS),
  /** Offered loads, multiples of the cluster's capacity. */
  loads: z
    .array(
      z.number({ error: 'must be numbers' }).gt(0, 'must be above 0').max(L.maxLoad, `must be at most ${L.maxLoad}`),
      { error: 'must be a list of numbers' },
    )
    .min(1, 'must not be empty')
    .max(L.maxLoads, `must have at most ${L.maxLoads} values`)
    .optional(),
  /** Simulated minutes per run. */
  minutes: whole(1, L.maxMinutes).optional(),
  /** Share of jobs whose data grows once, in the runs with overruns. */
  overrunShare: z.number({ error: 'must be a number' }).gt(0, 'must be above 0').max(1, 'must be at most 1').optional(),
  /** Placement of the load sweep. */
  placement: z.enum(TASK_PLACEMENTS, { error: `must be one of ${TASK_PLACEMENTS.join(', ')}` }).optional(),
});
type InteractiveLabSpec = z.infer<typeof schema>;

const sorted = (xs: readonly number[]) => [...new Set(xs)].sort((a, b) => a - b);

/** The run configuration of a spec: the command line's defaults where a parameter is left out. */
export function interactiveConfigOf(spec: InteractiveLabSpec): InteractiveExperimentConfig {
  return {
    ...d,
    seeds: spec.seeds,
    loads: spec.loads ? sorted(spec.loads) : d.loads,
    horizonMs: spec.minutes === undefined ? d.horizonMs : spec.minutes * MINUTE_MS,
    overrunShare: spec.overrunShare ?? d.overrunShare,
    placement: spec.placement ?? d.placement,
  };
}

const describeRun = (s: InteractiveRunSpec): string =>
  `${s.kind === 'policy' ? `${s.placement}, ` : ''}load ${s.load}, ${s.model}${s.overruns ? ' with overruns' : ''}, seed ${s.seed}`;

function label(spec: InteractiveLabSpec): string {
  const c = interactiveConfigOf(spec);
  return `Interactive jobs, seeds 1..${c.seeds}, loads ${c.loads.join('/')}, ${c.horizonMs / MINUTE_MS} min`;
}

const COLUMNS: LabColumn[] = [
  { key: 'utilization_percent', label: 'utilisation (%)', format: 'fixed1' },
  { key: 'admitted_percent', label: 'admitted (%)', format: 'fixed1' },
  { key: 'arrived', label: 'arrived', format: 'fixed1' },
  { key: 'mean_nodes_per_job', label: 'mean k', format: 'fixed2' },
  { key: 'misses', label: 'misses', format: 'fixed1' },
  { key: 'misses_without_overrun', label: 'misses without overrun', format: 'fixed1' },
  { key: 'misses_per_1000_instances', label: 'misses / 1000 instances', format: 'fixed2' },
  { key: 'replacements', label: 're-placements', format: 'fixed1' },
  { key: 'dropped_on_replacement', label: 'stopped', format: 'fixed1' },
];

export const interactiveExperiment = defineExperiment({
  name: 'interactive',
  title: 'Interactive jobs',
  description:
    'Interactive periodic divisible jobs (RT-DLT, EDF workers): exclusive against interleaved nodes under rising load, with overrun injection.',
  schema,
  params: [
    {
      name: 'seeds',
      label: 'seeds per point',
      type: 'whole',
      required: true,
      initial: d.seeds,
      min: 1,
      max: LAB_MAX_SEEDS,
    },
    {
      name: 'loads',
      label: 'offered loads',
      type: 'list',
      required: false,
      initial: null,
      placeholder: d.loads.join(', '),
      help: `multiples of the cluster's capacity, above 0 and at most ${L.maxLoad}`,
    },
    {
      name: 'minutes',
      label: 'simulated minutes per run',
      type: 'whole',
      required: false,
      initial: null,
      min: 1,
      max: L.maxMinutes,
      placeholder: String(d.horizonMs / MINUTE_MS),
    },
    {
      name: 'overrunShare',
      label: 'overrun share',
      type: 'number',
      required: false,
      initial: null,
      min: 0,
      max: 1,
      step: 0.05,
      placeholder: String(d.overrunShare),
      help: 'share of the jobs whose data grows once, in the runs with overruns',
    },
    {
      name: 'placement',
      label: 'placement of the sweep',
      type: 'choice',
      required: false,
      initial: d.placement,
      options: [...TASK_PLACEMENTS],
      help: `all three are compared at load ${d.policyLoad}`,
    },
  ],
  label,
  runsTotal: (spec) => interactiveRunMatrix(interactiveConfigOf(spec)).length,
  compute(spec, onProgress) {
    const config = interactiveConfigOf(spec);
    const runs = runMatrix(interactiveRunMatrix(config), (s) => runInteractiveCase(s, config), describeRun, onProgress);
    const a = analyseInteractive(runs, config);
    return {
      kind: 'interactive',
      label: label(spec),
      panels: interactivePanels(a),
      metrics: [
        ...a.points.map((p) => ({
          series: `load ${p.load} ${p.model}${p.overruns ? ', overruns' : ''}`,
          values: pointValues(p),
        })),
        ...a.policies.map((p) => ({
          series: `${p.placement} load ${p.load} ${p.model}, overruns`,
          values: pointValues(p),
        })),
      ],
      columns: COLUMNS,
      observations: a.observations.map((o) => ({ id: o.id, text: o.text, holds: o.holds, measured: o.measured })),
    };
  },
});

const pointValues = (p: InteractivePoint): Record<string, number | null> =>
  Object.fromEntries(COLUMNS.map((c) => [c.key, finiteOrNull(p[c.key as keyof InteractivePoint] as number)]));

/** Per model, a line over the loads: without overruns, and with them where `withOverruns`. */
function byLoad(a: InteractiveAnalysis, y: (p: InteractivePoint) => number, withOverruns: boolean): LabPanel['series'] {
  const line = (model: string, overruns: boolean) => ({
    name: `${model}${overruns ? ', overruns' : ''}`,
    points: a.points
      .filter((p) => p.model === model && p.overruns === overruns)
      .map((p): [number, number] => [p.load, y(p)]),
  });
  return INTERACTIVE_MODELS.flatMap((m) => (withOverruns ? [line(m, false), line(m, true)] : [line(m, false)]));
}

function interactivePanels(a: InteractiveAnalysis): LabPanel[] {
  const seeds = `mean of ${a.config.seeds} seed${a.config.seeds === 1 ? '' : 's'}`;
  const load = "offered load (× the cluster's capacity)";
  return [
    {
      id: 'interactive-utilization',
      title: `Cluster utilisation (${seeds})`,
      xName: load,
      yName: 'utilisation (%)',
      step: false,
      series: byLoad(a, (p) => p.utilization_percent, true),
    },
    {
      id: 'interactive-admitted',
      title: `Jobs admitted (${seeds})`,
      xName: load,
      yName: 'admitted (% of arrivals)',
      step: false,
      series: byLoad(a, (p) => p.admitted_percent, true),
    },
    {
      id: 'interactive-misses',
      title: `Deadline misses per run (${seeds})`,
      xName: load,
      yName: 'misses',
      step: false,
      series: byLoad(a, (p) => p.misses, true),
    },
  ];
}
