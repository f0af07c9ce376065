// The extension point of a malleability policy that brings its own scheduling iteration (DBES): what the scheduler
// lends it for a pass. Types only; the scheduler builds the host (scheduler.ts), core/dbes/driver.ts is the one user.
import type { PlacedComponent } from '../events.js';
import type { Grid } from '../model/grid.js';
import type { RuntimeAt } from '../plan/holding.js';
import type { TryOutcome } from '../queue/placement-queue.js';
import type { ProfiledHold } from '../queue/planned-pass.js';
import type { ClusterState } from '../scheduler/cluster-state.js';
import type { JobRecord } from '../scheduler/job-record.js';
import type { PolicyProcedure } from './policy.js';

export interface IterationHost {
  readonly grid: Grid;
  readonly clusters: readonly ClusterState[];
  /** Jobs placed and not yet ended. */
  placedJobs(): Iterable<JobRecord>;
  /** The waiting jobs in the run's queue priority order, highest first. */
  waitingJobs(now: number): readonly JobRecord[];
  /** The run's reservation depth (Maui's ReservationDepth); undefined: not set. */
  reservationDepth(): number | undefined;
  /** The run's fairness budget for evolving requests (seconds of delay per waiting job, per user); undefined: not set. */
  fairness(): { readonly perJob: number; readonly perUser: number } | undefined;
  readonly runtimeAt: RuntimeAt;
  /**
   * The profiled jobs' steps ahead, by submission (core/scheduler/fpe-jobs.ts): a waiting one's scheduled EP, a
   * running one's later steps beyond its current one; absent: none.
   */
  profiledHolds?(now: number): readonly ProfiledHold[];
  /** Whether a malleability operation runs on the cluster. */
  busy(cluster: ClusterState): boolean;
  /** Runs a procedure of offers and shrink requests on a cluster, as one operation. */
  run(
    cluster: ClusterState,
    procedure: PolicyProcedure<JobRecord>,
    options: { mandatory: boolean; earmark: number },
    now: number,
  ): void;
  /** Places a waiting job now (it is claimed and started through the local manager). */
  place(job: JobRecord, components: PlacedComponent[], policy: string, now: number): void;
  /** Counts a failed try for a job that cannot start anywhere (which may end it). */
  failedTry(job: JobRecord, reason: string, now: number): TryOutcome;
  /** Grants a running evolving job (without a pre-allocation) `processors` more: accounted, asked of its local manager. */
  grantEvolving(job: JobRecord, processors: number, now: number): void;
  /** Refuses an evolving job's request (the application hears why, and may ask again). */
  refuseEvolving(job: JobRecord, reason: string, now: number): void;
}

export interface SchedulingIteration {
  /** One scheduling pass at `now`, in place of the approach's. */
  pass(now: number): void;
  /**
   * Whether evolving jobs hold a pre-allocation under this iteration; when not, each grow of theirs is a request
   * (`request`) the iteration grants or refuses.
   */
  readonly preallocates: boolean;
  /** A running evolving job without a pre-allocation asks for `processors` more (a later request replaces it). */
  request(job: JobRecord, processors: number, now: number): void;
}
