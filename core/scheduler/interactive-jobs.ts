// Interactive periodic divisible jobs in the multicluster scheduler: one head node (core/interactive/head.ts) per
// cluster with an interactive partition. A job is admitted on submission (RT-DLT gives k and C, the cluster's EDF
// worker nodes take its k tasks) or refused with the reason at its field; its driver then runs as a one-processor job
// of the cluster; its application reports each task instance (`iteration`), misses are events, and an instance longer
// than C re-places the job (or ends it when no placement is left).
import type { SchedulerEventBody } from '../events.js';
import type { Grid } from '../model/grid.js';
import type { InteractiveClusterSample } from '../model/cluster-snapshot.js';
import type { FieldError } from '../model/result.js';
import type { JobSpec } from '../model/schemas.js';
import type { ApplicationMessage, ApplicationPort, InteractiveTasks } from '../ports.js';
import { InteractiveHead, type JobPlacement } from '../interactive/head.js';
import type { RefusalCode } from '../interactive/model.js';
import { fractions } from '../interactive/rtdlt.js';

export type { InteractiveClusterSample } from '../model/cluster-snapshot.js';

export interface InteractiveJobsHost {
  readonly grid: Grid;
  readonly applications: ApplicationPort;
  emit(now: number, event: SchedulerEventBody): void;
  /** Runs `action` at scheduler time `t` (seconds). */
  at(t: number, action: (now: number) => void): void;
}

/** Where a refusal is shown: the field of the job spec that would have to change. */
const REFUSAL_FIELD: Record<RefusalCode, string> = {
  invalid: 'interactive',
  'deadline-too-short': 'interactive.deadlineMs',
  'too-many-nodes': 'interactive.deadlineMs',
  'no-placement': 'interactive',
};

const toMs = (t: number) => Math.max(0, Math.round(t * 1000));

export class InteractiveJobs {
  private readonly heads = new Map<string, InteractiveHead>();
  /** Per cluster and node holding ghosts: when it has certainly been idle (they go then), scheduler seconds. */
  private readonly ghostsUntil = new Map<string, Map<number, number>>();
  /** Running interactive jobs: their cluster and misses. */
  private readonly jobs = new Map<
    string,
    { cluster: string; periodMs: number; deadlineMs: number; misses: number; started: boolean }
  >();

  constructor(private readonly host: InteractiveJobsHost) {
    for (const c of host.grid.clusters) {
      const p = c.spec.interactive;
      if (p)
        this.heads.set(
          c.name,
          new InteractiveHead({
            nodes: p.nodes,
            cost: { cmsMsPerUnit: p.cmsMsPerUnit, cpsMsPerUnit: p.cpsMsPerUnit },
            sharing: p.sharing,
            placement: p.placement,
          }),
        );
    }
  }

  /**
   * Admits the job on its cluster, or on the first cluster with an interactive partition that can take it (grid
   * order). Returns the cluster and the event to tell once the job is submitted, or the refusal at its field (the
   * first cluster's, when none could).
   */
  admit(
    spec: JobSpec,
    jobId: string,
    now: number,
  ): { ok: true; cluster: string; event: SchedulerEventBody } | { ok: false; errors: FieldError[] } {
    const periodic = spec.interactive!;
    const named = spec.components[0]!.cluster;
    const candidates = named !== undefined ? [named] : [...this.heads.keys()];
    const refusals: string[] = [];
    let field: string | undefined;
    for (const cluster of candidates) {
      const head = this.heads.get(cluster);
      if (!head) continue;
      const job = {
        id: jobId,
        arrivalMs: toMs(now) + periodic.arrivalMs,
        periodMs: periodic.periodMs,
        dataUnits: periodic.dataUnits,
        deadlineMs: periodic.deadlineMs,
      };
      const a = head.submit(job, toMs(now));
      if (!a.ok) {
        field ??= REFUSAL_FIELD[a.code];
        refusals.push(candidates.length > 1 ? `${cluster}: ${a.message}` : a.message);
        continue;
      }
      this.jobs.set(jobId, { cluster, periodMs: job.periodMs, deadlineMs: job.deadlineMs, misses: 0, started: false });
      // Its tasks may lengthen a busy period that ghosts on their nodes wait out.
      this.watchGhosts(cluster, a.nodes, now);
      const event: SchedulerEventBody = {
        type: 'interactive.admitted',
        jobId,
        cluster,
        nodes: [...a.nodes],
        costMs: a.costMs,
        minNodes: a.minNodes,
        periodMs: job.periodMs,
        deadlineMs: job.deadlineMs,
      };
      return { ok: true, cluster, event };
    }
    const message = refusals.length
      ? `refused: ${refusals.join('; ')}`
      : 'refused: no cluster has interactive worker nodes';
    return { ok: false, errors: [{ path: field ?? 'interactive', message }] };
  }

  isInteractive(jobId: string): boolean {
    return this.jobs.has(jobId);
  }

  /** The job's driver runs: its application learns its tasks. */
  started(jobId: string): void {
    const record = this.jobs.get(jobId);
    if (!record) return;
    record.started = true;
    this.tell(jobId, record.cluster);
  }

  /** The job's driver runs already (adopted after a restart): a re-placement is told to its application. */
  running(jobId: string): void {
    const record = this.jobs.get(jobId);
    if (record) record.started = true;
  }

