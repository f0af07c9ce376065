// The specs Concertina accepts, validated with zod at every boundary. Messages name the field and the rule.
import { z } from 'zod';
import { builtOnFirstUse } from './built-on-first-use.js';

// zod refuses NaN and ±Infinity as not numbers; say what is really wrong with them.
const numberError = (issue: { input?: unknown }) =>
  typeof issue.input === 'number' ? 'must be finite' : 'must be a number';
/** 10000000 as 10,000,000, by hand: toLocaleString starts ICU's number formatting, 12 ms of a run's start-up. */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
const name = builtOnFirstUse(() =>
  z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
);

// Bounds past which a spec describes no physical system. Decision: a cluster of at most 10 million processors (the
// largest machines built have about that many cores), at most 1,000 clusters in a grid, and local users who submit
// at most 10 jobs a second on average, each lasting a second or more on average (the busiest site in the Parallel
// Workloads Archive we hold, LCG 2005, averages one job every 5 s).
export const MAX_PROCESSORS = 10_000_000;
export const MAX_CLUSTERS = 1000;
export const MIN_BACKGROUND_INTERARRIVAL_S = 0.1;
export const MIN_BACKGROUND_DURATION_S = 1;

const processors = builtOnFirstUse(() =>
  z
    .number({ error: numberError })
    .refine(Number.isFinite, 'must be finite')
    .refine(Number.isInteger, 'must be a whole number of processors')
    .refine((n) => n > 0, 'must be at least 1')
    .refine((n) => n <= MAX_PROCESSORS, `must be at most ${thousands(MAX_PROCESSORS)}`),
);
const seconds = builtOnFirstUse(() =>
  z
    .number({ error: numberError })
    .refine(Number.isFinite, 'must be finite')
    .refine((n) => n >= 0, 'must not be negative'),
);
const positiveSeconds = builtOnFirstUse(() => seconds.refine((n) => n > 0, 'must be greater than 0'));

export const PLACEMENT_POLICIES = ['wf', 'cf', 'cm', 'fcm'] as const;
export const placementPolicyName = builtOnFirstUse(() =>
  z.enum(PLACEMENT_POLICIES, {
    error: () => `must be one of ${PLACEMENT_POLICIES.join(', ')}`,
  }),
);
export type PlacementPolicyName = z.infer<typeof placementPolicyName>;

export const APPROACHES = ['pra', 'pwa'] as const;
export const approachName = builtOnFirstUse(() =>
  z.enum(APPROACHES, { error: () => `must be one of ${APPROACHES.join(', ')}` }),
);
export type Approach = z.infer<typeof approachName>;

