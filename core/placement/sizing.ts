// Shared by the placement policies: how large a component starts on a cluster, which clusters it may use, what the
// job's earlier components already took there, and the common "best feasible cluster" loop with its failure reasons.
import type { PlacedComponent } from '../events.js';
import type { Grid } from '../model/grid.js';
import { componentRequest } from '../model/job.js';
import type { JobSpec } from '../model/schemas.js';
import type { Placement, PlacementContext } from './policy.js';

/**
 * The size component `componentIndex` starts with on a cluster with `available` processors, or undefined when it
 * cannot start there: rigid needs all its processors, moldable takes up to max, malleable its initial size bounded by
 * what is available (never below min).
 */
export function sizeFor(job: JobSpec, componentIndex: number, available: number): number | undefined {
  const { min, max, initial } = componentRequest(job, componentIndex);
  if (available < min) return undefined;
  switch (job.kind) {
    case 'rigid':
    case 'interactive':
      return min;
    case 'moldable':
      return Math.min(max, available);
    case 'malleable':
      return Math.max(min, Math.min(initial, available));
    case 'evolving':
      // Its whole pre-allocation, held for its run; it starts using `initial` of it.
      return available >= max ? max : undefined;
  }
}

/** Fewest processors a component can be placed with (rigid: its size; evolving: its pre-allocation). */
export function needFor(job: JobSpec, componentIndex: number): number {
  const request = componentRequest(job, componentIndex);
  return job.kind === 'evolving' ? request.max : request.min;
}

/** A half-open range of cluster indices a component may use. */
export interface ClusterRange {
  readonly from: number;
  readonly to: number;
}

/**
 * The clusters component `componentIndex` may go to: only its pinned cluster, or every cluster. Undefined when it is
 * pinned to a name the grid does not know (parseJob rejects that, but a job may be checked against another grid).
 */
export function candidateClusters(grid: Grid, job: JobSpec, componentIndex: number): ClusterRange | undefined {
  const pinned = job.components[componentIndex]!.cluster;
  if (pinned === undefined) return { from: 0, to: grid.clusters.length };
  const cluster = grid.cluster(pinned);
  return cluster ? { from: cluster.index, to: cluster.index + 1 } : undefined;
}

export function hasPinnedComponent(job: JobSpec): boolean {
  for (const c of job.components) if (c.cluster !== undefined) return true;
  return false;
}

/**
 * What one job has left on each cluster while its components are placed: the context's available minus what its
 * earlier components took (components of one job may share a cluster). Each policy module keeps one ledger and reuses
 * it for every call, since placement runs for every queued job on every pass; so a ledger serves one place() at a time.
 */
export class Ledger {
  private takenOn = new Float64Array(0);
  // Clusters with a non-zero take (the first `touchedCount`), so begin() clears only those instead of every cluster;
  // a count rather than `length = 0`, which showed up in profiles of a full queue pass.
  private readonly touched: number[] = [];
  private touchedCount = 0;
  private currentJob: JobSpec | undefined;
  private context: PlacementContext | undefined;

  begin(job: JobSpec, context: PlacementContext): this {
    for (let k = 0; k < this.touchedCount; k++) this.takenOn[this.touched[k]!] = 0;
    this.touchedCount = 0;
    const n = context.grid.clusters.length;
    if (this.takenOn.length < n) this.takenOn = new Float64Array(n);
    this.currentJob = job;
    this.context = context;
    return this;
  }

  get job(): JobSpec {
    return this.currentJob!;
  }

  get grid(): Grid {
    return this.context!.grid;
  }

  /** Processors this job may still take on the cluster. */
  left(clusterIndex: number): number {
    return this.context!.available(clusterIndex) - this.takenOn[clusterIndex]!;
  }

  /** Processors this job's earlier components took on the cluster. */
  taken(clusterIndex: number): number {
    return this.takenOn[clusterIndex]!;
  }

  /** The first cluster with the most available, when the context keeps it and no component of this job took any yet. */
  mostAvailableCluster(): number | undefined {
    return this.touchedCount === 0 && this.context!.mostAvailableCluster
      ? this.context!.mostAvailableCluster()
      : undefined;
  }

  get tookAny(): boolean {
    return this.touchedCount > 0;
  }

  take(clusterIndex: number, processors: number): void {
    if (this.takenOn[clusterIndex] === 0) this.touched[this.touchedCount++] = clusterIndex;
    this.takenOn[clusterIndex]! += processors;
  }
}

