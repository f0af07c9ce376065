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
/** The password the server takes for alice (changed by a test, as an administrator would). */
let alicePassword = PASSWORD;
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
      if (ctx.method === 'password' && ctx.username === 'alice' && ctx.password === alicePassword) return ctx.accept();
      if (
        ctx.method === 'publickey' &&
        ctx.username === 'bob' &&
        ctx.key.algo === userPublic.type &&
        ctx.key.data.equals(userPublic.getPublicSSH())
      ) {
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
  return {
    alias: 'inproc',
    hostName: '127.0.0.1',
    port,
    user,
    identityFiles,
    identityFilesExplicit: identityFiles.length > 0,
    identitiesOnly: true,
    proxyJump: [],
  };
}

function knownHosts(trusted = true): KnownHosts {
  const file = path.join(mkdtempSync(path.join(dir, 'kh-')), 'known_hosts');
  writeFileSync(file, trusted ? `[127.0.0.1]:${port} ${hostPair.public.split(' ').slice(0, 2).join(' ')}\n` : '');
  return new KnownHosts(file, []);
}

const alice = {
  kind: 'password',
  user: 'alice',
  host: '127.0.0.1',
  get port() {
    return port;
  },
} as const;

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
    const secrets = new MemorySecretSource().set(
      { kind: 'password', user: 'alice', host: '127.0.0.1', port },
      PASSWORD,
    );
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
    const none = new SshConnection({
      host: host('alice'),
      knownHosts: knownHosts(),
      secrets: new MemorySecretSource(),
    });
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
    const without = new SshConnection({
      host: host('bob', [keyFile]),
      knownHosts: knownHosts(),
      secrets: new MemorySecretSource(),
    });
    expect((await failure(without.connect())).message).toContain(
      `key ${keyFile} is encrypted and no passphrase is stored for it`,
    );
    const wrong = new SshConnection({
      host: host('bob', [keyFile]),
      knownHosts: knownHosts(),
      secrets: new MemorySecretSource().set({ kind: 'passphrase', keyFile }, 'nope'),
    });
    const error = await failure(wrong.connect());
    expect(error.message).toContain('the stored passphrase does not decrypt it');
    expect(error.message).not.toContain('nope');
  });

  it('sends no credential to a host whose key is not known', async () => {
    const before = attempts.length;
    const secrets = new MemorySecretSource().set(
      { kind: 'password', user: 'alice', host: '127.0.0.1', port },
      PASSWORD,
    );
    const connection = new SshConnection({ host: host('alice'), knownHosts: knownHosts(false), secrets });
    expect(await failure(connection.connect())).toBeInstanceOf(HostKeyUnknownError);
    expect(attempts.length).toBe(before);
    expect(secrets.asked).toEqual([]);
  });
});

describe('channels', () => {
  it('sends KILL to a command past its timeout and rejects with CommandTimeoutError', async () => {
    const secrets = new MemorySecretSource().set(
      { kind: 'password', user: 'alice', host: '127.0.0.1', port },
      PASSWORD,
    );
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
    expect(
      () => new SshConnection({ host: host('alice'), knownHosts: knownHosts(), keepaliveIntervalMs: 5_000 }),
    ).toThrow(/15–30 s/);
    expect(
      () => new SshConnection({ host: host('alice'), knownHosts: knownHosts(), keepaliveIntervalMs: 31_000 }),
    ).toThrow(/15–30 s/);
    expect(
      new SshConnection({ host: host('alice'), knownHosts: knownHosts(), keepaliveIntervalMs: 15_000 }).state,
    ).toBe('idle');
  });

  it('refuses commands once closed', async () => {
    const connection = new SshConnection({ host: host('alice'), knownHosts: knownHosts() });
    await connection.close();
    expect((await failure(connection.exec('anything', ''))).kind).toBe('closed');
  });
});

