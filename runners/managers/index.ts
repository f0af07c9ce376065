// The batch systems by name, from a configuration checked at the boundary (a cluster's settings): each adapter's own
// options schema, with its kind.
import { z } from 'zod';
import type { BatchSystem } from './batch-system.js';
import { LocalSystem, localOptionsSchema } from './local.js';
import { PbsSystem, pbsOptionsSchema } from './pbs.js';
import { SgeSystem, sgeOptionsSchema } from './sge.js';
import { SlurmSystem, slurmOptionsSchema } from './slurm.js';

export const batchSystemSchema = z.discriminatedUnion('kind', [
  slurmOptionsSchema.extend({ kind: z.literal('slurm') }),
  sgeOptionsSchema.extend({ kind: z.literal('sge') }),
  pbsOptionsSchema.extend({ kind: z.literal('pbs') }),
  localOptionsSchema.extend({ kind: z.literal('local') }),
]);

export type BatchSystemConfig = z.infer<typeof batchSystemSchema>;

export function createBatchSystem(config: BatchSystemConfig): BatchSystem {
  switch (config.kind) {
    case 'slurm':
      return new SlurmSystem(config);
    case 'sge':
      return new SgeSystem(config);
    case 'pbs':
      return new PbsSystem(config);
    case 'local':
      return new LocalSystem(config);
  }
}

export { BatchLocalManager, type BatchLocalManagerOptions, type RecoveredJob } from './batch-local-manager.js';
export type { BatchSystem, ClusterReport, LocalJobInfo, LocalJobSpec, LocalState, NodeCounts } from './batch-system.js';
