// Interactive jobs' applications in the simulated world: the periodic demo's loop (assets/apps/periodic-demo.mjs) in
// virtual time. Every period each running job forks one instance per task of the placement the scheduler told it
// (`interactiveTasks`); the instances run on their cluster's worker nodes under preemptive EDF (worker.ts, the same
// model as the experiment's simulation.ts), shared by every interactive job of that cluster; each completion is
// reported as live applications report it (`iteration`: executed time, late or not, placement), so the scheduler
// counts misses and re-places a job whose instance ran longer than C exactly as in live mode.
//
// Bounded work: a cluster's nodes are simulated only up to the engine's clock, in slices. One engine action per
// cluster and slice (at most one per `sliceMs` of virtual time, none while nothing is pending) runs every fork and
// completion due by then and delivers their reports in completion order.
// Decision: a report reaches the scheduler at the end of its slice (1 s by default), as a live application's reports
// wait for its next sync; what it reports (the executed time, the miss) is the instance's own, measured exactly.
import type { ApplicationMessage, InteractiveTasks } from '../../ports.js';
import { Heap } from './heap.js';
import { EdfWorker, type Completion } from './worker.js';

/** What a simulated interactive application does each iteration (the `periodic` app model, the demo's arguments). */
export interface PeriodicBehaviour {
  /** Each task computes load × C. */
  readonly load: number;
  /** Every n-th iteration is heavy (0: none): each task computes overrunFactor × C. */
  readonly overrunEvery: number;
  readonly overrunFactor: number;
  /** Iterations before it ends (0: it runs until its run time is over). */
  readonly iterations: number;
}

export const DEFAULT_PERIODIC_BEHAVIOUR: PeriodicBehaviour = {
  load: 0.5,
  overrunEvery: 0,
  overrunFactor: 2,
  iterations: 0,
};

/** Decision: a second of virtual time per slice: reports lag their instance by at most that much. */
export const DEFAULT_SLICE_MS = 1000;

export interface PeriodicAppsHost {
  /** Virtual time, seconds. */
  now(): number;
  at(t: number, action: () => void): void;
  deliver(message: ApplicationMessage): void;
  finished(jobId: string): void;
}

interface PeriodicRun {
  readonly jobId: string;
  readonly cluster: ClusterNodes;
  readonly behaviour: PeriodicBehaviour;
  /** The placement its forks use (a new one takes effect at the next fork); undefined until the scheduler tells it. */
  tasks: InteractiveTasks | undefined;
  /** The fork waiting for its tasks (ms), when the tasks had not come by the time it was due. */
  waitingForkMs: number | undefined;
  forks: number;
  /** Its instances not yet completed. */
  pending: number;
  stopped: boolean;
}

interface Fork {
  readonly atMs: number;
  readonly seq: number;
  readonly run: PeriodicRun;
}

interface Report {
  readonly finishMs: number;
  readonly seq: number;
  readonly run: PeriodicRun;
  readonly message: ApplicationMessage;
}

class ClusterNodes {
  readonly workers = new Map<number, EdfWorker>();
  readonly forks = new Heap<Fork>((a, b) => (a.atMs !== b.atMs ? a.atMs < b.atMs : a.seq < b.seq));
  /** Everything before it has been simulated (ms). */
  clockMs = 0;
  /** The slice action scheduled (ms), or -1. */
  pumpAtMs = -1;
  pumpVersion = 0;

  worker(node: number): EdfWorker {
    let w = this.workers.get(node);
    if (!w) this.workers.set(node, (w = new EdfWorker(node)));
    return w;
  }
}

const toMs = (s: number) => Math.max(0, Math.round(s * 1000));

export class PeriodicApps {
  private readonly clusters = new Map<string, ClusterNodes>();
  private readonly runs = new Map<string, PeriodicRun>();
  private seq = 0;

  constructor(
    private readonly host: PeriodicAppsHost,
    private readonly sliceMs = DEFAULT_SLICE_MS,
  ) {
    if (!(sliceMs >= 1)) throw new RangeError(`sliceMs must be at least 1 ms, not ${sliceMs}`);
  }

  has(jobId: string): boolean {
    return this.runs.has(jobId);
  }

  /**
   * The job's driver runs on `cluster`: its first fork comes `arrivalMs` later (or once its tasks come, when later);
   * with no iteration count it ends after `lifetimeS`.
   */
  start(jobId: string, cluster: string, arrivalMs: number, behaviour: PeriodicBehaviour, lifetimeS: number): void {
    const nodes = this.nodes(cluster);
    this.catchUp(nodes);
    const run: PeriodicRun = {
      jobId,
      cluster: nodes,
      behaviour,
      tasks: undefined,
      waitingForkMs: undefined,
      forks: 0,
      pending: 0,
      stopped: false,
    };
    this.runs.set(jobId, run);
    // Decision: A counts from the driver's start here (the scheduler admitted it earlier); any phase is safe, since the
    // nodes' demand tests hold for every release offset.
    nodes.forks.push({ atMs: toMs(this.host.now()) + arrivalMs, seq: this.seq++, run });
    if (behaviour.iterations === 0)
      this.host.at(this.host.now() + lifetimeS, () => {
        if (this.runs.get(jobId) !== run) return;
        this.end(run);
      });
    this.schedule(nodes);
  }

  /** The scheduler's placement for the job: its next fork uses it. */
  tasks(jobId: string, tasks: InteractiveTasks): void {
    const run = this.runs.get(jobId);
    if (!run) return;
    // The forks due before now still used the old placement.
    this.catchUp(run.cluster);
    run.tasks = tasks;
    if (run.waitingForkMs !== undefined) {
      run.waitingForkMs = undefined;
      run.cluster.forks.push({ atMs: run.cluster.clockMs, seq: this.seq++, run });
    }
    this.schedule(run.cluster);
  }

