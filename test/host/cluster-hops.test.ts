// Which host is given a cluster's stored password or passphrase, through the host's three ways of reaching a cluster
// — Test connection, staging the assets, and a live run — against in-process SSH servers named through an ssh
// config: only the cluster's destination as ~/.ssh/config resolves it (alias → HostName, User, Port) is given them,
// never a jump host (ProxyJump from the config), and a key file named only in the config gets its passphrase. And a
// host key accepted without the cluster's configuration is fetched from the host a HostKeyAlias stands for.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ssh2, { type ParsedKey } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { createLiveWorldFromConfig } from '../../electron/live/live-run.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { checkHostKey, KnownHosts } from '../../runners/ssh/known-hosts.js';
import { startFakeSshd, type FakeSshd } from '../support/ssh-server.js';
import { sshKeyPair } from '../support/ssh-keys.js';

const PASSWORD = 'the cluster password';
const PASSPHRASE = 'the cluster key passphrase';
/** Stored for the cluster behind a closed jump host: it must reach no server at all. */
const OTHER_PASSWORD = 'another cluster password';

let dir: string;
let target: FakeSshd;
let jump: FakeSshd;
let sshConfigFile: string;
let knownHostsFile: string;
/** The cluster's encrypted key, as the servers record a public key offered. */
let clusterPublic: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-hops-'));
  const clusterKey = sshKeyPair('ed25519', { passphrase: PASSPHRASE, cipher: 'aes256-ctr', rounds: 16 });
  const jumpKey = sshKeyPair('ed25519');
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const clusterKeyFile = write('cluster_key', clusterKey.private);
  const jumpKeyFile = write('jump_key', jumpKey.private);
  const publicOf = (pair: { public: string }) =>
    (ssh2.utils.parseKey(pair.public) as ParsedKey).getPublicSSH().toString('base64');
  clusterPublic = publicOf(clusterKey);
  target = await startFakeSshd({
    passwords: { alice: PASSWORD },
    keys: { bob: [`ssh-ed25519 ${publicOf(clusterKey)}`] },
  });
  // The jump host takes its own key, and the cluster's encrypted key too (which it must never be able to use).
  jump = await startFakeSshd({
    forwarding: true,
    keys: { alice: [`ssh-ed25519 ${publicOf(jumpKey)}`, `ssh-ed25519 ${publicOf(clusterKey)}`] },
  });
  sshConfigFile = write(
    'ssh_config',
    [
      // An alias: the cluster names `lab`, the connection goes to 127.0.0.1 as alice.
      'Host lab',
      '  HostName 127.0.0.1',
      `  Port ${target.port}`,
      '  User alice',
      // The same destination behind a jump host, the jump named in the config only.
      'Host lab-via-jump',
      '  HostName 127.0.0.1',
      `  Port ${target.port}`,
      '  User alice',
      '  ProxyJump jumpy',
      'Host jumpy',
      '  HostName 127.0.0.1',
      `  Port ${jump.port}`,
      '  User alice',
      `  IdentityFile ${jumpKeyFile}`,
      // A cluster named by its address, whose config block adds a jump host at that same address (another port),
      // reached with the cluster's own encrypted key: it may log in to the jump only with a secret not the cluster's.
      'Host 127.0.0.1',
      '  ProxyJump jumpy-without-key',
      'Host jumpy-without-key',
      '  HostName 127.0.0.1',
      `  Port ${jump.port}`,
      '  User alice',
      `  IdentityFile ${clusterKeyFile}`,
      // A host whose key is known under another name.
      'Host lab-aliased',
      '  HostName 127.0.0.1',
      `  Port ${target.port}`,
      '  User alice',
      '  HostKeyAlias labkey',
      // A key file named in the config only.
      'Host lab-key',
      '  HostName 127.0.0.1',
      `  Port ${target.port}`,
      '  User bob',
      `  IdentityFile ${clusterKeyFile}`,
      'Host *',
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      '',
    ].join('\n'),
  );
  knownHostsFile = write('known_hosts', `${target.knownHostsLine}\n${jump.knownHostsLine}\n`);
});

