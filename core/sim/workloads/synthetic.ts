// A seeded synthetic workload for any grid: rigid and malleable jobs arriving as a Poisson process.
import { Random } from '../../random.js';
import type { GridSpec, JobSpec } from '../../model/schemas.js';

export interface SyntheticWorkloadOptions {
  jobs: number;
  /** The grid the jobs are for: rigid sizes are bounded by its largest cluster, the default load by its size. */
  grid: GridSpec;
  /** Share of malleable jobs; the rest are rigid. Default 0.3. */
  malleableFraction?: number;
  seed: number;
  /** Mean seconds between arrivals; default: whatever gives `targetLoad`. */
  meanInterarrivalS?: number;
  /** Offered load the default inter-arrival aims at. Default 0.7. */
  targetLoad?: number;
}

const MIN_RUNTIME_S = 60;
const MAX_RUNTIME_S = 4 * 3600;
const MALLEABLE_MIN_CAP = 8;
const MALLEABLE_MAX_CAP = 64;
// Rigid sizes: with this probability an exact power of two, else any size between two powers of two.
const POWER_OF_TWO_SHARE = 0.75;

/** The largest processor count any single cluster lets Concertina hold. */
function largestCluster(grid: GridSpec): number {
  let largest = 1;
  for (const c of grid.clusters) largest = Math.max(largest, c.threshold ?? c.processors);
  return largest;
}

function capacity(grid: GridSpec): number {
  let total = 0;
  for (const c of grid.clusters) total += c.threshold ?? c.processors;
  return total;
}

/** Mean of the log-uniform distribution on [a, b]: (b - a) / ln(b / a). */
const MEAN_RUNTIME_S = (MAX_RUNTIME_S - MIN_RUNTIME_S) / Math.log(MAX_RUNTIME_S / MIN_RUNTIME_S);

/**
 * Rigid size: an octave k uniform in 0..log2(largest); then 2^k (75 %), or a size uniform in [2^k, 2^(k+1)) capped at
 * the largest cluster (25 %). Small jobs dominate and powers of two are common, as in real logs.
 */
function rigidSize(rng: Random, octaves: number, largest: number): number {
  const k = Math.floor(rng.next() * (octaves + 1));
  const lo = 2 ** k;
  if (rng.next() < POWER_OF_TWO_SHARE) return lo;
  const hi = Math.min(2 * lo - 1, largest);
  return lo + Math.floor(rng.next() * (hi - lo + 1));
}

function meanRigidSize(largest: number): number {
  const octaves = Math.floor(Math.log2(largest));
  let sum = 0;
  for (let k = 0; k <= octaves; k++) {
    const lo = 2 ** k;
    const hi = Math.min(2 * lo - 1, largest);
    sum += POWER_OF_TWO_SHARE * lo + (1 - POWER_OF_TWO_SHARE) * ((lo + hi) / 2);
  }
  return sum / (octaves + 1);
}

/**
 * Mean processor-seconds a job asks for, counted at the size it starts with (rigid size, malleable min): growth of
 * malleable jobs is the scheduler's doing, not offered load. Sizes and run times are drawn independently, so
 * E[work] = ((1 - m) * E[rigid size] + m * E[malleable min]) * E[runtime].
 */
export function syntheticMeanWorkPerJob(grid: GridSpec, malleableFraction = 0.3): number {
  const largest = largestCluster(grid);
  const meanMin = (1 + Math.min(MALLEABLE_MIN_CAP, largest)) / 2;
  return ((1 - malleableFraction) * meanRigidSize(largest) + malleableFraction * meanMin) * MEAN_RUNTIME_S;
}

/**
 * Offered load = E[work] / (mean inter-arrival * capacity), capacity being the processors Concertina may use (the
 * sum of the thresholds), so mean inter-arrival = E[work] / (targetLoad * capacity).
 */
export function syntheticDefaultInterarrival(grid: GridSpec, malleableFraction = 0.3, targetLoad = 0.7): number {
  return syntheticMeanWorkPerJob(grid, malleableFraction) / (targetLoad * capacity(grid));
}

/**
 * Rigid jobs (70 % by default): power-of-two-biased sizes, run times log-uniform in 60 s..4 h, half with a fixed run
 * time and half Amdahl (serial share 0..20 %) calibrated so their run time at their size is the drawn one.
 * Malleable jobs: min 1..8, max min..64 (bounded by the largest cluster), Amdahl with serial share 0..10 % and the
 * drawn run time at min. Deterministic from the seed; plain objects, not re-validated, so 100,000 jobs are cheap.
 */
export function syntheticWorkload(options: SyntheticWorkloadOptions): JobSpec[] {
  const { jobs, grid, seed } = options;
  const malleableFraction = options.malleableFraction ?? 0.3;
  const targetLoad = options.targetLoad ?? 0.7;
  if (!Number.isInteger(jobs) || jobs < 0) throw new RangeError(`jobs must be a whole number >= 0, not ${jobs}`);
  if (!(malleableFraction >= 0 && malleableFraction <= 1))
    throw new RangeError(`malleableFraction must lie in 0..1, not ${malleableFraction}`);
  if (!(targetLoad > 0)) throw new RangeError(`targetLoad must be greater than 0, not ${targetLoad}`);
  const meanInterarrival =
    options.meanInterarrivalS ?? syntheticDefaultInterarrival(grid, malleableFraction, targetLoad);
  if (!(meanInterarrival > 0 && Number.isFinite(meanInterarrival))) {
    throw new RangeError(`meanInterarrivalS must be a positive number, not ${meanInterarrival}`);
  }

  const largest = largestCluster(grid);
  const octaves = Math.floor(Math.log2(largest));
  const minCap = Math.min(MALLEABLE_MIN_CAP, largest);
  const maxCap = Math.min(MALLEABLE_MAX_CAP, largest);
  const logMin = Math.log(MIN_RUNTIME_S);
  const logSpan = Math.log(MAX_RUNTIME_S) - logMin;
  const rng = new Random(seed);
  const width = Math.max(6, String(jobs).length);
  const out: JobSpec[] = new Array(jobs);
  let time = 0;
  for (let i = 0; i < jobs; i++) {
    const runtime = Math.exp(logMin + rng.next() * logSpan);
    const id = `syn-${String(i + 1).padStart(width, '0')}`;
    if (rng.next() < malleableFraction) {
      const min = 1 + Math.floor(rng.next() * minCap);
      const max = min + Math.floor(rng.next() * (maxCap - min + 1));
      const serial = rng.next() * 0.1 * runtime;
      out[i] = {
        id,
        kind: 'malleable',
        components: [{ min, max, initial: min, program: 'synthetic', args: [], inputFiles: [] }],
        placement: 'wf',
        submitTime: time,
        app: { model: 'amdahl', serial, parallel: (runtime - serial) * min },
      };
    } else {
      const processors = rigidSize(rng, octaves, largest);
      let app: JobSpec['app'];
      if (rng.next() < 0.5) {
        app = { model: 'fixed', runtime };
      } else {
        const serial = rng.next() * 0.2 * runtime;
        app = { model: 'amdahl', serial, parallel: (runtime - serial) * processors };
      }
      out[i] = {
        id,
        kind: 'rigid',
        components: [{ processors, program: 'synthetic', args: [], inputFiles: [] }],
        placement: 'wf',
        submitTime: time,
        app,
      };
    }
    time += rng.exponential(meanInterarrival);
  }
  return out;
}
