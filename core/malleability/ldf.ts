// LDF — latest deadline first (a baseline of the DBES paper, after Utrera et al.): idle processors go first to the
// running malleable job that must end last (deadline.ts); shrinks take from the earliest deadline first.
import { byDeadline, growInOrder, shrinkInOrder } from './deadline.js';
import { latestDeadline } from '../dbes/standard.js';
import { baselineIteration } from './baseline.js';
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

export const ldf: MalleabilityPolicy = {
  name: 'ldf',
  description: 'Latest deadline first: expand the job whose walltime ends last; shrink the one whose ends first.',
  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    yield* growInOrder(byDeadline(jobs).reverse(), growValue);
  },
  *shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J> {
    yield* shrinkInOrder(byDeadline(jobs), shrinkValue);
  },
  iteration: baselineIteration(latestDeadline),
};
