// Grid presets for the simulator: the DAS-3 testbed of the KOALA malleability paper, and seeded synthetic grids.
import { Random } from '../random.js';
import {
  DEFAULT_BANDWIDTH_MBPS,
  DEFAULT_LATENCY_S,
  type BackgroundSpec,
  type GridSpec,
  type GridSpecInput,
} from '../model/schemas.js';

// Decision: Concertina may hold all but 2 processors per cluster, so local users always find a couple free.
const LOCAL_RESERVE = 2;

// Background jobs (users bypassing the scheduler): sizes 1..8, mean duration 900 s. The interarrival is scaled per
// cluster so each runs at about 7.5 % background utilisation: with sizes drawn uniformly from 1..8 (mean 4.5),
// utilisation = 4.5 * 900 / (interarrival * processors), hence interarrival = 4.5 * 900 / (0.075 * processors),
// rounded to 10 s (vu 640 s .. leiden 1690 s). A single fixed interarrival would load small Leiden four times as
// much as VU.
const BACKGROUND_MIN_SIZE = 1;
const BACKGROUND_MAX_SIZE = 8;
const BACKGROUND_MEAN_DURATION_S = 900;
export const DAS3_BACKGROUND_UTILISATION = 0.075;

function background(processors: number, utilisation: number): BackgroundSpec {
  const meanSize = (BACKGROUND_MIN_SIZE + BACKGROUND_MAX_SIZE) / 2;
  const interarrival = (meanSize * BACKGROUND_MEAN_DURATION_S) / (utilisation * processors);
  return {
    meanInterarrivalS: Math.round(interarrival / 10) * 10,
    minSize: BACKGROUND_MIN_SIZE,
    maxSize: BACKGROUND_MAX_SIZE,
    meanDurationS: BACKGROUND_MEAN_DURATION_S,
  };
}

function das3ClusterSpec(name: string, processors: number, utilisation: number, thresholdFraction: number | undefined) {
  const threshold =
    thresholdFraction === undefined
      ? processors - LOCAL_RESERVE
      : Math.max(1, Math.floor(thresholdFraction * processors));
  return { name, processors, threshold, supportsReservations: false, background: background(processors, utilisation) };
}

// 1 Gb/s and 10 Gb/s in MB/s.
const GBIT = 125;
const TEN_GBIT = 1250;

/**
 * DAS-3 as in Table I of the paper: 272 nodes over five clusters. Decision: one processor per node, since SGE there
 * allocates whole nodes. Network: the three Amsterdam sites (vu, uva, mn) share 10 Gb/s metro links and VU has
 * 10 Gb/s lightpaths to Delft and Leiden; every other pair gets the 1 Gb/s default of the research network.
 */
export function das3Grid(
  backgroundUtilisation = DAS3_BACKGROUND_UTILISATION,
  thresholdFraction?: number,
): GridSpecInput {
  if (!(backgroundUtilisation > 0 && backgroundUtilisation < 1))
    throw new RangeError('background utilisation must lie in (0, 1)');
  if (thresholdFraction !== undefined && !(thresholdFraction > 0 && thresholdFraction <= 1))
    throw new RangeError('threshold must lie in (0, 1]');
  const u = backgroundUtilisation;
  const das3Cluster = (name: string, processors: number, utilisation: number) =>
    das3ClusterSpec(name, processors, utilisation, thresholdFraction);
  return {
    name: 'das3',
    clusters: [
      das3Cluster('vu', 85, u),
      das3Cluster('uva', 41, u),
      das3Cluster('delft', 68, u),
      das3Cluster('mn', 46, u),
      das3Cluster('leiden', 32, u),
    ],
    // Datasets replicated on some sites only, so Close-to-Files placement has transfers to weigh.
    files: [
      { name: 'gadget2-ic-256', sizeMB: 2048, replicas: ['vu', 'leiden'] },
      { name: 'gadget2-snapshots', sizeMB: 8192, replicas: ['uva', 'mn'] },
      { name: 'ft-class-c', sizeMB: 512, replicas: ['delft'] },
      { name: 'reference-genome', sizeMB: 3072, replicas: ['vu', 'delft', 'leiden'] },
    ],
    network: {
      defaultBandwidthMBps: GBIT,
      defaultLatencyS: 0.003,
      links: [
        { from: 'vu', to: 'uva', bandwidthMBps: TEN_GBIT, latencyS: 0.0005 },
        { from: 'vu', to: 'mn', bandwidthMBps: TEN_GBIT, latencyS: 0.0005 },
        { from: 'uva', to: 'mn', bandwidthMBps: TEN_GBIT, latencyS: 0.0005 },
        { from: 'vu', to: 'delft', bandwidthMBps: TEN_GBIT, latencyS: 0.002 },
        { from: 'vu', to: 'leiden', bandwidthMBps: TEN_GBIT, latencyS: 0.0015 },
      ],
    },
  };
}