  /** The job ended: its task instances are killed with it. */
  stop(jobId: string): void {
    const run = this.runs.get(jobId);
    if (!run) return;
    this.catchUp(run.cluster);
    this.discard(run);
  }

  private nodes(cluster: string): ClusterNodes {
    let nodes = this.clusters.get(cluster);
    if (!nodes) {
      this.clusters.set(cluster, (nodes = new ClusterNodes()));
      nodes.clockMs = toMs(this.host.now());
    }
    return nodes;
  }

  private end(run: PeriodicRun): void {
    this.catchUp(run.cluster);
    if (run.stopped) return;
    this.discard(run);
    this.host.finished(run.jobId);
  }

  private discard(run: PeriodicRun): void {
    run.stopped = true;
    this.runs.delete(run.jobId);
    for (const w of run.cluster.workers.values()) w.drop(run.jobId);
    run.cluster.forks.removeWhere((f) => f.run === run);
    this.schedule(run.cluster);
  }

  private catchUp(nodes: ClusterNodes): void {
    const now = toMs(this.host.now());
    if (now > nodes.clockMs) this.simulate(nodes, now);
  }

  /** Runs the cluster's forks and EDF nodes up to `untilMs`, then delivers what completed, in order. */
  private simulate(nodes: ClusterNodes, untilMs: number): void {
    const reports: Report[] = [];
    const onComplete = (c: Completion) => {
      const instance = c.instance;
      const run = this.runs.get(instance.jobId);
      if (!run) return;
      run.pending--;
      reports.push({
        finishMs: c.finishMs,
        seq: instance.seq,
        run,
        message: {
          type: 'iteration',
          jobId: instance.jobId,
          task: instance.taskIndex,
          executedMs: instance.executedMs,
          missed: c.missed,
          generation: instance.generation,
          responseMs: c.finishMs - instance.releaseMs,
        },
      });
    };
    const idle = () => {};
    // Forks due at the slice's very end wait for the next one: the scheduler answers this slice's reports first (a
    // re-placement told now takes effect at them, as a live application's next fork uses the tasks it last synced).
    for (let fork = nodes.forks.peek(); fork && fork.atMs < untilMs; fork = nodes.forks.peek()) {
      nodes.forks.pop();
      this.fork(fork.run, fork.atMs, onComplete);
    }
    for (const w of nodes.workers.values()) w.advance(untilMs, onComplete, idle);
    nodes.clockMs = untilMs;
    reports.sort((a, b) => (a.finishMs !== b.finishMs ? a.finishMs - b.finishMs : a.seq - b.seq));
    for (const r of reports) this.host.deliver(r.message);
    // A run with its iterations done ends once its last instances have (the demo's last join).
    const done = new Set<PeriodicRun>();
    for (const r of reports)
      if (
        !r.run.stopped &&
        r.run.pending === 0 &&
        r.run.forks >= r.run.behaviour.iterations &&
        r.run.behaviour.iterations > 0
      )
        done.add(r.run);
    for (const run of done) this.end(run);
    this.schedule(nodes);
  }

  /** Releases one instance per task of the run's placement on its node, and plans the next fork. */
  private fork(run: PeriodicRun, atMs: number, onComplete: (c: Completion) => void): void {
    const tasks = run.tasks;
    if (!tasks) {
      run.waitingForkMs = atMs;
      return;
    }
    const { behaviour } = run;
    run.forks++;
    const heavy = behaviour.overrunEvery > 0 && run.forks % behaviour.overrunEvery === 0;
    const demandMs = Math.max(1, Math.ceil(tasks.costMs * (heavy ? behaviour.overrunFactor : behaviour.load) - 1e-9));
    tasks.nodes.forEach((node, taskIndex) => {
      const w = run.cluster.worker(node);
      w.advance(atMs, onComplete, () => {});
      w.release({
        jobId: run.jobId,
        taskIndex,
        generation: tasks.generation,
        releaseMs: atMs,
        deadlineAtMs: atMs + tasks.deadlineMs,
        costMs: tasks.costMs,
        demandMs,
        seq: this.seq++,
        executedMs: 0,
      });
      run.pending++;
    });
    if (behaviour.iterations === 0 || run.forks < behaviour.iterations)
      run.cluster.forks.push({ atMs: atMs + tasks.periodMs, seq: this.seq++, run });
  }

  /** The next slice action: at the cluster's next fork or completion, at least a slice after the last one. */
  private schedule(nodes: ClusterNodes): void {
    let next = nodes.forks.peek()?.atMs ?? Number.POSITIVE_INFINITY;
    for (const w of nodes.workers.values()) {
      const done = w.nextCompletionMs();
      if (done !== undefined && done < next) next = done;
    }
    if (next === Number.POSITIVE_INFINITY) {
      nodes.pumpAtMs = -1;
      nodes.pumpVersion++;
      return;
    }
    const at = Math.max(next, nodes.clockMs + this.sliceMs);
    if (at === nodes.pumpAtMs) return;
    nodes.pumpAtMs = at;
    const version = ++nodes.pumpVersion;
    this.host.at(at / 1000, () => {
      if (nodes.pumpVersion !== version) return;
      nodes.pumpAtMs = -1;
      if (at > nodes.clockMs) this.simulate(nodes, at);
      else this.schedule(nodes);
    });
  }
}
