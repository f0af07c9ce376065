// Accepting a host key the operator was shown: the key is fetched from the server again (a handshake stopped at
// the host-key check, nothing is authenticated) and written to Concertina's own known_hosts only when its
// fingerprint is the one the operator accepted — a key swapped between "test" and "accept" is never trusted.
import ssh2 from 'ssh2';
import { HostKeyUnknownError, SshError, type PresentedHostKey } from '../../runners/ssh/errors.js';
import { noSecrets } from '../../runners/ssh/secrets.js';
import { SshRunner } from '../../runners/ssh/ssh-runner.js';
import type { LiveClusterConfig } from '../../runners/live/types.js';
import { openClusterRunner } from './connection-test.js';
import {
  hostLookupName,
  preferredHostKeyAlgorithms,
  presentedHostKey,
  type KnownHosts,
} from '../../runners/ssh/known-hosts.js';
import { loadSshConfig, resolveHost } from '../../runners/ssh/ssh-config.js';

/**
 * The key `host:port` presents now, offered the same algorithms a connection would offer (so the same key type),
 * named `lookupName` (default `[host]:port`) and looked up in `userKnownHostsFiles` when given (as a hop's are).
 */
export async function fetchHostKey(
  host: string,
  port: number,
  knownHosts: KnownHosts,
  timeoutMs = 15_000,
  as: { readonly lookupName?: string; readonly userKnownHostsFiles?: readonly string[] } = {},
): Promise<PresentedHostKey> {
  const lookupName = as.lookupName ?? hostLookupName(host, port);
  const { entries } = await knownHosts.load(as.userKnownHostsFiles);
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    let presented: PresentedHostKey | undefined;
    const done = () => {
      client.end();
      if (presented) resolve(presented);
      else reject(new SshError('connect-failed', `${lookupName}: no host key received`));
    };
    client.on('error', (error: Error) => {
      if (presented) return done();
      client.end();
      reject(new SshError('connect-failed', `${lookupName}: ${error.message}`, { cause: error }));
    });
    client.on('close', done);
    client.on('ready', done);
    client.connect({
      host,
      port,
      // ssh2 insists on a user name; none is ever sent, as the handshake stops at the host key.
      username: 'concertina',
      readyTimeout: timeoutMs,
      algorithms: { serverHostKey: preferredHostKeyAlgorithms(entries, lookupName) },
      hostVerifier: (key: Buffer) => {
        presented = presentedHostKey(lookupName, key);
        return false; // stop here: only the key was wanted
      },
    });
  });
}

/**
 * The key a destination presents, fetched directly from the HostName ~/.ssh/config gives it and named as a
 * connection to it would look it up: its HostKeyAlias when it has one, else `[HostName]:Port`.
 */
export async function fetchDestinationKey(
  destination: string,
  port: number,
  knownHosts: KnownHosts,
  sshConfigFile?: string,
): Promise<PresentedHostKey> {
  // An IPv6 address is a destination only in brackets.
  const hop = resolveHost(
    await loadSshConfig(sshConfigFile),
    destination.includes(':') ? `[${destination}]` : destination,
    { port },
  );
  return fetchHostKey(hop.hostName, hop.port, knownHosts, undefined, {
    lookupName: hop.hostKeyAlias ? hop.hostKeyAlias.toLowerCase() : hostLookupName(hop.hostName, hop.port),
    ...(hop.userKnownHostsFiles ? { userKnownHostsFiles: hop.userKnownHostsFiles } : {}),
  });
}

/**
 * The key a cluster's route presents where it stops at an unknown key: its connection is opened as a test would
 * (jump hosts first, each checked), and the unknown key it is refused with is the one returned. Undefined when
 * every key on the way is known.
 */
export async function fetchClusterHostKey(
  config: LiveClusterConfig,
  knownHosts: KnownHosts,
  sshConfigFile?: string,
): Promise<PresentedHostKey | undefined> {
  const runner = await openClusterRunner(config, {
    knownHosts,
    ...(sshConfigFile !== undefined ? { sshConfigFile } : {}),
    secrets: noSecrets,
  });
  try {
    if (!(runner instanceof SshRunner)) return undefined;
    await runner.connection.connect();
    return undefined;
  } catch (error) {
    if (error instanceof HostKeyUnknownError) return error.presented;
    throw error;
  } finally {
    await runner.close().catch(() => undefined);
  }
}

export type AcceptAnswer =
  { ok: true; fingerprint: string; keyType: string } | { ok: false; path: string; message: string };

/**
 * Appends the host's key to `knownHosts`' own file if it still presents `fingerprint`: fetched along the cluster's
 * route when its configuration is given (a host behind a jump host), else from `host:port` directly, `host` read as
 * an ssh destination (an alias's HostName, and its HostKeyAlias as the name the key is trusted under).
 */
export async function acceptPresentedKey(
  target: { host: string; port: number; cluster?: LiveClusterConfig; sshConfigFile?: string },
  fingerprint: string,
  knownHosts: KnownHosts,
): Promise<AcceptAnswer> {
  let presented: PresentedHostKey | undefined;
  try {
    presented = target.cluster
      ? await fetchClusterHostKey(target.cluster, knownHosts, target.sshConfigFile)
      : await fetchDestinationKey(target.host, target.port, knownHosts, target.sshConfigFile);
  } catch (error) {
    return { ok: false, path: target.cluster ? 'cluster' : 'host', message: (error as Error).message };
  }
  if (!presented)
    return {
      ok: false,
      path: 'fingerprint',
      message: `every host key on the way to ${target.cluster?.name ?? target.host} is already known: nothing to accept`,
    };
  if (presented.fingerprint !== fingerprint) {
    return {
      ok: false,
      path: 'fingerprint',
      message: `the server now presents ${presented.keyType} ${presented.fingerprint}, not ${fingerprint}: not accepted`,
    };
  }
  try {
    await knownHosts.accept(presented);
  } catch (error) {
    return { ok: false, path: 'fingerprint', message: (error as Error).message };
  }
  return { ok: true, fingerprint: presented.fingerprint, keyType: presented.keyType };
}
