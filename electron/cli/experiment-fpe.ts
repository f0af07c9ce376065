// `concertina experiment fpe`: the fully-predictably evolving applications experiment (core/sim/experiments/fpe.ts)
// test by test with a progress bar, then the tables on stdout (or one JSON object) and report.md with CSV files.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FPE_VARIANTS } from '../../core/fpe/registry.js';
import {
  FpeTables,
  analyseFpe,
  checkFpeConfig,
  runFpeTest,
  type FpeAnalysis,
  type FpeExperimentConfig,
  type Stat,
} from '../../core/sim/experiments/fpe.js';
import { prepareOutDir, toCsv, writeOutput, type CsvValue } from './export.js';
import { observationJson, printOutcome } from './experiment-output.js';
import { alignColumns, progressBar, type CliIo } from './terminal.js';

export interface FpeCommandOptions {
  readonly config: FpeExperimentConfig;
  readonly json?: boolean;
  readonly out: string;
}

/** Tests run between two turns of the event loop (so the progress bar redraws). */
const BATCH = 25;

export async function fpeExperimentCommand(o: FpeCommandOptions, io: CliIo): Promise<number> {
  checkFpeConfig(o.config);
  const outDir = await prepareOutDir(o.out);
  const bar = io.stderr.isTTY && !o.json ? await progressBar(io.stderr, 'tests') : undefined;
  const tables = new FpeTables();
  const rows: CsvValue[][] = [];
  const clock = () => performance.now();
  try {
    bar?.start(o.config.tests, 0, { note: `${o.config.nodes} nodes` });
    runFpeTest(o.config, 0); // JIT warm-up, untimed (as runFpeExperiment does)
    for (let i = 0; i < o.config.tests; i++) {
      const outcome = runFpeTest(o.config, i, clock);
      tables.add(outcome);
      for (const v of FPE_VARIANTS) {
        const f = outcome[v];
        rows.push([
          i,
          v,
          f.waste_percent,
          f.utilisation_relative,
          f.effective_utilisation_percent,
          f.makespan_relative,
          f.schedule_ms,
          f.completion_relative,
          f.waiting_relative,
          f.expanded_percent,
        ]);
      }
      if ((i + 1) % BATCH === 0) {
        bar?.update(i + 1);
        await nextTurn();
      }
    }
    bar?.update(o.config.tests, { note: 'writing files' });
  } finally {
    bar?.stop();
  }
  const analysis = analyseFpe(tables, o.config);
  const written = await writeFiles(outDir, analysis, rows);
  const json = () => ({
    config: analysis.config,
    table1: analysis.table1,
    table2: analysis.table2,
    observations: analysis.observations.map(observationJson),
  });
  await printOutcome(io, o.json, outDir, written, json, () => textSummary(analysis));
  return 0;
}

const n = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const triple = (s: Stat, d: number) => `${n(s.min, d)} ${n(s.avg, d)} ${n(s.max, d)}`;

function textSummary(a: FpeAnalysis): string {
  const t1 = [
    ['variant', 'waste (%)', 'utilisation (rel.)', 'eff. util. (%)', 'makespan (rel.)', 'schedule (ms)'],
    ...a.table1.map((r) => [
      r.variant,
      triple(r.waste_percent, 1),
      triple(r.utilisation_relative, 2),
      triple(r.effective_utilisation_percent, 1),
      triple(r.makespan_relative, 2),
      triple(r.schedule_ms, 3),
    ]),
  ];
  const t2 = [
    ['variant', 'avg ACT (rel.)', 'avg AWT (rel.)', 'expanded (%)', 'app expansion (%)', 'per-app waste (%)'],
    ...a.table2.map((r) => [
      r.variant,
      triple(r.completion_relative, 2),
      triple(r.waiting_relative, 2),
      triple(r.expanded_percent, 1),
      triple(r.expansion_percent, 1),
      triple(r.app_waste_percent, 1),
    ]),
  ];
  const held = a.observations.filter((ob) => ob.holds).length;
  const lines = [
    `Fully-predictably evolving applications: ${a.tests} tests (seed ${a.config.seed}) on ${a.config.nodes} nodes; each cell min avg max`,
    '',
    'Table 1 (system-centric)',
    alignColumns(t1),
    '',
    'Table 2 (user-centric)',
    alignColumns(t2),
    '',
    `Observations of the paper: ${held} of ${a.observations.length} hold`,
    ...a.observations.map((ob) => `  [${ob.holds ? 'holds' : 'fails'}] ${ob.text}\n          ${ob.measured}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function writeFiles(dir: string, a: FpeAnalysis, rows: readonly CsvValue[][]): Promise<number> {
  const statRows = <R extends { variant: string }>(
    table: readonly R[],
    metrics: ReadonlyArray<keyof R & string>,
  ): CsvValue[][] =>
    table.flatMap((r) =>
      metrics.map((m): CsvValue[] => {
        const s = r[m] as unknown as Stat;
        return [r.variant, m, s.min, s.avg, s.max];
      }),
    );
  await writeOutput(
    dir,
    'table1.csv',
    toCsv(
      ['variant', 'metric', 'min', 'avg', 'max'],
      statRows(a.table1, [
        'waste_percent',
        'utilisation_relative',
        'effective_utilisation_percent',
        'makespan_relative',
        'schedule_ms',
      ]),
    ),
  );
  await writeOutput(
    dir,
    'table2.csv',
    toCsv(
      ['variant', 'metric', 'min', 'avg', 'max'],
      statRows(a.table2, [
        'completion_relative',
        'waiting_relative',
        'expanded_percent',
        'expansion_percent',
        'app_waste_percent',
      ]),
    ),
  );
  await writeOutput(
    dir,
    'tests.csv',
    toCsv(
      [
        'test',
        'variant',
        'waste_percent',
        'utilisation_relative',
        'effective_utilisation_percent',
        'makespan_relative',
        'schedule_ms',
        'completion_relative',
        'waiting_relative',
        'expanded_percent',
      ],
      rows,
    ),
  );
  await writeOutput(dir, 'report.md', a.report);
  return 4;
}
