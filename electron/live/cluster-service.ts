// The `clusters.*` API methods: live clusters' configurations (kept in the store's `clusters` table, or in memory
// without a store), their secrets, "test connection" and accepting a host key.
import type { ApiResult } from '../api/contract.js';
import type { Store } from '../store/store.js';
import { KnownHosts, defaultKnownHostsFile } from '../../runners/ssh/known-hosts.js';
import { liveClusterSchema, type LiveClusterConfig } from '../../runners/live/types.js';
import { BATCH_SYSTEM_INFOS } from '../../runners/live/config.js';
import { ClusterSecrets, type SecretCipher } from './cluster-secrets.js';
import { clusterAssetsDir, collectAssets, stageAssets } from '../../runners/live/asset-staging.js';
import { repositoryAssetsDir } from '../../runners/live/live-world.js';
import { openClusterRunner, testConnection } from './connection-test.js';
import { acceptPresentedKey } from './host-keys.js';

export interface ClusterServiceOptions {
  readonly store?: Store;
  /** The OS keychain (the window's safeStorage); absent in web mode, where secrets last for the session only. */
  readonly cipher?: SecretCipher;
  /** Default: Concertina's own file plus the user's and the system's, read only. */
  readonly knownHosts?: KnownHosts;
  /** Default ~/.ssh/config. */
  readonly sshConfigFile?: string;
}

const fail = (path: string, message: string) => ({ ok: false as const, errors: [{ path, message }] });

export class ClusterService {
  readonly secrets: ClusterSecrets;
  readonly knownHosts: KnownHosts;
  readonly sshConfigFile: string | undefined;
  private readonly memory = new Map<string, LiveClusterConfig>();

  constructor(private readonly options: ClusterServiceOptions = {}) {
    this.secrets = new ClusterSecrets(options.store, options.cipher);
    this.knownHosts = options.knownHosts ?? new KnownHosts(defaultKnownHostsFile());
    this.sshConfigFile = options.sshConfigFile;
  }

  /** The configured clusters, by name. A stored configuration this version cannot read is left out. */
  configs(): LiveClusterConfig[] {
    if (!this.options.store) return [...this.memory.values()].sort((a, b) => a.name.localeCompare(b.name));
    return this.options.store.clusters().flatMap((row) => {
      const parsed = liveClusterSchema.safeParse(row.config);
      return parsed.success ? [parsed.data] : [];
    });
  }

  list(): ApiResult<'clusters.list'> {
    const clusters = this.configs().map((config) => ({
      config,
      secrets: (['password', 'passphrase'] as const).filter((k) => this.secrets.has(config.name, k)),
    }));
    // The batch systems' options come with the list: the console builds its form's fields from them.
    return { ok: true, value: { clusters, secretsPersist: this.secrets.persistent, systems: BATCH_SYSTEM_INFOS } };
  }

  private has(name: string): boolean {
    return this.configs().some((c) => c.name === name);
  }

  private put(config: LiveClusterConfig): void {
    if (this.options.store) this.options.store.saveCluster(config.name, config);
    else this.memory.set(config.name, config);
  }

  /** Adds a cluster; a name already configured is refused at `name`: changing a cluster is `update`, said so. */
  save(config: LiveClusterConfig): ApiResult<'clusters.save'> {
    if (this.has(config.name))
      return fail('name', `a cluster named "${config.name}" is configured already: edit it, or choose another name`);
    this.put(config);
    return { ok: true, value: { name: config.name } };
  }

  /**
   * Changes the configured cluster `name` to `config`; a `config.name` of its own renames it, refused when another
   * cluster has that name. `renameRefused`: why no cluster may be renamed now (a live run), if it may not.
   */
  update(name: string, config: LiveClusterConfig, renameRefused?: string): ApiResult<'clusters.update'> {
    if (!this.has(name)) return fail('name', `names no cluster ("${name}")`);
    if (config.name === name) {
      this.put(config);
      return { ok: true, value: { name } };
    }
    if (renameRefused !== undefined) return fail('config.name', renameRefused);
    if (this.has(config.name))
      return fail('config.name', `a cluster named "${config.name}" is configured already: choose another name`);
    // Decision: a rename is the same cluster under a new name, so its password and passphrase go with it. Written
    // new first, old dropped last: a crash in between leaves both, never neither.
    this.put(config);
    this.secrets.rename(name, config.name);
    if (this.options.store) this.options.store.deleteCluster(name);
    else this.memory.delete(name);
    this.secrets.forget(name);
    return { ok: true, value: { name: config.name, renamedFrom: name } };
  }

  remove(name: string): ApiResult<'clusters.remove'> {
    const had = this.options.store ? this.options.store.deleteCluster(name) : this.memory.delete(name);
    this.secrets.forget(name);
    return had ? { ok: true, value: { name } } : fail('name', `names no cluster ("${name}")`);
  }

  setSecret(cluster: string, kind: 'password' | 'passphrase', value: string): ApiResult<'clusters.setSecret'> {
    if (!this.configs().some((c) => c.name === cluster))
      return fail('cluster', `names no cluster ("${cluster}"): save the cluster first`);
    this.secrets.set(cluster, kind, value);
    return { ok: true, value: { cluster, kind, persistent: this.secrets.persistent } };
  }

  async test(config: LiveClusterConfig): Promise<ApiResult<'clusters.test'>> {
    const result = await testConnection(config, {
      knownHosts: this.knownHosts,
      secrets: this.secrets.sourceFor(config),
      ...(this.options.sshConfigFile !== undefined ? { sshConfigFile: this.options.sshConfigFile } : {}),
    });
    return { ok: true, value: result };
  }

  /**
   * Copies the SDK and the demo applications to the cluster where its copy differs, over a connection of its own
   * (strict host keys, as "test connection"); a live run stages through its own connection instead (see the host).
   */
  async stageAssets(
    config: LiveClusterConfig,
    assetsSource = repositoryAssetsDir(),
  ): Promise<ApiResult<'clusters.stageAssets'>> {
    let runner;
    try {
      runner = await openClusterRunner(config, {
        knownHosts: this.knownHosts,
        secrets: this.secrets.sourceFor(config),
        ...(this.options.sshConfigFile !== undefined ? { sshConfigFile: this.options.sshConfigFile } : {}),
      });
      const dir = await clusterAssetsDir(runner, config.workRoot);
      const result = await stageAssets(runner, dir, collectAssets(assetsSource));
      return {
        ok: true,
        value: { cluster: config.name, dir: result.dir, copied: [...result.copied], unchanged: [...result.unchanged] },
      };
    } catch (error) {
      return fail(
        'name',
        `${config.name}: the assets cannot be staged: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      await runner?.close().catch(() => undefined);
    }
  }

  async acceptHostKey(
    host: string,
    port: number,
    fingerprint: string,
    cluster?: LiveClusterConfig,
  ): Promise<ApiResult<'clusters.acceptHostKey'>> {
    const target = {
      host,
      port,
      ...(cluster ? { cluster } : {}),
      ...(this.sshConfigFile !== undefined ? { sshConfigFile: this.sshConfigFile } : {}),
    };
    const answer = await acceptPresentedKey(target, fingerprint, this.knownHosts);
    return answer.ok
      ? { ok: true, value: { fingerprint: answer.fingerprint, keyType: answer.keyType } }
      : fail(answer.path, answer.message);
  }
}
