// Interactive periodic divisible jobs (the ECRTS'17-workshop paper "Scheduling Interactive HPC Applications"): a job
// J = (A, T, σ, D) forks every period T a divisible load of at most σ data units that must be processed within the
// relative deadline D; the cluster's cost model is RT-DLT's (per-unit transmission cost Cms, per-unit processing
// cost Cps). RT-DLT turns a job into k periodic tasks (A, T, C, D), one per worker node.
//
// Decision: every time is a whole number of milliseconds (A, T, D, and C rounded up), so hyperperiods and the
// processor-demand test are exact integer arithmetic.

/** RT-DLT's cluster cost model, homogeneous nodes. */
export interface CostModel {
  /** Cms: milliseconds to transmit one data unit from the head node to a worker. */
  readonly cmsMsPerUnit: number;
  /** Cps: milliseconds for a worker to process one data unit. */
  readonly cpsMsPerUnit: number;
}

export interface InteractiveJob {
  readonly id: string;
  /** A: arrival, and the first fork (ms). */
  readonly arrivalMs: number;
  /** T: period, the fixed inter-arrival time of the forks (ms). */
  readonly periodMs: number;
  /** σ: the maximal total data size of one iteration (data units). */
  readonly dataUnits: number;
  /** D: relative deadline of every iteration (ms), at most T. */
  readonly deadlineMs: number;
}

/** One of the k periodic tasks a job decomposes into: τ = (A, T, C, D). */
export interface PeriodicTask {
  readonly jobId: string;
  /** Index of the task within its job's current placement, 0..k-1. */
  readonly index: number;
  readonly releaseMs: number;
  readonly periodMs: number;
  /** C: the cost upper bound of one instance on its node (ms). */
  readonly costMs: number;
  readonly deadlineMs: number;
}

/** Why a job (or its re-placement) was refused. */
export type RefusalCode = 'invalid' | 'deadline-too-short' | 'too-many-nodes' | 'no-placement';

export interface Refusal {
  readonly ok: false;
  readonly code: RefusalCode;
  readonly message: string;
}

/** A problem with a job's own numbers, or undefined when it is well formed. */
export function jobProblem(job: InteractiveJob): string | undefined {
  const whole = (x: number) => Number.isSafeInteger(x);
  if (!whole(job.arrivalMs) || job.arrivalMs < 0)
    return `arrival must be a whole number of ms >= 0 (got ${job.arrivalMs})`;
  if (!whole(job.periodMs) || job.periodMs < 1) return `period must be a whole number of ms >= 1 (got ${job.periodMs})`;
  if (!whole(job.deadlineMs) || job.deadlineMs < 1)
    return `deadline must be a whole number of ms >= 1 (got ${job.deadlineMs})`;
  // Decision: constrained deadlines only (D <= T), as the paper's feasibility tests (utilisation for D = T,
  // processor demand for D < T) assume; an iteration may not still run when the next fork comes.
  if (job.deadlineMs > job.periodMs)
    return `deadline ${job.deadlineMs} ms is longer than the period ${job.periodMs} ms`;
  if (!(Number.isFinite(job.dataUnits) && job.dataUnits > 0))
    return `data size must be a positive number (got ${job.dataUnits})`;
  return undefined;
}
