// Best fit on slack: the accepting node left with the least slack once the task is added (packs tasks tightly,
// keeping roomy nodes for demanding tasks).
import { bestScored, type TaskPlacementPolicy } from './policy.js';

export const bestFit: TaskPlacementPolicy = {
  needsSlack: true,
  choose: (nodes, verdict) => bestScored(nodes, verdict, (v) => v.slackMs ?? 0),
};
