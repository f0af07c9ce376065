// The helper functions of section 3.1 over a resource EP (the cluster's occupation as a StepFunction of time):
// max(ep, t0, t1), loc(ep, t0, t1), and the mirror image in time the compacting pass schedules on.
import { StepFunction, type Step } from '../time/step-function.js';

/** The empty resource EP: nothing busy, ever. */
export const EMPTY_RESOURCE_EP = StepFunction.constant(0);

/** max(ep, t0, t1): the largest node count on [t0, t1); 0 when t0 = t1. */
export function maxNodes(ep: StepFunction, t0: number, t1: number): number {
  return t1 === t0 ? 0 : ep.maxOver(t0, t1);
}

/**
 * loc(ep, t0, t1): the end of the last stretch holding the maximum of [t0, t1), cut at t1: the t with
 * max(ep, t0, t) = max(ep, t0, t1) > max(ep, t, t1). Where the maximum lasts up to t1, that is t1. Needs t1 > t0.
 */
export function locOfMax(ep: StepFunction, t0: number, t1: number): number {
  const peak = ep.maxOver(t0, t1);
  let end = t1;
  let from = t0;
  // Each round finds the next stretch at the peak; the last one found ends where the value next drops below it.
  for (;;) {
    const start = ep.firstTimeAtLeast(from, peak);
    if (start >= t1) break;
    end = Math.min(ep.firstTimeBelow(start, peak), t1);
    if (end >= t1) break;
    from = end;
  }
  return end;
}

/**
 * The mirror image in time: m(τ) = ep(-τ) with the half-open steps kept half-open, so that the maximum of m on
 * [-t1, -t0) is that of ep on [t0, t1). (A step of ep on [a, b) is a step of m on [-b, -a).)
 */
export function mirror(ep: StepFunction): StepFunction {
  const times = ep.times;
  const values = ep.values;
  const steps: Step[] = [];
  // 0 - t rather than -t: a breakpoint at 0 stays at 0, not -0.
  for (let k = times.length - 1; k >= 0; k--) steps.push({ t: 0 - times[k]!, v: k > 0 ? values[k - 1]! : ep.initial });
  return StepFunction.fromSteps(ep.finalValue, steps);
}

/** The time from which nothing is busy any more (the last drop to 0), or -Infinity for a profile that is 0 throughout. */
export function busyUntil(ep: StepFunction): number {
  const n = ep.times.length;
  if (n === 0) return ep.initial === 0 ? -Infinity : Infinity;
  return ep.finalValue === 0 ? ep.times[n - 1]! : Infinity;
}