/** How a simulated application's run time depends on its size. Live jobs ignore it. */
export const appModelSchema = builtOnFirstUse(() =>
  z.discriminatedUnion(
    'model',
    [
      z.strictObject({ model: z.literal('ft') }),
      z.strictObject({ model: z.literal('gadget2') }),
      // A fixed run time, whatever the size (rigid jobs from traces).
      z.strictObject({ model: z.literal('fixed'), runtime: positiveSeconds }),
      // Amdahl-style: runtime(n) = serial + parallel / n.
      z.strictObject({ model: z.literal('amdahl'), serial: seconds, parallel: positiveSeconds }),
      // Evolving jobs: a working-set profile of `phases` phases of `phaseS` seconds each (at full speed) drives its
      // updates; each phase needs a size between min and max, drawn from the run's seed (a random walk from initial).
      // It runs at full speed only with what its phase needs (slower, in proportion, with less). `announceS` 0: each
      // update is spontaneous, sent when its phase starts; > 0: announced that many seconds before.
      z.strictObject({
        model: z.literal('evolving'),
        phases: z
          .number({ error: numberError })
          .int('must be a whole number')
          .min(1, 'must be at least 1')
          .max(10000, 'must be at most 10000')
          .default(6),
        phaseS: positiveSeconds.default(300),
        announceS: seconds.default(0),
      }),
      // LeanMD (the DBES paper's malleable jobs, apps/leanmd.ts): a box of cells, and its run time on `size` cores.
      z.strictObject({
        model: z.literal('leanmd'),
        cells: z.tuple([processors, processors, processors]),
        runtime: positiveSeconds,
        size: processors,
      }),
      // The DBES paper's evolving job (apps/esp-evolving.ts): `runtime` seconds on its size, asking for `extra` more
      // processors at each fraction of `askAt` of that time until one request is granted, faster in proportion after.
      z.strictObject({
        model: z.literal('esp-evolving'),
        runtime: positiveSeconds,
        extra: processors,
        askAt: z
          .array(z.number({ error: numberError }).min(0, 'must be at least 0').max(1, 'must be at most 1'))
          .min(1, 'must hold at least one fraction')
          .default([0.16, 0.25]),
      }),
      // An interactive job's application (the periodic demo's arguments, assets/apps/periodic-demo.mjs): each task of
      // an iteration computes `load` × C, every `overrunEvery`-th iteration `overrunFactor` × C (0: never); it ends
      // after `iterations` iterations (0: when its run time, the walltime or 600 s, is over).
      z.strictObject({
        model: z.literal('periodic'),
        load: z
          .number({ error: numberError })
          .min(0, 'must be at least 0')
          .max(100, 'must be at most 100')
          .default(0.5),
        overrunEvery: z
          .number({ error: numberError })
          .int('must be a whole number')
          .min(0, 'must be at least 0')
          .default(0),
        overrunFactor: z
          .number({ error: numberError })
          .min(0, 'must be at least 0')
          .max(100, 'must be at most 100')
          .default(2),
        iterations: z
          .number({ error: numberError })
          .int('must be a whole number')
          .min(0, 'must be at least 0')
          .max(100_000_000, 'must be at most 100000000')
          .default(0),
      }),
    ],
    { error: () => 'must have model ft, gadget2, fixed, amdahl, evolving, leanmd, esp-evolving or periodic' },
  ),
);
export type AppModelSpec = z.infer<typeof appModelSchema>;

// A program as submitted: one word, the program alone. Decision: whitespace is refused even in a path (a path with
// a space is rare on clusters, while "app.mjs 400" in this field is a user's arguments that would otherwise fail on
// the cluster with exit status 127); control characters cannot be in a program's name either.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const requiredProgram = builtOnFirstUse(() => z.string({ error: 'is required' }).trim().min(1, 'is required'));
const programWord = builtOnFirstUse(() =>
  requiredProgram
    .refine((p) => !/\s/.test(p), 'must be the program alone, one word without spaces: put its arguments in args')
    .refine((p) => !CONTROL_CHARACTERS.test(p), 'must not contain control characters'),
);
/** One argument: any text, passed as one quoted word; a NUL cannot be passed to a program. */
const argument = builtOnFirstUse(() =>
  z.string({ error: 'must be a string' }).refine((a) => !a.includes('\0'), 'must not contain a NUL character'),
);

const componentShape = (program: z.ZodString, arg: z.ZodString) =>
  z.strictObject({
    /** Rigid size. */
    processors: processors.optional(),
    /** Moldable and malleable bounds. */
    min: processors.optional(),
    max: processors.optional(),
    /**
     * Malleable: the size asked for at start (bounded by what is available). Evolving: its size at start, inside its
     * pre-allocation `max` (peak processors, held on one cluster for the whole run). Defaults to min.
     */
    initial: processors.optional(),
    program,
    /** Each one word for the program, quoted wherever it reaches a shell. */
    args: z.array(arg).default([]),
    inputFiles: z.array(name).default([]),
    /** Pins the component to one cluster. */
    cluster: name.optional(),
  });

export const componentSchema = builtOnFirstUse(() => componentShape(programWord, argument));
export type ComponentSpec = z.infer<typeof componentSchema>;

export const JOB_KINDS = ['rigid', 'moldable', 'malleable', 'evolving', 'interactive'] as const;

// Interactive periodic divisible jobs (core/interactive): J = (A, T, σ, D). Every time a whole number of ms, as the
// core's EDF tests need (core/interactive/model.ts).
const wholeMs = (min: number) =>
  z
    .number({ error: numberError })
    .refine(Number.isFinite, 'must be finite')
    .refine(Number.isInteger, 'must be a whole number of milliseconds')
    .refine((n) => n >= min, `must be at least ${min} ms`)
    // Decision: at most a day: a period or deadline longer than that is no interactive loop.
    .refine((n) => n <= 86_400_000, 'must be at most 86400000 ms (a day)');
