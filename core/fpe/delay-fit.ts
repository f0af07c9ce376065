// The simplest fit of section 4.1: the requested EP, unexpanded, delayed until the resource EP is over (everything
// already scheduled has ended). Never expands, never overlaps: the baseline that shows what the base fit gains.
import type { EvolutionProfile, ScheduledEp } from './evolution-profile.js';
import { checkFitInput, type Fit } from './fit.js';
import { busyUntil } from './resource-profile.js';
import type { StepFunction } from '../time/step-function.js';

export const delayFit: Fit = (
  requested: EvolutionProfile,
  resource: StepFunction,
  nnodes: number,
  t0: number,
): ScheduledEp => {
  checkFitInput(requested, resource, nnodes, t0);
  return { start: Math.max(t0, busyUntil(resource)), steps: requested };
};
