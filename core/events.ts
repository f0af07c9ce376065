// Every decision and state change of the scheduler, as a typed, timestamped event. The console, persistence and
// the metrics consume this stream; the same seed gives the same stream. Offers, requests and answers of an operator's
// resize (not a policy's) carry `operator: true`. An answer carries `answered`, the application's own figure, only
// when it differed from what was taken (an offer is never more than the job may take, so a well-behaved one never does).
import type { JobKind, JobState } from './model/job.js';
import type { JobOutput } from './ports.js';

export interface PlacedComponent {
  readonly cluster: string;
  readonly processors: number;
}

export type SchedulerEventBody =
  | { type: 'job.submitted'; jobId: string; kind: JobKind; name: string; min: number; max: number }
  | { type: 'job.queued'; jobId: string; position: number }
  | { type: 'placement.failed'; jobId: string; tries: number; reason: string }
  | { type: 'job.placed'; jobId: string; policy: string; components: PlacedComponent[] }
  | { type: 'job.claimed'; jobId: string; components: PlacedComponent[] }
  | { type: 'claim.failed'; jobId: string; reason: string }
  /** `preallocation`: an evolving job's pre-allocation (its max), held on `cluster` for its whole run. */
  | { type: 'job.started'; jobId: string; cluster: string; size: number; preallocation?: number }
  /** Taken over after a restart (Scheduler.adopt): `claiming` until its local jobs run, else `running` with `size`. */
  | { type: 'job.adopted'; jobId: string; cluster: string; size: number; state: 'claiming' | 'running' }
  /** `step`, `forJob`: a DBES expansion — its first step, made for the StartLater job `forJob`, or its second (no job). */
  | {
      type: 'grow.offered';
      jobId: string;
      cluster: string;
      offerId: number;
      processors: number;
      operator?: true;
      step?: 1 | 2;
      forJob?: string;
    }
  | {
      type: 'grow.answered';
      jobId: string;
      offerId: number;
      accepted: number;
      answered?: number;
      operator?: true;
      step?: 1 | 2;
      forJob?: string;
    }
  /** `step`, `forJob`: the DBES expansion the processors were offered for (as its grow.offered says). */
  | {
      type: 'job.grown';
      jobId: string;
      cluster: string;
      processors: number;
      size: number;
      step?: 1 | 2;
      forJob?: string;
    }
  /**
   * `phase`, `forJob`, `fromStep`, `fromFor`: a DBES shrink — for an evolving request, to start a StartLater job, or to
   * expand another job (steal) — for job `forJob`, taking back an expansion of step `fromStep` made for `fromFor`.
   */
  | {
      type: 'shrink.requested';
      jobId: string;
      cluster: string;
      offerId: number;
      processors: number;
      mandatory: boolean;
      operator?: true;
      phase?: 'evolving' | 'startLater' | 'steal';
      forJob?: string;
      fromStep?: 1 | 2;
      fromFor?: string;
    }
  | { type: 'shrink.answered'; jobId: string; offerId: number; accepted: number; answered?: number; operator?: true }
  | { type: 'job.shrunk'; jobId: string; cluster: string; processors: number; size: number; voluntary: boolean }
  /**
   * `processors` of a malleable job's granted grow will never be active (its local jobs failed at the batch system,
   * or were withdrawn); why. They are free again; the job runs on with `size`.
   */
  | { type: 'job.growFailed'; jobId: string; cluster: string; processors: number; size: number; reason: string }
  /** An evolving job asked for a new size (`announceS` 0: spontaneous). */
  | { type: 'evolve.requested'; jobId: string; cluster: string; processors: number; announceS: number }
  /** An evolving job's size changed inside its pre-allocation. */
  | { type: 'job.evolved'; jobId: string; cluster: string; size: number; preallocation: number }
  | { type: 'evolve.refused'; jobId: string; reason: string }
  | {
      type: 'job.ended';
      jobId: string;
      state: Extract<JobState, 'completed' | 'failed' | 'cancelled'>;
      reason: string;
      tries: number;
      output?: JobOutput;
    }
  /**
   * An interactive job admitted (core/interactive): RT-DLT's k periodic tasks of cost C, placed on `nodes` (one entry
   * per task, a node may repeat) of `cluster`'s interactive worker nodes; `minNodes` is RT-DLT's n_min.
   */
  | {
      type: 'interactive.admitted';
      jobId: string;
      cluster: string;
      nodes: number[];
      costMs: number;
      minNodes: number;
      periodMs: number;
      deadlineMs: number;
    }
  /** An instance ran `executedMs`, longer than C: the job's tasks were placed again (placement `generation`). */
  | {
      type: 'interactive.replaced';
      jobId: string;
      cluster: string;
      nodes: number[];
      costMs: number;
      executedMs: number;
      generation: number;
    }
  /**
   * An iteration's task on `node` ended after its deadline (`responseMs` after its release, when its application
   * said), having processed for `executedMs`; `misses`: the job's misses so far.
   */
  | {
      type: 'interactive.missed';
      jobId: string;
      cluster: string;
      node: number;
      task: number;
      executedMs: number;
      responseMs?: number;
      deadlineMs: number;
      misses: number;
    }
  /**
   * A fully-predictably evolving job's scheduled EP (core/scheduler/fpe-jobs.ts) by `variant`: on `cluster` from
   * `start`, each step's scheduled duration (at least its requested one: longer when expanded) and processors.
   */
  | {
      type: 'fpe.scheduled';
      jobId: string;
      cluster: string;
      variant: string;
      start: number;
      steps: Array<{ durationS: number; processors: number }>;
    }
  /**
   * A fully-predictably evolving job began step `step` (1-based) with `processors`: `delayedS` after it was submitted
   * (the first step), or after its previous step ran `expandedS` longer than requested (idle, waiting for this one).
   */
  | {
      type: 'fpe.step';
      jobId: string;
      cluster: string;
      step: number;
      processors: number;
      expandedS: number;
      delayedS: number;
    }
  /**
   * A fully-predictably evolving job's grow for step `step` (1-based) left it `missing` processors short: its local
   * jobs failed at the batch system, or were withdrawn when still not running after the grow timeout; why. Failed grow
   * `attempt` of at most `attempts`: the step before waits on and the grow is asked again from `retryAt`, or, without
   * it (the last attempt), the job ends.
   */
  | {
      type: 'fpe.growFailed';
      jobId: string;
      cluster: string;
      step: number;
      missing: number;
      reason: string;
      attempt: number;
      attempts: number;
      retryAt?: number;
    }
  /**
   * Running profiled jobs on `cluster` (`jobs`, by submission) were each stalled at a step boundary waiting for
   * processors the others hold, with nothing else there to free any (fpe-mutual-wait.ts): job `jobId` broke the wait —
   * it took its step `step` (1-based) from the `free` processors it had yielded to an earlier one of them
   * ('stepTaken'), or it ended, failed, so the others can go on ('ended').
   */
  | {
      type: 'fpe.mutualWait';
      jobId: string;
      cluster: string;
      jobs: string[];
      step: number;
      free: number;
      action: 'stepTaken' | 'ended';
    }
  | { type: 'cluster.polled'; cluster: string; processors: number; background: number; reachable: boolean };

export type SchedulerEvent = SchedulerEventBody & { readonly t: number };
export type SchedulerEventType = SchedulerEvent['type'];
export type EventOf<T extends SchedulerEventType> = Extract<SchedulerEvent, { type: T }>;

export type EventListener = (event: SchedulerEvent) => void;
