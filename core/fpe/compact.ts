// The compacting post-pass of section 4.2: once the base fit has found when an application completes, its steps are
// placed again from the last to the first, the last one ending at that completion time, each as late as it fits.
// Placing from right to left is the base fit itself run on the mirror image of time (the steps in reverse order, the
// resource EP mirrored, the search starting at minus the completion time): its "earliest" is the latest here, the
// expansion of a step still fills the gap up to its neighbour, and the expand limit holds step by step as before.
import { totalDuration, type EvolutionProfile, type ScheduledEp } from './evolution-profile.js';
import { baseFit } from './base-fit.js';
import type { Fit } from './fit.js';
import { mirror } from './resource-profile.js';
import type { StepFunction } from '../time/step-function.js';

/** The scheduled EP `found` compacted: the same completion time (or earlier), the latest start that reaches it. */
export function compact(
  found: ScheduledEp,
  requested: EvolutionProfile,
  resource: StepFunction,
  nnodes: number,
  t0: number,
  expandLimit: number,
): ScheduledEp {
  if (requested.length === 0) return found;
  const completion = found.start + totalDuration(found.steps);
  const reversed = [...requested].reverse();
  const back = baseFit(reversed, mirror(resource), nnodes, -completion, { expandLimit });
  const steps = [...back.steps].reverse();
  const start = 0 - (back.start + totalDuration(back.steps));
  // Decision: the pass keeps the base fit's result when the mirrored search would start the application before t0
  // (it may go that far back, as it knows nothing of t0) or would not shorten it.
  if (start < t0 || totalDuration(steps) > totalDuration(found.steps)) return found;
  return { start, steps };
}

/** The base fit with an expand limit, followed by compacting. */
export function compactingFitWith(expandLimit: number): Fit {
  return (requested, resource, nnodes, t0) =>
    compact(baseFit(requested, resource, nnodes, t0, { expandLimit }), requested, resource, nnodes, t0, expandLimit);
}
