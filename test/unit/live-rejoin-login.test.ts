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
  // A command the stop killed may still be writing into it as it ends: removed once nothing writes.
  const folder = dir;
  if (folder) await expect.poll(() => removed(folder), { timeout: 30_000, interval: 50 }).toBe(true);
  world = sshd = dir = undefined;
});

function removed(folder: string): boolean {
  try {
    rmSync(folder, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

describe('a cluster whose login is refused at start', () => {
  it('is tried again with a growing backoff, and at once when its password changes', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-rejoin-login-'));
    sshd = await startFakeSshd({ passwords: { alice: 'right' } });
    const knownHostsFile = path.join(dir, 'known_hosts');
    writeFileSync(knownHostsFile, `${sshd.knownHostsLine}\n`);
    const sshConfigFile = path.join(dir, 'ssh_config');
    writeFileSync(sshConfigFile, '');
    const logged: string[] = [];
    const secrets = new MemorySecretSource().set(
      { kind: 'password', user: 'alice', host: '127.0.0.1', port: sshd.port },
      'wrong',
    );
    world = createLiveWorld({
      clusters: [
        { name: 'here', login: { via: 'local' }, system: 'local', slots: 1, workRoot: path.join(dir, 'here') },
        {
          name: 'far',
          login: { via: 'ssh', host: '127.0.0.1', port: sshd.port, user: 'alice' },
          system: 'local',
          slots: 2,
          workRoot: path.join(dir, 'far'),
        },
      ],
      knownHosts: new KnownHosts(knownHostsFile, []),
      sshConfigFile,
      secrets,
      rejoin: { initialDelayMs: 400 },
      log: (text) => logged.push(text),
    });
    const started = Date.now();
    await world.start();
    const far = () => world!.clusters().find((c) => c.name === 'far')!;
    expect(far().connection).toBe('lost');
    expect(far().lastError).toMatch(/authentication failed/);
    const logins = () => sshd!.attempts.filter((a) => a.method === 'password').length;
    await expect.poll(logins, { timeout: 30_000, interval: 20 }).toBe(4);
    // Backoff, not a try at every step of the 400 ms timer that watches for new secrets: try k comes at least
    // 0.8 × 400 ms × (2^(k-1) − 1) after the first, so n tries need that long. A loaded machine only makes the
    // elapsed time longer, never the bound tighter; a try at every step would reach 4 in about 1.2 s, where 3 fit.
    const elapsed = Date.now() - started;
    expect(logins()).toBeLessThanOrEqual(1 + Math.log2(elapsed / 320 + 1));
    // New secrets are tried at their first sight, not when the backoff's wait is over (the log says which).
    secrets.set({ kind: 'password', user: 'alice', host: '127.0.0.1', port: sshd.port }, 'right');
    await expect.poll(() => far().connection, { timeout: 30_000, interval: 20 }).toBe('open');
    expect(logged).toContain('far: its secrets changed: trying to log in again now');
    expect(sshd.attempts.filter((a) => a.password === 'right')).toHaveLength(1);
    expect(logins()).toBe(5);
  }, 60_000);
});
