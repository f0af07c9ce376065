// DBES — dependency-based expand/shrink (the DBES paper, III-C and IV-C): a malleability policy that brings its own
// scheduling iteration (core/dbes/): the queue is scheduled with ReservationDepth reservations, expanded jobs are
// shrunk to start reserved ones, the jobs reserved jobs depend on are expanded first, then backfilling, then what is
// left is shared among the other malleable jobs.
// Decision: DBES plugs in as one policy name, `dbes` (`--policy dbes`), whose iteration replaces the approach's pass
// (PRA or PWA) and the queue policy's scan: queue, shrinks and both expansion steps are one algorithm; it reads the
// run's reservation depth and queue priority.
import { DbesScheduling } from '../dbes/driver.js';
import { equipartition } from './equipartition.js';
import type { MalleabilityPolicy } from './policy.js';

export const dbes: MalleabilityPolicy = {
  name: 'dbes',
  description:
    'Dependency-based expand/shrink: expand the jobs reserved jobs wait for, backfill, then equipartition the rest.',
  // Decision: the grows and shrinks asked of the policy outside its iteration (an evolving job's guaranteed update,
  // which must shrink malleable extras) follow equipartition's rule.
  grow: equipartition.grow,
  shrink: equipartition.shrink,
  iteration: (host) => new DbesScheduling(host),
};