/** A policy's preference among the clusters where one component fits: lower is better. */
export type ClusterScore = (clusterIndex: number) => number;

/**
 * The score for one component, or undefined when the policy prefers nothing beyond the most available. Asked once per
 * component, so per-component work (finding its files) stays out of the per-cluster loop.
 */
export type ScoreFor = (ledger: Ledger, componentIndex: number) => ClusterScore | undefined;

/**
 * The cluster for one component: among clusters where it fits (its pinned one, or any), the lowest score, then the most
 * processors left, then the lowest index. Returns the cluster index, or why none fits.
 */
export function chooseCluster(ledger: Ledger, componentIndex: number, score?: ClusterScore): number | string {
  const { job, grid } = ledger;
  const need = needFor(job, componentIndex);
  const pinned = job.components[componentIndex]!.cluster;
  const range = candidateClusters(grid, job, componentIndex);
  if (!range) return `component ${componentIndex} is pinned to unknown cluster "${pinned}"`;
  if (pinned !== undefined) {
    const left = ledger.left(range.from);
    if (left >= need) return range.from;
    const of =
      job.kind === 'rigid' ? `${need}` : job.kind === 'evolving' ? `its pre-allocation ${need}` : `its minimum ${need}`;
    return `component ${componentIndex} is pinned to ${pinned}, which has ${left} of ${of} available${afterEarlier(ledger)}`;
  }
  if (!score) {
    // Ranked by processors left alone: the most available cluster, when the context keeps it, is the scan's answer.
    const most = ledger.mostAvailableCluster();
    if (most !== undefined) {
      const left = ledger.left(most);
      return left >= need ? most : noClusterReason(job.kind, need, componentIndex, left, grid.clusters[most]!.name);
    }
  }
  let best = -1;
  let bestScore = Infinity;
  let bestLeft = -1;
  let most = range.from;
  let mostLeft = -Infinity;
  for (let c = range.from; c < range.to; c++) {
    const left = ledger.left(c);
    if (left > mostLeft) {
      mostLeft = left;
      most = c;
    }
    if (left < need) continue;
    const s = score ? score(c) : 0;
    // Strict comparisons keep the lowest index on ties.
    if (best < 0 || s < bestScore || (s === bestScore && left > bestLeft)) {
      best = c;
      bestScore = s;
      bestLeft = left;
    }
  }
  if (best >= 0) return best;
  return noClusterReason(job.kind, need, componentIndex, mostLeft, grid.clusters[most]!.name, afterEarlier(ledger));
}

/**
 * Why no cluster can take a component of `need` processors: `mostLeft` is the most any cluster had left for it (the
 * first such cluster is `mostCluster`). The scheduler words a failure it foresees without a placement the same way.
 */
export function noClusterReason(
  kind: JobSpec['kind'],
  need: number,
  componentIndex: number,
  mostLeft: number,
  mostCluster: string,
  after = '',
): string {
  const what =
    kind === 'rigid'
      ? `${need} processors`
      : kind === 'evolving'
        ? `the pre-allocation of ${need} processors`
        : `the minimum of ${need} processors`;
  return `no cluster has ${what} available for component ${componentIndex} (most available: ${mostLeft} on ${mostCluster}${after})`;
}

function afterEarlier(ledger: Ledger): string {
  return ledger.tookAny ? " after this job's earlier components" : '';
}

/**
 * Places the job's components one at a time, in `order` (default: spec order), each on the cluster chooseCluster
 * picks with the policy's score and at the size sizeFor gives there. The result is in spec order whatever the placing order.
 */
export function placeComponents(ledger: Ledger, scoreFor?: ScoreFor, order?: readonly number[]): Placement {
  const { job, grid } = ledger;
  const n = job.components.length;
  const placed = new Array<PlacedComponent>(n);
  for (let k = 0; k < n; k++) {
    const i = order ? order[k]! : k;
    const chosen = chooseCluster(ledger, i, scoreFor?.(ledger, i));
    if (typeof chosen === 'string') return { ok: false, reason: chosen };
    const size = sizeFor(job, i, ledger.left(chosen))!;
    ledger.take(chosen, size);
    placed[i] = { cluster: grid.clusters[chosen]!.name, processors: size };
  }
  return { ok: true, components: placed };
}
