// Synthetic interactive periodic divisible jobs for the simulator: Poisson arrivals, sessions the user ends after an
// exponential time, periods from a set of frame rates, deadlines a share of the period, and a per-iteration data
// size of at most σ; some jobs "grow" (the user refines the model) and then overrun their tasks' C.
import { Random } from '../../random.js';
import type { CostModel, InteractiveJob } from '../../interactive/model.js';
import { divide } from '../../interactive/rtdlt.js';

export interface InteractiveWorkloadConfig {
  /** Arrivals happen in [0, horizonMs). */
  readonly horizonMs: number;
  readonly meanLifetimeMs: number;
  readonly minLifetimeMs: number;
  /** Periods drawn uniformly from these (ms). */
  readonly periodsMs: readonly number[];
  /** Probability that D = T; otherwise D is a share of T drawn from `deadlineShare`. */
  readonly implicitShare: number;
  readonly deadlineShare: readonly [number, number];
  /** σ·Cps / D drawn uniformly from this range: the work of an iteration in "nodes busy for the whole deadline". */
  readonly work: readonly [number, number];
  /** Each iteration's data is σ times a fraction drawn from [dataFractionMin, 1]. */
  readonly dataFractionMin: number;
  /** Share of jobs whose data grows once, at a random time of their life, by a factor drawn from `growth`. */
  readonly overrunShare: number;
  readonly growth: readonly [number, number];
}

export interface GeneratedJob extends InteractiveJob {
  readonly lifetimeMs: number;
  /** When its data grows (ms, absolute), or undefined when it never does. */
  readonly growthAtMs: number | undefined;
  readonly growth: number;
  /** Seed of the job's per-iteration data fractions (the same whatever the model, so models see the same demands). */
  readonly iterationSeed: number;
}

// Decision: periods are frame rates of an interactive loop (10, 5, 4, 2.5, 2, 1 and 0.5 Hz): their hyperperiod is
// 2 s, which keeps the nodes' demand tests short; D/T from 0.2 to 1 with a quarter of the jobs at D = T; an iteration
// worth 0.3 to 8 nodes busy for its whole deadline (n_min from 1 to 9 with the default costs).
export const INTERACTIVE_WORKLOAD_DEFAULTS: Omit<InteractiveWorkloadConfig, 'horizonMs' | 'overrunShare'> = {
  meanLifetimeMs: 120_000,
  minLifetimeMs: 10_000,
  periodsMs: [100, 200, 250, 400, 500, 1000, 2000],
  implicitShare: 0.25,
  deadlineShare: [0.2, 1],
  work: [0.3, 8],
  dataFractionMin: 0.6,
  growth: [1.2, 1.8],
};

/** Jobs of one run, arriving at `arrivalsPerMs` on average. */
export function generateJobs(
  config: InteractiveWorkloadConfig,
  cost: CostModel,
  arrivalsPerMs: number,
  seed: number,
): GeneratedJob[] {
  const arrivals = new Random(seed).fork('arrivals');
  const shapes = new Random(seed).fork('shapes');
  const jobs: GeneratedJob[] = [];
  let t = 0;
  for (let i = 0; ; i++) {
    t += arrivals.exponential(1 / arrivalsPerMs);
    const arrivalMs = Math.floor(t);
    if (arrivalMs >= config.horizonMs) break;
    jobs.push(drawJob(`j${i + 1}`, arrivalMs, config, cost, shapes));
  }
  return jobs;
}

function drawJob(
  id: string,
  arrivalMs: number,
  c: InteractiveWorkloadConfig,
  cost: CostModel,
  rng: Random,
): GeneratedJob {
  const periodMs = rng.pick(c.periodsMs);
  const share = c.deadlineShare[0] + rng.next() * (c.deadlineShare[1] - c.deadlineShare[0]);
  const deadlineMs = rng.next() < c.implicitShare ? periodMs : Math.max(1, Math.round(periodMs * share));
  const work = c.work[0] + rng.next() * (c.work[1] - c.work[0]);
  const dataUnits = (work * deadlineMs) / cost.cpsMsPerUnit;
  const lifetimeMs = Math.round(c.minLifetimeMs + rng.exponential(Math.max(1, c.meanLifetimeMs - c.minLifetimeMs)));
  const grows = rng.next() < c.overrunShare;
  const growthAtMs = arrivalMs + Math.floor(rng.next() * lifetimeMs);
  const growth = c.growth[0] + rng.next() * (c.growth[1] - c.growth[0]);
  const iterationSeed = rng.nextUint32();
  return {
    id,
    arrivalMs,
    periodMs,
    deadlineMs,
    dataUnits,
    lifetimeMs,
    growthAtMs: grows ? growthAtMs : undefined,
    growth: grows ? growth : 1,
    iterationSeed,
  };
}

/** E[k·C/T] of jobs drawn from the config: the mean processor demand of one job, in nodes. */
export function meanJobDemand(
  config: InteractiveWorkloadConfig,
  cost: CostModel,
  nodes: number,
  samples = 4000,
): number {
  const rng = new Random(0x5eed).fork('pilot');
  let sum = 0;
  let n = 0;
  for (let i = 0; i < samples; i++) {
    const job = drawJob('pilot', 0, config, cost, rng);
    const d = divide(job, cost, nodes);
    if (!d.ok) continue;
    sum += (d.nodes * d.costMs) / job.periodMs;
    n++;
  }
  return n === 0 ? 0 : sum / n;
}

/** The arrival rate (jobs per ms) that offers `load` times the cluster's processor capacity. */
export function arrivalRateForLoad(
  load: number,
  config: InteractiveWorkloadConfig,
  cost: CostModel,
  nodes: number,
): number {
  const demand = meanJobDemand(config, cost, nodes);
  return (load * nodes) / (config.meanLifetimeMs * demand);
}
