// Live clusters through the host's API against a real OpenSSH server on 127.0.0.1 (harness/sshd.ts): an unknown
// host key answers its fingerprint and goes no further; accepting it writes Concertina's own known_hosts only for
// the key the server presents; then the test connects, finds the plain host and reads its slots through the local
// adapter. A changed key is refused, and cannot be accepted over the old one.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const missing = sshdMissing();
if (missing) {
  if (process.env.CI) throw new Error(`live cluster tests cannot run: ${missing}`);
  console.warn(`Skipping the live cluster connection tests: ${missing}.`);
}

let work: string;
let sshd: Sshd;
let jump: Sshd;
const hosts: Array<{ host: Host; store: Store }> = [];

function hostWith(knownHostsFile: string) {
  const store = openStore(path.join(mkdtempSync(path.join(work, 'store-')), 'run.db'));
  // Only Concertina's own file: the user's known_hosts must not decide these cases.
  const host = new Host({
    store,
    workload: 'none',
    clusters: { knownHosts: new KnownHosts(knownHostsFile, []), sshConfigFile: path.join(work, 'no-ssh-config') },
  });
  hosts.push({ host, store });
  return host;
}

const sshCluster = () => ({
  name: 'loopback',
  login: { via: 'ssh', host: '127.0.0.1', port: sshd.port, user: sshd.user, identityFile: sshd.clientKey },
  system: 'local',
  slots: 3,
  workRoot: path.join(work, 'cluster-root'),
});

