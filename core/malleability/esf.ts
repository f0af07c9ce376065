// ESF — earliest started first (Utrera et al.'s FCFS-malleable, a baseline of the DBES paper): idle processors go to
// the running malleable jobs in the order they started, each taking all it accepts before the next is offered;
// shrinks take from the latest started first.
import { growInOrder, shrinkInOrder } from './deadline.js';
import { earliestStarted } from '../dbes/standard.js';
import { baselineIteration } from './baseline.js';
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

export const esf: MalleabilityPolicy = {
  name: 'esf',
  description: 'Earliest started first: expand the earliest started job first; shrink the latest started first.',
  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    yield* growInOrder(jobs, growValue);
  },
  *shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J> {
    yield* shrinkInOrder([...jobs].reverse(), shrinkValue);
  },
  iteration: baselineIteration(earliestStarted),
};
