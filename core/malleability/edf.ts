// EDF — earliest deadline first (a baseline of the DBES paper, after Utrera et al.): idle processors go first to the
// running malleable job that must end soonest (deadline.ts); shrinks take from the latest deadline first.
import { byDeadline, growInOrder, shrinkInOrder } from './deadline.js';
import { earliestDeadline } from '../dbes/standard.js';
import { baselineIteration } from './baseline.js';
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

export const edf: MalleabilityPolicy = {
  name: 'edf',
  description: 'Earliest deadline first: expand the job whose walltime ends first; shrink the one whose ends last.',
  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    yield* growInOrder(byDeadline(jobs), growValue);
  },
  *shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J> {
    yield* shrinkInOrder(byDeadline(jobs).reverse(), shrinkValue);
  },
  iteration: baselineIteration(earliestDeadline),
};
