// How jobs share worker nodes — the two models the paper compares — as node admission rules registered by name.
// - interleaved: any tasks of any jobs on one node, as long as the node's EDF feasibility test passes (the paper's
//   hierarchical model);
// - exclusive: a node serves one job for the job's lifetime (today's batch reservations; the paper's baseline).
import type { Feasibility } from './edf.js';
import type { HostedTask, NodeView } from './node.js';

export const NODE_SHARINGS = ['interleaved', 'exclusive'] as const;
export type NodeSharingName = (typeof NODE_SHARINGS)[number];

export interface Verdict {
  readonly ok: boolean;
  /** The node's slack once the task is added (ms), when ok and asked for. */
  readonly slackMs?: number;
  /** Why not: the feasibility code, or 'other-job' for a node held by another job. */
  readonly code?: 'utilization' | 'demand' | 'interval' | 'other-job';
}

export interface NodeSharing {
  readonly name: NodeSharingName;
  accepts(node: NodeView, task: HostedTask, withSlack: boolean): Verdict;
}

function fromFeasibility(f: Feasibility): Verdict {
  return f.feasible ? { ok: true, slackMs: f.slackMs } : { ok: false, code: f.code ?? 'demand' };
}

const interleaved: NodeSharing = {
  name: 'interleaved',
  accepts: (node, task, withSlack) => fromFeasibility(node.test([task], { withSlack })),
};

// Decision: in the exclusive model a job's own ghosts do not hold a node against it (it still holds the node while
// its last instance there finishes), so a re-placed job may keep its nodes; another job's ghost does until its last
// instance's deadline has passed (alone on the node, that instance delayed no one, so it was over by then).
const exclusive: NodeSharing = {
  name: 'exclusive',
  accepts: (node, task) => {
    if (node.tasks.length > 0 || node.pendingGhosts().some((g) => g.jobId !== task.jobId))
      return { ok: false, code: 'other-job' };
    if (task.costMs > task.deadlineMs) return { ok: false, code: 'demand' };
    return { ok: true, slackMs: task.deadlineMs - task.costMs };
  },
};

export const nodeSharings: Readonly<Record<NodeSharingName, NodeSharing>> = { interleaved, exclusive };
