// Authentication and channel handling against an in-process ssh2 server (no root, no sshd needed): a password and
// a key passphrase come from the SecretSource and nowhere else, a missing or wrong one fails clearly without the
// secret in the message, host keys are checked before any credential is sent, and a timeout sends KILL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ssh2, { type AuthContext, type Connection, type ServerChannel } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandTimeoutError } from '../../runners/shell/errors.js';
import { SshConnection } from '../../runners/ssh/connection.js';
import { HostKeyUnknownError, SshError } from '../../runners/ssh/errors.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { MemorySecretSource } from '../../runners/ssh/secrets.js';
import type { ResolvedHost } from '../../runners/ssh/ssh-config.js';
import { sshKeyPair } from '../support/ssh-keys.js';

const PASSWORD = 'correct horse battery staple';
const PASSPHRASE = 'le mot de passe';

const hostPair = sshKeyPair('ed25519');
const userPair = sshKeyPair('ed25519', { passphrase: PASSPHRASE, cipher: 'aes256-ctr', rounds: 16 });
const userPublic = ssh2.utils.parseKey(userPair.public) as ssh2.ParsedKey;

let server: ssh2.Server;
let port: number;
let dir: string;
let keyFile: string;
const attempts: string[] = [];
const serverSide: Connection[] = [];
const signals: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-ssh-auth-'));
  keyFile = path.join(dir, 'id_ed25519');
  writeFileSync(keyFile, userPair.private, { mode: 0o600 });
  server = new ssh2.Server({ hostKeys: [hostPair.private] }, (client: Connection) => {
    serverSide.push(client);
    client.on('error', () => {});
    client.on('authentication', (ctx: AuthContext) => {
      attempts.push(ctx.method);
      if (ctx.method === 'password' && ctx.username === 'alice' && ctx.password === PASSWORD) return ctx.accept();
      if (ctx.method === 'publickey' && ctx.username === 'bob' && ctx.key.algo === userPublic.type && ctx.key.data.equals(userPublic.getPublicSSH())) {
        if (!ctx.signature) return ctx.accept(); // the client asks whether this key would do
        if (ctx.blob && userPublic.verify(ctx.blob, ctx.signature, ctx.hashAlgo)) return ctx.accept();
      }
      ctx.reject(['password', 'publickey']);
    });
    client.on('session', (accept) => {
      const session = accept();
      session.on('exec', (acceptExec, _reject, info) => {
        const channel: ServerChannel = acceptExec();
        // A command that never ends; records the signals it receives.
        if (info.command === 'hang') {
          session.on('signal', (_a, _r, { name }) => {
            signals.push(name);
            channel.exit(name);
            channel.close();
          });
          return;
        }
        channel.write('hello\n');
        channel.exit(0);
        channel.close();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const client of serverSide) client.end();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function host(user: string, identityFiles: string[] = []): ResolvedHost {
  return { alias: 'inproc', hostName: '127.0.0.1', port, user, identityFiles, identityFilesExplicit: identityFiles.length > 0, identitiesOnly: true, proxyJump: [] };
}

function knownHosts(trusted = true): KnownHosts {
  const file = path.join(mkdtempSync(path.join(dir, 'kh-')), 'known_hosts');
  writeFileSync(file, trusted ? `[127.0.0.1]:${port} ${hostPair.public.split(' ').slice(0, 2).join(' ')}\n` : '');
  return new KnownHosts(file, []);
}

async function failure(promise: Promise<unknown>): Promise<SshError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SshError);
  return error as SshError;
}

describe('authentication', () => {
  it('logs in with the password from the secret source', async () => {
    const secrets = new MemorySecretSource().set({ kind: 'password', user: 'alice', host: '127.0.0.1', port }, PASSWORD);
    const connection = new SshConnection({ host: host('alice'), knownHosts: knownHosts(), secrets });
    const result = await connection.exec('anything', '');
    expect(result.stdout.toString()).toBe('hello\n');
    expect(secrets.asked).toContain(`password:alice@127.0.0.1:${port}`);
    await connection.close();
  });

  it('fails clearly when no password is stored, and never puts a secret in the message', async () => {
    const wrong = new MemorySecretSource().set({ kind: 'password', user: 'alice', host: '127.0.0.1', port }, 'not it');
    const connection = new SshConnection({ host: host('alice'), knownHosts: knownHosts(), secrets: wrong });
    const error = await failure(connection.connect());
    expect(error.kind).toBe('auth-failed');
    expect(error.message).toContain('tried password');
    expect(error.message).not.toContain('not it');
    const none = new SshConnection({ host: host('alice'), knownHosts: knownHosts(), secrets: new MemorySecretSource() });
    expect((await failure(none.connect())).message).toContain(`no password stored for alice@127.0.0.1:${port}`);
  });

  it('decrypts a key file with the passphrase from the secret source', async () => {
    const secrets = new MemorySecretSource().set({ kind: 'passphrase', keyFile }, PASSPHRASE);
    const connection = new SshConnection({ host: host('bob', [keyFile]), knownHosts: knownHosts(), secrets });
    expect((await connection.exec('anything', '')).code).toBe(0);
    expect(secrets.asked).toContain(`passphrase:${keyFile}`);
    await connection.close();
  });

  it('says why an encrypted key could not be used', async () => {
    const without = new SshConnection({ host: host('bob', [keyFile]), knownHosts: knownHosts(), secrets: new MemorySecretSource() });
    expect((await failure(without.connect())).message).toContain(`key ${keyFile} is encrypted and no passphrase is stored for it`);
    const wrong = new SshConnection({ host: host('bob', [keyFile]), knownHosts: knownHosts(), secrets: new MemorySecretSource().set({ kind: 'passphrase', keyFile }, 'nope') });
    const error = await failure(wrong.connect());
    expect(error.message).toContain('the stored passphrase does not decrypt it');
    expect(error.message).not.toContain('nope');
  });

  it('sends no credential to a host whose key is not known', async () => {
    const before = attempts.length;
    const secrets = new MemorySecretSource().set({ kind: 'password', user: 'alice', host: '127.0.0.1', port }, PASSWORD);
    const connection = new SshConnection({ host: host('alice'), knownHosts: knownHosts(false), secrets });
    expect(await failure(connection.connect())).toBeInstanceOf(HostKeyUnknownError);
    expect(attempts.length).toBe(before);
    expect(secrets.asked).toEqual([]);
  });
});

describe('channels', () => {
  it('sends KILL to a command past its timeout and rejects with CommandTimeoutError', async () => {
    const secrets = new MemorySecretSource().set({ kind: 'password', user: 'alice', host: '127.0.0.1', port }, PASSWORD);
    const connection = new SshConnection({ host: host('alice'), knownHosts: knownHosts(), secrets });
    const error = await connection.exec('hang', '', { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandTimeoutError);
    for (let i = 0; i < 100 && signals.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(signals).toEqual(['KILL']);
    // The slot was given back: the cap of 8 is free again.
    await new Promise((r) => setTimeout(r, 50));
    expect(connection.limiter.inUse).toBe(0);
    await connection.close();
  });

  it('validates the keepalive interval (15–30 s)', () => {
    expect(() => new SshConnection({ host: host('alice'), knownHosts: knownHosts(), keepaliveIntervalMs: 5_000 })).toThrow(/15–30 s/);
    expect(() => new SshConnection({ host: host('alice'), knownHosts: knownHosts(), keepaliveIntervalMs: 31_000 })).toThrow(/15–30 s/);
    expect(new SshConnection({ host: host('alice'), knownHosts: knownHosts(), keepaliveIntervalMs: 15_000 }).state).toBe('idle');
  });

  it('refuses commands once closed', async () => {
    const connection = new SshConnection({ host: host('alice'), knownHosts: knownHosts() });
    await connection.close();
    expect((await failure(connection.exec('anything', ''))).kind).toBe('closed');
  });
});