  /** The job ended (however): its tasks leave their nodes. */
  ended(jobId: string, now: number): void {
    const record = this.jobs.get(jobId);
    if (!record) return;
    const placement = this.heads.get(record.cluster)?.placementOf(jobId);
    this.heads.get(record.cluster)?.finish(jobId, toMs(now));
    if (placement) this.watchGhosts(record.cluster, placement.nodes, now);
    this.jobs.delete(jobId);
  }

  /**
   * A task instance's report. Returns the reason to end the job when it overran and no placement is left for it.
   */
  iteration(
    message: Omit<Extract<ApplicationMessage, { type: 'iteration' }>, 'type'>,
    now: number,
  ): string | undefined {
    const record = this.jobs.get(message.jobId);
    if (!record) return undefined;
    const head = this.heads.get(record.cluster)!;
    const placement = head.placementOf(message.jobId);
    if (!placement) return undefined;
    const generation = message.generation ?? placement.generation;
    const node = placement.generation === generation ? (placement.nodes[message.task] ?? -1) : -1;
    if (message.missed) {
      record.misses++;
      this.host.emit(now, {
        type: 'interactive.missed',
        jobId: message.jobId,
        cluster: record.cluster,
        node,
        task: message.task,
        executedMs: message.executedMs,
        ...(message.responseMs !== undefined && { responseMs: message.responseMs }),
        deadlineMs: record.deadlineMs,
        misses: record.misses,
      });
    }
    const next = head.completed(
      {
        jobId: message.jobId,
        generation,
        node: Math.max(0, node),
        executedMs: message.executedMs,
        missed: message.missed,
      },
      toMs(now),
    );
    if (!next) return undefined;
    // Its tasks left their nodes, whether or not it found new ones (which may hold ghosts too).
    this.watchGhosts(record.cluster, next.ok ? [...placement.nodes, ...next.nodes] : placement.nodes, now);
    if (!next.ok)
      return `task ${message.task} ran ${message.executedMs} ms, longer than its cost bound ${placement.costMs} ms, and the job could not be placed again: ${next.message}`;
    this.host.emit(now, {
      type: 'interactive.replaced',
      jobId: message.jobId,
      cluster: record.cluster,
      nodes: [...next.nodes],
      costMs: next.costMs,
      executedMs: message.executedMs,
      generation: next.generation,
    });
    if (record.started) this.tell(message.jobId, record.cluster);
    return undefined;
  }

  /** The partition of `cluster`, or undefined when it has none. */
  sample(cluster: string): InteractiveClusterSample | undefined {
    const head = this.heads.get(cluster);
    if (!head) return undefined;
    return {
      nodes: head.nodeReports().map((r) => ({
        node: r.node,
        tasks: r.tasks,
        utilization: r.utilization,
        slackMs: Number.isFinite(r.slackMs) ? r.slackMs : null,
      })),
      jobs: head.runningJobs,
      admitted: head.counters.admitted,
      misses: head.counters.misses,
      replacements: head.counters.replacements,
    };
  }

  /** The placement of a running interactive job. */
  placement(jobId: string): JobPlacement | undefined {
    const record = this.jobs.get(jobId);
    return record && this.heads.get(record.cluster)?.placementOf(jobId);
  }

  /**
   * The tasks on `nodes` changed (some left, or came while ghosts were there): each node's ghosts now go when the
   * head says the node has certainly been idle (core/interactive/node.ts `idleByMs`). Decision: nothing reports idle
   * instants here (a live application's tasks are processes under the operating system's scheduler, not the head's
   * EDF model), so the bound replaces them: D after a departure is not enough when some task has D < T (node.ts's
   * counterexample), the synchronous busy period of the node's tasks and ghosts is (with D = T everywhere the head
   * still drops a ghost at its deadline by itself). Each change recomputes the bound, which may move either way.
   */
  private watchGhosts(cluster: string, nodes: readonly number[], now: number): void {
    const head = this.heads.get(cluster);
    if (!head) return;
    let until = this.ghostsUntil.get(cluster);
    if (!until) this.ghostsUntil.set(cluster, (until = new Map()));
    const map = until;
    for (const node of new Set(nodes)) {
      if (head.nodeView(node).ghosts.length === 0) {
        map.delete(node);
        continue;
      }
      // Relative to the head's clock (whole ms), so that rounding `now` never shortens the bound.
      const t = now + Math.max(0, head.idleByMs(node, toMs(now)) - toMs(now)) / 1000;
      map.set(node, t);
      if (!Number.isFinite(t)) continue;
      this.host.at(t, (at) => {
        // A later change may have moved the bound: only the current one drops the ghosts.
        if ((map.get(node) ?? Number.POSITIVE_INFINITY) > at) return;
        map.delete(node);
        head.nodeIdle(node, toMs(at));
      });
    }
  }

  private tell(jobId: string, cluster: string): void {
    const head = this.heads.get(cluster)!;
    const p = head.placementOf(jobId);
    const record = this.jobs.get(jobId);
    if (!p || !record || !this.host.applications.interactiveTasks) return;
    const cost = head.config.cost;
    const tasks: InteractiveTasks = {
      generation: p.generation,
      nodes: p.nodes,
      costMs: p.costMs,
      periodMs: record.periodMs,
      deadlineMs: record.deadlineMs,
      dataUnits: p.dataUnits,
      fractions: fractions(p.nodes.length, cost),
    };
    this.host.applications.interactiveTasks(jobId, tasks);
  }
}
