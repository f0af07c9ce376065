// The malleability-policy extension point. A policy is the pseudo-code of its grow and shrink procedures written
// as a generator: each `yield` sends one message to a job (or waits for releases) and resumes with the answer, so
// the same code runs whether the application answers at once (simulator) or minutes later (real runner).
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';
import type { IterationHost, SchedulingIteration } from './iteration.js';

/**
 * One step of a procedure, naming jobs of type `J`: a policy sees jobs read-only (`ReadonlyJobRecord`) and names the
 * very jobs it was given, so the manager that runs it gets back the records it passed in.
 */
export type PolicyStep<J extends ReadonlyJobRecord = ReadonlyJobRecord> =
  /** Offer up to `processors` more to a job; resumes with how many it accepted. `why`: a DBES expansion's reason. */
  | { readonly kind: 'offerGrow'; readonly job: J; readonly processors: number; readonly why?: ExpansionReason }
  /** Ask a job to give back `processors`; resumes with how many it agreed to release. `why`: a DBES shrink's reason. */
  | { readonly kind: 'requestShrink'; readonly job: J; readonly processors: number; readonly why?: ShrinkReason }
  /** Wait until these jobs have released what they agreed to; resumes with 0. */
  | { readonly kind: 'awaitRelease'; readonly jobs: readonly J[] }
  /**
   * Set aside up to `processors` of what running jobs may grow into now for this operation's next offers (a DBES
   * steal's expansion, after the releases); resumes with how many were set aside.
   */
  | { readonly kind: 'earmark'; readonly processors: number };

/** Why DBES expands a job: its first step, for a StartLater job depending on it, or its second step (for no job). */
export interface ExpansionReason {
  readonly step: 1 | 2;
  readonly forJob?: string;
}

/** Why DBES shrinks a job, for whom, and which of its expansions (step, and whom it was made for) it takes back. */
export interface ShrinkReason {
  readonly phase: 'evolving' | 'startLater' | 'steal';
  readonly forJob: string;
  readonly fromStep: 1 | 2;
  readonly fromFor?: string;
}

export type PolicyProcedure<J extends ReadonlyJobRecord = ReadonlyJobRecord> = Generator<PolicyStep<J>, void, number>;

export interface MalleabilityPolicy {
  readonly name: string;
  readonly description: string;
  /** Hand `growValue` processors of `cluster` to its running malleable jobs (listed in start order). */
  grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J>;
  /** Reclaim `shrinkValue` processors from the running malleable jobs (listed in start order). */
  shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J>;
  /**
   * A policy that schedules the queue together with its expansions and shrinks (DBES) brings its own iteration,
   * which then runs each pass instead of the job-management approach's (core/malleability/iteration.ts).
   */
  readonly iteration?: (host: IterationHost) => SchedulingIteration;
}
