// A cluster whose login is refused when a live run starts is not hammered with logins: it is tried again with a
// growing backoff (up to the SSH layer's 5 minutes), and at once when its secrets change. Against an in-process SSH
// server that runs commands on this machine (the cluster is a plain host behind it) and counts every login.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorld } from '../../runners/live/live-world.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { MemorySecretSource } from '../../runners/ssh/secrets.js';
import { startFakeSshd, type FakeSshd } from '../support/ssh-server.js';

let sshd: FakeSshd | undefined;
let world: LiveWorld | undefined;
let dir: string | undefined;

afterEach(async () => {
  await world?.stop();
  await sshd?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  world = sshd = dir = undefined;
});


describe('a cluster whose login is refused at start', () => {
  it('is tried again with a growing backoff, and at once when its password changes', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-rejoin-login-'));
    sshd = await startFakeSshd({ passwords: { alice: 'right' } });
    const knownHostsFile = path.join(dir, 'known_hosts');
    writeFileSync(knownHostsFile, `${sshd.knownHostsLine}\n`);
    const sshConfigFile = path.join(dir, 'ssh_config');
    writeFileSync(sshConfigFile, '');
    const secrets = new MemorySecretSource().set({ kind: 'password', user: 'alice', host: '127.0.0.1', port: sshd.port }, 'wrong');
    world = createLiveWorld({
      clusters: [
        { name: 'here', login: { via: 'local' }, system: 'local', slots: 1, workRoot: path.join(dir, 'here') },
        { name: 'far', login: { via: 'ssh', host: '127.0.0.1', port: sshd.port, user: 'alice' }, system: 'local', slots: 2, workRoot: path.join(dir, 'far') },
      ],
      knownHosts: new KnownHosts(knownHostsFile, []),
      sshConfigFile,
      secrets,
      rejoin: { initialDelayMs: 400 },
      log: () => {},
    });
    const started = Date.now();
    await world.start();
    const far = () => world!.clusters().find((c) => c.name === 'far')!;
    expect(far().connection).toBe('lost');
    expect(far().lastError).toMatch(/authentication failed/);
    const logins = () => sshd!.attempts.filter((a) => a.method === 'password').length;
    // Tries at about 0, 0.4, 1.2 and 2.8 s (each wait ±20 %), the next one 3.2 s later: not at every step of the
    // 400 ms timer that watches for new secrets.
    await expect.poll(logins, { timeout: 8_000, interval: 20 }).toBe(4);
    expect(Date.now() - started).toBeGreaterThan(1_900);
    // The right password is tried within a step of that timer, seconds before the backoff's next try.
    secrets.set({ kind: 'password', user: 'alice', host: '127.0.0.1', port: sshd.port }, 'right');
    const changed = Date.now();
    await expect.poll(() => far().connection, { timeout: 5_000, interval: 20 }).toBe('open');
    expect(Date.now() - changed).toBeLessThan(1_500);
    expect(sshd.attempts.filter((a) => a.password === 'right')).toHaveLength(1);
  }, 20_000);
});
