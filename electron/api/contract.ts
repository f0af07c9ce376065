// The host's one typed API: each method has a zod schema for its input and its output, and there is one event
// topic. Both transports (Electron IPC and HTTP + WebSocket) carry exactly this; the renderer gets a typed client.
import { z } from 'zod';
import type { SchedulerEvent } from '../../core/events.js';
import { APPROACHES, gridSpecSchema, jobSpecSchema, storedJobSpecSchema } from '../../core/model/schemas.js';
import { clusterSnapshotSchema } from '../../core/model/cluster-snapshot.js';
import { GRID_PRESETS } from '../../core/sim/grids.js';
import { WORKLOAD_PRESETS } from '../../core/sim/workloads/koala.js';
import { jobStreamSettingsSchema } from '../../core/sim/workloads/stream.js';
import { malleabilityPolicies } from '../../core/malleability/registry.js';
import { labExperimentInfoSchema, labResultSchema } from '../lab/schemas.js';
import { labRunInfoSchema, labSpecSchema, type LabRunInfo } from '../lab/registry.js';
import { BATCH_SYSTEMS, connectionTestSchema, liveClusterSchema } from '../../runners/live/config.js';
import { OPTION_KINDS } from '../../runners/managers/options.js';
import { QUEUE_POLICIES } from '../../core/queue/policy.js';
import { QUEUE_PRIORITIES } from '../../core/queue/priority.js';
import { FPE_VARIANTS } from '../../core/fpe/registry.js';

export const SPEEDS = ['pause', '1x', '10x', '100x', 'max'] as const;
export const speedSchema = z.enum(SPEEDS, { error: () => `must be one of ${SPEEDS.join(', ')}` });
export type Speed = z.infer<typeof speedSchema>;

const policyNames = Object.keys(malleabilityPolicies) as [string, ...string[]];

const secretKind = z.enum(['password', 'passphrase'], { error: () => 'must be password or passphrase' });
const clusterName = z.string({ error: 'is required' }).min(1, 'is required');
const storedCluster = z.object({ config: liveClusterSchema, secrets: z.array(secretKind) });
/** A batch system's option as the console's form shows it (runners/managers/options.ts describes each adapter's schema). */
const batchOptionField = z.object({
  name: z.string(),
  title: z.string(),
  kind: z.enum(OPTION_KINDS),
  description: z.string(),
  required: z.boolean(),
  enum: z.array(z.string()).optional(),
  default: z.union([z.string(), z.number()]).optional(),
});
/** A batch system Settings → Clusters offers, with its options' fields. */
const batchSystemInfo = z.object({
  name: z.enum(BATCH_SYSTEMS),
  title: z.string(),
  options: z.array(batchOptionField),
});

const jobSummary = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  state: z.string(),
  tries: z.number(),
  lastFailure: z.string(),
  size: z.number(),
  min: z.number(),
  max: z.number(),
  /** A running malleable job's cap, when an operator's shrink set it below its max (the policies grow it no further). */
  cap: z.number().optional(),
  placement: z.string(),
  clusters: z.array(z.string()),
  submitted: z.number(),
  /** A waiting job's reservation under a planning queue policy (easy, cbf): the cluster and time it is planned to start. */
  plannedStart: z.object({ cluster: z.string(), start: z.number() }).optional(),
  /** A fully-predictably evolving job's steps: the processors of each, in order (its evolution profile). */
  steps: z.array(z.number()).optional(),
});
export type JobSummary = z.infer<typeof jobSummary>;

/** The grid's utilization over the run, downsampled (electron/host/grid-history.ts); also how the store keeps it. */
export const gridHistoryStateSchema = z.object({
  stepS: z.number().positive(),
  samples: z.array(z.object({ time: z.number(), clusters: z.array(clusterSnapshotSchema) })),
});

/** One step of a job's view or size history (core/time/step-function.ts Step): value `v` from time `t` on. */
const viewStep = z.object({ t: z.number(), v: z.number() });
export type ViewStep = z.infer<typeof viewStep>;

