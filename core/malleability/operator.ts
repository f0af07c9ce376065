// The operator's procedures: one job grown or shrunk by hand, written like a policy's so the manager runs them
// through the same offers, requests and releases — the policies know nothing of operators. Like a policy's, they
// read the job only; the manager changes the record.
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';
import type { PolicyProcedure } from './policy.js';

/** Offers `processors` more to one job (voluntary: it takes what it wants of them). */
export function* operatorGrow<J extends ReadonlyJobRecord>(job: J, processors: number): PolicyProcedure<J> {
  yield { kind: 'offerGrow', job, processors };
}

/**
 * Asks one job to give back `processors` (mandatory) and waits until it has let them go. Once the job has answered,
 * `capAtKept` makes its cap the size it keeps after releasing what it agreed to, which may be less than asked: an
 * application gives back more than asked when it runs only at some sizes (FT keeps a power of two: 8 shrunk by 1
 * gives back 4, and is capped at 4, never at 7, a size it cannot run at).
 */
export function* operatorShrink<J extends ReadonlyJobRecord>(
  job: J,
  processors: number,
  capAtKept: () => void,
): PolicyProcedure<J> {
  const accepted = yield { kind: 'requestShrink', job, processors };
  capAtKept();
  if (accepted > 0) yield { kind: 'awaitRelease', jobs: [job] };
}
