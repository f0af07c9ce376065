// The malleability-policy extension point. A policy is the pseudo-code of its grow and shrink procedures written
// as a generator: each `yield` sends one message to a job (or waits for releases) and resumes with the answer, so
// the same code runs whether the application answers at once (simulator) or minutes later (real runner).
import type { JobRecord } from '../scheduler/job-record.js';

export type PolicyStep =
  /** Offer up to `processors` more to a job; resumes with how many it accepted. */
  | { readonly kind: 'offerGrow'; readonly job: JobRecord; readonly processors: number }
  /** Ask a job to give back `processors`; resumes with how many it agreed to release. */
  | { readonly kind: 'requestShrink'; readonly job: JobRecord; readonly processors: number }
  /** Wait until these jobs have released what they agreed to; resumes with 0. */
  | { readonly kind: 'awaitRelease'; readonly jobs: readonly JobRecord[] };

export type PolicyProcedure = Generator<PolicyStep, void, number>;

export interface MalleabilityPolicy {
  readonly name: string;
  readonly description: string;
  /** Hand `growValue` processors of `cluster` to its running malleable jobs (listed in start order). */
  grow(jobs: readonly JobRecord[], growValue: number): PolicyProcedure;
  /** Reclaim `shrinkValue` processors from the running malleable jobs (listed in start order). */
  shrink(jobs: readonly JobRecord[], shrinkValue: number): PolicyProcedure;
}
