// A placement policy picks, for one periodic task, the worker node it goes to among those whose admission test
// accepts it (the head asks `verdict` lazily, node by node). One policy per file, registered by name in ./index.ts.
import type { NodeView } from '../node.js';
import type { Verdict } from '../sharing.js';

export interface TaskPlacementPolicy {
  /** Whether the policy ranks nodes by their slack (the head then asks verdicts with the slack computed). */
  readonly needsSlack: boolean;
  /** The index in `nodes` of the chosen node, or undefined when no node accepts the task. */
  choose(nodes: readonly NodeView[], verdict: (node: NodeView) => Verdict): number | undefined;
}

/** The accepting node with the best score (lowest first), ties to the lowest index. */
export function bestScored(
  nodes: readonly NodeView[],
  verdict: (node: NodeView) => Verdict,
  score: (v: Verdict) => number,
): number | undefined {
  let best: number | undefined;
  let bestScore = Infinity;
  for (let i = 0; i < nodes.length; i++) {
    const v = verdict(nodes[i]!);
    if (!v.ok) continue;
    const s = score(v);
    if (best === undefined || s < bestScore) {
      best = i;
      bestScore = s;
    }
  }
  return best;
}
