// A worker node as the head node sees it: the periodic tasks it hosts, the tasks that left it but whose last
// instance may still be running (ghosts), and the utilisation and slack it reports.
//
// A task that leaves a node (its job ended or was re-placed) stays counted in the node's admission test, as a ghost:
// a task admitted against the node's current set alone could otherwise meet the leaving task's last instance, or the
// work it delayed, in one busy period that the demand test never saw together. After an idle instant nothing earlier
// is pending, so every ghost goes then.
// Decision: a ghost also stops counting once its last instance's deadline has passed (at most D after it left), but
// only for a test in which every task, the new one too, has D = T: then the node's test is U <= 1 and the departed
// task's share may be reused after that deadline (bandwidth reclaiming, as a CBS server's). With some D < T it stays
// until the node is idle: the work it delayed can still be pending with later deadlines (e.g. A = (C 5, D 10, T 10)
// and a departed (5, 5, 100) released together: at 5 A still needs 5 by 10, so a new (5, 5, 100) that passes the test
// with A alone misses; node.test.ts checks it).
import {
  busyPeriod,
  feasibility,
  utilization,
  type EdfTask,
  type Feasibility,
  type FeasibilityOptions,
} from './edf.js';

export interface HostedTask extends EdfTask {
  readonly jobId: string;
  readonly index: number;
  /** The job's placement this task belongs to (a re-placement starts a new one). */
  readonly generation: number;
}

const implicitDeadline = (t: EdfTask) => t.deadlineMs === t.periodMs;

/** What a node reports to the head node. */
export interface NodeReport {
  readonly node: number;
  readonly tasks: number;
  readonly ghosts: number;
  readonly utilization: number;
  /** S in ms (Infinity when the node hosts nothing). */
  readonly slackMs: number;
}

/** The read-only view placement policies and sharing rules get. */
export interface NodeView {
  readonly id: number;
  /** Live tasks. */
  readonly tasks: readonly HostedTask[];
  /** Tasks gone since the node was last idle (see the Decision above for when they count). */
  readonly ghosts: readonly HostedTask[];
  /** The ghosts whose last instance's deadline has not passed yet. */
  pendingGhosts(): readonly HostedTask[];
  /** The node's clock (ms): the latest time the head told it. */
  readonly nowMs: number;
  /** Live tasks and the ghosts that still count for a test with `extra`: what the admission test counts. */
  hosted(extra?: readonly EdfTask[]): readonly EdfTask[];
  /** The feasibility of this node's set with `extra` added. */
  test(extra: readonly EdfTask[], options?: FeasibilityOptions): Feasibility;
}

export class WorkerNodeState implements NodeView {
  private live: HostedTask[] = [];
  private gone: HostedTask[] = [];
  /** When each ghost's last instance's deadline has passed, by index in `gone` (ghosts keep the tasks' own shape). */
  private goneOverAtMs: number[] = [];
  private cachedReport: NodeReport | undefined;
  private clockMs = 0;

  constructor(
    readonly id: number,
    private readonly maxCheckpoints?: number,
  ) {}

  get tasks(): readonly HostedTask[] {
    return this.live;
  }

  get ghosts(): readonly HostedTask[] {
    return this.gone;
  }

  pendingGhosts(): readonly HostedTask[] {
    return this.gone.filter((_, i) => this.goneOverAtMs[i]! > this.clockMs);
  }

  get nowMs(): number {
    return this.clockMs;
  }

  /** The head's clock moved on (never back): ghosts past their deadline may stop counting. */
  at(nowMs: number): void {
    if (nowMs <= this.clockMs) return;
    const before = this.clockMs;
    this.clockMs = nowMs;
    if (this.goneOverAtMs.some((t) => t > before && t <= nowMs)) this.cachedReport = undefined;
  }

  hosted(extra: readonly EdfTask[] = []): readonly EdfTask[] {
    if (this.gone.length === 0) return this.live;
    if (!this.goneOverAtMs.some((t) => t <= this.clockMs)) return [...this.live, ...this.gone];
    const implicit =
      this.live.every(implicitDeadline) && extra.every(implicitDeadline) && this.gone.every(implicitDeadline);
    const counted = implicit ? this.pendingGhosts() : this.gone;
    return counted.length === 0 ? this.live : [...this.live, ...counted];
  }

  test(extra: readonly EdfTask[], options: FeasibilityOptions = {}): Feasibility {
    const set: EdfTask[] = [...this.hosted(extra), ...extra];
    return feasibility(set, { maxCheckpoints: this.maxCheckpoints, ...options });
  }

  add(task: HostedTask): void {
    this.live.push(task);
    this.cachedReport = undefined;
  }

  /**
   * The job's live tasks leave now: they become ghosts, their last instance (released by now) over by its deadline,
   * at most D from now. Returns how many left.
   */
  remove(jobId: string): number {
    const leaving = this.live.filter((t) => t.jobId === jobId);
    if (leaving.length === 0) return 0;
    this.live = this.live.filter((t) => t.jobId !== jobId);
    for (const t of leaving) {
      this.gone.push(t);
      this.goneOverAtMs.push(this.clockMs + t.deadlineMs);
    }
    this.cachedReport = undefined;
    return leaving.length;
  }

  /**
   * An instant (ms) by which the node has certainly been idle since now, for a caller that sees no idle instants (the
   * scheduler's path): nothing released before it is pending then, so every ghost may go.
   * Decision: with tasks still live it is now + L, L the synchronous busy period of the live tasks and every ghost
   * (edf.ts): the work they release in any window of length L is at most L, so a busy period ends within L of its
   * start (the synchronous one is the longest, Spuri 1996); at U = 1 that end may last no time, but nothing earlier is
   * pending then, which is all a ghost needs. The busy period under way now began after the node's last `idle()`, so
   * only these tasks, or newcomers, release work in it: a caller asks again after each admission (the property test
   * finds misses otherwise). With none live, each ghost's last instance is over by its deadline (at most D after it
   * left). Infinity when L is unknown (U > 1 after bandwidth reclaimed from D = T ghosts, or more deadlines than the
   * test's bound): the ghosts stay until every task has left. It assumes what admission guarantees: instances within C
   * and deadlines met (an overrun re-places its job once that instance is over).
   */
  idleByMs(): number {
    if (this.gone.length === 0) return this.clockMs;
    if (this.live.length === 0) return Math.max(this.clockMs, ...this.goneOverAtMs);
    const all = [...this.live, ...this.gone];
    if (utilization(all) > 1 + 1e-9) return Number.POSITIVE_INFINITY;
    const l = busyPeriod(all, this.maxCheckpoints);
    return l === undefined ? Number.POSITIVE_INFINITY : this.clockMs + l;
  }

  /** Undo an `add` of a placement being tried (no ghost: nothing ran). */
  retract(task: HostedTask): void {
    const i = this.live.lastIndexOf(task);
    if (i >= 0) this.live.splice(i, 1);
    this.cachedReport = undefined;
  }

  /** The node has been idle: no instance of a departed task can be pending any more. */
  idle(): void {
    if (this.gone.length === 0) return;
    this.gone = [];
    this.goneOverAtMs = [];
    this.cachedReport = undefined;
  }

  report(): NodeReport {
    if (!this.cachedReport) {
      const f = this.test([]);
      this.cachedReport = {
        node: this.id,
        tasks: this.live.length,
        ghosts: this.hosted().length - this.live.length,
        utilization: f.utilization,
        slackMs: f.slackMs ?? 0,
      };
    }
    return this.cachedReport;
  }
}
