// A simulated cluster's own batch system, behind the same LocalManager port as Slurm or Grid Engine: it runs
// Concertina's local jobs and the background jobs of users who bypass Concertina, first come first served, and
// never more than its processors.
import type { ClusterSpec } from '../model/schemas.js';
import type { LocalJobRequest, LocalManager, ManagerMessage } from '../ports.js';
import type { EventEngine } from './engine.js';
import { walltimeReason } from '../model/job.js';
import { WalltimeKills, type Deadline, type DeadlineOwner } from './walltime-kills.js';

type Pending =
  | { kind: 'background'; processors: number; duration: number }
  | { kind: 'submit'; request: LocalJobRequest }
  | { kind: 'grow'; jobId: string; processors: number };

/** A Concertina job on this cluster. */
interface LocalJob {
  processors: number;
  deadline: Deadline | undefined;
}

export interface ClusterObserver {
  /**
   * A component of a Concertina job has started with its processors. Returns the time by which the job's application
   * is sure to have finished when that is fixed from now on (its application started, and its end cannot move: see
   * SimulatedApplications.start), or undefined.
   */
  started(jobId: string, component: number, processors: number): number | undefined;
  /** What the cluster runs changed. */
  usage(clusterIndex: number, concertina: number, background: number): void;
}

export class SimulatedCluster implements LocalManager, DeadlineOwner {
  readonly cluster: string;
  readonly supportsReservations: boolean;
  readonly processors: number;
  concertina = 0;
  background = 0;
  private readonly pending: Pending[] = [];
  private head = 0;
  /** Concertina's jobs here: what each holds, and the deadline of its run when it has a walltime. */
  private readonly local = new Map<string, LocalJob>();

  constructor(
    spec: ClusterSpec,
    private readonly index: number,
    private readonly engine: EventEngine,
    private readonly deliver: (message: ManagerMessage) => void,
    private readonly observer: ClusterObserver,
    /** Seconds from a Concertina request getting its processors to its local job running (submission, launch). */
    private readonly launchDelayS = 0,
    /** The walltime deadlines, shared by the clusters of one grid (one of its own by default). */
    private readonly walltimes = new WalltimeKills(engine),
  ) {
    this.cluster = spec.name;
    this.supportsReservations = spec.supportsReservations;
    this.processors = spec.processors;
  }

  get free(): number {
    return this.processors - this.concertina - this.background;
  }

  /** Processors a Concertina job holds here. */
  allocatedTo(jobId: string): number {
    return this.local.get(jobId)?.processors ?? 0;
  }

  submit(request: LocalJobRequest): void {
    this.enqueue({ kind: 'submit', request });
  }

  /**
   * A grow is one single-processor local job per processor, as KOALA's malleable runner does (paper V-A) and as the
   * live managers do: each starts when a processor is free for it, and the application gets those that started.
   * Single-processor jobs of one grow that start at the same moment are announced together.
   */
  grow(jobId: string, processors: number): void {
    // One entry stands for the grow's single-processor jobs, consecutive in the queue: each processor that starts
    // leaves it, the rest wait at its place.
    if (processors > 0) this.enqueue({ kind: 'grow', jobId, processors });
  }

  /** The grow's single-processor jobs still waiting here are withdrawn (those started come as `grown`). */
  cancelGrow(jobId: string): void {
    let withdrawn = 0;
    for (let i = this.head; i < this.pending.length; i++) {
      const p = this.pending[i]!;
      if (p.kind !== 'grow' || p.jobId !== jobId) continue;
      withdrawn += p.processors;
      this.pending.splice(i--, 1);
    }
    if (withdrawn > 0)
      this.deliver({
        type: 'growFailed',
        cluster: this.cluster,
        jobId,
        processors: withdrawn,
        reason: 'withdrawn by Concertina while waiting for processors',
      });
  }

  shrink(jobId: string, processors: number): void {
    const job = this.holding(jobId);
    const n = Math.min(job.processors, processors);
    job.processors -= n;
    this.concertina -= n;
    this.changed();
  }

  cancel(jobId: string): void {
    this.end(jobId, 'cancelled', 'cancelled by Concertina');
  }

  poll(): void {
    this.deliver({
      type: 'status',
      cluster: this.cluster,
      status: { processors: this.processors, background: this.background, reachable: true },
    });
  }

  /** Ends a Concertina job (its application finished, or it was cancelled) and frees all it holds or waits for. */
  end(jobId: string, state: 'completed' | 'failed' | 'cancelled', reason: string): void {
    let removed = false;
    for (let i = this.head; i < this.pending.length; i++) {
      const p = this.pending[i]!;
      if ((p.kind === 'grow' && p.jobId === jobId) || (p.kind === 'submit' && p.request.jobId === jobId)) {
        this.pending.splice(i--, 1);
        removed = true;
      }
    }
    const job = this.local.get(jobId);
    if (job === undefined && !removed) return;
    this.local.delete(jobId);
    if (job?.deadline) this.walltimes.cancel(job.deadline);
    this.concertina -= job?.processors ?? 0;
    this.deliver({ type: 'finished', cluster: this.cluster, jobId, state, reason });
    this.changed();
  }

