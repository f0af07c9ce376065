// A live cluster's batch system as the managers build it: its kind and the options the cluster's configuration
// gives for it (the schema has already refused options of other systems). One place for the live run and the
// connection test, so that both submit and count alike.
import type { BatchSystemConfig } from '../managers/index.js';
import type { LiveClusterConfig } from './config.js';

/** `cores` and `workRoot` (absolute or relative to the login directory) matter for a plain host only. */
export function batchSystemSettings(
  config: LiveClusterConfig,
  host: { readonly cores: number; readonly workRoot: string },
): BatchSystemConfig {
  const { partition, account, parallelEnvironment, queue, flavour, extraArgs } = config.batch;
  switch (config.system) {
    case 'local':
      // Decision: a plain host without slots offers all its cores.
      return { kind: 'local', slots: config.slots ?? Math.max(1, host.cores), stateDir: `${host.workRoot}/local` };
    case 'slurm':
      return { kind: 'slurm', ...defined({ partition, account, extraArgs }) };
    case 'sge':
      return { kind: 'sge', ...defined({ parallelEnvironment, queue, extraArgs }) };
    case 'pbs':
      return { kind: 'pbs', ...defined({ flavour, queue, extraArgs }) };
  }
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
