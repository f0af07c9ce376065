// Live clusters' configurations and secrets through the host's API: checked both ways with errors naming the
// field, kept in the store's `clusters` table; secrets encrypted by the (stubbed) OS keychain with only ciphertext
// on disk, or held for the session in web mode — never in an answer, never written in plain text.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { safeStorageCipher, type SafeStorageLike } from '../../electron/live/cluster-secrets.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { liveClusterSchema } from '../../runners/live/types.js';

const dirs: string[] = [];
const opened: Array<{ host: Host; store?: Store }> = [];
afterEach(() => {
  for (const { host, store } of opened.splice(0)) {
    host.stop();
    store?.close();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-clusters-host-'));
  dirs.push(dir);
  return dir;
}

/** A stand-in for Electron's safeStorage: real AES-256-GCM under a key only this "keychain" holds. */
function stubSafeStorage(): SafeStorageLike & { key: Buffer } {
  const key = randomBytes(32);
  return {
    key,
    isEncryptionAvailable: () => true,
    encryptString(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString(encrypted) {
      const decipher = createDecipheriv('aes-256-gcm', key, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

function hostOn(file: string | undefined, safeStorage?: SafeStorageLike) {
  const store = file ? openStore(file) : undefined;
  const cipher = safeStorageCipher(safeStorage);
  const host = new Host({
    ...(store ? { store } : {}),
    workload: 'none',
    clusters: { knownHosts: new KnownHosts(path.join(tempDir(), 'known_hosts'), []), ...(cipher ? { cipher } : {}) },
  });
  opened.push({ host, ...(store ? { store } : {}) });
  return host;
}

const lab = {
  name: 'lab1',
  login: { via: 'ssh', host: 'login.example.org', user: 'alice' },
  system: 'slurm',
  threshold: 0.5,
};
/** A request on lab1's own destination hop, as its connection makes it. */
const onLab = { user: 'alice', host: 'login.example.org', port: 22, destination: true, connection: 'lab1' };

describe('clusters.* configuration', () => {
  it('saves, lists with defaults filled in, changes one only when asked to (clusters.update), removes, and keeps them in the store', () => {
    const file = path.join(tempDir(), 'run.db');
    const host = hostOn(file);
    expect(host.call('clusters.save', lab)).toEqual({ ok: true, value: { name: 'lab1' } });
    expect(host.call('clusters.save', { name: 'here', login: { via: 'local' }, system: 'local', slots: 4 }).ok).toBe(
      true,
    );
    const listed = host.call('clusters.list', {});
    expect(listed.ok && listed.value.clusters.map((c) => c.config.name)).toEqual(['here', 'lab1']);
    expect(listed.ok && listed.value.clusters[1]!.config).toEqual(liveClusterSchema.parse(lab));
    expect(listed.ok && listed.value.clusters[1]!.config).toMatchObject({
      workRoot: '.concertina',
      pollIntervalS: 10,
      env: {},
      login: { keepaliveS: 20 },
    });

    // An add never replaces: the name taken is refused at its field, and the cluster is as it was.
    expect(host.call('clusters.save', { ...lab, threshold: 0.8 })).toEqual({
      ok: false,
      errors: [
        { path: 'name', message: 'a cluster named "lab1" is configured already: edit it, or choose another name' },
      ],
    });
    const unchanged = host.call('clusters.list', {});
    expect(unchanged.ok && unchanged.value.clusters[1]!.config.threshold).toBe(0.5);
    expect(host.call('clusters.update', { name: 'lab1', config: { ...lab, threshold: 0.8 } })).toEqual({
      ok: true,
      value: { name: 'lab1' },
    });
    expect(host.call('clusters.update', { name: 'gone', config: lab })).toEqual({
      ok: false,
      errors: [{ path: 'name', message: 'names no cluster ("gone")' }],
    });
    host.stop();
    opened.splice(0).forEach((o) => o.store?.close());

    const again = hostOn(file);
    const kept = again.call('clusters.list', {});
    expect(kept.ok && kept.value.clusters.map((c) => [c.config.name, c.config.threshold])).toEqual([
      ['here', 1],
      ['lab1', 0.8],
    ]);
    expect(again.call('clusters.remove', { name: 'here' })).toEqual({ ok: true, value: { name: 'here' } });
    expect(again.call('clusters.remove', { name: 'here' })).toEqual({
      ok: false,
      errors: [{ path: 'name', message: 'names no cluster ("here")' }],
    });
    const left = again.call('clusters.list', {});
    expect(left.ok && left.value.clusters.map((c) => c.config.name)).toEqual(['lab1']);
  });

  it('refuses bad configurations with errors naming the field', () => {
    const host = hostOn(undefined);
    const errorsOf = (config: unknown) => {
      const r = host.call('clusters.save', config);
      return r.ok ? [] : r.errors.map((e) => e.path);
    };
    expect(errorsOf({ ...lab, name: 'no spaces' })).toEqual(['name']);
    expect(errorsOf({ ...lab, login: { via: 'ssh', host: '' } })).toEqual(['login.host']);
    expect(errorsOf({ ...lab, login: { via: 'ssh', host: 'h', port: 70000 } })).toEqual(['login.port']);
    expect(errorsOf({ ...lab, login: { via: 'ssh', host: 'h', keepaliveS: 5 } })).toEqual(['login.keepaliveS']);
    expect(errorsOf({ ...lab, system: 'lsf' })).toEqual(['system']);
    expect(errorsOf({ ...lab, threshold: 0 })).toEqual(['threshold']);
    expect(errorsOf({ ...lab, env: { 'BAD NAME': 'x' } })[0]).toMatch(/^env/);
    expect(errorsOf({ ...lab, surprise: 1 })).toHaveLength(1);
    // Batch options: each only for the systems it applies to, each submit option one non-empty word.
    expect(errorsOf({ ...lab, batch: { partition: 'short', account: 'proj', extraArgs: ['--qos=low'] } })).toEqual([]);
    expect(errorsOf({ ...lab, system: 'sge', batch: { partition: 'short', queue: 'all.q' } })).toEqual([
      'batch.partition',
    ]);
    expect(errorsOf({ ...lab, system: 'slurm', batch: { flavour: 'torque' } })).toEqual(['batch.flavour']);
    expect(errorsOf({ ...lab, batch: { extraArgs: ['--qos=low', ''] } })).toEqual(['batch.extraArgs[1]']);
    const refused = host.call('clusters.save', { ...lab, system: 'local', batch: { queue: 'q' } });
    expect(!refused.ok && refused.errors[0]!.message).toBe('applies to Grid Engine and PBS only, not local');
    // Refused by its schema before any connection is tried (the dispatcher answers at once, not a promise).
    const accept: unknown = host.dispatch('clusters.acceptHostKey', { host: 'h', fingerprint: 'MD5:aa' });
    expect(accept).toEqual({
      ok: false,
      errors: [{ path: 'fingerprint', message: expect.stringContaining('SHA256') }],
    });
  });
});

describe('clusters.update renames only when asked', () => {
  it('renames a cluster with its secrets; a name taken is refused at config.name and nothing changes', () => {
    const file = path.join(tempDir(), 'run.db');
    const host = hostOn(file, stubSafeStorage());
    const here = { name: 'here', login: { via: 'local' }, system: 'local', slots: 4 };
    host.call('clusters.save', lab);
    host.call('clusters.save', here);
    host.call('clusters.setSecret', { cluster: 'lab1', kind: 'password', value: 'pw' });
    const names = () => {
      const r = host.call('clusters.list', {});
      return r.ok
        ? r.value.clusters.map(
            (c) =>
              `${c.config.name}:${c.config.login.via === 'ssh' ? c.config.login.host : 'local'}:${c.secrets.join('+')}`,
          )
        : [];
    };

    // Onto another cluster's name: refused, both kept as they were.
    const onto = host.call('clusters.update', { name: 'lab1', config: { ...lab, name: 'here' } });
    expect(onto).toEqual({
      ok: false,
      errors: [{ path: 'config.name', message: 'a cluster named "here" is configured already: choose another name' }],
    });
    expect(names()).toEqual(['here:local:', 'lab1:login.example.org:password']);
    // Field errors of the new configuration are named under config.
    const bad = host.call('clusters.update', { name: 'lab1', config: { ...lab, login: { via: 'ssh', host: '' } } });
    expect(!bad.ok && bad.errors.map((e) => e.path)).toEqual(['config.login.host']);

    const renamed = host.call('clusters.update', {
      name: 'lab1',
      config: { ...lab, name: 'lab2', login: { via: 'ssh', host: 'login2.example.org' } },
    });
    expect(renamed).toEqual({ ok: true, value: { name: 'lab2', renamedFrom: 'lab1' } });
    expect(names()).toEqual(['here:local:', 'lab2:login2.example.org:password']);
    // The secret went with it (the same ciphertext), and none is left under the old name.
    const store = opened[0]!.store!;
    expect([store.secret('lab1', 'password'), typeof store.secret('lab2', 'password')]).toEqual([undefined, 'string']);
  });

  it('renames in memory too (no store): session secrets follow', () => {
    const host = hostOn(undefined);
    host.call('clusters.save', lab);
    host.call('clusters.setSecret', { cluster: 'lab1', kind: 'passphrase', value: 'pp' });
    expect(host.call('clusters.save', lab).ok).toBe(false);
    expect(host.call('clusters.update', { name: 'lab1', config: { ...lab, name: 'lab3' } })).toEqual({
      ok: true,
      value: { name: 'lab3', renamedFrom: 'lab1' },
    });
    const r = host.call('clusters.list', {});
    expect(r.ok && r.value.clusters.map((c) => [c.config.name, c.secrets])).toEqual([['lab3', ['passphrase']]]);
  });
});

describe('clusters.setSecret', () => {
  const PASSWORD = 'correct horse battery staple ✓';

  it('with the OS keychain: only ciphertext in the store file, read back after a restart, never in an answer', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'run.db');
    const keychain = stubSafeStorage();
    const host = hostOn(file, keychain);
    host.call('clusters.save', lab);
    const answer = host.call('clusters.setSecret', { cluster: 'lab1', kind: 'password', value: PASSWORD });
    expect(answer).toEqual({ ok: true, value: { cluster: 'lab1', kind: 'password', persistent: true } });
    expect(JSON.stringify(host.call('clusters.list', {}))).not.toContain(PASSWORD);
    const listed = host.call('clusters.list', {});
    expect(listed.ok && listed.value).toMatchObject({ secretsPersist: true, clusters: [{ secrets: ['password'] }] });
    host.stop();
    opened.splice(0).forEach((o) => o.store?.close());

    // Every file of the store (database, WAL, shared memory) in raw bytes, in UTF-8 and UTF-16.
    for (const name of readdirSync(dir)) {
      const bytes = readFileSync(path.join(dir, name));
      expect(bytes.includes(Buffer.from(PASSWORD, 'utf8')), name).toBe(false);
      expect(bytes.includes(Buffer.from(PASSWORD, 'utf16le')), name).toBe(false);
      expect(bytes.includes(Buffer.from('correct horse')), name).toBe(false);
    }

    const again = hostOn(file, keychain);
    const source = again.clusters.secrets.sourceFor(liveClusterSchema.parse(lab));
    expect(await source.get({ kind: 'password', ...onLab })).toBe(PASSWORD);
    expect(await source.get({ kind: 'passphrase', keyFile: '/k', ...onLab })).toBeUndefined();
    // Another keychain (another user or machine) cannot read it.
    const stranger = hostOn(file, stubSafeStorage());
    await expect(
      stranger.clusters.secrets.sourceFor(liveClusterSchema.parse(lab)).get({ kind: 'password', ...onLab }),
    ).rejects.toThrow();
  });

  it('in web mode (no keychain): held for the session only, asked again after a restart, never written', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'run.db');
    const host = hostOn(file);
    host.call('clusters.save', lab);
    expect(host.call('clusters.setSecret', { cluster: 'lab1', kind: 'passphrase', value: PASSWORD })).toEqual({
      ok: true,
      value: { cluster: 'lab1', kind: 'passphrase', persistent: false },
    });
    const source = host.clusters.secrets.sourceFor(liveClusterSchema.parse(lab));
    expect(await source.get({ kind: 'passphrase', keyFile: '/home/alice/.ssh/id_ed25519', ...onLab })).toBe(PASSWORD);
    host.stop();
    opened.splice(0).forEach((o) => o.store?.close());
    for (const name of readdirSync(dir))
      expect(readFileSync(path.join(dir, name)).includes(Buffer.from(PASSWORD)), name).toBe(false);

    const restarted = hostOn(file);
    const listed = restarted.call('clusters.list', {});
    expect(listed.ok && listed.value).toMatchObject({ secretsPersist: false, clusters: [{ secrets: [] }] });
    expect(
      await restarted.clusters.secrets
        .sourceFor(liveClusterSchema.parse(lab))
        .get({ kind: 'passphrase', keyFile: '/k', ...onLab }),
    ).toBeUndefined();
  });

  it('names the field of a bad request and keeps the value out of the error', () => {
    const host = hostOn(undefined);
    expect(host.call('clusters.setSecret', { cluster: 'nowhere', kind: 'password', value: PASSWORD })).toEqual({
      ok: false,
      errors: [{ path: 'cluster', message: 'names no cluster ("nowhere"): save the cluster first' }],
    });
    host.call('clusters.save', lab);
    const bad = host.call('clusters.setSecret', { cluster: 'lab1', kind: 'pin', value: PASSWORD });
    expect(bad.ok || bad.errors.map((e) => e.path)).toEqual(['kind']);
    expect(JSON.stringify(bad)).not.toContain(PASSWORD);
    expect(host.call('clusters.setSecret', { cluster: 'lab1', kind: 'password', value: '' })).toEqual({
      ok: false,
      errors: [{ path: 'value', message: 'must not be empty' }],
    });
  });

  it("gives the password and passphrase on the cluster's own hop only, never to a jump host or another cluster's connection", async () => {
    const host = hostOn(undefined);
    const jumped = { ...lab, login: { ...lab.login, proxyJump: 'bastion.example.org' } };
    host.call('clusters.save', jumped);
    host.call('clusters.setSecret', { cluster: 'lab1', kind: 'password', value: PASSWORD });
    host.call('clusters.setSecret', { cluster: 'lab1', kind: 'passphrase', value: PASSWORD });
    const source = host.clusters.secrets.sourceFor(liveClusterSchema.parse(jumped));
    const bastion = { user: 'alice', host: 'bastion.example.org', port: 22, destination: false, connection: 'lab1' };
    expect(await source.get({ kind: 'password', ...bastion })).toBeUndefined();
    expect(
      await source.get({ kind: 'passphrase', keyFile: '/home/alice/.ssh/id_ed25519', ...bastion }),
    ).toBeUndefined();
    expect(await source.get({ kind: 'password', ...onLab })).toBe(PASSWORD);
    expect(await source.get({ kind: 'password', ...onLab, connection: 'lab2' })).toBeUndefined();
    // Setting a secret is a change a refused connection may try again at once for.
    const revision = source.revision!();
    host.call('clusters.setSecret', { cluster: 'lab1', kind: 'password', value: 'another' });
    expect(source.revision!()).not.toBe(revision);
  });
});

describe('clusters.test on this machine', () => {
  it('names a Grid Engine whose qstat never answers as not found, instead of waiting for it', async () => {
    // A qsub and a qstat that hangs, as a client whose qmaster does not answer: ahead of the real ones on PATH.
    const bin = tempDir();
    writeFileSync(path.join(bin, 'qsub'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(path.join(bin, 'qstat'), '#!/bin/sh\nexec sleep 120\n', { mode: 0o755 });
    const host = hostOn(undefined);
    const cluster = {
      name: 'here',
      login: { via: 'local' },
      system: 'sge',
      workRoot: tempDir(),
      env: { PATH: `${bin}:${process.env.PATH}` },
    };
    const answer = await host.call('clusters.test', cluster);
    expect(answer.ok && answer.value).toMatchObject({
      ok: false,
      kind: 'no-batch-system',
      message: expect.stringMatching(/^sge not found/),
    });
  }, 40_000);
});