/**
 * The console's DAS-3 gives Leiden 16 worker nodes for interactive periodic jobs beside its batch processors.
 * Decision: a data unit is 1 MB; Cms 8 ms (1 Gb/s from the head node), Cps 50 ms of processing per MB.
 */
const das3: GridSpecInput = {
  ...das3Grid(),
  clusters: das3Grid().clusters.map((c) =>
    c.name === 'leiden' ? { ...c, interactive: { nodes: 16, cmsMsPerUnit: 8, cpsMsPerUnit: 50 } } : c,
  ),
};

export const GRID_PRESETS: Record<string, GridSpecInput> = { das3 };

/** A fresh copy of a preset (callers may edit it), or undefined for an unknown name. */
export function gridPreset(name: string): GridSpecInput | undefined {
  if (!Object.hasOwn(GRID_PRESETS, name)) return undefined;
  return JSON.parse(JSON.stringify(GRID_PRESETS[name])) as GridSpecInput;
}

/**
 * One cluster of `processors` processors with no threshold and no background load: a trace replay on it is the
 * textbook setting of the scheduling literature (`--grid single:N`). Written out whole, as gridSpecSchema would give
 * it with its defaults (a test holds the two equal), so that `--grid single:N` needs no schema: building zod's grid
 * schema and its first parse cost every replay about 9 ms (issue 17).
 */
export function singleCluster(processors: number): GridSpec {
  return {
    name: `single-${processors}`,
    clusters: [{ name: 'single', processors, supportsReservations: false }],
    files: [],
    network: { defaultBandwidthMBps: DEFAULT_BANDWIDTH_MBPS, defaultLatencyS: DEFAULT_LATENCY_S, links: [] },
  };
}

const SYNTHETIC_MIN_SIZE = 32;
const SYNTHETIC_MAX_SIZE = 512;

/**
 * `clusters` clusters named c01, c02, ... with sizes log-uniform in 32..512 (rounded to 16: real machines come in
 * racks), fixed by the seed. No background load, thresholds at the full size, default network.
 */
export function syntheticGrid(clusters: number, seed: number): GridSpecInput {
  if (!Number.isInteger(clusters) || clusters < 1)
    throw new RangeError(`clusters must be a whole number >= 1, not ${clusters}`);
  const rng = new Random(seed);
  const width = Math.max(2, String(clusters).length);
  const logMin = Math.log(SYNTHETIC_MIN_SIZE);
  const logMax = Math.log(SYNTHETIC_MAX_SIZE);
  const list = [];
  for (let i = 0; i < clusters; i++) {
    const raw = Math.exp(logMin + rng.next() * (logMax - logMin));
    const processors = Math.min(SYNTHETIC_MAX_SIZE, Math.max(SYNTHETIC_MIN_SIZE, Math.round(raw / 16) * 16));
    list.push({ name: `c${String(i + 1).padStart(width, '0')}`, processors });
  }
  return { name: `synthetic-${clusters}-${seed}`, clusters: list };
}