afterAll(async () => {
  await Promise.all([target?.close(), jump?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Clusters by where they log in; each with the secret it needs stored. */
function clusters() {
  const common = { system: 'local', slots: 1, pollIntervalS: 1 } as const;
  const workRoot = (name: string) => path.join(dir, 'work', name);
  return [
    {
      config: { name: 'alias', login: { via: 'ssh', host: 'lab' }, workRoot: workRoot('alias'), ...common },
      secrets: { password: PASSWORD },
    },
    {
      config: { name: 'jumped', login: { via: 'ssh', host: 'lab-via-jump' }, workRoot: workRoot('jumped'), ...common },
      secrets: { password: PASSWORD },
    },
    {
      config: { name: 'keyed', login: { via: 'ssh', host: 'lab-key' }, workRoot: workRoot('keyed'), ...common },
      secrets: { passphrase: PASSPHRASE },
    },
    {
      config: {
        name: 'closedjump',
        login: { via: 'ssh', host: '127.0.0.1', port: target.port, user: 'alice' },
        workRoot: workRoot('closedjump'),
        ...common,
      },
      secrets: { password: OTHER_PASSWORD, passphrase: PASSPHRASE },
    },
  ] as const;
}

function hostWithClusters(worlds: LiveWorld[]): Host {
  const host = new Host({
    workload: 'none',
    clusters: { knownHosts: new KnownHosts(knownHostsFile, []), sshConfigFile },
    liveWorld: (options) => {
      const world = createLiveWorldFromConfig(options);
      worlds.push(world);
      return world;
    },
  });
  for (const { config, secrets } of clusters()) {
    expect(host.call('clusters.save', config).ok).toBe(true);
    for (const [kind, value] of Object.entries(secrets))
      expect(host.call('clusters.setSecret', { cluster: config.name, kind, value }).ok).toBe(true);
  }
  return host;
}

describe("cluster secrets go to the cluster's destination only", () => {
  const ways = {
    'Test connection': async (host: Host, name: string) => {
      const config = clusters().find((c) => c.config.name === name)!.config;
      const answer = await host.call('clusters.test', config);
      return answer.ok && answer.value.ok ? undefined : JSON.stringify(answer);
    },
    'asset staging': async (host: Host, name: string) => {
      const answer = await host.call('clusters.stageAssets', { name });
      return answer.ok ? undefined : JSON.stringify(answer);
    },
  };

  for (const [way, run] of Object.entries(ways)) {
    it(`${way}: an alias gets its password at its HostName, behind a jump host from the config too; a config IdentityFile its passphrase`, async () => {
      const host = hostWithClusters([]);
      try {
        const before = { target: target.attempts.length, jump: jump.attempts.length };
        for (const name of ['alias', 'jumped', 'keyed']) expect(await run(host, name), name).toBeUndefined();
        expect(target.attempts.slice(before.target).filter((a) => a.password === PASSWORD).length).toBeGreaterThan(0);
        expect(jump.attempts.slice(before.jump).filter((a) => a.password !== undefined)).toEqual([]);
      } finally {
        host.stop();
      }
    }, 60_000);

    it(`${way}: a jump host from the config is never offered the cluster's password or passphrase`, async () => {
      const host = hostWithClusters([]);
      try {
        const before = jump.attempts.length;
        const failed = await run(host, 'closedjump');
        expect(failed).toMatch(/authentication failed/);
        expect(failed).toContain(`127.0.0.1:${jump.port} (jump host)`);
        expect(failed).toContain('none is given to a jump host for the cluster behind it');
        // Neither the password nor the key the cluster's passphrase decrypts reached the jump host.
        expect(jump.attempts.slice(before)).toEqual([]);
        expect(failed).not.toContain(OTHER_PASSWORD);
        expect(failed).not.toContain(PASSPHRASE);
      } finally {
        host.stop();
      }
    }, 60_000);
  }

  it('live run: the same clusters are reached with the same secrets, and the jump host is offered none', async () => {
    const worlds: LiveWorld[] = [];
    const host = hostWithClusters(worlds);
    const before = jump.attempts.length;
    try {
      const started = await host.call('run.startLive', {});
      expect(started.ok, JSON.stringify(started)).toBe(true);
      const states = Object.fromEntries(worlds[0]!.clusters().map((c) => [c.name, c]));
      expect(states['alias']).toMatchObject({ connection: 'open' });
      expect(states['jumped']).toMatchObject({ connection: 'open' });
      expect(states['keyed']).toMatchObject({ connection: 'open' });
      expect(states['closedjump']).toMatchObject({
        connection: 'lost',
        lastError: expect.stringMatching(/authentication failed/),
      });
      expect(jump.attempts.slice(before).filter((a) => a.password !== undefined || a.key === clusterPublic)).toEqual(
        [],
      );
      expect(target.attempts.filter((a) => a.password === OTHER_PASSWORD)).toEqual([]);
    } finally {
      host.stop();
      await Promise.all(worlds.map((w) => w.stop()));
    }
  }, 60_000);
});

describe("accepting a host key without the cluster's configuration", () => {
  it('fetches it from the host a HostKeyAlias stands for, and trusts it under that alias', async () => {
    const own = path.join(mkdtempSync(path.join(dir, 'accept-')), 'known_hosts');
    const host = new Host({ workload: 'none', clusters: { knownHosts: new KnownHosts(own, []), sshConfigFile } });
    try {
      const cluster = {
        name: 'aliased',
        login: { via: 'ssh', host: 'lab-aliased' },
        system: 'local',
        slots: 1,
        workRoot: path.join(dir, 'work', 'aliased'),
      };
      expect(host.call('clusters.save', cluster).ok).toBe(true);
      expect(host.call('clusters.setSecret', { cluster: 'aliased', kind: 'password', value: PASSWORD }).ok).toBe(true);
      const first = await host.call('clusters.test', cluster);
      if (!first.ok || first.value.ok || first.value.kind !== 'host-key-unknown')
        throw new Error(`expected an unknown host key, got ${JSON.stringify(first)}`);
      // What the console shows is what it sends back, without the cluster.
      const { host: shown, port, fingerprint } = first.value;
      const accepted = await host.call('clusters.acceptHostKey', {
        host: shown,
        ...(port !== undefined ? { port } : {}),
        fingerprint,
      });
      expect(accepted, JSON.stringify(accepted)).toMatchObject({ ok: true, value: { fingerprint } });
      const key = Buffer.from(target.knownHostsLine.split(' ')[2]!, 'base64');
      expect(checkHostKey((await new KnownHosts(own, []).load()).entries, 'labkey', key).status).toBe('trusted');
      expect(readFileSync(own, 'utf8').trim().split('\n')).toHaveLength(1);
      const second = await host.call('clusters.test', cluster);
      expect(second.ok && second.value).toMatchObject({ ok: true, fingerprint });
    } finally {
      host.stop();
    }
  }, 60_000);
});
