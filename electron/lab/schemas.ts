// The Lab's API shapes shared by every experiment: how an experiment describes its parameters (the console's form
// is built from them), a run's state and progress as listed and pushed on the event stream, and its result (charts,
// metrics, observations). Each experiment's own spec schema lives with it (electron/lab/experiments/); the union of
// them, and the run info that carries a spec, are made in electron/lab/registry.ts.
import { z } from 'zod';

export const oneOf = (names: readonly string[]) =>
  z.enum(names as [string, ...string[]], { error: () => `must be one of ${names.join(', ')}` });
export const whole = (min: number, max: number) =>
  z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
export const pollSchema = z
  .number({ error: 'must be a number' })
  .min(1, 'must be at least 1 s')
  .max(86_400, 'must be at most 86400 s');

/** Random seeds the generator takes (it folds them to 32 bits). */
export const MAX_SEED = 2 ** 32 - 1;

/** Seeds per combination: 8 runs each for the KOALA experiment, about half a second per run. */
export const LAB_MAX_SEEDS = 100;

/**
 * One parameter of an experiment, as its form shows it. `whole` and `number` are numbers within [min, max]; `choice`
 * one of `options`; `list` numbers written comma-separated (as on the command line), sent as an array. `initial` is
 * what the form starts with (null: empty); an empty optional field is left out, and `placeholder` says what applies.
 */
export const labParamSchema = z.object({
  name: z.string(),
  label: z.string(),
  type: z.enum(['whole', 'number', 'choice', 'list']),
  required: z.boolean(),
  initial: z.union([z.number(), z.string(), z.null()]),
  min: z.number().optional(),
  max: z.number().optional(),
  step: z.number().optional(),
  options: z.array(z.string()).optional(),
  placeholder: z.string().optional(),
  help: z.string().optional(),
});
export type LabParam = z.infer<typeof labParamSchema>;

/** What the console is told of an experiment (lab.experiments). */
export const labExperimentInfoSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  params: z.array(labParamSchema),
});
export type LabExperimentInfo = z.infer<typeof labExperimentInfoSchema>;

export const LAB_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type LabStatus = (typeof LAB_STATUSES)[number];

/** A run's state, without its spec (registry.ts adds it). */
export const labRunStateSchema = z.object({
  runId: z.string(),
  /** One line saying what runs, e.g. "KOALA experiment, seeds 1..2". */
  label: z.string(),
  status: z.enum(LAB_STATUSES),
  /** 0..1. */
  fraction: z.number().min(0).max(1),
  /** Simulation runs finished, of runsTotal (8 per seed for the KOALA experiment, 1 for a simulation). */
  runsDone: z.number().int().min(0),
  runsTotal: z.number().int().min(1),
  /** What it is doing now, e.g. "egs-wm seed 2". */
  note: z.string(),
  /** Wall-clock times (ISO 8601) of the request and of the end. */
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  /** Wall-clock milliseconds the worker ran. */
  elapsedMs: z.number().nullable(),
  error: z.string().nullable(),
});

const xy = z.tuple([z.number(), z.number()]);

export const labSeriesSchema = z.object({ name: z.string(), points: z.array(xy) });
export type LabSeries = z.infer<typeof labSeriesSchema>;

export const LAB_CDF_PANELS = ['wait', 'execution', 'response', 'avg_size', 'max_size'] as const;
export type LabCdfPanelId = (typeof LAB_CDF_PANELS)[number];

/** One chart: its series drawn as steps (CDFs, counts per bucket) or as lines through the points. */
export const labPanelSchema = z.object({
  id: z.string(),
  title: z.string(),
  xName: z.string(),
  yName: z.string(),
  step: z.boolean(),
  series: z.array(labSeriesSchema),
});
export type LabPanel = z.infer<typeof labPanelSchema>;

