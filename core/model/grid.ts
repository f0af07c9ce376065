// The grid the scheduler works on: validated clusters, files and network, with the lookups placement needs.
import { gridSpecSchema, type ClusterSpec, type GridSpec } from './schemas.js';
import { fail, ok, parseWith, type Result } from './result.js';

export interface Cluster {
  readonly name: string;
  readonly index: number;
  readonly processors: number;
  /** Most processors Concertina may hold here. */
  readonly threshold: number;
  readonly supportsReservations: boolean;
  readonly spec: ClusterSpec;
}

export interface Grid {
  readonly name: string;
  readonly clusters: readonly Cluster[];
  readonly spec: GridSpec;
  cluster(name: string): Cluster | undefined;
  /** Seconds to bring `files` to `cluster` from their nearest replicas; 0 when all are present there. */
  transferTime(files: readonly string[], cluster: string): number;
  hasFile(name: string): boolean;
  /** The largest number of processors Concertina may hold on any single cluster. */
  readonly largestThreshold: number;
  readonly totalThreshold: number;
}

export function buildGrid(spec: GridSpec): Grid {
  const clusters: Cluster[] = spec.clusters.map((c, index) => ({
    name: c.name,
    index,
    processors: c.processors,
    threshold: c.threshold ?? c.processors,
    supportsReservations: c.supportsReservations,
    spec: c,
  }));
  const byName = new Map(clusters.map((c) => [c.name, c]));
  const files = new Map(spec.files.map((f) => [f.name, f]));
  const links = new Map<string, { bandwidthMBps: number; latencyS: number }>();
  for (const l of spec.network.links) {
    links.set(`${l.from}\u0000${l.to}`, l);
    if (!links.has(`${l.to}\u0000${l.from}`)) links.set(`${l.to}\u0000${l.from}`, l);
  }
  const link = (from: string, to: string) =>
    links.get(`${from}\u0000${to}`) ?? {
      bandwidthMBps: spec.network.defaultBandwidthMBps,
      latencyS: spec.network.defaultLatencyS,
    };

  return {
    name: spec.name,
    clusters,
    spec,
    cluster: (name) => byName.get(name),
    hasFile: (name) => files.has(name),
    largestThreshold: Math.max(...clusters.map((c) => c.threshold)),
    totalThreshold: clusters.reduce((s, c) => s + c.threshold, 0),
    transferTime(names, cluster) {
      let total = 0;
      for (const fileName of names) {
        const file = files.get(fileName);
        if (!file || file.replicas.includes(cluster)) continue;
        // Decision: each file comes from its fastest replica; files are sent one after another.
        let best = Infinity;
        for (const site of file.replicas) {
          const l = link(site, cluster);
          best = Math.min(best, l.latencyS + file.sizeMB / l.bandwidthMBps);
        }
        total += best;
      }
      return total;
    },
  };
}

export function parseGrid(input: unknown): Result<Grid> {
  const parsed = parseWith(gridSpecSchema, input);
  return parsed.ok ? ok(buildGrid(parsed.value)) : fail(parsed.errors);
}
