// The fully-predictably evolving applications experiment in the Lab, with the parameters of `concertina experiment
// fpe`: the paper's synthetic tests, every scheduling variant on each, Tables 1 and 2 (min / avg / max) with the
// paper's own figures below each row, and the paper's observations. Runs test by test as the command line does.
import { z } from 'zod';
import { MAX_PROCESSORS } from '../../../core/model/schemas.js';
import {
  FPE_DEFAULT_CONFIG,
  FPE_LIMITS,
  FpeTables,
  analyseFpe,
  checkFpeConfig,
  runFpeTest,
  type FpeAnalysis,
  type FpeExperimentConfig,
} from '../../../core/sim/experiments/fpe.js';
import { PAPER_TABLE1, PAPER_TABLE2, cell, paperCell } from '../../../core/sim/experiments/fpe-report.js';
import { MAX_SEED, whole, type LabProgress, type LabTable } from '../schemas.js';
import { defineExperiment } from './experiment.js';

const d = FPE_DEFAULT_CONFIG;
const schema = z.strictObject({
  kind: z.literal('fpe'),
  tests: whole(1, FPE_LIMITS.maxTests),
  seed: whole(0, MAX_SEED).optional(),
  nodes: whole(FPE_LIMITS.minNodes, MAX_PROCESSORS).optional(),
});
type FpeLabSpec = z.infer<typeof schema>;

/** The run configuration of a spec: the command line's defaults where a parameter is left out. */
export function fpeConfigOf(spec: FpeLabSpec): FpeExperimentConfig {
  return { tests: spec.tests, seed: spec.seed ?? d.seed, nodes: spec.nodes ?? d.nodes };
}

function label(spec: FpeLabSpec): string {
  const c = fpeConfigOf(spec);
  return `Evolving applications, ${c.tests} tests (seed ${c.seed}), ${c.nodes} nodes`;
}

// Decision: progress is told about a hundred times a run (a test takes milliseconds: one message each would flood
// the event stream), and always after the last test.
const PROGRESS_STEPS = 100;

/** Every test of the configuration, timed as the command line times them, into the two tables. */
export function runFpeTests(config: FpeExperimentConfig, onProgress: (p: LabProgress) => void): FpeAnalysis {
  checkFpeConfig(config);
  const every = Math.max(1, Math.ceil(config.tests / PROGRESS_STEPS));
  const tell = (done: number) =>
    onProgress({
      fraction: done / config.tests,
      runsDone: done,
      runsTotal: config.tests,
      note: done < config.tests ? `test ${done + 1} of ${config.tests}` : 'analysing',
    });
  tell(0);
  const clock = () => performance.now();
  runFpeTest(config, 0); // JIT warm-up, untimed (as runFpeExperiment and the command line do)
  const tables = new FpeTables();
  for (let i = 0; i < config.tests; i++) {
    tables.add(runFpeTest(config, i, clock));
    if ((i + 1) % every === 0 || i + 1 === config.tests) tell(i + 1);
  }
  return analyseFpe(tables, config);
}

const TABLE1_HEADER = [
  'variant',
  'waste (%)',
  'utilisation (relative)',
  'eff. util. (%)',
  'makespan (relative)',
  'schedule time (ms)',
];
const TABLE2_HEADER = [
  'variant',
  'avg. ACT (relative)',
  'avg. AWT (relative)',
  'num. expanded (%)',
  'app expansion (%)',
  'per-app. waste (%)',
];

/** Tables 1 and 2, each variant's measured row followed by the paper's. */
export function fpeTables(a: FpeAnalysis): LabTable[] {
  const note = `min / avg / max over ${a.tests} tests on ${a.config.nodes} nodes; the paper's figures in the row below each variant (ε written 0.5)`;
  return [
    {
      id: 'table1',
      title: 'Table 1: system-centric metrics',
      note,
      header: TABLE1_HEADER,
      rows: a.table1.flatMap((r) => [
        {
          source: 'measured' as const,
          cells: [
            r.variant,
            cell(r.waste_percent, 2),
            cell(r.utilisation_relative, 2),
            cell(r.effective_utilisation_percent, 1),
            cell(r.makespan_relative, 2),
            cell(r.schedule_ms, 3),
          ],
        },
        { source: 'paper' as const, cells: ['paper', ...PAPER_TABLE1[r.variant].map(paperCell)] },
      ]),
    },
    {
      id: 'table2',
      title: 'Table 2: user-centric metrics',
      note,
      header: TABLE2_HEADER,
      rows: a.table2.flatMap((r) => [
        {
          source: 'measured' as const,
          cells: [
            r.variant,
            cell(r.completion_relative, 2),
            cell(r.waiting_relative, 2),
            cell(r.expanded_percent, 1),
            cell(r.expansion_percent, 1),
            cell(r.app_waste_percent, 1),
          ],
        },
        { source: 'paper' as const, cells: ['paper', ...PAPER_TABLE2[r.variant].map(paperCell)] },
      ]),
    },
  ];
}

export const fpeExperiment = defineExperiment({
  name: 'fpe',
  title: 'Evolving applications',
  description:
    "The fully-predictably evolving applications paper's Tables 1 and 2: rigid against the base fit with expand limits 1, 2 and ∞, with and without compacting, on synthetic tests.",
  schema,
  params: [
    {
      name: 'tests',
      label: 'tests',
      type: 'whole',
      required: true,
      initial: d.tests,
      min: 1,
      max: FPE_LIMITS.maxTests,
      help: 'each a queue of 15–20 evolving applications; every variant schedules each',
    },
    {
      name: 'seed',
      label: 'seed',
      type: 'whole',
      required: false,
      initial: null,
      min: 0,
      max: MAX_SEED,
      placeholder: String(d.seed),
      help: 'random seed of the tests',
    },
    {
      name: 'nodes',
      label: 'cluster nodes',
      type: 'whole',
      required: false,
      initial: null,
      min: FPE_LIMITS.minNodes,
      max: MAX_PROCESSORS,
      placeholder: String(d.nodes),
      help: `at least the largest step (${FPE_LIMITS.minNodes}); the default reproduces the paper's rigid baseline (about 40 % effective utilisation)`,
    },
  ],
  label,
  runsTotal: (spec) => spec.tests,
  compute(spec, onProgress) {
    const a = runFpeTests(fpeConfigOf(spec), onProgress);
    return {
      kind: 'fpe',
      label: label(spec),
      panels: [],
      metrics: [],
      columns: [],
      tables: fpeTables(a),
      observations: a.observations.map((o) => ({ id: o.id, text: o.text, holds: o.holds, measured: o.measured })),
    };
  },
});
