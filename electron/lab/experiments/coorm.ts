// The CooRMv2 experiment in the Lab, with the parameters of `concertina experiment coorm`: the paper's Figures 9
// (spontaneous updates, overcommit factor φ, static vs dynamic AMR), 10 (announced updates, announce interval) and
// 11 (two PSAs, CooRMv2's filling vs strict equi-partitioning), medians over seeds, and the paper's observations.
import { z } from 'zod';
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
} from '../../../core/sim/experiments/coorm.js';
import { LAB_MAX_SEEDS, whole, type LabPanel, type LabSeries } from '../schemas.js';
import { finiteOrNull, runMatrix } from './shared.js';
import { defineExperiment } from './experiment.js';

// Decision: the bounds of the command line's flags (electron/cli/experiment-coorm.ts): φ in (0, 10], intervals in
// [0, 10^6] s, at most 100 values a list; a list is sent as numbers, written comma-separated in the form.
const MAX_LIST = 100;
const list = (min: number, max: number, exclusiveMin: boolean) =>
  z
    .array(
      exclusiveMin
        ? z.number({ error: 'must be numbers' }).gt(min, `must be above ${min}`).max(max, `must be at most ${max}`)
        : z.number({ error: 'must be numbers' }).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
      { error: 'must be a list of numbers' },
    )
    .min(1, 'must not be empty')
    .max(MAX_LIST, `must have at most ${MAX_LIST} values`);

const d = COORM_DEFAULT_CONFIG;
const schema = z.strictObject({
  kind: z.literal('coorm'),
  seeds: whole(1, LAB_MAX_SEEDS),
  /** AMR steps per run (the paper: 1000). */
  steps: whole(1, 100_000).optional(),
  /** Overcommit factors of Figure 9. */
  factors: list(0, 10, true).optional(),
  /** Announce intervals of Figure 10, seconds. */
  intervals: list(0, 1e6, false).optional(),
  /** Announce intervals of Figure 11, seconds. */
  twoPsaIntervals: list(0, 1e6, false).optional(),
});
type CoormLabSpec = z.infer<typeof schema>;

const sorted = (xs: readonly number[]) => [...new Set(xs)].sort((a, b) => a - b);

/** The run configuration of a spec: the command line's defaults where a parameter is left out. */
export function coormConfigOf(spec: CoormLabSpec): CoormExperimentConfig {
  return {
    ...d,
    seeds: spec.seeds,
    steps: spec.steps ?? d.steps,
    overcommitFactors: spec.factors ? sorted(spec.factors) : d.overcommitFactors,
    announceIntervalsS: spec.intervals ? sorted(spec.intervals) : d.announceIntervalsS,
    twoPsaIntervalsS: spec.twoPsaIntervals ? sorted(spec.twoPsaIntervals) : d.twoPsaIntervalsS,
  };
}

const describeRun = (s: CoormRunSpec): string =>
  s.figure === 'overcommit'
    ? `fig 9, φ ${s.factor} ${s.mode}, seed ${s.seed}`
    : `fig ${s.figure === 'announce' ? 10 : 11}, ${s.intervalS} s${s.figure === 'two_psa' ? ` ${s.sharing}` : ''}, seed ${s.seed}`;

function label(spec: CoormLabSpec): string {
  const c = coormConfigOf(spec);
  return `CooRMv2 experiment, seeds 1..${c.seeds}, ${c.steps} steps, φ ${c.overcommitFactors.join('/')}`;
}

export const coormExperiment = defineExperiment({
  name: 'coorm',
  title: 'CooRMv2',
  description:
    "The CooRMv2 paper's Figures 9–11: an AMR and PSAs on the CooRMv2 RMS, overcommit factor and announce interval.",
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
      name: 'steps',
      label: 'AMR steps per run',
      type: 'whole',
      required: false,
      initial: null,
      min: 1,
      max: 100_000,
      placeholder: String(d.steps),
    },
    {
      name: 'factors',
      label: 'overcommit factors φ (Fig. 9)',
      type: 'list',
      required: false,
      initial: null,
      placeholder: d.overcommitFactors.join(', '),
    },
    {
      name: 'intervals',
      label: 'announce intervals, s (Fig. 10)',
      type: 'list',
      required: false,
      initial: null,
      placeholder: d.announceIntervalsS.join(', '),
    },
    {
      name: 'twoPsaIntervals',
      label: 'announce intervals, s (Fig. 11)',
      type: 'list',
      required: false,
      initial: null,
      placeholder: d.twoPsaIntervalsS.join(', '),
    },
  ],
  label,
  runsTotal: (spec) => coormRunMatrix(coormConfigOf(spec)).length,
  compute(spec, onProgress) {
    const config = coormConfigOf(spec);
    const matrix = coormRunMatrix(config);
    const cache = new Map<string, CoormRunFigures>();
    const runs: CoormRun[] = runMatrix(matrix, (run) => runCoormCase(run, cache), describeRun, onProgress);
    const a = analyseCoorm(runs, config);
    return {
      kind: 'coorm',
      label: label(spec),
      panels: coormPanels(a),
      metrics: coormMetrics(a),
      columns: [
        { key: 'points', label: 'points', format: 'whole' },
        { key: 'amr_used_mnode_s', label: 'AMR used (M node·s)', format: 'fixed2' },
        { key: 'psa_waste_mnode_s', label: 'PSA waste (M node·s)', format: 'fixed2' },
        { key: 'used_percent', label: 'used (%)', format: 'fixed1' },
        { key: 'amr_end_time_s', label: 'AMR end (s)', format: 'whole' },
      ],
      observations: a.observations.map((o) => ({
        id: o.id,
        text: `Figure ${o.figure}: ${o.text}`,
        holds: o.holds,
        measured: o.measured,
      })),
    };
  },
});

