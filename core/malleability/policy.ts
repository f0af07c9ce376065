// The malleability-policy extension point. A policy is the pseudo-code of its grow and shrink procedures written
// as a generator: each `yield` sends one message to a job (or waits for releases) and resumes with the answer, so
// the same code runs whether the application answers at once (simulator) or minutes later (real runner).
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

/**
 * One step of a procedure, naming jobs of type `J`: a policy sees jobs read-only (`ReadonlyJobRecord`) and names the
 * very jobs it was given, so the manager that runs it gets back the records it passed in.
 */
export type PolicyStep<J extends ReadonlyJobRecord = ReadonlyJobRecord> =
  /** Offer up to `processors` more to a job; resumes with how many it accepted. */
  | { readonly kind: 'offerGrow'; readonly job: J; readonly processors: number }
  /** Ask a job to give back `processors`; resumes with how many it agreed to release. */
  | { readonly kind: 'requestShrink'; readonly job: J; readonly processors: number }
  /** Wait until these jobs have released what they agreed to; resumes with 0. */
  | { readonly kind: 'awaitRelease'; readonly jobs: readonly J[] };

export type PolicyProcedure<J extends ReadonlyJobRecord = ReadonlyJobRecord> = Generator<PolicyStep<J>, void, number>;

export interface MalleabilityPolicy {
  readonly name: string;
  readonly description: string;
  /** Hand `growValue` processors of `cluster` to its running malleable jobs (listed in start order). */
  grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J>;
  /** Reclaim `shrinkValue` processors from the running malleable jobs (listed in start order). */
  shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J>;
}
