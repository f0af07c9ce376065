// A stationary stream of jobs that never runs dry: what keeps a hosted grid alive after (or instead of) a finite
// workload. Malleable, rigid and evolving jobs in a chosen mix, arriving as a Poisson process at a chosen rate, each
// drawn from its own seeded streams, one job at a time (nothing is generated ahead, so memory stays flat).
import { z } from 'zod';
import { Random } from '../../random.js';
import { jobSpecSchema, type JobSpec } from '../../model/schemas.js';

/** The stream's load and mix; percentages of the three kinds sum to 100. */
export const jobStreamSettingsSchema = z
  .strictObject({
    /** Mean arrivals per hour of virtual time (0: the stream is off). */
    jobsPerHour: z.number().min(0).max(3600),
    malleablePct: z.number().int().min(0).max(100),
    rigidPct: z.number().int().min(0).max(100),
    evolvingPct: z.number().int().min(0).max(100),
  })
  .superRefine((s, ctx) => {
    const sum = s.malleablePct + s.rigidPct + s.evolvingPct;
    if (sum !== 100)
      ctx.addIssue({
        code: 'custom',
        path: ['evolvingPct'],
        message: `the mix must sum to 100 % (malleable + rigid + evolving is ${sum} %)`,
      });
  });
export type JobStreamSettings = z.infer<typeof jobStreamSettingsSchema>;

// Decision: 24 jobs an hour of 60 % malleable, 25 % rigid and 15 % evolving: measured over 4 days of virtual time
// on DAS-3 (seed 1), each cluster is 58-70 % busy up to its threshold on average, the placement queue holds 1.4
// jobs on average and at most 13 (30 an hour: 80-85 % busy, 19 queued at worst, near saturation; 20: 36-65 %).
export const DEFAULT_JOB_STREAM: JobStreamSettings = {
  jobsPerHour: 24,
  malleablePct: 60,
  rigidPct: 25,
  evolvingPct: 15,
};
/** The stream of a run with no workload: off until Settings turns it on. */
export const NO_JOB_STREAM: JobStreamSettings = { ...DEFAULT_JOB_STREAM, jobsPerHour: 0 };

const MIN_SIZE = 2;
const MAX = { ft: 32, gadget2: 46 } as const;
/** Rigid jobs take 2 to this many processors. */
const RIGID_MAX = 8;
// Decision: the stream's jobs run longer than W_m's FT and GADGET-2 runs (minutes), so that a living grid holds
// jobs that grow, shrink and wait for one another: malleable ones an Amdahl model of 1 to 3 minutes serial and 2 to
// 10 processor-hours of parallel work, rigid ones 20 to 90 minutes, evolving ones 8 phases of 5 minutes.
const SERIAL_S = [60, 180] as const;
const PARALLEL_S = [2 * 3600, 10 * 3600] as const;
const RIGID_S = [20 * 60, 90 * 60] as const;
const EVOLVING_PHASE_S = 300;

/**
 * The stream's jobs, one at a time: `next(after)` gives the job arriving after virtual time `after`. Each draw
 * (inter-arrival, kind, application, size) has its own fork of the seed, so the same seed and settings give the same
 * jobs, and a change of the mix does not shift the arrival times.
 */
export class JobStream {
  private settings: JobStreamSettings;
  private readonly arrivals: Random;
  private readonly kinds: Random;
  private readonly apps: Random;
  private readonly sizes: Random;
  private count = 0;
  private evolvingCount = 0;

  constructor(seed: number, settings: JobStreamSettings = DEFAULT_JOB_STREAM) {
    const rng = new Random(seed).fork('job-stream');
    this.arrivals = rng.fork('arrivals');
    this.kinds = rng.fork('kinds');
    this.apps = rng.fork('apps');
    this.sizes = rng.fork('sizes');
    this.settings = settings;
  }

  get current(): JobStreamSettings {
    return this.settings;
  }

  /** New load and mix, from the next arrival on. */
  set(settings: JobStreamSettings): void {
    this.settings = settings;
  }

  /** Jobs drawn so far. */
  get drawn(): number {
    return this.count;
  }

  /** The next job, arriving after `after`; undefined while the stream is off (no arrivals an hour). */
  next(after: number): JobSpec | undefined {
    const s = this.settings;
    if (!(s.jobsPerHour > 0)) return undefined;
    const submitTime = after + this.arrivals.exponential(3600 / s.jobsPerHour);
    const draw = this.kinds.next() * 100;
    const kind = draw < s.malleablePct ? 'malleable' : draw < s.malleablePct + s.rigidPct ? 'rigid' : 'evolving';
    const model = this.apps.next() < 0.5 ? 'ft' : 'gadget2';
    const rigidSize = this.sizes.int(MIN_SIZE, RIGID_MAX);
    const serial = this.sizes.int(SERIAL_S[0], SERIAL_S[1]);
    const parallel = this.sizes.int(PARALLEL_S[0], PARALLEL_S[1]);
    const rigidS = this.sizes.int(RIGID_S[0], RIGID_S[1]);
    const n = String(++this.count).padStart(6, '0');
    const id = `s${n}`;
    if (kind === 'evolving') {
      // As in W_me: pre-allocates the application's maximum, starts at the minimum, moves over 8 phases; every other
      // one announces its updates a minute ahead.
      const announce = this.evolvingCount++ % 2 === 1;
      return jobSpecSchema.parse({
        id,
        name: `amr-${id}`,
        kind,
        components: [{ min: MIN_SIZE, max: MAX[model], initial: MIN_SIZE, program: 'amr' }],
        placement: 'wf',
        submitTime,
        app: { model: 'evolving', phases: 8, phaseS: EVOLVING_PHASE_S, announceS: announce ? 60 : 0 },
      });
    }
    const component =
      kind === 'rigid'
        ? { processors: rigidSize, program: model }
        : { min: MIN_SIZE, max: MAX[model], initial: MIN_SIZE, program: model };
    const app = kind === 'rigid' ? { model: 'fixed', runtime: rigidS } : { model: 'amdahl', serial, parallel };
    return jobSpecSchema.parse({
      id,
      name: `${model}-${id}`,
      kind,
      components: [component],
      placement: 'wf',
      submitTime,
      app,
    });
  }
}
