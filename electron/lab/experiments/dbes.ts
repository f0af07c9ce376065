// The DBES paper's evaluation in the Lab, with the parameters of `concertina experiment dbes`: the modified ESP
// workload on 120 cores under each strategy at 10..100 % malleable jobs (Figures 4 and 6 as charts), the expanded
// jobs per type at 50 % (Figure 5) and the mixed scenario (Figure 7, Table II) as tables, and the paper's observations.
// Strategies not registered are skipped and listed.
import { z } from 'zod';
import { malleabilityPolicies } from '../../../core/malleability/registry.js';
import { PAPER_TABLE2 } from '../../../core/sim/experiments/dbes-report.js';
import {
  DBES_DEFAULT_CONFIG,
  DBES_STRATEGIES,
  analyseDbes,
  dbesRunMatrix,
  runDbesCase,
  type DbesAnalysis,
  type DbesExperimentConfig,
  type DbesRunSpec,
} from '../../../core/sim/experiments/dbes.js';
import { LAB_MAX_SEEDS, whole, type LabColumn, type LabOutcome, type LabPanel, type LabTable } from '../schemas.js';
import { defineExperiment } from './experiment.js';
import { finiteOrNull, runMatrix } from './shared.js';

const d = DBES_DEFAULT_CONFIG;
/** `paper`: the paper's six strategies; `registered`: every malleability policy registered (stand-ins before DBES). */
export const DBES_LAB_STRATEGY_SETS = ['paper', 'registered'] as const;

const schema = z.strictObject({
  kind: z.literal('dbes'),
  seeds: whole(1, LAB_MAX_SEEDS),
  strategies: z
    .enum(DBES_LAB_STRATEGY_SETS, { error: `must be one of ${DBES_LAB_STRATEGY_SETS.join(', ')}` })
    .optional(),
});
type DbesLabSpec = z.infer<typeof schema>;

/** The run configuration of a spec: the command line's defaults where a parameter is left out. */
export function dbesConfigOf(spec: DbesLabSpec): DbesExperimentConfig {
  const strategies = spec.strategies === 'registered' ? Object.keys(malleabilityPolicies) : DBES_STRATEGIES;
  return { ...d, seeds: spec.seeds, strategies };
}

function label(spec: DbesLabSpec): string {
  return `DBES on ESP, seeds 1..${spec.seeds}, ${spec.strategies === 'registered' ? 'registered policies' : "the paper's strategies"}`;
}

const describeRun = (s: DbesRunSpec) =>
  `${s.strategy}, ${s.scenario === 'mixed' ? 'mixed' : `${s.scenario} % malleable`}, seed ${s.seed}`;

const COLUMNS: LabColumn[] = [
  { key: 'completion_mixed_s', label: 'Fig. 7 completion (s)', format: 'whole' },
  { key: 'evolving_satisfied', label: 'evolving satisfied', format: 'fixed1' },
  { key: 'shrunk_for_evolving', label: 'shrunk for them', format: 'fixed1' },
  { key: 'completion_100_s', label: 'completion at 100 % (s)', format: 'whole' },
  { key: 'utilization_100', label: 'utilization at 100 %', format: 'percent' },
];

export const dbesExperiment = defineExperiment({
  name: 'dbes',
  title: 'DBES on ESP',
  description:
    "The DBES paper's evaluation: the modified ESP benchmark on 15 × 8 cores under rigid, ESF, EDF, LDF, EP and DBES at 10–100 % malleable jobs, and with evolving jobs (Figures 4–7, Table II).",
  schema,
  params: [
    {
      name: 'seeds',
      label: 'seeds',
      type: 'whole',
      required: true,
      initial: d.seeds,
      min: 1,
      max: LAB_MAX_SEEDS,
      help: "each seed is one of ESP's submission orders",
    },
    {
      name: 'strategies',
      label: 'strategies',
      type: 'choice',
      required: false,
      initial: 'paper',
      options: [...DBES_LAB_STRATEGY_SETS],
      help: `paper: ${DBES_STRATEGIES.join(', ')} (those not registered are skipped); registered: every malleability policy there is`,
    },
  ],
  label,
  // At least 1: with none of its strategies registered it still runs, to say which are missing.
  runsTotal: (spec) => Math.max(1, dbesRunMatrix(dbesConfigOf(spec)).length),
  compute(spec, onProgress) {
    const config = dbesConfigOf(spec);
    const runs = runMatrix(dbesRunMatrix(config), (s) => runDbesCase(s, config), describeRun, onProgress);
    return dbesOutcome(label(spec), analyseDbes(runs, config));
  },
});

