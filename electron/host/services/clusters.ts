// Live clusters (`clusters.*`): their configurations, secrets, host keys and connection tests (the ClusterService),
// and the staging of the SDK and demo applications, through the live run's connection when the cluster is in it.
import type { ApiResult } from '../../api/contract.js';
import type { ClusterService } from '../../live/cluster-service.js';
import type { HostModeMachine } from '../mode.js';
import { refused, type ServiceHandlers } from './run.js';

type ClustersMethod =
  | 'clusters.list'
  | 'clusters.save'
  | 'clusters.update'
  | 'clusters.remove'
  | 'clusters.test'
  | 'clusters.acceptHostKey'
  | 'clusters.setSecret'
  | 'clusters.stageAssets';

/**
 * `clusters.stageAssets`: through the live run's connection to the cluster when it is in the run, else (no live
 * run, or the cluster not reached in it) over a connection of its own.
 */
async function stageAssets(
  clusters: ClusterService,
  mode: HostModeMachine,
  name: string,
): Promise<ApiResult<'clusters.stageAssets'>> {
  const config = clusters.configs().find((c) => c.name === name);
  if (!config) return refused('name', `names no cluster ("${name}")`);
  const live = mode.liveWorld;
  if (live?.stageAssets) {
    try {
      const [staged] = await live.stageAssets(name);
      if (staged)
        return {
          ok: true,
          value: { cluster: name, dir: staged.dir, copied: [...staged.copied], unchanged: [...staged.unchanged] },
        };
    } catch (error) {
      return refused(
        'name',
        `${name}: the assets cannot be staged: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return clusters.stageAssets(config);
}

export function clusterHandlers(clusters: ClusterService, mode: HostModeMachine): ServiceHandlers<ClustersMethod> {
  return {
    'clusters.list': () => clusters.list(),
    'clusters.save': (config) => clusters.save(config),
    // Decision: no cluster is renamed during a live run: its jobs, and the run resumed after a restart, find their cluster by name.
    'clusters.update': ({ name, config }) =>
      clusters.update(
        name,
        config,
        mode.isLive ? 'a cluster is not renamed during a live run: switch the live run off first' : undefined,
      ),
    'clusters.remove': ({ name }) => clusters.remove(name),
    'clusters.test': (config) => clusters.test(config),
    'clusters.acceptHostKey': ({ host, port, fingerprint, cluster }) =>
      clusters.acceptHostKey(host, port, fingerprint, cluster),
    'clusters.setSecret': ({ cluster, kind, value }) => clusters.setSecret(cluster, kind, value),
    'clusters.stageAssets': ({ name }) => stageAssets(clusters, mode, name),
  };
}