  /** A job of a user who bypasses Concertina. */
  addBackground(processors: number, duration: number): void {
    this.enqueue({ kind: 'background', processors: Math.min(processors, this.processors), duration });
  }

  private enqueue(p: Pending): void {
    this.pending.push(p);
    this.drain();
  }

  private changed(): void {
    this.observer.usage(this.index, this.concertina, this.background);
    this.drain();
  }

  /** Starts waiting requests in arrival order while the first one fits. */
  private drain(): void {
    let startedAny = false;
    // Single-processor grow jobs started one after another for the same job, announced as one `grown`.
    let grown: { jobId: string; processors: number } | undefined;
    while (this.head < this.pending.length) {
      const p = this.pending[this.head]!;
      if (p.kind === 'grow') {
        const n = Math.min(p.processors, this.free);
        if (n <= 0) break;
        startedAny = true;
        this.concertina += n;
        this.holding(p.jobId).processors += n;
        if (grown?.jobId === p.jobId) grown.processors += n;
        else {
          if (grown) this.activateGrow(grown.jobId, grown.processors);
          grown = { jobId: p.jobId, processors: n };
        }
        p.processors -= n;
        if (p.processors > 0) break;
        this.head++;
        continue;
      }
      const need = p.kind === 'submit' ? p.request.processors : p.processors;
      if (need > this.free) break;
      this.head++;
      startedAny = true;
      if (grown) this.activateGrow(grown.jobId, grown.processors);
      grown = undefined;
      if (p.kind === 'background') {
        this.background += need;
        this.engine.at(this.engine.now + p.duration, () => {
          this.background -= need;
          this.changed();
        });
      } else {
        const request = p.request;
        this.concertina += need;
        const job = this.holding(request.jobId);
        job.processors += need;
        if (this.launchDelayS > 0) this.afterLaunch(request.jobId, () => this.launched(request, need, job));
        else this.launched(request, need, job);
      }
    }
    if (grown) this.activateGrow(grown.jobId, grown.processors);
    if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending.splice(0, this.head);
      this.head = 0;
    }
    if (startedAny) this.observer.usage(this.index, this.concertina, this.background);
  }

  /** A local job of Concertina's runs: the scheduler and the observer are told, and its walltime starts. */
  private launched(request: LocalJobRequest, processors: number, job: LocalJob): void {
    const { jobId, component } = request;
    this.deliver({ type: 'started', cluster: this.cluster, jobId, component, processors });
    const finishedBy = this.observer.started(jobId, component, processors);
    const walltimeS = request.walltimeS;
    if (walltimeS === undefined) return;
    // Decision: no deadline for a local job whose application is sure to have finished by it (a rigid job run no
    // longer than its walltime: nearly every job of a trace). Its kill could never act (one due at the very instant
    // the application finishes comes after it: killAtWalltime), and the deadline would cost a heap entry and an
    // engine action each, most of them spent. The same schedules either way (walltime-kills.test.ts).
    if (finishedBy !== undefined && finishedBy <= this.engine.now + walltimeS) return;
    this.killAtWalltime(jobId, job, walltimeS);
  }

  /**
   * Kills the local job once it has run for its walltime, as batch systems do. Decision: the walltime counts from
   * the local job's start as the scheduler sees it (after its launch delay), so a single-component job that runs
   * past it ends at exactly start + walltime. An application that finishes at that very instant completes: the kill
   * runs after everything else due then.
   */
  private killAtWalltime(jobId: string, job: LocalJob, walltimeS: number): void {
    // Only the run it was set for: not an earlier one of the same job (placed again after it ended here).
    if (job.deadline) this.walltimes.cancel(job.deadline);
    job.deadline = this.walltimes.set(this, jobId, walltimeS);
  }

  walltimeDue(deadline: Deadline): void {
    const { jobId, walltimeS } = deadline;
    this.engine.soon(() => {
      if (this.local.get(jobId)?.deadline === deadline) this.end(jobId, 'failed', walltimeReason(walltimeS));
    });
  }

  /** The job's entry here, made (holding nothing) if it has none. */
  private holding(jobId: string): LocalJob {
    let job = this.local.get(jobId);
    if (job === undefined) this.local.set(jobId, (job = { processors: 0, deadline: undefined }));
    return job;
  }

  private activateGrow(jobId: string, processors: number): void {
    this.afterLaunch(jobId, () => this.deliver({ type: 'grown', cluster: this.cluster, jobId, processors }));
  }

  /** The processors are the job's from now; it can use them once its local job has launched. */
  private afterLaunch(jobId: string, activate: () => void): void {
    if (this.launchDelayS > 0) {
      this.engine.at(this.engine.now + this.launchDelayS, () => {
        if (this.local.has(jobId)) activate();
      });
    } else activate();
  }
}