export const interactiveSpecSchema = builtOnFirstUse(() =>
  z
    .strictObject({
      /** A: the first fork, milliseconds after the job is admitted (0: at once). */
      arrivalMs: wholeMs(0).default(0),
      /** T: the period of the forks. */
      periodMs: wholeMs(1),
      /** σ: the largest data size of one iteration, in the cluster's data units. */
      dataUnits: z
        .number({ error: numberError })
        .refine(Number.isFinite, 'must be finite')
        .refine((n) => n > 0, 'must be greater than 0'),
      /** D: the relative deadline of every iteration, at most T. */
      deadlineMs: wholeMs(1),
    })
    .refine((j) => j.deadlineMs <= j.periodMs, { path: ['deadlineMs'], message: 'must not exceed the period (D ≤ T)' }),
);
export type InteractiveSpec = z.infer<typeof interactiveSpecSchema>;

// A fully-predictably evolving job's evolution profile (core/fpe, Klein & Pérez): the steps it runs, in order, each
// for a duration on a number of processors; the scheduler fits it on its cluster's plan (core/scheduler/fpe-jobs.ts).
export const MAX_PROFILE_STEPS = 1000;
export const profileStepSchema = builtOnFirstUse(() =>
  z.strictObject({
    /** Seconds of computation of the step (its scheduled step may last longer: expanded, its processors idle). */
    duration_s: positiveSeconds,
    processors,
  }),
);
export const evolutionProfileSchema = builtOnFirstUse(() =>
  z.strictObject({
    steps: z
      .array(profileStepSchema)
      .min(1, 'must hold at least one step')
      .max(MAX_PROFILE_STEPS, `must hold at most ${MAX_PROFILE_STEPS} steps`),
  }),
);
export type EvolutionProfileSpec = z.infer<typeof evolutionProfileSchema>;

const jobShape = (component: typeof componentSchema) =>
  z
    .strictObject({
      id: name.optional(),
      name: name.optional(),
      kind: z.enum(JOB_KINDS, { error: () => `must be one of ${JOB_KINDS.join(', ')}` }),
      components: z.array(component).min(1, 'must hold at least one component'),
      placement: placementPolicyName.default('wf'),
      /** Seconds from the start of the run (simulation) or of submission (live). */
      submitTime: seconds.default(0),
      /** Upper bound on run time, seconds. */
      walltime: positiveSeconds.optional(),
      app: appModelSchema.optional(),
      /**
       * Precedence over other waiting jobs: a job of higher priority goes ahead of every job of lower priority,
       * whatever the queue's order (ESP's full-machine Z jobs); 0 when not given. Read by DBES and its baselines.
       */
      priority: z
        .number({ error: numberError })
        .refine(Number.isInteger, 'must be a whole number')
        .refine((n) => Math.abs(n) <= 1_000_000, 'must lie within -1000000..1000000')
        .optional(),
      /** Interactive jobs only: the periodic divisible load (RT-DLT chooses its worker nodes on admission). */
      interactive: interactiveSpecSchema.optional(),
      /** Evolving jobs only: a fully-predictable evolution (its sizes over time), scheduled by the run's FPE variant. */
      profile: evolutionProfileSchema.optional(),
    })
    .superRefine((job, ctx) => {
      if (job.profile !== undefined && job.kind !== 'evolving')
        ctx.addIssue({ code: 'custom', path: ['profile'], message: 'is only for evolving jobs' });
      if (job.kind === 'interactive' && job.interactive === undefined)
        ctx.addIssue({ code: 'custom', path: ['interactive'], message: 'is required for an interactive job' });
      if (job.kind !== 'interactive' && job.interactive !== undefined)
        ctx.addIssue({ code: 'custom', path: ['interactive'], message: 'is only for interactive jobs' });
      if (job.kind !== 'rigid' && job.components.length !== 1) {
        // Decision: malleable, moldable and evolving jobs run in one cluster (the papers assume no co-allocation for them).
        ctx.addIssue({
          code: 'custom',
          path: ['components'],
          message: `${article(job.kind)} ${job.kind} job must have exactly one component`,
        });
      }
      job.components.forEach((c, i) => {
        const at = (field: string) => ['components', i, field];
        if (job.kind === 'interactive') {
          // Decision: an interactive job's k worker nodes come from RT-DLT on admission; its own component is the
          // driver (the head node's fork and join), one processor on the cluster, as a rigid job of size 1.
          for (const f of ['processors', 'min', 'max', 'initial'] as const) {
            if (c[f] !== undefined)
              ctx.addIssue({
                code: 'custom',
                path: at(f),
                message:
                  'is not for an interactive job: its worker nodes follow from its period, data size and deadline',
              });
          }
        } else if (job.profile !== undefined && job.kind === 'evolving') {
          // Decision: a profiled job's sizes are its steps' (min, max, initial follow from them): one fact in one place.
          for (const f of ['processors', 'min', 'max', 'initial'] as const) {
            if (c[f] !== undefined)
              ctx.addIssue({
                code: 'custom',
                path: at(f),
                message: 'is not for an evolving job with a profile: its sizes follow from profile.steps',
              });
          }
        } else if (job.kind === 'rigid') {
          if (c.processors === undefined)
            ctx.addIssue({ code: 'custom', path: at('processors'), message: 'is required for a rigid job' });
          for (const f of ['min', 'max', 'initial'] as const) {
            if (c[f] !== undefined)
              ctx.addIssue({
                code: 'custom',
                path: at(f),
                message: 'is only for moldable, malleable and evolving jobs; use processors',
              });
          }
        } else {
          if (c.processors !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: at('processors'),
              message: `is only for rigid jobs; use min and max`,
            });
          if (c.min === undefined)
            ctx.addIssue({
              code: 'custom',
              path: at('min'),
              message: `is required for ${article(job.kind)} ${job.kind} job`,
            });
          if (c.max === undefined)
            ctx.addIssue({
              code: 'custom',
              path: at('max'),
              message: `is required for ${article(job.kind)} ${job.kind} job`,
            });
          if (c.min !== undefined && c.max !== undefined && c.min > c.max) {
            ctx.addIssue({
              code: 'custom',
              path: at('min'),
              message: `must not exceed max (min ${c.min} > max ${c.max})`,
            });
          }
          if (
            c.initial !== undefined &&
            ((c.min !== undefined && c.initial < c.min) || (c.max !== undefined && c.initial > c.max))
          ) {
            ctx.addIssue({ code: 'custom', path: at('initial'), message: 'must lie within min..max' });
          }
        }
      });
    });

