// The head node of the hierarchical model: it admits interactive periodic divisible jobs, divides each by RT-DLT
// into k periodic tasks (A, T, C, D), places the tasks on worker nodes that run EDF locally (their admission test
// and a placement policy decide), re-places a job when a node reports an instance that ran longer than C, and counts
// what the nodes report. Pure and deterministic: time is passed in, nothing runs by itself; the simulator
// (core/sim/interactive) and a live runner drive it the same way.
import type { CostModel, InteractiveJob, Refusal } from './model.js';
import { jobProblem } from './model.js';
import { divide } from './rtdlt.js';
import { WorkerNodeState, type HostedTask, type NodeReport, type NodeView } from './node.js';
import { nodeSharings, type NodeSharing, type NodeSharingName, type Verdict } from './sharing.js';
import { taskPlacements, type TaskPlacementName, type TaskPlacementPolicy } from './placement/index.js';

export interface HeadConfig {
  readonly nodes: number;
  readonly cost: CostModel;
  readonly sharing: NodeSharingName;
  readonly placement: TaskPlacementName;
  /**
   * Widening: when RT-DLT's n_min tasks find no placement, try k = n_min + 1, ... up to ⌈widen·n_min⌉ nodes (RT-DLT's
   * other question: the iteration time on a given number of nodes; more nodes, smaller C). 1 (the default) keeps
   * the paper's k = n_min.
   */
  readonly widen?: number;
  /** Bound of the demand test (see edf.ts). */
  readonly maxCheckpoints?: number;
  /** Decision: after an overrun the job's data bound becomes σ·(measured / C)·headroom (default 1.25). */
  readonly overrunHeadroom?: number;
}

export interface JobPlacement {
  readonly jobId: string;
  /** 1 at admission, +1 at each re-placement. */
  readonly generation: number;
  /** The node of each task (a node may appear more than once in the interleaved model). */
  readonly nodes: readonly number[];
  readonly minNodes: number;
  /** C (ms). */
  readonly costMs: number;
  /** The data bound σ this placement was computed for. */
  readonly dataUnits: number;
  readonly sinceMs: number;
}

export type Admission = ({ readonly ok: true } & JobPlacement) | Refusal;

/** A node's report that an instance of a task completed. */
export interface CompletionReport {
  readonly jobId: string;
  readonly generation: number;
  readonly node: number;
  readonly executedMs: number;
  readonly missed: boolean;
}

export interface HeadCounters {
  submitted: number;
  admitted: number;
  refused: Record<Refusal['code'], number>;
  /** Admitted with more than n_min nodes (widening). */
  widened: number;
  completions: number;
  misses: number;
  overruns: number;
  replacements: number;
  /** Jobs stopped because no re-placement existed after an overrun. */
  droppedOnReplacement: number;
  /** RT-DLT divisions computed (admissions tried and re-placements). */
  divisions: number;
}

interface JobRecord {
  readonly job: InteractiveJob;
  placement: JobPlacement;
}

export class InteractiveHead {
  private readonly workers: WorkerNodeState[];
  private readonly jobs = new Map<string, JobRecord>();
  private readonly sharing: NodeSharing;
  private readonly policy: TaskPlacementPolicy;
  /** The latest time the head was told (ms). */
  private nowMs = 0;
  readonly counters: HeadCounters = {
    submitted: 0,
    admitted: 0,
    refused: { invalid: 0, 'deadline-too-short': 0, 'too-many-nodes': 0, 'no-placement': 0 },
    widened: 0,
    completions: 0,
    misses: 0,
    overruns: 0,
    replacements: 0,
    droppedOnReplacement: 0,
    divisions: 0,
  };

  constructor(readonly config: HeadConfig) {
    if (!Number.isInteger(config.nodes) || config.nodes < 1)
      throw new RangeError(`nodes must be a whole number >= 1, not ${config.nodes}`);
    if (!(config.cost.cpsMsPerUnit > 0) || !(config.cost.cmsMsPerUnit >= 0))
      throw new RangeError('Cps must be > 0 and Cms >= 0');
    this.workers = Array.from({ length: config.nodes }, (_, i) => new WorkerNodeState(i, config.maxCheckpoints));
    this.sharing = nodeSharings[config.sharing];
    this.policy = taskPlacements[config.placement];
  }

  /** Admits the job now, or says why not. */
  submit(job: InteractiveJob, nowMs: number): Admission {
    this.clock(nowMs);
    this.counters.submitted++;
    const problem = jobProblem(job) ?? (this.jobs.has(job.id) ? `job ${job.id} is already running` : undefined);
    const result = problem
      ? ({ ok: false, code: 'invalid', message: problem } as const)
      : this.place(job, job.dataUnits, 1, nowMs);
    if (!result.ok) {
      this.counters.refused[result.code]++;
      return result;
    }
    this.counters.admitted++;
    if (result.nodes.length > result.minNodes) this.counters.widened++;
    this.jobs.set(job.id, { job, placement: result });
    return result;
  }

  /** The user ended the job: its tasks leave their nodes. */
  finish(jobId: string, nowMs: number): boolean {
    this.clock(nowMs);
    const record = this.jobs.get(jobId);
    if (!record) return false;
    for (const n of new Set(record.placement.nodes)) this.node(n).remove(jobId);
    this.jobs.delete(jobId);
    return true;
  }