/** How a metric is shown: whole, with one or two decimals, or a 0..1 fraction as a percentage. */
export const labColumnSchema = z.object({
  key: z.string(),
  label: z.string(),
  format: z.enum(['whole', 'fixed1', 'fixed2', 'percent']),
});
export type LabColumn = z.infer<typeof labColumnSchema>;

/** The metric columns the KOALA experiment and single simulations show (and results stored before columns were kept). */
export const SIMULATION_COLUMNS: LabColumn[] = [
  { key: 'completed', label: 'completed', format: 'whole' },
  { key: 'mean_wait_s', label: 'wait (s)', format: 'whole' },
  { key: 'mean_execution_s', label: 'execution (s)', format: 'whole' },
  { key: 'mean_response_s', label: 'response (s)', format: 'whole' },
  { key: 'mean_avg_size', label: 'avg size', format: 'fixed1' },
  { key: 'utilization', label: 'utilization', format: 'percent' },
  { key: 'grow_ops', label: 'grows', format: 'fixed1' },
  { key: 'shrink_ops', label: 'shrinks', format: 'fixed1' },
];

/**
 * A table of text cells, formatted by the experiment (e.g. min / avg / max with the paper's own figures in the row
 * below). `source` says whose figures a row holds.
 */
export const labTableSchema = z.object({
  id: z.string(),
  title: z.string(),
  note: z.string().optional(),
  header: z.array(z.string()),
  rows: z.array(z.object({ source: z.enum(['measured', 'paper']), cells: z.array(z.string()) })),
});
export type LabTable = z.infer<typeof labTableSchema>;

const resultShape = z.object({
  runId: z.string(),
  /** The experiment's name (registry.ts). */
  kind: z.string(),
  label: z.string(),
  /** The charts, in the order shown. */
  panels: z.array(labPanelSchema),
  /** Summary figures per series (null where a mean has nothing to average), shown in `columns`. */
  metrics: z.array(z.object({ series: z.string(), values: z.record(z.string(), z.number().nullable()) })),
  columns: z.array(labColumnSchema),
  /** Tables shown as they are (experiments whose paper gives tables); results stored before had none. */
  tables: z.array(labTableSchema).optional(),
  /** The paper's observations, checked (experiments only). */
  observations: z.array(z.object({ id: z.string(), text: z.string(), holds: z.boolean(), measured: z.string() })),
});

const oldPanel = z.object({
  id: z.string(),
  title: z.string(),
  xName: z.string(),
  yName: z.string(),
  series: z.array(labSeriesSchema),
});
/** A result stored before charts were one list: its CDFs (steps), utilization (lines) and activity (steps). */
const oldResult = z.looseObject({ cdfs: z.array(oldPanel), utilization: oldPanel, activity: oldPanel });

export const labResultSchema = z.preprocess((value) => {
  const old = oldResult.safeParse(value);
  if (!old.success || (value as { panels?: unknown }).panels !== undefined) return value;
  const { cdfs, utilization, activity, ...rest } = old.data;
  return {
    ...rest,
    panels: [...cdfs.map((p) => ({ ...p, step: true })), { ...utilization, step: false }, { ...activity, step: true }],
    columns: SIMULATION_COLUMNS,
  };
}, resultShape);
export type LabResult = z.infer<typeof resultShape>;
/** A result as computed, before the runner names its run. */
export type LabOutcome = Omit<LabResult, 'runId'>;

export interface LabProgress {
  readonly fraction: number;
  readonly runsDone: number;
  readonly runsTotal: number;
  readonly note: string;
}

/** What the lab worker posts to the host. */
export type LabWorkerMessage =
  ({ type: 'progress' } & LabProgress) | { type: 'done'; outcome: LabOutcome } | { type: 'failed'; message: string };

// Imported, then exported: a type-only `export … from` would read to the cycle rule as an import of registry.ts's code.
import type { LabSpec, LabRunInfo } from './registry.js';
export type { LabSpec, LabRunInfo };