/** A plan item's end: a time, or null for a job without a walltime (it holds its processors with no end in the plan). */
const planEnd = z.number().nullable();
/** The plan per cluster at `now` (core/plan/plan-snapshot.ts PlanSnapshot). */
const planSnapshot = z.object({
  now: z.number(),
  queuePolicy: z.string(),
  /** What made the reservations: the queue policy, or a malleability policy that schedules the queue itself (dbes). */
  planner: z.string(),
  /** Items of each kind listed per cluster at most; `runningTotal` and `reservationsTotal` say how many there are. */
  limit: z.number(),
  clusters: z.array(
    z.object({
      name: z.string(),
      processors: z.number(),
      capacity: z.array(viewStep),
      free: z.array(viewStep),
      running: z.array(
        z.object({
          id: z.string(),
          kind: z.string(),
          processors: z.number(),
          size: z.number(),
          start: z.number(),
          end: planEnd,
          backfilled: z.boolean(),
          sizes: z.array(viewStep),
          /** A profiled (FPE) job's sizes from its current step's start on, one step each (the last 0 at its end). */
          steps: z.array(viewStep).optional(),
          /** The step it runs (1-based, the first of `steps`) of its profile's `stepCount`. */
          step: z.number().optional(),
          stepCount: z.number().optional(),
        }),
      ),
      runningTotal: z.number(),
      reservations: z.array(
        z.object({
          id: z.string(),
          processors: z.number(),
          start: z.number(),
          end: planEnd,
          waitsFor: z.array(z.string()),
          /** A profiled (FPE) job's scheduled sizes over time, one step each; `processors` is their peak. */
          steps: z.array(viewStep).optional(),
        }),
      ),
      reservationsTotal: z.number(),
      /** Processors set aside for grow offers not yet answered, held from `start` (now) to `end`; absent: none. */
      offers: z
        .object({
          processors: z.number(),
          start: z.number(),
          end: planEnd,
          /** The job they are offered to now; absent between two offers of one operation. */
          jobId: z.string().optional(),
        })
        .optional(),
    }),
  ),
});

/** A scheduler event as the API carries it (the core's typed events; only their common fields are checked). */
const schedulerEvent = z.looseObject({ type: z.string(), t: z.number() });

/** The queue settings (core/queue/): which waiting jobs may start now, how many get reservations, in what order. */
export const queuePolicySchema = z.enum(QUEUE_POLICIES, { error: () => `must be one of ${QUEUE_POLICIES.join(', ')}` });
export const queuePrioritySchema = z.enum(QUEUE_PRIORITIES, {
  error: () => `must be one of ${QUEUE_PRIORITIES.join(', ')}`,
});
/** How many waiting jobs get reservations (Maui's ReservationDepth); null: the queue policy's own. */
export const reservationDepthSchema = z
  .number({ error: "must be a whole number of jobs, 0 or more (or empty: the queue policy's own)" })
  .int('must be a whole number of jobs')
  .min(0, 'must be 0 or more')
  .nullable();
export const queueSettingsSchema = z.strictObject({
  queue: queuePolicySchema,
  reservationDepth: reservationDepthSchema,
  priority: queuePrioritySchema,
});

const settings = z.strictObject({
  approach: z.enum(APPROACHES),
  policy: z.enum(policyNames),
  triesThreshold: z.number().int().min(1),
  /** How profiled evolving jobs are scheduled (core/fpe/registry.ts). */
  fpeVariant: z.enum(FPE_VARIANTS),
  /** Seconds a profiled job's step grow may take to be all running before it is withdrawn as failed. */
  fpeGrowTimeoutS: z.number({ error: 'must be a number of seconds > 0' }).positive('must be a number of seconds > 0'),
  /** Failed grows of one step after which a profiled job ends, failed. */
  fpeGrowAttempts: z
    .number({ error: 'must be a whole number of attempts, 1 or more' })
    .int('must be a whole number of attempts, 1 or more')
    .min(1, 'must be a whole number of attempts, 1 or more'),
  /** The living default's stream of jobs: arrivals per hour and the mix of kinds (core/sim/workloads/stream.ts). */
  stream: jobStreamSettingsSchema,
  ...queueSettingsSchema.shape,
});

/** What the settings may be, with words for the console: the names come from the core, never copied. */
const settingsChoices = z.object({
  queuePolicies: z.array(
    z.object({
      name: queuePolicySchema,
      description: z.string(),
      /** It plans over time: jobs need a walltime. */ plansAhead: z.boolean(),
    }),
  ),
  priorities: z.array(z.object({ name: queuePrioritySchema, description: z.string() })),
  /** The malleability policies (core/malleability/registry.ts), in the registry's order. */
  policies: z.array(z.object({ name: z.enum(policyNames), description: z.string() })),
  /** The FPE variants for profiled evolving jobs (core/fpe/registry.ts), in the registry's order. */
  fpeVariants: z.array(z.object({ name: z.enum(FPE_VARIANTS), description: z.string() })),
});

