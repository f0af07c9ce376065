// Algorithm 1 of the paper (section 4.1): offline list scheduling of evolving applications. The resource EP starts
// empty; each requested EP in turn is fitted onto it and its scheduled EP added to it, so the resource EP is always
// the sum of the scheduled EPs and never exceeds the cluster (the fit's post-condition).
import { epFunction, type EvolutionProfile, type ScheduledEp } from './evolution-profile.js';
import type { Fit } from './fit.js';
import { EMPTY_RESOURCE_EP } from './resource-profile.js';
import type { StepFunction } from '../time/step-function.js';

export interface ListSchedule {
  /** The scheduled EP of each application, in the order given. */
  readonly scheduled: readonly ScheduledEp[];
  /** The resource EP at the end: the sum of the scheduled EPs (and of the resource EP given, if any). */
  readonly resource: StepFunction;
}

/** Schedules `requested` in order with `fit`, from t0 (the applications' earliest start), over `resource` (empty by default). */
export function listSchedule(
  requested: readonly EvolutionProfile[],
  nnodes: number,
  fit: Fit,
  t0 = 0,
  resource: StepFunction = EMPTY_RESOURCE_EP,
): ListSchedule {
  const scheduled: ScheduledEp[] = [];
  let epr = resource;
  for (const ep of requested) {
    const s = fit(ep, epr, nnodes, t0);
    scheduled.push(s);
    epr = epr.plus(epFunction(s.steps, s.start));
  }
  return { scheduled, resource: epr };
}