/** A job as submitted (API, CLI, console): every field checked, the program one word. */
export const jobSpecSchema = builtOnFirstUse(() => jobShape(componentSchema));
/**
 * A job as stored before (templates, a live run's state): as jobSpecSchema, but a program or argument that the
 * earlier rules let through is read back as it was (it can still fail on the cluster), so that nothing stored is lost.
 */
export const storedJobSpecSchema = builtOnFirstUse(() => jobShape(componentShape(requiredProgram, z.string())));
export type JobSpecInput = z.input<typeof jobSpecSchema>;
export type JobSpec = z.infer<typeof jobSpecSchema>;

/** Placement of interactive tasks on worker nodes (core/interactive/placement) and how jobs share nodes. */
export const INTERACTIVE_PLACEMENTS = ['first-fit', 'best-fit', 'worst-fit'] as const;
export const INTERACTIVE_SHARINGS = ['interleaved', 'exclusive'] as const;

/**
 * A cluster's interactive partition: worker nodes running EDF, and RT-DLT's cost model (per data unit, homogeneous
 * nodes). Decision: these nodes are a partition of their own beside the cluster's batch processors (not counted in
 * `processors`), so batch scheduling is unchanged by the interactive jobs that share them.
 */
export const interactivePartitionSchema = builtOnFirstUse(() =>
  z.strictObject({
    nodes: processors,
    /** Cms: milliseconds to send one data unit from the head node to a worker node. */
    cmsMsPerUnit: seconds,
    /** Cps: milliseconds for a worker node to process one data unit. */
    cpsMsPerUnit: positiveSeconds,
    placement: z
      .enum(INTERACTIVE_PLACEMENTS, { error: () => `must be one of ${INTERACTIVE_PLACEMENTS.join(', ')}` })
      .default('best-fit'),
    sharing: z
      .enum(INTERACTIVE_SHARINGS, { error: () => `must be one of ${INTERACTIVE_SHARINGS.join(', ')}` })
      .default('interleaved'),
  }),
);
export type InteractivePartitionSpec = z.infer<typeof interactivePartitionSchema>;

