// Rigid (the DBES paper's baseline, V-B): malleable jobs run at the size they started with; nothing is ever expanded
// or shrunk, whatever the workload holds.
import { never } from '../dbes/standard.js';
import { baselineIteration } from './baseline.js';
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

export const rigid: MalleabilityPolicy = {
  name: 'rigid',
  description: 'Rigid: never expand nor shrink a running job (malleable jobs keep their starting size).',
  // Decision: a mandatory shrink (an evolving job's update, an operator's is separate) is refused too: the baseline
  // runs the workload without any expand/shrink operation.
  *grow<J extends ReadonlyJobRecord>(_jobs: readonly J[], _growValue: number): PolicyProcedure<J> {},
  *shrink<J extends ReadonlyJobRecord>(_jobs: readonly J[], _shrinkValue: number): PolicyProcedure<J> {},
  iteration: baselineIteration(never),
};
