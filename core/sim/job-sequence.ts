// A workload's jobs as the simulator submits them: in submit order, each spec asked for as its job arrives.
import type { JobSpec } from '../model/schemas.js';

/**
 * Jobs in submit order (ties in their workload's order). `spec(k)` may build the k-th spec afresh on each call: the
 * simulator asks once, as the job arrives, so that a long trace held as columns (swf-jobs.ts) keeps no spec of a job
 * not yet submitted, nor of one ended and forgotten.
 */
export interface JobSequence {
  readonly length: number;
  submitTime(k: number): number;
  spec(k: number): JobSpec;
}

export function isJobSequence(jobs: readonly JobSpec[] | JobSequence): jobs is JobSequence {
  return !Array.isArray(jobs);
}

// Decision: only an SWF trace is held as columns: JSON jobs, presets and generated workloads are small, their specs
// richer (malleable, evolving, several components), and they keep the specs they were given.
/** Specs already built (job JSON, presets, generated workloads), sorted by submit time; the specs themselves. */
export function sortedSpecs(jobs: readonly JobSpec[]): JobSequence {
  const sorted = [...jobs].sort((a, b) => a.submitTime - b.submitTime);
  return {
    length: sorted.length,
    submitTime: (k) => sorted[k]!.submitTime,
    spec: (k) => sorted[k]!,
  };
}
