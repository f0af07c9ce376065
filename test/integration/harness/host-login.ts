// The host of a test reaching its loopback clusters through the test's sshd: the sshd's host keys written to a
// known_hosts file in the test's folder (beside an empty ssh_config), the login a cluster's settings name, the options
// a live world reaches it with, and a host opened on a store with them.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../../electron/host/host.js';
import type { Store } from '../../../electron/store/store.js';
import { KnownHosts } from '../../../runners/ssh/known-hosts.js';
import type { Sshd } from './sshd.js';

export interface HostLogin {
  /** A cluster's `login` in `clusters.save`. */
  readonly login: {
    readonly via: 'ssh';
    readonly host: string;
    readonly port: number;
    readonly user: string;
    readonly identityFile: string;
  };
  readonly knownHostsFile: string;
  readonly sshConfigFile: string;
}

/** Writes `dir`/known_hosts (trusting `sshd`) and an empty `dir`/ssh_config. */
export function hostLogin(sshd: Sshd, dir: string): HostLogin {
  const knownHostsFile = path.join(dir, 'known_hosts');
  const sshConfigFile = path.join(dir, 'ssh_config');
  writeFileSync(
    knownHostsFile,
    sshd
      .knownHostsLines()
      .map((l) => `${l}\n`)
      .join(''),
  );
  writeFileSync(sshConfigFile, '');
  return {
    login: { via: 'ssh', host: '127.0.0.1', port: sshd.port, user: sshd.user, identityFile: sshd.clientKey },
    knownHostsFile,
    sshConfigFile,
  };
}

/** The trust and ssh config a live world (or a host's clusters) reaches `access`'s sshd with. */
export function sshOptions(access: HostLogin): { knownHosts: KnownHosts; sshConfigFile: string } {
  return { knownHosts: new KnownHosts(access.knownHostsFile, []), sshConfigFile: access.sshConfigFile };
}

/** A started host on `store` with no workload, whose clusters are reached as `access` says. */
export function startHost(store: Store, access: HostLogin): Host {
  const host = new Host({ store, workload: 'none', clusters: sshOptions(access) });
  host.start(50);
  return host;
}
