// The Lab's API shapes: what a run is asked to do (the KOALA experiment or one simulation), its state and progress
// as listed and pushed on the event stream, and its result (CDF and time series, metrics, observations).
import { z } from 'zod';
import { APPROACHES } from '../../core/model/schemas.js';
import { malleabilityPolicies } from '../../core/malleability/registry.js';
import { GRID_PRESETS } from '../../core/sim/grids.js';
import { WORKLOAD_PRESETS } from '../../core/sim/workloads/koala.js';

const oneOf = (names: readonly string[]) => z.enum(names as [string, ...string[]], { error: () => `must be one of ${names.join(', ')}` });
const whole = (min: number, max: number) =>
  z.number({ error: 'must be a number' }).int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

/** Seeds per combination: 8 runs each, about half a second per run. */
export const LAB_MAX_SEEDS = 100;
const MAX_SEED = 2 ** 32 - 1;

export const koalaLabSpecSchema = z.strictObject({
  kind: z.literal('koala'),
  seeds: whole(1, LAB_MAX_SEEDS),
  /** Seconds between information-service polls (the simulator's 60 s otherwise). */
  poll: z.number({ error: 'must be a number' }).min(1, 'must be at least 1 s').max(86_400, 'must be at most 86400 s').optional(),
  /** Share of DAS-3 kept busy by local users (7.5 % otherwise). */
  backgroundLoad: z.number({ error: 'must be a number' }).gt(0, 'must be above 0').lt(1, 'must be below 1').optional(),
});

export const simulateLabSpecSchema = z.strictObject({
  kind: z.literal('simulate'),
  grid: oneOf(Object.keys(GRID_PRESETS)),
  workload: oneOf(Object.keys(WORKLOAD_PRESETS)),
  approach: oneOf(APPROACHES),
  policy: oneOf(Object.keys(malleabilityPolicies)),
  seed: whole(0, MAX_SEED),
  poll: z.number({ error: 'must be a number' }).min(1, 'must be at least 1 s').max(86_400, 'must be at most 86400 s').optional(),
  /** Only the first N jobs of the workload. */
  maxJobs: whole(1, 100_000).optional(),
});

export const labSpecSchema = z.discriminatedUnion('kind', [koalaLabSpecSchema, simulateLabSpecSchema], {
  error: () => 'must be koala or simulate',
});
export type LabSpec = z.infer<typeof labSpecSchema>;
export type KoalaLabSpec = z.infer<typeof koalaLabSpecSchema>;
export type SimulateLabSpec = z.infer<typeof simulateLabSpecSchema>;

export const LAB_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type LabStatus = (typeof LAB_STATUSES)[number];

export const labRunInfoSchema = z.object({
  runId: z.string(),
  spec: labSpecSchema,
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
export type LabRunInfo = z.infer<typeof labRunInfoSchema>;

const xy = z.tuple([z.number(), z.number()]);

export const labSeriesSchema = z.object({ name: z.string(), points: z.array(xy) });
export type LabSeries = z.infer<typeof labSeriesSchema>;

export const LAB_CDF_PANELS = ['wait', 'execution', 'response', 'avg_size', 'max_size'] as const;
export type LabCdfPanelId = (typeof LAB_CDF_PANELS)[number];

export const labPanelSchema = z.object({
  id: z.string(),
  title: z.string(),
  xName: z.string(),
  yName: z.string(),
  series: z.array(labSeriesSchema),
});
export type LabPanel = z.infer<typeof labPanelSchema>;

export const labResultSchema = z.object({
  runId: z.string(),
  kind: z.enum(['koala', 'simulate']),
  label: z.string(),
  /** Empirical CDFs of the completed jobs, one panel per LAB_CDF_PANELS entry, one series per case. */
  cdfs: z.array(labPanelSchema),
  /** Grid utilization (0..1) over virtual time, one series per case. */
  utilization: labPanelSchema,
  /** Grow operations over virtual time, one series per case (and shrinks where there are any). */
  activity: labPanelSchema,
  /** Summary figures per case (null where a mean has no jobs to average). */
  metrics: z.array(z.object({ series: z.string(), values: z.record(z.string(), z.number().nullable()) })),
  /** The paper's observations, checked (KOALA experiment only). */
  observations: z.array(z.object({ id: z.string(), text: z.string(), holds: z.boolean(), measured: z.string() })),
});
export type LabResult = z.infer<typeof labResultSchema>;
/** A result as computed, before the runner names its run. */
export type LabOutcome = Omit<LabResult, 'runId'>;

export interface LabProgress {
  readonly fraction: number;
  readonly runsDone: number;
  readonly runsTotal: number;
  readonly note: string;
}

/** What the lab worker posts to the host. */
export type LabWorkerMessage = ({ type: 'progress' } & LabProgress) | { type: 'done'; outcome: LabOutcome } | { type: 'failed'; message: string };
