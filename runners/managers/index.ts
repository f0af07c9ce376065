// The batch systems by name, from a configuration checked at the boundary (a cluster's settings).
import { z } from 'zod';
import type { BatchSystem } from './batch-system.js';
import { LocalSystem } from './local.js';
import { PbsSystem } from './pbs.js';
import { SgeSystem } from './sge.js';
import { SlurmSystem } from './slurm.js';

const word = z.string().min(1).max(200);
const extraArgs = z.array(word).max(50).optional();

export const batchSystemSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('slurm'), partition: word.optional(), account: word.optional(), extraArgs }).strict(),
  z.object({ kind: z.literal('sge'), parallelEnvironment: word.optional(), queue: word.optional(), extraArgs }).strict(),
  z.object({ kind: z.literal('pbs'), flavour: z.enum(['pbspro', 'torque']).optional(), queue: word.optional(), extraArgs }).strict(),
  z.object({ kind: z.literal('local'), slots: z.number().int().min(1).max(100_000), stateDir: word.optional() }).strict(),
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