describe.skipIf(missing !== undefined)('live clusters: test connection and host keys against a real sshd', () => {
  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'concertina-clusters-'));
    sshd = await startSshd();
    jump = await startSshd({ allowTcpForwarding: true, authorizedKeys: [`${sshd.clientKey}.pub`] });
  });

  afterAll(async () => {
    for (const { host, store } of hosts) {
      await host.stop();
      store.close();
    }
    await sshd?.dispose();
    await jump?.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('unknown key → its fingerprint only; a wrong fingerprint is not accepted; the right one is; then the test connects', async () => {
    const knownHostsFile = path.join(work, 'accept', 'known_hosts');
    const host = hostWith(knownHostsFile);
    expect(host.call('clusters.save', sshCluster())).toEqual({ ok: true, value: { name: 'loopback' } });

    const first = await host.call('clusters.test', sshCluster());
    expect(first.ok).toBe(true);
    if (!first.ok || first.value.ok) throw new Error(`expected an unknown host key, got ${JSON.stringify(first)}`);
    expect(first.value.kind).toBe('host-key-unknown');
    const presented = sshd.hostKeys.find((k) => k.fingerprint === first.value.fingerprint);
    expect(presented, `fingerprint ${first.value.fingerprint} is one of the server's`).toBeDefined();
    expect(first.value.keyType).toBe(presented!.type);
    expect(first.value).toMatchObject({ host: '127.0.0.1', port: sshd.port });
    // Nothing went further than the key: sshd logged no authentication for this client.
    expect(readFileSync(sshd.logFile, 'utf8')).not.toMatch(/Accepted publickey/);

    const other = sshd.hostKeys.find((k) => k !== presented)!;
    const wrong = await host.call('clusters.acceptHostKey', {
      host: '127.0.0.1',
      port: sshd.port,
      fingerprint: other.fingerprint,
    });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok)
      expect(wrong.errors[0]).toMatchObject({ path: 'fingerprint', message: expect.stringContaining('not accepted') });
    expect(existsSync(knownHostsFile)).toBe(false);

    const accepted = await host.call('clusters.acceptHostKey', {
      host: '127.0.0.1',
      port: sshd.port,
      fingerprint: first.value.fingerprint!,
    });
    expect(accepted).toEqual({ ok: true, value: { fingerprint: presented!.fingerprint, keyType: presented!.type } });
    // One hashed line, which OpenSSH itself finds for [127.0.0.1]:port.
    const lines = readFileSync(knownHostsFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\|1\|/);
    const found = execFileSync('/usr/bin/ssh-keygen', [
      '-F',
      `[127.0.0.1]:${sshd.port}`,
      '-f',
      knownHostsFile,
    ]).toString();
    expect(found).toContain(presented!.publicKey.split(' ')[1]);

    const second = await host.call('clusters.test', sshCluster());
    expect(second).toEqual({
      ok: true,
      value: { ok: true, system: 'local', processors: 3, idle: 3, background: 0, fingerprint: presented!.fingerprint },
    });
  });

  it('a batch system that is not there is named, with what was found; a refused key is an auth failure', async () => {
    const knownHostsFile = path.join(work, 'pbs', 'known_hosts');
    const host = hostWith(knownHostsFile);
    // Trust the server the way the console does, then ask for PBS, which this machine does not have.
    const unknown = await host.call('clusters.test', sshCluster());
    if (!unknown.ok || unknown.value.ok) throw new Error('expected an unknown host key');
    await host.call('clusters.acceptHostKey', {
      host: '127.0.0.1',
      port: sshd.port,
      fingerprint: unknown.value.fingerprint!,
    });
    const pbs = await host.call('clusters.test', { ...sshCluster(), system: 'pbs' });
    expect(pbs.ok && pbs.value).toMatchObject({
      ok: false,
      kind: 'no-batch-system',
      message: expect.stringMatching(/pbs not found .*no pbsnodes/),
    });

    // A key the server does not authorise: an authentication failure, said as such.
    const stranger = path.join(work, 'stranger_key');
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
    const refused = await host.call('clusters.test', {
      ...sshCluster(),
      login: { ...sshCluster().login, identityFile: stranger },
    });
    expect(refused.ok && refused.value).toMatchObject({
      ok: false,
      kind: 'auth-failed',
      message: expect.stringContaining('authentication failed'),
    });
  });

  it('a changed key is refused, and cannot be accepted over the known one', async () => {
    const knownHostsFile = path.join(work, 'changed', 'known_hosts');
    // The server's key types, each known with another key: someone else's server on this address.
    const impostor = mkdtempSync(path.join(work, 'impostor-'));
    const lines = sshd.hostKeys.map((k) => {
      const file = path.join(impostor, k.type);
      execFileSync('/usr/bin/ssh-keygen', [
        '-q',
        '-t',
        k.type === 'ssh-ed25519' ? 'ed25519' : 'ecdsa',
        '-N',
        '',
        '-f',
        file,
      ]);
      return `[127.0.0.1]:${sshd.port} ${readFileSync(`${file}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}`;
    });
    execFileSync('mkdir', ['-p', path.dirname(knownHostsFile)]);
    writeFileSync(knownHostsFile, `${lines.join('\n')}\n`);
    const host = hostWith(knownHostsFile);
    const logins = () => readFileSync(sshd.logFile, 'utf8').match(/Accepted publickey/g)?.length ?? 0;
    const before = logins();

    const test = await host.call('clusters.test', sshCluster());
    expect(test.ok && test.value).toMatchObject({
      ok: false,
      kind: 'host-key-changed',
      message: expect.stringContaining('HOST KEY CHANGED'),
    });
    expect(logins()).toBe(before);

    const accept = await host.call('clusters.acceptHostKey', {
      host: '127.0.0.1',
      port: sshd.port,
      fingerprint: sshd.hostKeys[0]!.fingerprint,
    });
    expect(accept.ok).toBe(false);
    if (!accept.ok) expect(accept.errors[0]!.message).toMatch(/CHANGED|not accepted/);
    expect(readFileSync(knownHostsFile, 'utf8')).toBe(`${lines.join('\n')}\n`);
  });

  it('behind a jump host: each unknown key in turn, fetched again along the route, then the test connects', async () => {
    const knownHostsFile = path.join(work, 'jump', 'known_hosts');
    // Every hop logs in with the test key, as a user's ~/.ssh/config would say.
    const sshConfigFile = path.join(work, 'jump-ssh-config');
    writeFileSync(
      sshConfigFile,
      `Host *\n  User ${sshd.user}\n  IdentityFile ${sshd.clientKey}\n  IdentitiesOnly yes\n`,
    );
    const store = openStore(path.join(mkdtempSync(path.join(work, 'store-')), 'run.db'));
    const host = new Host({
      store,
      workload: 'none',
      clusters: { knownHosts: new KnownHosts(knownHostsFile, []), sshConfigFile },
    });
    hosts.push({ host, store });
    const cluster = {
      ...sshCluster(),
      login: { via: 'ssh', host: '127.0.0.1', port: sshd.port, proxyJump: `127.0.0.1:${jump.port}` },
    };

    const first = await host.call('clusters.test', cluster);
    if (!first.ok || first.value.ok)
      throw new Error(`expected the jump host's unknown key, got ${JSON.stringify(first)}`);
    expect(first.value).toMatchObject({ kind: 'host-key-unknown', host: '127.0.0.1', port: jump.port });
    expect(jump.hostKeys.map((k) => k.fingerprint)).toContain(first.value.fingerprint);
    const wrong = await host.call('clusters.acceptHostKey', {
      host: '127.0.0.1',
      port: jump.port,
      fingerprint: sshd.hostKeys[0]!.fingerprint,
      cluster,
    });
    expect(wrong.ok).toBe(false);
    expect(existsSync(knownHostsFile)).toBe(false);
    expect(
      (
        await host.call('clusters.acceptHostKey', {
          host: '127.0.0.1',
          port: jump.port,
          fingerprint: first.value.fingerprint!,
          cluster,
        })
      ).ok,
    ).toBe(true);

    const second = await host.call('clusters.test', cluster);
    if (!second.ok || second.value.ok)
      throw new Error(`expected the target's unknown key, got ${JSON.stringify(second)}`);
    expect(second.value).toMatchObject({ kind: 'host-key-unknown', port: sshd.port });
    expect(sshd.hostKeys.map((k) => k.fingerprint)).toContain(second.value.fingerprint);
    expect(
      (
        await host.call('clusters.acceptHostKey', {
          host: '127.0.0.1',
          port: sshd.port,
          fingerprint: second.value.fingerprint!,
          cluster,
        })
      ).ok,
    ).toBe(true);

    expect(readFileSync(knownHostsFile, 'utf8').trim().split('\n')).toHaveLength(2);
    const third = await host.call('clusters.test', cluster);
    expect(third).toEqual({
      ok: true,
      value: {
        ok: true,
        system: 'local',
        processors: 3,
        idle: 3,
        background: 0,
        fingerprint: second.value.fingerprint,
      },
    });
  });

  it('a local login needs no SSH: the plain host with its slots', async () => {
    const host = hostWith(path.join(work, 'local', 'known_hosts'));
    const local = {
      name: 'here',
      login: { via: 'local' },
      system: 'local',
      slots: 2,
      workRoot: path.join(work, 'local-root'),
    };
    const test = await host.call('clusters.test', local);
    expect(test).toEqual({ ok: true, value: { ok: true, system: 'local', processors: 2, idle: 2, background: 0 } });
  });
});
