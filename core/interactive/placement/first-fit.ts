// First fit: the first node, in node order, whose admission test accepts the task.
import type { TaskPlacementPolicy } from './policy.js';

export const firstFit: TaskPlacementPolicy = {
  needsSlack: false,
  choose(nodes, verdict) {
    for (let i = 0; i < nodes.length; i++) if (verdict(nodes[i]!).ok) return i;
    return undefined;
  },
};