const gridPresetNames = Object.keys(GRID_PRESETS);
/** A grid preset by name, or a whole grid as JSON; a bad grid's errors name their field under `grid`. */
const gridChoice = z.unknown().transform((value, ctx) => {
  if (typeof value === 'string') {
    if (Object.hasOwn(GRID_PRESETS, value)) return gridSpecSchema.parse(GRID_PRESETS[value]);
    ctx.addIssue({
      code: 'custom',
      message: `must be a grid preset (${gridPresetNames.join(', ')}) or a grid object (got "${value}")`,
    });
    return z.NEVER;
  }
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is required' });
    return z.NEVER;
  }
  const parsed = gridSpecSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});
export const RESET_WORKLOADS = Object.keys(WORKLOAD_PRESETS).concat('none') as [string, ...string[]];

/**
 * Where the run stands. `resuming`: a stored simulated run is being replayed (commands wait); `unresumable`: it
 * cannot be (why in `reason`), and only a fresh run (`sim.reset`) or `run.openReadOnly` goes on; `read-only`: the
 * run is shown as far as it was replayed, and nothing changes it or the store.
 */
export const runStatusSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('running') }),
  z.object({ state: z.literal('resuming'), replayedEvents: z.number(), storedEvents: z.number() }),
  z.object({ state: z.literal('unresumable'), reason: z.string() }),
  z.object({ state: z.literal('read-only'), reason: z.string() }),
]);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** A submission: the job spec and, from the console, an id that makes a retry of the same submission harmless. */
export const jobSubmissionSchema = jobSpecSchema.safeExtend({
  submissionId: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters')
    .optional(),
});

const templateName = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters');
// Read back as stored: a template saved before the program had to be one word is still listed (and fails at submit).
const template = z.object({ name: z.string(), spec: storedJobSpecSchema });

