// A worker node as the head node sees it: the periodic tasks it hosts, the tasks that left it but whose last
// instance may still be running (ghosts), and the utilisation and slack it reports.
//
// Decision: a task that leaves a node (its job ended or was re-placed) stays counted in the node's admission test,
// as a ghost, until the node reports it has been idle: a task admitted against the node's current set alone could
// otherwise meet the leaving task's last instance in one busy period, which the demand test never saw together.
// After an idle instant no earlier instance is pending, so the busy periods that follow hold only current tasks.
import { feasibility, type EdfTask, type Feasibility, type FeasibilityOptions } from './edf.js';

export interface HostedTask extends EdfTask {
  readonly jobId: string;
  readonly index: number;
  /** The job's placement this task belongs to (a re-placement starts a new one). */
  readonly generation: number;
}

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
  /** Tasks gone but maybe still running an instance. */
  readonly ghosts: readonly HostedTask[];
  /** Live tasks and ghosts: what the admission test counts. */
  hosted(): readonly HostedTask[];
  /** The feasibility of this node's set with `extra` added. */
  test(extra: readonly EdfTask[], options?: FeasibilityOptions): Feasibility;
}

export class WorkerNodeState implements NodeView {
  private live: HostedTask[] = [];
  private gone: HostedTask[] = [];
  private cachedReport: NodeReport | undefined;

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

  hosted(): readonly HostedTask[] {
    return this.gone.length === 0 ? this.live : [...this.live, ...this.gone];
  }

  test(extra: readonly EdfTask[], options: FeasibilityOptions = {}): Feasibility {
    const set: EdfTask[] = [...this.hosted(), ...extra];
    return feasibility(set, { maxCheckpoints: this.maxCheckpoints, ...options });
  }

  add(task: HostedTask): void {
    this.live.push(task);
    this.cachedReport = undefined;
  }

  /** The job's live tasks leave: they become ghosts. Returns how many left. */
  remove(jobId: string): number {
    const leaving = this.live.filter((t) => t.jobId === jobId);
    if (leaving.length === 0) return 0;
    this.live = this.live.filter((t) => t.jobId !== jobId);
    this.gone.push(...leaving);
    this.cachedReport = undefined;
    return leaving.length;
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
    this.cachedReport = undefined;
  }

  report(): NodeReport {
    if (!this.cachedReport) {
      const f = this.test([]);
      this.cachedReport = {
        node: this.id,
        tasks: this.live.length,
        ghosts: this.gone.length,
        utilization: f.utilization,
        slackMs: f.slackMs ?? 0,
      };
    }
    return this.cachedReport;
  }
}
