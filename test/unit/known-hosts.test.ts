// known_hosts parsing and matching: plain and hashed names (hashes made here with HMAC-SHA1), [host]:port,
// patterns and negations, several key types, changed and revoked keys, and accepting a key into our own file.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HostKeyChangedError, SshError } from '../../runners/ssh/errors.js';
import {
  checkHostKey,
  fingerprintSha256,
  hashHostName,
  hostLookupName,
  KnownHosts,
  parseKnownHosts,
  preferredHostKeyAlgorithms,
  presentedHostKey,
  verdictError,
} from '../../runners/ssh/known-hosts.js';
import { sshKeyPair } from '../support/ssh-keys.js';

/** A public key blob of `type` and its known_hosts base64, as a server would present it. */
function hostKey(type: 'ed25519' | 'ecdsa'): { blob: Buffer; base64: string; type: string } {
  const pair = sshKeyPair(type, type === 'ecdsa' ? { bits: 256 } : {});
  const [keyType, base64] = pair.public.split(' ') as [string, string];
  return { blob: Buffer.from(base64, 'base64'), base64, type: keyType };
}

const ed = hostKey('ed25519');
const ed2 = hostKey('ed25519');
const ec = hostKey('ecdsa');

/** A hashed host field computed here independently: |1|base64(salt)|base64(HMAC-SHA1(salt, name)). */
function hashed(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-known-hosts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('parseKnownHosts', () => {
  it('reads plain, hashed, marker and comment lines, and reports malformed ones by line', () => {
    const text = [
      '# a comment',
      '',
      `login.example.org,10.0.0.1 ${ed.type} ${ed.base64} a comment`,
      `${hashed('[login2]:2222')} ${ec.type} ${ec.base64}`,
      `@revoked * ${ed2.type} ${ed2.base64}`,
      `@cert-authority *.example.org ${ed.type} ${ed.base64}`,
      'only-two fields',
      `bad ${ed.type} !!!notbase64`,
      `mismatch ssh-rsa ${ed.base64}`,
      `|1|short|hash ${ed.type} ${ed.base64}`,
      `@weird host ${ed.type} ${ed.base64}`,
    ].join('\n');
    const { entries, problems } = parseKnownHosts(text, 'kh');
    expect(entries.map((e) => [e.line, e.marker, e.keyType])).toEqual([
      [3, null, ed.type],
      [4, null, ec.type],
      [5, 'revoked', ed2.type],
      [6, 'cert-authority', ed.type],
    ]);
    expect(entries[0]!.hosts).toEqual({ patterns: ['login.example.org', '10.0.0.1'] });
    expect(problems.map((p) => p.line)).toEqual([7, 8, 9, 10, 11]);
    expect(problems.find((p) => p.line === 9)!.message).toContain('does not match');
  });
});

describe('checkHostKey', () => {
  const entries = (text: string) => parseKnownHosts(text, 'kh').entries;

  it('trusts a key listed under the host name, plain or hashed', () => {
    expect(checkHostKey(entries(`login ${ed.type} ${ed.base64}`), 'login', ed.blob).status).toBe('trusted');
    expect(checkHostKey(entries(`${hashed('login')} ${ed.type} ${ed.base64}`), 'login', ed.blob).status).toBe(
      'trusted',
    );
    // The hash covers the exact lookup name: another name does not match it.
    expect(checkHostKey(entries(`${hashed('login')} ${ed.type} ${ed.base64}`), 'login2', ed.blob).status).toBe(
      'unknown',
    );
  });

  it('uses [host]:port for ports other than 22, and the bare name for 22', () => {
    expect(hostLookupName('Login.Example.ORG', 22)).toBe('login.example.org');
    expect(hostLookupName('login', 2222)).toBe('[login]:2222');
    const list = entries(`[login]:2222 ${ed.type} ${ed.base64}\n${hashed('[login]:2200')} ${ec.type} ${ec.base64}`);
    expect(checkHostKey(list, hostLookupName('login', 2222), ed.blob).status).toBe('trusted');
    expect(checkHostKey(list, hostLookupName('login', 22), ed.blob).status).toBe('unknown');
    expect(checkHostKey(list, hostLookupName('login', 2200), ec.blob).status).toBe('trusted');
    expect(checkHostKey(list, hostLookupName('login', 2201), ec.blob).status).toBe('unknown');
  });

  it('matches wildcard and negated patterns case-insensitively', () => {
    const list = entries(`*.example.org,!evil.example.org,node?? ${ed.type} ${ed.base64}`);
    expect(checkHostKey(list, 'login.example.org', ed.blob).status).toBe('trusted');
    expect(checkHostKey(list, 'LOGIN.Example.Org'.toLowerCase(), ed.blob).status).toBe('trusted');
    expect(checkHostKey(list, 'evil.example.org', ed.blob).status).toBe('unknown');
    expect(checkHostKey(list, 'node42', ed.blob).status).toBe('trusted');
    expect(checkHostKey(list, 'node4', ed.blob).status).toBe('unknown');
    expect(checkHostKey(list, 'example.org', ed.blob).status).toBe('unknown');
  });

  it('calls a different key of a known type changed, and a key of a new type unknown', () => {
    const list = entries(`login ${ed.type} ${ed.base64}\nlogin ${ec.type} ${ec.base64}`);
    const changed = checkHostKey(list, 'login', ed2.blob);
    expect(changed.status).toBe('changed');
    expect(changed.status === 'changed' && changed.known.map((e) => e.line)).toEqual([1]);
    // Several key types for one host: each is checked against its own.
    expect(checkHostKey(list, 'login', ec.blob).status).toBe('trusted');
    const onlyEcdsa = checkHostKey(entries(`login ${ec.type} ${ec.base64}`), 'login', ed.blob);
    expect(onlyEcdsa).toEqual({ status: 'unknown', knownTypes: [ec.type] });
  });

  it('refuses a revoked key even when it is also listed as trusted, and ignores @cert-authority lines', () => {
    const list = entries(`login ${ed.type} ${ed.base64}\n@revoked * ${ed.type} ${ed.base64}`);
    expect(checkHostKey(list, 'login', ed.blob).status).toBe('revoked');
    expect(checkHostKey(entries(`@cert-authority login ${ed.type} ${ed.base64}`), 'login', ed.blob).status).toBe(
      'unknown',
    );
  });

  it('puts the algorithms of the known key types first', () => {
    const list = entries(`[login]:2222 ${ec.type} ${ec.base64}`);
    expect(preferredHostKeyAlgorithms(list, '[login]:2222').slice(0, 2)).toEqual([
      'ecdsa-sha2-nistp256',
      'ssh-ed25519',
    ]);
    expect(preferredHostKeyAlgorithms(list, 'other')[0]).toBe('ssh-ed25519');
    const rsa = entries(`h ssh-rsa ${rsaBase64()}`);
    expect(preferredHostKeyAlgorithms(rsa, 'h').slice(0, 3)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
  });
});

describe('fingerprints and errors', () => {
  it('prints SHA256 fingerprints as OpenSSH does: unpadded base64', () => {
    const expected = createHash('sha256').update(ed.blob).digest('base64').replace(/=+$/, '');
    expect(fingerprintSha256(ed.blob)).toBe(`SHA256:${expected}`);
    expect(fingerprintSha256(ed.blob)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('names the host and both fingerprints when a key changed', () => {
    const list = parseKnownHosts(`[login]:2222 ${ed.type} ${ed.base64}`, '/k/known_hosts').entries;
    const presented = presentedHostKey('[login]:2222', ed2.blob);
    const error = verdictError(checkHostKey(list, '[login]:2222', ed2.blob), presented);
    expect(error).toBeInstanceOf(HostKeyChangedError);
    expect(error!.message).toContain('[login]:2222');
    expect(error!.message).toContain(fingerprintSha256(ed2.blob));
    expect(error!.message).toContain(fingerprintSha256(ed.blob));
    expect(error!.message).toContain('/k/known_hosts:1');
    expect(error!.toFailure()).toMatchObject({
      kind: 'host-key-changed',
      knownFingerprints: [fingerprintSha256(ed.blob)],
    });
  });
});

describe('KnownHosts', () => {
  it('reads every file, a missing one as empty, and accepts a key as a hashed line in its own file only', async () => {
    const own = path.join(tmp, 'sub', 'own_known_hosts');
    const user = path.join(tmp, 'user_known_hosts');
    writeFileSync(user, `[other]:2222 ${ec.type} ${ec.base64}\n`);
    const store = new KnownHosts(own, [user, path.join(tmp, 'missing')]);
    expect((await store.load()).entries).toHaveLength(1);

    const presented = presentedHostKey('[login]:2222', ed.blob);
    await store.accept(presented);
    await store.accept(presented); // already trusted: no second line
    const lines = readFileSync(own, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^\\|1\\|[^|]+\\|[^ ]+ ${ed.type} ${ed.base64.replace(/[+/]/g, '\\$&')}$`));
    expect(lines[0]).not.toContain('login');
    expect(readFileSync(user, 'utf8')).not.toContain(ed.base64);
    expect(checkHostKey((await store.load()).entries, '[login]:2222', ed.blob).status).toBe('trusted');
  });

  it('refuses to accept a key whose fingerprint was altered, or one that replaces a known key', async () => {
    const own = path.join(tmp, 'refuse_known_hosts');
    writeFileSync(own, `login ${ed.type} ${ed.base64}\n`);
    const store = new KnownHosts(own, []);
    const forged = { ...presentedHostKey('new', ed2.blob), fingerprint: fingerprintSha256(ed.blob) };
    await expect(store.accept(forged)).rejects.toThrow(/does not match the key/);
    await expect(store.accept(presentedHostKey('login', ed2.blob))).rejects.toBeInstanceOf(HostKeyChangedError);
    await expect(store.accept(presentedHostKey('login', ed2.blob))).rejects.toBeInstanceOf(SshError);
    expect(readFileSync(own, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('hashes names the way OpenSSH checks them', () => {
    const salt = randomBytes(20);
    const line = hashHostName('[h]:22', salt);
    expect(line).toBe(`|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('[h]:22').digest('base64')}`);
  });
});

let rsaCache: string | undefined;
function rsaBase64(): string {
  rsaCache ??= sshKeyPair('rsa', { bits: 1024 }).public.split(' ')[1]!;
  return rsaCache;
}