export const methods = {
  'grid.snapshot': {
    input: z.strictObject({}),
    output: z.object({
      time: z.number(),
      speed: speedSchema,
      clusters: z.array(clusterSnapshotSchema),
      mode: z.enum(['sim', 'live']).optional(),
      run: runStatusSchema,
      /** Virtual seconds the simulation is behind where the chosen speed would have it (0 when it keeps up). */
      behindS: z.number(),
      /** Virtual seconds this run computed before its clock started (a fresh run's warm-up), when it did. */
      warmedUpS: z.number().optional(),
      /** Why the speed cannot be changed now (sim.setSpeed's refusal), when it cannot: a live run follows real time. */
      speedFixed: z.string().optional(),
    }),
  },
  'grid.history': { input: z.strictObject({}), output: gridHistoryStateSchema.pick({ samples: true }) },
  /**
   * Grow, shrink and evolve operations over the whole run (electron/host/activity-history.ts): counts per cluster in
   * at most 120 buckets of `bucketS` virtual seconds from 0 to `now`, totals, and the latest 50 operations.
   */
  'activity.history': {
    input: z.strictObject({}),
    output: z.object({
      now: z.number(),
      bucketS: z.number().positive(),
      starts: z.array(z.number()),
      clusters: z.array(z.string()),
      grows: z.record(z.string(), z.array(z.number())),
      shrinks: z.record(z.string(), z.array(z.number())),
      updates: z.array(z.number()),
      /** Interactive jobs' deadline misses per bucket, all clusters. */
      misses: z.array(z.number()).optional(),
      /** `misses` and `replacements`: interactive jobs' deadline misses and re-placements after an overrun. */
      totals: z.object({
        grows: z.number(),
        shrinks: z.number(),
        /** Malleable jobs' grows that failed (job.growFailed). */
        failedGrows: z.number().optional(),
        updates: z.number(),
        misses: z.number().optional(),
        replacements: z.number().optional(),
      }),
      latest: z.array(schedulerEvent),
    }),
  },
  'jobs.events': {
    input: z.strictObject({ jobId: z.string({ error: 'is required' }).min(1, 'is required') }),
    output: z.object({ events: z.array(schedulerEvent) }),
  },
  /**
   * A job's views (CooRMv2) at `now`, absolute times, each last step holding on: what it may hold with a guarantee
   * (an evolving job's pre-allocation), what it could hold preemptibly now and ahead, and its size so far.
   */
  'jobs.views': {
    input: z.strictObject({ jobId: z.string({ error: 'is required' }).min(1, 'is required') }),
    output: z.object({
      now: z.number(),
      nonPreemptive: z.array(viewStep),
      preemptive: z.array(viewStep),
      allocated: z.array(viewStep),
    }),
  },
  /**
   * The plan per cluster at the run's time: what Concertina may use, running jobs with their estimated ends, and the
   * reservations a planning queue policy (easy, cbf) made for waiting jobs, each with the running jobs it waits for.
   * At most `limit` (default and most 200) running jobs and reservations per cluster.
   */
  'plan.snapshot': {
    input: z.strictObject({
      limit: z
        .number()
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(200, 'must be at most 200')
        .default(200),
    }),
    output: planSnapshot,
  },
  /** A repeated `submissionId` with the same spec answers with the job it made; with another spec it is refused. */
  'jobs.submit': { input: jobSubmissionSchema, output: z.object({ jobId: z.string() }) },
  'jobs.cancel': {
    input: z.strictObject({ jobId: z.string().min(1, 'is required') }),
    output: z.object({ jobId: z.string() }),
  },
  /** An operator's grow (delta > 0) or shrink (delta < 0) of a running malleable job. */
  'jobs.resize': {
    input: z.strictObject({
      jobId: z.string({ error: 'is required' }).min(1, 'is required'),
      delta: z
        .number({ error: 'must be a number' })
        .int('must be a whole number')
        .refine((d) => d !== 0, 'must not be 0'),
    }),
    output: z.object({
      jobId: z.string(),
      cluster: z.string(),
      processors: z.number(),
      direction: z.enum(['grow', 'shrink']),
    }),
  },
  /**
   * The jobs, oldest first (the last `limit`). `since`: the `version` of an earlier answer to the same query; when
   * nothing changed since, the answer is `unchanged` with no jobs (a console polling 10,000 jobs then does nothing).
   */
  'jobs.list': {
    input: z.strictObject({
      states: z.array(z.string()).optional(),
      limit: z.number().int().min(1).max(100_000).default(1000),
      since: z.string().optional(),
    }),
    output: z.object({
      jobs: z.array(jobSummary),
      total: z.number(),
      version: z.string(),
      unchanged: z.boolean().optional(),
    }),
  },
  'sim.setSpeed': { input: z.strictObject({ speed: speedSchema }), output: z.object({ speed: speedSchema }) },
  /** Starts a new run on another grid or workload (the current run is dropped). */
  'sim.reset': {
    input: z.strictObject({
      grid: gridChoice,
      workload: z.enum(RESET_WORKLOADS, { error: () => `must be one of ${RESET_WORKLOADS.join(', ')}` }),
      seed: z
        .number({ error: 'must be a number' })
        .int('must be a whole number')
        .min(0, 'must be at least 0')
        .max(2 ** 32 - 1, 'must be at most 4294967295')
        .default(1),
      /** The new run's queue settings; each one left out is the current run's. */
      queue: queuePolicySchema.optional(),
      reservationDepth: reservationDepthSchema.optional(),
      priority: queuePrioritySchema.optional(),
    }),
    output: z.object({
      grid: z.string(),
      clusters: z.number(),
      workload: z.string(),
      jobs: z.number(),
      seed: z.number(),
      /** Where the run that could not be resumed was kept before the store started the new one. */
      backup: z.string().optional(),
    }),
  },
  /** Stops resuming a stored run (or gives up on one that cannot be resumed) and shows it read-only, as far as it was replayed. */
  'run.openReadOnly': { input: z.strictObject({}), output: runStatusSchema },
  'settings.get': { input: z.strictObject({}), output: settings },
  'settings.set': { input: settings.partial(), output: settings },
  /** The queue policies (with their descriptions, and whether they plan ahead), priorities, malleability policies and FPE variants Settings offers. */
  'settings.choices': { input: z.strictObject({}), output: settingsChoices },
  /** Submit-form templates, kept by the host (in its store when it has one). */
  'templates.list': { input: z.strictObject({}), output: z.object({ templates: z.array(template) }) },
  'templates.save': {
    input: z.strictObject({ name: templateName, spec: jobSpecSchema }),
    output: z.object({ name: z.string() }),
  },
  'templates.delete': { input: z.strictObject({ name: templateName }), output: z.object({ name: z.string() }) },
  /** The Lab's experiments (electron/lab/registry.ts) with the parameters their form shows. */
  'lab.experiments': { input: z.strictObject({}), output: z.object({ experiments: z.array(labExperimentInfoSchema) }) },
  /** The Lab: an experiment (koala, coorm) or one simulation, computed in a worker thread; progress on the stream (topic lab). */
  'lab.start': { input: labSpecSchema, output: z.object({ runId: z.string() }) },
  'lab.cancel': {
    input: z.strictObject({ runId: z.string({ error: 'is required' }).min(1, 'is required') }),
    output: labRunInfoSchema,
  },
  'lab.list': { input: z.strictObject({}), output: z.object({ runs: z.array(labRunInfoSchema) }) },
  'lab.result': {
    input: z.strictObject({ runId: z.string({ error: 'is required' }).min(1, 'is required') }),
    output: labResultSchema,
  },
  /** Live clusters' configurations (kept by the host), each with which secrets it holds (never their values). */
  'clusters.list': {
    input: z.strictObject({}),
    output: z.object({
      clusters: z.array(storedCluster),
      secretsPersist: z.boolean(),
      systems: z.array(batchSystemInfo),
    }),
  },
  /** Adds a cluster. A name already configured is refused at `name`: nothing is replaced unless asked with clusters.update. */
  'clusters.save': { input: liveClusterSchema, output: z.object({ name: z.string() }) },
  /**
   * Changes the configured cluster `name` to `config`. A `config.name` other than `name` renames it (its secrets go
   * with it), refused at `config.name` when another cluster has that name, or during a live run.
   */
  'clusters.update': {
    input: z.strictObject({ name: clusterName, config: liveClusterSchema }),
    output: z.object({ name: z.string(), renamedFrom: z.string().optional() }),
  },
  'clusters.remove': { input: z.strictObject({ name: clusterName }), output: z.object({ name: z.string() }) },
  /** Connects (strict host keys), detects the batch system and reads the processor counts. Asynchronous. */
  'clusters.test': { input: liveClusterSchema, output: connectionTestSchema },
  /** Trusts the host key the server presents now, if its fingerprint is the one given. Asynchronous. */
  'clusters.acceptHostKey': {
    input: z.strictObject({
      host: z.string({ error: 'is required' }).min(1, 'is required'),
      port: z.number().int().min(1).max(65535).default(22),
      fingerprint: z
        .string({ error: 'is required' })
        .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'must be a SHA256 fingerprint (SHA256: and 43 base64 characters)'),
      /** The cluster whose test showed the key: fetched again along its route (jump hosts, ~/.ssh/config alias). */
      cluster: liveClusterSchema.optional(),
    }),
    output: z.object({ fingerprint: z.string(), keyType: z.string() }),
  },
  /** A cluster's password or key passphrase: encrypted by the OS keychain in the window, held for the session in web mode. */
  'clusters.setSecret': {
    input: z.strictObject({
      cluster: clusterName,
      kind: secretKind,
      value: z.string({ error: 'is required' }).min(1, 'must not be empty'),
    }),
    output: z.object({ cluster: z.string(), kind: secretKind, persistent: z.boolean() }),
  },
  /**
   * Copies the SDK and the demo applications again to a cluster's `<workRoot>/assets` where its copy differs: through
   * the live run's connection when the cluster is in one, else over a connection of its own. Asynchronous.
   */
  'clusters.stageAssets': {
    input: z.strictObject({ name: clusterName }),
    output: z.object({
      cluster: z.string(),
      dir: z.string(),
      copied: z.array(z.string()),
      unchanged: z.array(z.string()),
    }),
  },
  /** Starts a live run on the configured clusters (the simulated run is dropped; `sim.reset` goes back). Asynchronous. */
  'run.startLive': {
    input: z.strictObject({}),
    output: z.object({ clusters: z.array(z.string()), backup: z.string().optional() }),
  },
} as const;

/** Methods whose answer comes asynchronously (they talk to clusters): the dispatcher returns a promise for them. */
export const ASYNC_METHODS = [
  'clusters.test',
  'clusters.acceptHostKey',
  'clusters.stageAssets',
  'run.startLive',
] as const;
export type AsyncMethodName = (typeof ASYNC_METHODS)[number];

export type MethodName = keyof typeof methods;

/** What the host pushes on its event stream (WebSocket /events, or the IPC event channel). */
export type StreamMessage =
  | { topic: 'event'; event: SchedulerEvent }
  | { topic: 'snapshot'; snapshot: MethodOutput<'grid.snapshot'> }
  | { topic: 'gap'; dropped: number }
  /** A Lab run changed: queued, progressed or ended. */
  | { topic: 'lab'; run: LabRunInfo };
export type MethodInput<M extends MethodName> = z.input<(typeof methods)[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<(typeof methods)[M]['output']>;

/** Every answer: the output, or errors naming the field (never an exception across the boundary). */
export type ApiResult<M extends MethodName> =
  { ok: true; value: MethodOutput<M> } | { ok: false; errors: Array<{ path: string; message: string }> };

export function isMethod(name: string): name is MethodName {
  return Object.hasOwn(methods, name);
}
