// The operator's procedures: one job grown or shrunk by hand, written like a policy's so the manager runs them
// through the same offers, requests and releases — the policies know nothing of operators.
import type { JobRecord } from '../scheduler/job-record.js';
import type { PolicyProcedure } from './policy.js';

/** Offers `processors` more to one job (voluntary: it takes what it wants of them). */
export function* operatorGrow(job: JobRecord, processors: number): PolicyProcedure<JobRecord> {
  yield { kind: 'offerGrow', job, processors };
}

/**
 * Asks one job to give back `processors` (mandatory) and waits until it has let them go. The job's cap becomes the
 * size it keeps once it has released what it agreed to, which may be less than asked: an application gives back more
 * than asked when it runs only at some sizes (FT keeps a power of two: 8 shrunk by 1 gives back 4, and is capped at 4,
 * never at 7, a size it cannot run at).
 */
export function* operatorShrink(job: JobRecord, processors: number): PolicyProcedure<JobRecord> {
  const accepted = yield { kind: 'requestShrink', job, processors };
  job.cap = Math.max(job.min, job.held - job.releasing);
  if (accepted > 0) yield { kind: 'awaitRelease', jobs: [job] };
}
