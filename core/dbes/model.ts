// DBES (dependency-based expand/shrink) on one cluster, as plain data: what the iteration reads (running jobs with
// their expansions, waiting static requests in priority order, evolving requests) and what it decides. Pure: the
// scheduler builds a DbesCluster from its records, tests build one by hand.
import type { Reservation } from '../plan/availability.js';

/** Which step of DBES made an expansion: 1, for a StartLater job depending on the job; 2, equipartition of idle. */
export type ExpansionStep = 1 | 2;

/** Processors a malleable job holds above its minimum, with why they were given. */
export interface Expansion {
  processors: number;
  step: ExpansionStep;
  /** The StartLater job it was made for (step 1); undefined for none (step 2, or a step-1 whose dependency was cleared). */
  forJob: string | undefined;
}

export interface DbesRunningJob {
  readonly id: string;
  /** Processors it holds now. */
  size: number;
  readonly min: number;
  readonly max: number;
  readonly malleable: boolean;
  /** Estimated end at its current size (Infinity: no estimate). */
  end: number;
  /**
   * Its estimated end were it resized to `size` now, by the rule the plan holds placed jobs to (plan/holding.ts):
   * then a reservation DBES makes at its end meets the end the plan draws, bit for bit. Without it, endAfterResize
   * scales the work left.
   */
  readonly endAt?: ((size: number) => number) | undefined;
  /** The user it runs for (the fairness budget is also kept per user). */
  readonly user?: string | undefined;
  /** When it started (the baselines' ESF order); 0 when not given. */
  readonly started?: number | undefined;
  /** Its start plus its walltime (the baselines' EDF and LDF orders); Infinity when not given. */
  readonly deadline?: number | undefined;
  /** Its expansions, oldest first (malleable jobs only); their sum is at most size - min. */
  expansions: Expansion[];
}

export interface DbesWaitingJob {
  readonly id: string;
  /** Processors it needs to start (a malleable job its minimum: it starts there and is expanded later). */
  readonly need: number;
  /** Seconds; Infinity for none. */
  readonly walltime: number;
  readonly malleable: boolean;
  /** Most processors it may be expanded to once running (its need for a rigid job). */
  readonly max: number;
  readonly user?: string | undefined;
}

/** A running evolving job asks for `processors` more now. */
export interface EvolvingRequest {
  readonly jobId: string;
  readonly processors: number;
  readonly user?: string | undefined;
}

/**
 * The administrator's budget for delays that granted evolving requests may cause waiting jobs (the dynamic fairness
 * of the paper's reference [11]); seconds.
 */
export interface FairnessBudget {
  /** Most delay all grants together may cause any one waiting job. */
  readonly perJob: number;
  /** Most delay the grants to one user's evolving jobs may cause others, accumulated over the run. */
  readonly perUser: number;
}

// Decision: 30 minutes per waiting job and 2 hours per user, of the order of the ESP jobs' run times; a site sets its own.
export const DEFAULT_FAIRNESS: FairnessBudget = { perJob: 1800, perUser: 7200 };

/** Delays already charged, kept between iterations (by waiting job id, and by requesting user). */
export interface FairnessAccount {
  readonly byJob: Map<string, number>;
  readonly byUser: Map<string, number>;
}

export function emptyFairnessAccount(): FairnessAccount {
  return { byJob: new Map(), byUser: new Map() };
}

export interface DbesCluster {
  readonly now: number;
  /** Processors the iteration may use on the cluster (what the running jobs hold included). */
  readonly capacity: number;
  readonly running: DbesRunningJob[];
  /** Waiting static requests, highest priority first. */
  readonly waiting: readonly DbesWaitingJob[];
  /** Evolving requests, highest priority first. */
  readonly requests: readonly EvolvingRequest[];
  /**
   * The profiled (FPE) jobs' steps ahead on the cluster, each step a span its plan holds before any waiting job: a
   * running one's steps after its current one (that one is its running holding, to its end), a waiting one's fit.
   */
  readonly profiledSteps?: readonly Reservation[] | undefined;
  /** Maui's ReservationDepth: how many StartLater jobs get reservations. */
  readonly reservationDepth: number;
  readonly fairness: FairnessBudget;
  readonly account: FairnessAccount;
  /**
   * Seconds a whole run of a job takes at a size (its speed-up model), to move its end when it is resized; undefined:
   * inversely proportional to the size.
   */
  readonly runtime?: ((jobId: string, size: number) => number | undefined) | undefined;
}

/** Why a job starts: a StartNow job, one started by the shrink phase, or a backfilled one. */
export type StartHow = 'startNow' | 'shrinkPhase' | 'backfill';

/** Why a job is shrunk: for an evolving request, for a StartLater job to start, or to expand another job (step 1). */
export type ShrinkPhase = 'evolving' | 'startLater' | 'steal';

export type DbesAction =
  | { readonly kind: 'grant'; readonly jobId: string; readonly processors: number; readonly delay: number }
  | { readonly kind: 'reject'; readonly jobId: string; readonly processors: number; readonly reason: string }
  | { readonly kind: 'start'; readonly jobId: string; readonly processors: number; readonly how: StartHow }
  | {
      readonly kind: 'shrink';
      readonly jobId: string;
      readonly processors: number;
      readonly phase: ShrinkPhase;
      /** The job the processors go to (an evolving job, a StartLater job, or the job expanded by a steal). */
      readonly forJob: string;
      /** The step of the expansion taken back, and whom it had been made for. */
      readonly fromStep: ExpansionStep;
      readonly fromFor: string | undefined;
    }
  | {
      readonly kind: 'expand';
      readonly jobId: string;
      readonly processors: number;
      readonly step: ExpansionStep;
      readonly forJob: string | undefined;
    };

/** A StartLater job: reserved to start at `start`, waiting for the running jobs `dependsOn` (ending then). */
export interface StartLater {
  readonly id: string;
  readonly start: number;
  readonly dependsOn: readonly string[];
}

export interface DbesOutcome {
  readonly actions: DbesAction[];
  /** The StartLater jobs at the end of the iteration, highest priority first, with their dependencies. */
  readonly startLater: StartLater[];
  /** The StartLater jobs and their dependencies as the first expansion step read them (lines 35-36). */
  readonly firstStep: StartLater[];
  /** The StartLater jobs as backfilling read them (line 44): no backfilled job starts later than these allow. */
  readonly backfilledAround: StartLater[];
  /** How many times dependencies were computed (they are recomputed only when the state changed). */
  readonly dependencyComputations: number;
}