// The managers' and applications' pollers send a command about every second: a login refused for good (password
// changed, host key unknown) must not become a login attempt every second (account lockout, fail2ban).
describe('refused logins', () => {
  /** Logins (TCP connections, each with a handshake) the server saw since `before`. */
  const loginsSince = (before: number) => serverSide.length - before;

  /** `n` commands, half at once and half one after another, as pollers send them: each must fail as `expected`. */
  async function pollFailing(connection: SshConnection, n: number, expected: SshError): Promise<void> {
    const together = await Promise.all(Array.from({ length: n / 2 }, () => failure(connection.exec('anything', ''))));
    const inTurn: SshError[] = [];
    for (let i = 0; i < n / 2; i++) inTurn.push(await failure(connection.exec('anything', '')));
    for (const error of [...together, ...inTurn]) {
      expect(error.kind).toBe(expected.kind);
      expect(error.message).toBe(expected.message);
    }
  }

  it('after a failed authentication, fails commands at once with its error and logs in again only after a doubling delay', async () => {
    let now = 0;
    const before = serverSide.length;
    const secrets = new MemorySecretSource().set(alice, 'not it');
    const connection = new SshConnection({
      host: host('alice'),
      knownHosts: knownHosts(),
      secrets,
      loginRetry: { initialDelayMs: 1_000, maxDelayMs: 4_000 },
      now: () => now,
    });
    const refused = await failure(connection.exec('anything', ''));
    expect(refused.kind).toBe('auth-failed');
    await pollFailing(connection, 20, refused);
    expect(loginsSince(before)).toBe(1);
    expect(connection.state).toBe('failed');
    // 1 s later one login; then 2 s, 4 s, and 4 s again (the cap), never sooner.
    const expected = [
      [1_000, 2],
      [1_000, 2],
      [1_000, 3],
      [3_999, 3],
      [1, 4],
      [4_000, 5],
      [4_000, 6],
    ] as const;
    for (const [step, logins] of expected) {
      now += step;
      await pollFailing(connection, 10, refused);
      expect(loginsSince(before), `after ${now} ms`).toBe(logins);
    }
    expect(refused.message).not.toContain('not it');
    // A new password is something changed: tried at the next command, without waiting.
    secrets.set(alice, PASSWORD);
    expect((await connection.exec('anything', '')).code).toBe(0);
    expect(loginsSince(before)).toBe(7);
    await connection.close();
  });

  it('after an unknown host key, never connects again by itself; once the key is accepted, the next command does', async () => {
    let now = 0;
    const before = serverSide.length;
    const kh = knownHosts(false);
    const secrets = new MemorySecretSource().set(alice, PASSWORD);
    const connection = new SshConnection({
      host: host('alice'),
      knownHosts: kh,
      secrets,
      loginRetry: { initialDelayMs: 1_000, maxDelayMs: 4_000 },
      now: () => now,
    });
    const refused = await failure(connection.exec('anything', ''));
    expect(refused).toBeInstanceOf(HostKeyUnknownError);
    for (let i = 0; i < 5; i++) {
      now += 3_600_000;
      await pollFailing(connection, 10, refused);
    }
    expect(loginsSince(before)).toBe(1);
    expect(secrets.asked).toEqual([]);
    await kh.accept((refused as HostKeyUnknownError).presented);
    expect((await connection.exec('anything', '')).code).toBe(0);
    expect(loginsSince(before)).toBe(2);
    await connection.close();
  });

  it('a link lost and refused on its repair (password changed meanwhile) is not tried again by every command', async () => {
    const secrets = new MemorySecretSource().set(alice, PASSWORD);
    // The clock stands still: the backoff never passes.
    const connection = new SshConnection({
      host: host('alice'),
      knownHosts: knownHosts(),
      secrets,
      reconnect: { initialDelayMs: 10, maxDelayMs: 100 },
      now: () => 0,
    });
    expect((await connection.exec('anything', '')).code).toBe(0);
    const before = serverSide.length;
    const failed = new Promise<SshError | undefined>((resolve) =>
      connection.onStateChange((c) => c.state === 'failed' && resolve(c.error)),
    );
    alicePassword = 'changed by the administrator';
    try {
      serverSide.at(-1)!.end();
      const refused = await failed;
      expect(refused?.kind).toBe('auth-failed');
      await pollFailing(connection, 20, refused!);
      expect(loginsSince(before)).toBe(1);
    } finally {
      alicePassword = PASSWORD;
    }
    await connection.close();
  });
});

describe('UserKnownHostsFile', () => {
  const hostLine = () => `[127.0.0.1]:${port} ${hostPair.public.split(' ').slice(0, 2).join(' ')}\n`;

  it("looks host keys up in the files the ssh config names for the host, besides Concertina's own", async () => {
    const own = knownHosts(false);
    const userFile = path.join(mkdtempSync(path.join(dir, 'ukh-')), 'known_hosts');
    writeFileSync(userFile, hostLine());
    const secrets = new MemorySecretSource().set(alice, PASSWORD);
    const connection = new SshConnection({
      host: { ...host('alice'), userKnownHostsFiles: [userFile] },
      knownHosts: own,
      secrets,
    });
    expect((await connection.exec('anything', '')).code).toBe(0);
    await connection.close();
    // Without it, the same own file does not know the host.
    const without = new SshConnection({ host: host('alice'), knownHosts: own, secrets });
    expect(await failure(without.connect())).toBeInstanceOf(HostKeyUnknownError);
  });

  it("takes the place of the user's default files: a key known only there is not trusted for that host", async () => {
    const defaults = mkdtempSync(path.join(dir, 'home-'));
    const userDefault = path.join(defaults, 'known_hosts');
    writeFileSync(userDefault, hostLine());
    const own = path.join(defaults, 'own_known_hosts');
    const kh = new KnownHosts(own, [userDefault], [userDefault]);
    const empty = path.join(defaults, 'empty');
    writeFileSync(empty, '');
    const secrets = new MemorySecretSource().set(alice, PASSWORD);
    const elsewhere = new SshConnection({
      host: { ...host('alice'), userKnownHostsFiles: [empty] },
      knownHosts: kh,
      secrets,
    });
    expect(await failure(elsewhere.connect())).toBeInstanceOf(HostKeyUnknownError);
    const asUsual = new SshConnection({ host: host('alice'), knownHosts: kh, secrets });
    expect((await asUsual.exec('anything', '')).code).toBe(0);
    await asUsual.close();
  });
});
