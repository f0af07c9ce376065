// The only ways the core reaches the world. Every call is a command; results come back later as messages
// passed to `Scheduler.receive` — at once in the simulator, over the network in live mode.

/** One component of a Concertina job, handed to a cluster's batch system. */
export interface LocalJobRequest {
  readonly jobId: string;
  readonly component: number;
  readonly processors: number;
  readonly program: string;
  readonly args: readonly string[];
  /** Marks the job as Concertina's, so that it is recognised after a restart. */
  readonly tag: string;
  /** The job's walltime in seconds: the batch system kills the local job once it has run that long. */
  readonly walltimeS?: number;
}

/** A cluster's own resource manager (Slurm, Grid Engine, PBS, plain processes, or the simulator). */
export interface LocalManager {
  readonly cluster: string;
  /** Whether processors can be reserved ahead of the start; the claimer then claims at placement. */
  readonly supportsReservations: boolean;
  /** Start a component; answered by `started`, or by `finished` with state failed. */
  submit(request: LocalJobRequest): void;
  /**
   * Add processors to a running malleable job; answered by `grown` once they are active, or by `growFailed` for those
   * that never will be (their local jobs ended before they ran).
   */
  grow(jobId: string, processors: number): void;
  /**
   * Withdraw the job's grows whose processors are not active yet (their local jobs still wait at the batch system):
   * answered by `growFailed` for those withdrawn; those already active come as `grown`.
   */
  cancelGrow(jobId: string): void;
  /** Give back processors the application has already let go of. Takes effect at once. */
  shrink(jobId: string, processors: number): void;
  /** End a job; answered by `finished` with state cancelled. */
  cancel(jobId: string): void;
  /** Ask for the cluster's status; answered by `status`. */
  poll(): void;
}

export interface ClusterStatus {
  readonly processors: number;
  /** Processors held by users who bypass Concertina. */
  readonly background: number;
  readonly reachable: boolean;
}

/** Where a failed job's program wrote on its cluster, and the last lines of its standard error as read from there. */
export interface JobOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** Bounded, without terminal escapes; absent when it could not be read. */
  readonly stderrTail?: string;
}

export type ManagerMessage =
  | { type: 'started'; cluster: string; jobId: string; component: number; processors: number }
  | { type: 'grown'; cluster: string; jobId: string; processors: number }
  /**
   * `processors` of the job's grows will never be active: their local jobs failed, were refused or cancelled at the
   * batch system before they ran, or were withdrawn by `cancelGrow`; why.
   */
  | { type: 'growFailed'; cluster: string; jobId: string; processors: number; reason: string }
  | {
      type: 'finished';
      cluster: string;
      jobId: string;
      state: 'completed' | 'failed' | 'cancelled';
      reason: string;
      output?: JobOutput;
    }
  | { type: 'status'; cluster: string; status: ClusterStatus };

/** The running application behind a malleable or evolving job (through its runner). */
export interface ApplicationPort {
  /** Offer up to `processors` more; answered by `growAnswer` with how many the job takes. Always voluntary. */
  offerGrow(offerId: number, jobId: string, processors: number): void;
  /**
   * Ask the job to give back `processors`; answered by `shrinkAnswer`, then `released` once it has let them go.
   * `deadline`: absolute time by which they must be released (a shrink ahead of an evolving job's announced update).
   */
  requestShrink(offerId: number, jobId: string, processors: number, mandatory: boolean, deadline?: number): void;
  /**
   * Of the `accepted` processors the application took in its answer to offer `offerId` (or was last told it gets), only
   * `granted` (< accepted) are coming: the cluster lost processors between the offer and the answer, or local jobs of
   * the grow ended before they ran (growFailed). The application counts on `granted`.
   */
  growGranted(offerId: number, jobId: string, granted: number, accepted: number): void;
  /** The job's allocation changed (new processors active, or released ones gone); its new size. */
  resized(jobId: string, size: number): void;
  /**
   * An evolving job's `update` cannot be served (outside min..max, or the job is not running), or its processors will
   * not come (its grow's local jobs ended before they ran; a profiled job's step grow failed for good, just before the
   * job ends); why.
   */
  updateRefused(jobId: string, reason: string): void;
  /**
   * Seconds a whole run of the job would take at `size`, when its application declares its speed-up (a simulated
   * application knows its model; a live one declares none): what the plan estimates a malleable job's end from.
   */
  runtimeAt?(jobId: string, size: number): number | undefined;
  /**
   * An interactive job's periodic tasks (core/interactive), once its driver runs and again after each re-placement:
   * what its application releases each period. Applications that are not interactive never receive it.
   */
  interactiveTasks?(jobId: string, tasks: InteractiveTasks): void;
}

/** An interactive job's current placement as its application runs it: k tasks of cost C each period T, deadline D. */
export interface InteractiveTasks {
  readonly generation: number;
  /** The worker node of each task (k entries). */
  readonly nodes: readonly number[];
  readonly costMs: number;
  readonly periodMs: number;
  readonly deadlineMs: number;
  /** σ of this placement (data units), split among the tasks by `fractions` (RT-DLT's, summing to 1). */
  readonly dataUnits: number;
  readonly fractions: readonly number[];
}

export type ApplicationMessage =
  | { type: 'growAnswer'; offerId: number; jobId: string; accepted: number }
  | { type: 'shrinkAnswer'; offerId: number; jobId: string; accepted: number }
  /** The application has let go of processors: after a shrink request (offerId) or on its own (no offerId). */
  | { type: 'released'; jobId: string; processors: number; offerId?: number }
  /**
   * An evolving job asks for a new total size within min..max. `announceS` absent or 0: spontaneous update, served at
   * once; > 0: announced update taking effect `announceS` seconds later. Answered by `resized`, or `updateRefused`.
   */
  | { type: 'update'; jobId: string; processors: number; announceS?: number }
  /**
   * An interactive job's task `task` finished an instance: `executedMs` of its own processing (measured; compared
   * with C), `responseMs` from its release to its end when known, late when `missed`. `generation`: the placement it
   * ran under (default: the current one).
   */
  | {
      type: 'iteration';
      jobId: string;
      task: number;
      executedMs: number;
      missed: boolean;
      generation?: number;
      responseMs?: number;
    };

export type InboundMessage = ManagerMessage | ApplicationMessage;
