// The operator's procedures: one job grown or shrunk by hand, written like a policy's so the manager runs them
// through the same offers, requests and releases — the policies know nothing of operators.
import type { JobRecord } from '../scheduler/job-record.js';
import type { PolicyProcedure } from './policy.js';

/** Offers `processors` more to one job (voluntary: it takes what it wants of them). */
export function* operatorGrow(job: JobRecord, processors: number): PolicyProcedure {
  yield { kind: 'offerGrow', job, processors };
}

/** Asks one job to give back `processors` (mandatory) and waits until it has let them go. */
export function* operatorShrink(job: JobRecord, processors: number): PolicyProcedure {
  const accepted = yield { kind: 'requestShrink', job, processors };
  if (accepted > 0) yield { kind: 'awaitRelease', jobs: [job] };
}
