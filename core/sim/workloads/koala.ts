// The workloads of the KOALA malleability paper (section VI-C): W_m, W_mr and their 30-second variants W'_m, W'_mr.
import { Random } from '../../random.js';
import { jobSpecSchema, type JobSpec } from '../../model/schemas.js';

export interface KoalaWorkloadOptions {
  /** Number of jobs; the paper submits 300. */
  count: number;
  /** Seconds between submissions. */
  interarrivalS: number;
  /** Probability that a job is rigid of 2 processors instead of malleable: 0 for W_m, 1/2 for W_mr. */
  rigidFraction: number;
  /** Probability that a non-rigid job is evolving (CooRMv2) instead of malleable; not in the KOALA paper. */
  evolvingFraction?: number;
  seed: number;
}

/**
 * An evolving job of the mix: it pre-allocates what the application could grow to, starts at the minimum and moves
 * inside its pre-allocation over 8 phases of 2 minutes. Decision: every other one announces its updates a minute
 * ahead, so both kinds of update (and the deadlines they put on malleable jobs' shrinks) show in a run.
 */
function evolvingSpec(n: string, max: number, announce: boolean) {
  return {
    kind: 'evolving' as const,
    name: `amr-${n}`,
    component: { min: MIN_SIZE, max, initial: MIN_SIZE, program: 'amr' },
    app: { model: 'evolving' as const, phases: 8, phaseS: 120, announceS: announce ? 60 : 0 },
  };
}

const MIN_SIZE = 2;
const APPS = {
  ft: { max: 32 },
  gadget2: { max: 46 },
} as const;

/**
 * FT and GADGET-2 jobs mixed by a fair coin per job; malleable ones run from 2 up to 32 (FT) or 46 (GADGET-2),
 * starting at 2; rigid ones take 2 processors. Decision: the inter-arrival time is fixed, not drawn, since the paper
 * says "inter-arrival time is 2 minutes"; job i is submitted at i * interarrivalS.
 */
export function koalaWorkload(options: KoalaWorkloadOptions): JobSpec[] {
  const { count, interarrivalS, rigidFraction, seed } = options;
  const evolvingFraction = options.evolvingFraction ?? 0;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a whole number >= 0, not ${count}`);
  const rng = new Random(seed);
  // Separate streams: the same seed gives W_m and W_mr the same sequence of applications.
  const appStream = rng.fork('app');
  const rigidStream = rng.fork('rigid');
  const evolvingStream = rng.fork('evolving');
  let evolvingJobs = 0;
  const width = Math.max(4, String(count).length);
  const jobs: JobSpec[] = [];
  for (let i = 0; i < count; i++) {
    const model = appStream.next() < 0.5 ? 'ft' : 'gadget2';
    const rigid = rigidStream.next() < rigidFraction;
    // Drawn for every job, so that the other jobs of a seed are the same with or without evolving ones.
    const evolving = evolvingStream.next() < evolvingFraction && !rigid;
    const n = String(i + 1).padStart(width, '0');
    if (evolving) {
      const e = evolvingSpec(n, APPS[model].max, evolvingJobs++ % 2 === 1);
      jobs.push(
        jobSpecSchema.parse({
          id: `j${n}`,
          name: e.name,
          kind: e.kind,
          components: [e.component],
          placement: 'wf',
          submitTime: i * interarrivalS,
          app: e.app,
        }),
      );
      continue;
    }
    const component = rigid
      ? { processors: MIN_SIZE, program: model }
      : { min: MIN_SIZE, max: APPS[model].max, initial: MIN_SIZE, program: model };
    jobs.push(
      jobSpecSchema.parse({
        id: `j${n}`,
        name: `${model}-${n}`,
        kind: rigid ? 'rigid' : 'malleable',
        components: [component],
        // The paper's experiments use Worst Fit.
        placement: 'wf',
        submitTime: i * interarrivalS,
        app: { model },
      }),
    );
  }
  return jobs;
}

export interface WorkloadPreset {
  readonly description: string;
  readonly count: number;
  readonly interarrivalS: number;
  readonly rigidFraction: number;
  readonly evolvingFraction?: number;
}

export const WORKLOAD_PRESETS: Readonly<Record<string, WorkloadPreset>> = {
  wm: {
    description: 'W_m: 300 malleable FT/GADGET-2 jobs, one every 120 s',
    count: 300,
    interarrivalS: 120,
    rigidFraction: 0,
  },
  wmr: {
    description: 'W_mr: as W_m, but each job rigid of 2 processors with probability 1/2',
    count: 300,
    interarrivalS: 120,
    rigidFraction: 0.5,
  },
  'wm-fast': { description: "W'_m: W_m with one job every 30 s", count: 300, interarrivalS: 30, rigidFraction: 0 },
  'wmr-fast': { description: "W'_mr: W_mr with one job every 30 s", count: 300, interarrivalS: 30, rigidFraction: 0.5 },
  wme: {
    description:
      'W_me: as W_m, but each job evolving (CooRMv2: pre-allocates its maximum, starts at 2) with probability 1/5',
    count: 300,
    interarrivalS: 120,
    rigidFraction: 0,
    evolvingFraction: 0.2,
  },
};

/** The named preset's jobs for a seed (count overrides the paper's 300), or undefined for an unknown name. */
export function workloadPreset(name: string, seed: number, count?: number): JobSpec[] | undefined {
  if (!Object.hasOwn(WORKLOAD_PRESETS, name)) return undefined;
  const preset = WORKLOAD_PRESETS[name]!;
  return koalaWorkload({
    count: count ?? preset.count,
    interarrivalS: preset.interarrivalS,
    rigidFraction: preset.rigidFraction,
    evolvingFraction: preset.evolvingFraction ?? 0,
    seed,
  });
}