/** What the Lab shows of an analysis: Figures 4 and 6 as charts, Figure 5 and Table II as tables, per-strategy metrics. */
export function dbesOutcome(runLabel: string, a: DbesAnalysis): LabOutcome {
  return {
    kind: 'dbes',
    label: runLabel,
    panels: dbesPanels(a),
    metrics: a.strategies.map((s) => {
      const r7 = a.fig7.find((r) => r.strategy === s);
      return {
        series: s,
        values: {
          completion_mixed_s: finiteOrNull(r7?.completion_s ?? Number.NaN),
          evolving_satisfied: finiteOrNull(r7?.evolving_satisfied ?? Number.NaN),
          shrunk_for_evolving: finiteOrNull(r7?.shrunk_for_evolving ?? Number.NaN),
          completion_100_s: finiteOrNull(
            a.fig4.find((p) => p.strategy === s && p.malleable_percent === 100)?.completion_s ?? Number.NaN,
          ),
          utilization_100: finiteOrNull(
            a.fig6.find((p) => p.strategy === s && p.malleable_percent === 100)?.utilization ?? Number.NaN,
          ),
        },
      };
    }),
    columns: COLUMNS,
    tables: dbesTables(a),
    // The Lab shows an observation as holding or not: the ones that could not be checked are in the table below.
    observations: a.observations.flatMap((o) =>
      o.holds === null ? [] : [{ id: o.id, text: o.text, holds: o.holds, measured: o.measured }],
    ),
  };
}

function dbesPanels(a: DbesAnalysis): LabPanel[] {
  const seeds = `mean of ${a.config.seeds} seed${a.config.seeds === 1 ? '' : 's'}`;
  const line = <P extends { strategy: string; malleable_percent: number }>(points: readonly P[], y: (p: P) => number) =>
    a.strategies.map((s) => ({
      name: s,
      points: points.filter((p) => p.strategy === s).map((p): [number, number] => [p.malleable_percent, y(p)]),
    }));
  return [
    {
      id: 'dbes-fig4',
      title: `Figure 4: time to complete the workload (${seeds})`,
      xName: 'malleable jobs (%)',
      yName: 'completion (s)',
      step: false,
      series: line(a.fig4, (p) => p.completion_s),
    },
    {
      id: 'dbes-fig6',
      title: `Figure 6: average utilization (${seeds})`,
      xName: 'malleable jobs (%)',
      yName: 'utilization (%)',
      step: false,
      series: line(a.fig6, (p) => p.utilization * 100),
    },
  ];
}

const f = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

function dbesTables(a: DbesAnalysis): LabTable[] {
  const tables: LabTable[] = [];
  const types = [...new Set(a.fig5.map((b) => b.type))];
  if (types.length) {
    tables.push({
      id: 'dbes-fig5',
      title: 'Figure 5: malleable jobs expanded at least once, per type, at 50 % malleable',
      note: "the header gives each type's malleable jobs (the paper's horizontal lines)",
      header: ['strategy', ...types.map((t) => `${t} (of ${a.fig5.find((b) => b.type === t)!.malleable})`)],
      rows: a.strategies.map((s) => ({
        source: 'measured' as const,
        cells: [
          s,
          ...types.map((t) => f(a.fig5.find((b) => b.strategy === s && b.type === t)?.expanded ?? Number.NaN, 1)),
        ],
      })),
    });
  }
  tables.push({
    id: 'dbes-table2',
    title: 'Figure 7 and Table II: 10 % evolving, 40 % malleable, 50 % rigid',
    note: "the paper's Table II in the row below each strategy it names",
    header: [
      'strategy',
      'completion (s)',
      'evolving requests',
      'evolving satisfied',
      'malleable jobs shrunk for them',
      'of them grown in step 1 / 2 / unknown',
    ],
    rows: a.fig7.flatMap((r) => {
      const measured = {
        source: 'measured' as const,
        cells: [
          r.strategy,
          f(r.completion_s),
          f(r.evolving_requests, 1),
          f(r.evolving_satisfied, 1),
          f(r.shrunk_for_evolving, 1),
          `${f(r.shrunk_first_step, 1)} / ${f(r.shrunk_second_step, 1)} / ${f(r.shrunk_step_unknown, 1)}`,
        ],
      };
      const paper = PAPER_TABLE2[r.strategy];
      return paper
        ? [
            measured,
            {
              source: 'paper' as const,
              cells: [
                'paper',
                '–',
                '–',
                String(paper.satisfied),
                String(paper.shrunk),
                r.strategy === 'dbes' ? '4 / 5 / 0' : '–',
              ],
            },
          ]
        : [measured];
    }),
  });
  const unchecked = a.observations.filter((o) => o.holds === null);
  if (a.skipped.length || unchecked.length) {
    tables.push({
      id: 'dbes-not-run',
      title: 'Strategies not run, observations not checked',
      header: ['what', 'why'],
      rows: [
        ...a.skipped.map((k) => ({ source: 'measured' as const, cells: [`strategy ${k.strategy}`, k.reason] })),
        ...unchecked.map((o) => ({ source: 'measured' as const, cells: [o.text, o.measured] })),
      ],
    });
  }
  return tables;
}