const line = (id: string, title: string, xName: string, yName: string, series: LabSeries[]): LabPanel => ({
  id,
  title,
  xName,
  yName,
  step: false,
  series,
});

function coormPanels(a: CoormAnalysis): LabPanel[] {
  const byMode = <T extends { mode: string }>(
    points: readonly T[],
    mode: string,
    x: (p: T) => number,
    y: (p: T) => number,
  ): Array<[number, number]> => points.filter((p) => p.mode === mode).map((p) => [x(p), y(p)]);
  const ann = (y: (p: CoormAnalysis['announce'][number]) => number): Array<[number, number]> =>
    a.announce.map((p) => [p.interval_s, y(p)]);
  return [
    line('fig9-amr-used', 'Fig. 9: AMR used resources (median over seeds)', 'overcommit factor φ', 'node·s', [
      {
        name: 'static',
        points: byMode(
          a.overcommit,
          'static',
          (p) => p.factor,
          (p) => p.amr_used_node_s,
        ),
      },
      {
        name: 'dynamic',
        points: byMode(
          a.overcommit,
          'dynamic',
          (p) => p.factor,
          (p) => p.amr_used_node_s,
        ),
      },
    ]),
    line('fig9-psa-waste', 'Fig. 9: PSA waste (median over seeds)', 'overcommit factor φ', 'node·s', [
      {
        name: 'dynamic AMR',
        points: byMode(
          a.overcommit,
          'dynamic',
          (p) => p.factor,
          (p) => p.psa_waste_node_s,
        ),
      },
      {
        name: 'static AMR',
        points: byMode(
          a.overcommit,
          'static',
          (p) => p.factor,
          (p) => p.psa_waste_node_s,
        ),
      },
    ]),
    line('fig10-psa-waste', 'Fig. 10: PSA waste, announced updates (φ = 1)', 'announce interval (s)', 'node·s', [
      { name: 'PSA waste', points: ann((p) => p.psa_waste_node_s) },
    ]),
    line('fig10-used', 'Fig. 10: used resources (φ = 1)', 'announce interval (s)', '% of the cluster', [
      { name: 'used', points: ann((p) => p.used_percent) },
    ]),
    line('fig10-amr-end', 'Fig. 10: AMR end time (φ = 1)', 'announce interval (s)', 's', [
      { name: 'AMR end time', points: ann((p) => p.amr_end_time_s) },
    ]),
    line('fig11-used', 'Fig. 11: used resources, two PSAs (φ = 1)', 'announce interval (s)', '% of the cluster', [
      {
        name: 'CooRMv2 (filling)',
        points: byMode(
          a.two_psa,
          'coorm',
          (p) => p.interval_s,
          (p) => p.used_percent,
        ),
      },
      {
        name: 'strict equi-partitioning',
        points: byMode(
          a.two_psa,
          'strict',
          (p) => p.interval_s,
          (p) => p.used_percent,
        ),
      },
    ]),
  ];
}

/** Per figure's series, the mean over its points of the medians plotted (in millions of node·s where they are node·s). */
function coormMetrics(a: CoormAnalysis): LabResultMetrics {
  const mean = (xs: readonly number[]) =>
    finiteOrNull(xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);
  const m = (x: number | null) => (x === null ? null : x / 1e6);
  const rows: LabResultMetrics = [];
  for (const mode of ['static', 'dynamic'] as const) {
    const ps = a.overcommit.filter((p) => p.mode === mode);
    rows.push({
      series: `fig 9 ${mode} AMR`,
      values: {
        points: ps.length,
        amr_used_mnode_s: m(mean(ps.map((p) => p.amr_used_node_s))),
        psa_waste_mnode_s: m(mean(ps.map((p) => p.psa_waste_node_s))),
      },
    });
  }
  rows.push({
    series: 'fig 10 announced',
    values: {
      points: a.announce.length,
      psa_waste_mnode_s: m(mean(a.announce.map((p) => p.psa_waste_node_s))),
      used_percent: mean(a.announce.map((p) => p.used_percent)),
      amr_end_time_s: mean(a.announce.map((p) => p.amr_end_time_s)),
    },
  });
  for (const mode of ['coorm', 'strict'] as const) {
    const ps = a.two_psa.filter((p) => p.mode === mode);
    rows.push({
      series: `fig 11 ${mode === 'coorm' ? 'CooRMv2' : 'strict'}`,
      values: { points: ps.length, used_percent: mean(ps.map((p) => p.used_percent)) },
    });
  }
  return rows;
}

type LabResultMetrics = Array<{ series: string; values: Record<string, number | null> }>;