  /**
   * A node reports a completed instance. An instance that ran longer than C (of the job's current placement) makes
   * the head re-place the job: the returned admission is its new placement, or the refusal that stopped it.
   */
  completed(report: CompletionReport, nowMs: number): Admission | undefined {
    this.clock(nowMs);
    this.counters.completions++;
    if (report.missed) this.counters.misses++;
    const record = this.jobs.get(report.jobId);
    if (!record || report.generation !== record.placement.generation || report.executedMs <= record.placement.costMs)
      return undefined;
    this.counters.overruns++;
    const old = record.placement;
    const headroom = this.config.overrunHeadroom ?? 1.25;
    const dataUnits = old.dataUnits * (report.executedMs / old.costMs) * headroom;
    for (const n of new Set(old.nodes)) this.node(n).remove(report.jobId);
    const next = this.place(record.job, dataUnits, old.generation + 1, nowMs);
    if (!next.ok) {
      this.jobs.delete(report.jobId);
      this.counters.droppedOnReplacement++;
      return next;
    }
    this.counters.replacements++;
    record.placement = next;
    return next;
  }

  /** A node reports it has been idle (nothing pending): its ghosts are gone. */
  nodeIdle(node: number, nowMs: number): void {
    this.clock(nowMs);
    if (this.workers[node]) this.node(node).idle();
  }

  /** When node `node` has certainly been idle, for a caller that sees no idle instants (see `WorkerNodeState.idleByMs`). */
  idleByMs(node: number, nowMs: number): number {
    this.clock(nowMs);
    return this.node(node).idleByMs();
  }

  /** Time passes for the head when it is told something; a node learns it when it is looked at (see `node`). */
  private clock(nowMs: number): void {
    if (nowMs > this.nowMs) this.nowMs = nowMs;
  }

  /** Node `i` at the head's time (its ghosts past their deadline may stop counting). */
  private node(i: number): WorkerNodeState {
    const w = this.workers[i]!;
    w.at(this.nowMs);
    return w;
  }

  placementOf(jobId: string): JobPlacement | undefined {
    return this.jobs.get(jobId)?.placement;
  }

  get runningJobs(): number {
    return this.jobs.size;
  }

  nodeReports(): NodeReport[] {
    return this.workers.map((_, i) => this.node(i).report());
  }

  nodeView(node: number): NodeView {
    return this.node(node);
  }

  /** RT-DLT, then the tasks one by one on the nodes; k widened up to the configured bound when they do not fit. */
  private place(job: InteractiveJob, dataUnits: number, generation: number, nowMs: number): Admission {
    this.counters.divisions++;
    for (let i = 0; i < this.workers.length; i++) this.node(i);
    const first = divide({ dataUnits, deadlineMs: job.deadlineMs }, this.config.cost, this.config.nodes);
    if (!first.ok) return first;
    const widen = this.config.sharing === 'interleaved' ? Math.max(1, this.config.widen ?? 1) : 1;
    const kMax = Math.min(this.config.nodes, Math.ceil(first.nodes * widen));
    let firstFailure = '';
    let lastCost: number | undefined;
    for (let k = first.nodes; k <= kMax; k++) {
      const division =
        k === first.nodes
          ? first
          : divide({ dataUnits, deadlineMs: job.deadlineMs }, this.config.cost, this.config.nodes, k);
      if (!division.ok) break;
      // A wider division with the same C cannot fit where the narrower one did not.
      if (division.costMs === lastCost) continue;
      lastCost = division.costMs;
      const tried = this.tryTasks(job, division.costMs, k, generation);
      if (Array.isArray(tried)) {
        return {
          ok: true,
          jobId: job.id,
          generation,
          nodes: tried,
          minNodes: first.minNodes,
          costMs: division.costMs,
          dataUnits,
          sinceMs: nowMs,
        };
      }
      if (k === first.nodes) firstFailure = tried;
    }
    const widened = kMax > first.nodes ? ` (nor on up to ${kMax} nodes)` : '';
    return { ok: false, code: 'no-placement', message: `${firstFailure}${widened}` };
  }

  /** Places k tasks of cost C, or rolls back and says which task found no node and why. */
  private tryTasks(job: InteractiveJob, costMs: number, k: number, generation: number): number[] | string {
    const chosen: number[] = [];
    const added: HostedTask[] = [];
    for (let index = 0; index < k; index++) {
      const task: HostedTask = {
        jobId: job.id,
        index,
        generation,
        costMs,
        periodMs: job.periodMs,
        deadlineMs: job.deadlineMs,
      };
      // Nodes hosting nothing all answer alike: ask one of them once.
      let emptyVerdict: Verdict | undefined;
      const verdict = (node: NodeView): Verdict => {
        if (node.tasks.length === 0 && node.ghosts.length === 0)
          return (emptyVerdict ??= this.sharing.accepts(node, task, this.policy.needsSlack));
        return this.sharing.accepts(node, task, this.policy.needsSlack);
      };
      const i = this.policy.choose(this.workers, verdict);
      if (i === undefined) {
        const why = `task ${index + 1} of ${k} (C ${costMs} ms, T ${job.periodMs} ms, D ${job.deadlineMs} ms) fits on no node: ${this.whyNot(task)}`;
        for (let j = 0; j < added.length; j++) this.workers[chosen[j]!]!.retract(added[j]!);
        return why;
      }
      this.workers[i]!.add(task);
      chosen.push(i);
      added.push(task);
    }
    return chosen;
  }

  private whyNot(task: HostedTask): string {
    const counts = new Map<string, number>();
    for (const w of this.workers) {
      const v = this.sharing.accepts(w, task, false);
      if (!v.ok) counts.set(v.code ?? 'demand', (counts.get(v.code ?? 'demand') ?? 0) + 1);
    }
    const words: Record<string, string> = {
      utilization: 'utilisation would exceed 1',
      demand: 'processor demand test fails',
      interval: 'demand test interval too long',
      'other-job': 'held by another job',
    };
    return [...counts.entries()].map(([code, n]) => `${n} node${n === 1 ? '' : 's'} ${words[code] ?? code}`).join(', ');
  }
}