/** Background load: jobs of users who bypass Concertina, arriving as a Poisson process. */
export const backgroundSchema = builtOnFirstUse(() =>
  z
    .strictObject({
      meanInterarrivalS: seconds.refine(
        (s) => s >= MIN_BACKGROUND_INTERARRIVAL_S,
        `must be at least ${MIN_BACKGROUND_INTERARRIVAL_S} s (at most 10 local jobs a second on average)`,
      ),
      minSize: processors.default(1),
      maxSize: processors,
      meanDurationS: seconds.refine(
        (s) => s >= MIN_BACKGROUND_DURATION_S,
        `must be at least ${MIN_BACKGROUND_DURATION_S} s`,
      ),
    })
    .refine((b) => b.minSize <= b.maxSize, { path: ['minSize'], message: 'must not exceed maxSize' }),
);
export type BackgroundSpec = z.infer<typeof backgroundSchema>;

export const clusterSchema = builtOnFirstUse(() =>
  z
    .strictObject({
      name,
      processors,
      /** The most processors Concertina may hold here, so local users always keep some. Defaults to all. */
      threshold: processors.optional(),
      /** Whether the local manager can reserve processors ahead (the claimer then claims at placement). */
      supportsReservations: z.boolean().default(false),
      background: backgroundSchema.optional(),
      /** Worker nodes for interactive periodic jobs, with RT-DLT's cost model. */
      interactive: interactivePartitionSchema.optional(),
    })
    .refine((c) => c.threshold === undefined || c.threshold <= c.processors, {
      path: ['threshold'],
      message: 'must not exceed the cluster processors',
    }),
);
export type ClusterSpec = z.infer<typeof clusterSchema>;

export const fileSchema = builtOnFirstUse(() =>
  z.strictObject({
    name,
    sizeMB: seconds,
    replicas: z.array(name).min(1, 'must name at least one cluster holding the file'),
  }),
);

export const linkSchema = builtOnFirstUse(() =>
  z.strictObject({
    from: name,
    to: name,
    bandwidthMBps: positiveSeconds,
    latencyS: seconds,
  }),
);

/** A grid's network when it names none: every pair of clusters joined by a default link. */
export const DEFAULT_BANDWIDTH_MBPS = 100;
export const DEFAULT_LATENCY_S = 0.01;

export const gridSpecSchema = builtOnFirstUse(() =>
  z
    .strictObject({
      name: name.default('grid'),
      clusters: z
        .array(clusterSchema)
        .min(1, 'must hold at least one cluster')
        .max(MAX_CLUSTERS, `must hold at most ${MAX_CLUSTERS} clusters`),
      files: z.array(fileSchema).default([]),
      network: z
        .strictObject({
          defaultBandwidthMBps: positiveSeconds.default(DEFAULT_BANDWIDTH_MBPS),
          defaultLatencyS: seconds.default(DEFAULT_LATENCY_S),
          links: z.array(linkSchema).default([]),
        })
        .default({ defaultBandwidthMBps: DEFAULT_BANDWIDTH_MBPS, defaultLatencyS: DEFAULT_LATENCY_S, links: [] }),
    })
    .superRefine((grid, ctx) => {
      const names = new Set<string>();
      grid.clusters.forEach((c, i) => {
        if (names.has(c.name))
          ctx.addIssue({ code: 'custom', path: ['clusters', i, 'name'], message: `duplicates cluster "${c.name}"` });
        names.add(c.name);
      });
      grid.files.forEach((f, i) =>
        f.replicas.forEach((r, j) => {
          if (!names.has(r))
            ctx.addIssue({
              code: 'custom',
              path: ['files', i, 'replicas', j],
              message: `names unknown cluster "${r}"`,
            });
        }),
      );
      grid.network.links.forEach((l, i) => {
        for (const end of ['from', 'to'] as const) {
          if (!names.has(l[end]))
            ctx.addIssue({
              code: 'custom',
              path: ['network', 'links', i, end],
              message: `names unknown cluster "${l[end]}"`,
            });
        }
      });
    }),
);
export type GridSpecInput = z.input<typeof gridSpecSchema>;
export type GridSpec = z.infer<typeof gridSpecSchema>;
