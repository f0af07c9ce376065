// The fit function of Algorithm 1 (section 4.1): given a requested EP, the resource EP and the cluster's node count,
// where the application starts (ts) and its expanded EP (epx), such that epres(t) + delay(epx, ts)(t) <= nnodes for
// every t. Fits never fail: an EP that needs no more than the cluster's nodes always fits after everything else.
import type { StepFunction } from '../time/step-function.js';
import type { EvolutionProfile, ScheduledEp } from './evolution-profile.js';

export type Fit = (requested: EvolutionProfile, resource: StepFunction, nnodes: number, t0: number) => ScheduledEp;

/** Checks what every fit assumes: each step fits on the cluster, and the resource EP ends with room for it. */
export function checkFitInput(requested: EvolutionProfile, resource: StepFunction, nnodes: number, t0: number): void {
  if (!Number.isFinite(t0)) throw new RangeError(`fit: t0 must be finite, got ${t0}`);
  let peak = 0;
  for (const s of requested) if (s.nodes > peak) peak = s.nodes;
  if (peak > nnodes) throw new RangeError(`fit: a step needs ${peak} nodes, the cluster has ${nnodes}`);
  if (nnodes - resource.finalValue < peak)
    throw new RangeError(`fit: the resource EP never drops low enough for ${peak} nodes`);
}
