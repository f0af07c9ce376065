// The runner of a live cluster's login node, as its configuration names it: over SSH (strict host keys, the
// cluster's keepalive, secrets through the source given) or this machine. One path for the live run, the connection
// test, asset staging and accepting a host key.
import type { CommandRunner } from '../shell/command-runner.js';
import { LocalRunner } from '../shell/local-runner.js';
import type { KnownHosts } from '../ssh/known-hosts.js';
import type { SecretSource } from '../ssh/secrets.js';
import { openSshRunner } from '../ssh/ssh-runner.js';
import type { LiveClusterConfig } from './config.js';

export interface ClusterRunnerOptions {
  readonly knownHosts: KnownHosts;
  readonly secrets?: SecretSource;
  /** Default ~/.ssh/config. */
  readonly sshConfigFile?: string;
  /** Per command, and for the SSH handshake. */
  readonly timeoutMs: number;
}

export function openClusterRunner(config: LiveClusterConfig, options: ClusterRunnerOptions): Promise<CommandRunner> {
  const login = config.login;
  if (login.via === 'local') return Promise.resolve(new LocalRunner({ defaultTimeoutMs: options.timeoutMs }));
  return openSshRunner({
    destination: login.host,
    overrides: {
      ...(login.port !== undefined ? { port: login.port } : {}),
      ...(login.user !== undefined ? { user: login.user } : {}),
      ...(login.identityFile !== undefined ? { identityFile: login.identityFile } : {}),
      ...(login.proxyJump !== undefined ? { proxyJump: login.proxyJump } : {}),
    },
    ...(options.sshConfigFile !== undefined ? { sshConfigFile: options.sshConfigFile } : {}),
    knownHosts: options.knownHosts,
    ...(options.secrets ? { secrets: options.secrets } : {}),
    name: config.name,
    keepaliveIntervalMs: login.keepaliveS * 1000,
    readyTimeoutMs: options.timeoutMs,
    defaultTimeoutMs: options.timeoutMs,
  });
}
