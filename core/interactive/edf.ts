// EDF feasibility of the periodic tasks on one worker node (preemptive EDF, one processor), and the two figures a
// node reports to the head: its utilisation U and its slack S.
//
// - D = T for every task: feasible iff U = Σ C/T <= 1 (Liu and Layland).
// - some D < T: the processor-demand test (Baruah, Mok and Rosier): feasible iff U <= 1 and dbf(t) <= t at every
//   absolute deadline t of the synchronous release, with dbf(t) = Σ max(0, ⌊(t - D_i)/T_i⌋ + 1)·C_i.
// Decision: the test interval is bounded by the length L of the first synchronous busy period (the fixed point of
// w = Σ ⌈w/T_i⌉·C_i from w = Σ C_i), which is finite whenever U <= 1 and at most the hyperperiod; when the deadlines
// up to L number more than `maxCheckpoints` the node refuses the task (code 'interval'): a conservative answer,
// never a wrong acceptance. A synchronous release is the worst case, so the test holds whatever the tasks' phases.
// Decision: the slack S is min over the synchronous deadlines t <= max(L, D_max) of t - dbf(t): the processor time
// still free in the node's tightest window (infinite on an idle node).

export interface EdfTask {
  /** C, whole ms >= 1. */
  readonly costMs: number;
  /** T, whole ms >= 1. */
  readonly periodMs: number;
  /** D, whole ms, C <= D <= T for a feasible task. */
  readonly deadlineMs: number;
}

export type InfeasibleCode = 'utilization' | 'demand' | 'interval';

export interface Feasibility {
  readonly feasible: boolean;
  /** Which test decided: the utilisation bound (all D = T) or the processor demand. */
  readonly test: 'utilization' | 'demand';
  readonly utilization: number;
  /** S (ms); Infinity for no task; undefined when not computed (`withSlack: false`) or not feasible. */
  readonly slackMs: number | undefined;
  readonly code?: InfeasibleCode;
  readonly reason?: string;
}

export interface FeasibilityOptions {
  /** Deadlines to check at most before refusing (default 100,000). */
  readonly maxCheckpoints?: number;
  /** Compute the slack (default true); first fit does not need it. */
  readonly withSlack?: boolean;
}

export const DEFAULT_MAX_CHECKPOINTS = 100_000;
const EPS = 1e-9;

export function utilization(tasks: readonly EdfTask[]): number {
  let u = 0;
  for (const t of tasks) u += t.costMs / t.periodMs;
  return u;
}

/** dbf(t): the demand of the jobs released at or after 0 with deadlines at or before t (synchronous release). */
export function demandBound(tasks: readonly EdfTask[], t: number): number {
  let d = 0;
  for (const k of tasks) if (t >= k.deadlineMs) d += (Math.floor((t - k.deadlineMs) / k.periodMs) + 1) * k.costMs;
  return d;
}

/** L: the first synchronous busy period, or undefined when it would cover more than `maxCheckpoints` deadlines. */
export function busyPeriod(tasks: readonly EdfTask[], maxCheckpoints = DEFAULT_MAX_CHECKPOINTS): number | undefined {
  let w = 0;
  for (const t of tasks) w += t.costMs;
  for (;;) {
    let next = 0;
    let points = 0;
    for (const t of tasks) {
      const jobs = Math.ceil(w / t.periodMs);
      next += jobs * t.costMs;
      points += jobs;
    }
    if (points > maxCheckpoints) return undefined;
    if (next === w) return w;
    w = next;
  }
}

export function feasibility(tasks: readonly EdfTask[], options: FeasibilityOptions = {}): Feasibility {
  const maxCheckpoints = options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
  const withSlack = options.withSlack ?? true;
  const u = utilization(tasks);
  const implicit = tasks.every((t) => t.deadlineMs === t.periodMs);
  const test = implicit ? 'utilization' : 'demand';
  if (tasks.length === 0) return { feasible: true, test, utilization: 0, slackMs: Infinity };
  const tooLong = tasks.find((t) => t.costMs > t.deadlineMs);
  if (tooLong)
    return {
      feasible: false,
      test: 'demand',
      utilization: u,
      slackMs: undefined,
      code: 'demand',
      reason: `a task needs ${tooLong.costMs} ms within ${tooLong.deadlineMs} ms`,
    };
  if (u > 1 + EPS)
    return {
      feasible: false,
      test,
      utilization: u,
      slackMs: undefined,
      code: 'utilization',
      reason: `utilisation would be ${u.toFixed(3)} > 1`,
    };
  // Clear of 1 by more than rounding, implicit deadlines are decided by U alone.
  if (implicit && u < 1 - EPS && !withSlack) return { feasible: true, test, utilization: u, slackMs: undefined };
  const busy = busyPeriod(tasks, maxCheckpoints);
  if (busy === undefined) {
    return {
      feasible: false,
      test,
      utilization: u,
      slackMs: undefined,
      code: 'interval',
      reason: `the test interval covers more than ${maxCheckpoints} deadlines`,
    };
  }
  let dMax = 0;
  for (const t of tasks) dMax = Math.max(dMax, t.deadlineMs);
  const horizon = Math.max(busy, dMax);
  const points: Array<[number, number]> = [];
  for (const t of tasks) for (let d = t.deadlineMs; d <= horizon; d += t.periodMs) points.push([d, t.costMs]);
  if (points.length > maxCheckpoints) {
    return {
      feasible: false,
      test,
      utilization: u,
      slackMs: undefined,
      code: 'interval',
      reason: `the test interval covers more than ${maxCheckpoints} deadlines`,
    };
  }
  points.sort((a, b) => a[0] - b[0]);
  let demand = 0;
  let slack = Infinity;
  for (let i = 0; i < points.length; i++) {
    demand += points[i]![1];
    const d = points[i]![0];
    if (i + 1 < points.length && points[i + 1]![0] === d) continue;
    // Only deadlines inside the busy period decide feasibility; the rest (up to D_max) only count for the slack.
    if (demand > d && d <= busy) {
      return {
        feasible: false,
        test: 'demand',
        utilization: u,
        slackMs: undefined,
        code: 'demand',
        reason: `processor demand ${demand} ms exceeds the ${d} ms window`,
      };
    }
    slack = Math.min(slack, d - demand);
  }
  return { feasible: true, test, utilization: u, slackMs: slack };
}
