// Worst fit: the accepting node left with the most slack once the task is added (spreads the load, leaving every
// node room for an overrun).
// Decision: ranked on slack, the mirror of best fit, not on utilisation.
import { bestScored, type TaskPlacementPolicy } from './policy.js';

export const worstFit: TaskPlacementPolicy = {
  needsSlack: true,
  choose: (nodes, verdict) => bestScored(nodes, verdict, (v) => -(v.slackMs ?? 0)),
};
