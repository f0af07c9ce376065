// The iteration the DBES paper's baselines run in (core/dbes/standard.ts), as a policy's `iteration`.
// Decision: the baselines (rigid, esf, edf, ldf, ep) run in the same Maui iteration as DBES — ReservationDepth
// reservations (the run's depth, else 5), malleable jobs started at their minimum, evolving jobs' requests under the
// same fairness budget — and differ only in their expand/shrink order, so that the comparison measures the strategy
// alone (section V: every strategy was run in the extended Maui). Their grow/shrink procedures serve the rest
// (an operator's resize goes its own way).
import { DbesScheduling } from '../dbes/driver.js';
import { standardIteration, type ExpandShrinkOrder } from '../dbes/standard.js';
import type { IterationHost, SchedulingIteration } from './iteration.js';

export function baselineIteration(order: ExpandShrinkOrder): (host: IterationHost) => SchedulingIteration {
  return (host) => new DbesScheduling(host, (state) => standardIteration(state, order));
}
