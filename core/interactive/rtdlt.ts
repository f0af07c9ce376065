// Real-time divisible load theory (Lin, Lu, Deogun and Goddard, RTAS 2007) on homogeneous nodes: how long one
// iteration of σ data units takes on n nodes, and the fewest nodes that meet a deadline.
//
// Decision: the variant implemented is RT-DLT's optimal partitioning rule (OPR) on a star of homogeneous nodes that
// are all available when the iteration forks: the head node sends the chunks one after the other, chunk i of
// α_i·σ units, and every node computes as soon as its chunk has arrived, so that all nodes finish together. With
// β = Cps / (Cms + Cps) that gives α_i = β^(i-1)·(1 - β) / (1 - β^n) and the iteration time
//   E(σ, n) = σ·(Cms + Cps)·(1 - β) / (1 - β^n)        (= σ·Cms / (1 - β^n); σ·Cps / n when Cms = 0),
// and, with γ = 1 - σ·Cms / D, the minimum number of nodes meeting the relative deadline D
//   n_min = ⌈ln γ / ln β⌉                               (⌈σ·Cps / D⌉ when Cms = 0),
// which needs σ·Cms < D (no number of nodes beats the time to transmit the data).
// Decision: the per-node cost C of the job's periodic tasks is E(σ, k) rounded up to a whole ms: the paper's "minimal
// processing time for the whole iteration (i.e., also for each node)"; it bounds every node's share α_i·σ·(Cms + Cps).
import type { CostModel, InteractiveJob, Refusal } from './model.js';

export function beta(cost: CostModel): number {
  return cost.cpsMsPerUnit / (cost.cmsMsPerUnit + cost.cpsMsPerUnit);
}

/** E(σ, n): the iteration time of σ data units on n nodes under OPR (ms, not rounded). */
export function iterationTimeMs(dataUnits: number, nodes: number, cost: CostModel): number {
  if (!Number.isInteger(nodes) || nodes < 1) throw new RangeError(`nodes must be a whole number >= 1, not ${nodes}`);
  if (cost.cmsMsPerUnit === 0) return (dataUnits * cost.cpsMsPerUnit) / nodes;
  return (dataUnits * cost.cmsMsPerUnit) / (1 - beta(cost) ** nodes);
}

/** The OPR fractions α_1..α_n of the data sent to each node (they sum to 1). */
export function fractions(nodes: number, cost: CostModel): number[] {
  if (cost.cmsMsPerUnit === 0) return Array.from({ length: nodes }, () => 1 / nodes);
  const b = beta(cost);
  const first = (1 - b) / (1 - b ** nodes);
  return Array.from({ length: nodes }, (_, i) => first * b ** i);
}

/** n_min: the fewest nodes whose iteration time meets `deadlineMs`, or undefined when no number does. */
export function minNodes(dataUnits: number, deadlineMs: number, cost: CostModel): number | undefined {
  let n: number;
  if (cost.cmsMsPerUnit === 0) {
    n = Math.ceil((dataUnits * cost.cpsMsPerUnit) / deadlineMs);
  } else {
    const gamma = 1 - (dataUnits * cost.cmsMsPerUnit) / deadlineMs;
    if (!(gamma > 0)) return undefined;
    if (gamma >= 1) return 1;
    n = Math.ceil(Math.log(gamma) / Math.log(beta(cost)));
  }
  n = Math.max(1, n);
  // The closed form in floating point may be one off at an exact boundary: settle it on E itself.
  while (iterationTimeMs(dataUnits, n, cost) > deadlineMs) n++;
  while (n > 1 && iterationTimeMs(dataUnits, n - 1, cost) <= deadlineMs) n--;
  return n;
}

export interface Division {
  readonly ok: true;
  /** k: the number of nodes (and periodic tasks). */
  readonly nodes: number;
  /** C: the per-node cost of one iteration, E(σ, k) rounded up to a whole ms (at most D). */
  readonly costMs: number;
  /** The minimum node count n_min (k >= n_min when the job was widened). */
  readonly minNodes: number;
}

/**
 * RT-DLT for one job: k = n_min nodes (or `nodes` if given, at least n_min) and C = ⌈E(σ, k)⌉, or why not. `limit` is
 * the cluster's node count.
 */
export function divide(
  job: Pick<InteractiveJob, 'dataUnits' | 'deadlineMs'>,
  cost: CostModel,
  limit: number,
  nodes?: number,
): Division | Refusal {
  const nMin = minNodes(job.dataUnits, job.deadlineMs, cost);
  if (nMin === undefined) {
    const transfer = job.dataUnits * cost.cmsMsPerUnit;
    return {
      ok: false,
      code: 'deadline-too-short',
      message: `transmitting ${job.dataUnits} units takes ${round(transfer)} ms, not less than the deadline ${job.deadlineMs} ms`,
    };
  }
  if (nMin > limit)
    return { ok: false, code: 'too-many-nodes', message: `the deadline needs ${nMin} nodes, the cluster has ${limit}` };
  const k = Math.max(nMin, nodes ?? nMin);
  if (k > limit) return { ok: false, code: 'too-many-nodes', message: `${k} nodes asked, the cluster has ${limit}` };
  const costMs = Math.max(1, Math.ceil(iterationTimeMs(job.dataUnits, k, cost) - 1e-9));
  return { ok: true, nodes: k, costMs: Math.min(costMs, job.deadlineMs), minNodes: nMin };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
