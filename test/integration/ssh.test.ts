// The SSH transport against a real OpenSSH server on 127.0.0.1 (test/integration/harness/sshd.ts): strict host-key
// checking, unknown and changed keys, authentication failure, scripts through /bin/sh -s with hostile strings and a
// noisy login shell, the channel cap under 30 concurrent commands, timeouts that really kill, reconnection after a
// cut and after a server restart, and ProxyJump through a second server.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CommandTimeoutError } from '../../runners/shell/errors.js';
import { sh } from '../../runners/shell/quote.js';
import { SshConnection, type ConnectionStateChange, type SshConnectionOptions } from '../../runners/ssh/connection.js';
import { HostKeyChangedError, HostKeyUnknownError, SshError } from '../../runners/ssh/errors.js';
import { acceptHostKey, KnownHosts } from '../../runners/ssh/known-hosts.js';
import { loadSshConfig, resolveHost } from '../../runners/ssh/ssh-config.js';
import { SshRunner } from '../../runners/ssh/ssh-runner.js';
import { processesRunning, sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const missing = sshdMissing();
if (missing) {
  // In CI scripts/install-test-deps.sh installs openssh-server: a missing sshd there is a failure, not a skip.
  if (process.env.CI) throw new Error(`SSH integration tests cannot run: ${missing}`);
  console.warn(`Skipping the SSH integration tests: ${missing}.`);
}

// Printed by the login shell (bash reads BASH_ENV) before every command, on both streams, marker look-alikes
// included: none of it may reach a script's output.
const NOISE = `echo 'login noise CONCERTINA-BEGIN-0000 on stdout'; echo 'login noise on stderr' >&2; printf 'partial noise'\n`;
const loginShellIsBash = /bash$/.test(os.userInfo().shell ?? '');

let work: string;
let target: Sshd;
let jump: Sshd;
const opened: SshConnection[] = [];

describe.skipIf(missing !== undefined)('SSH transport against a real sshd', () => {
  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'concertina-ssh-test-'));
    target = await startSshd({ loginNoise: NOISE });
    jump = await startSshd({
      allowTcpForwarding: true,
      maxSessions: 2,
      logLevel: 'DEBUG1',
      authorizedKeys: [`${target.clientKey}.pub`],
    });
  });

  // Each case closes its connections, so that none keeps reconnecting in the background of the next.
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await target?.dispose();
    await jump?.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** A connection to `alias` of an ssh config naming both servers, with the given known_hosts lines. */
  async function connect(
    alias: string,
    knownHostsLines: string[],
    options: Partial<SshConnectionOptions> & { identityFile?: string } = {},
  ) {
    const dir = mkdtempSync(path.join(work, 'case-'));
    const configFile = path.join(dir, 'config');
    writeFileSync(
      configFile,
      [
        'Host target',
        '  HostName 127.0.0.1',
        `  Port ${target.port}`,
        'Host jump',
        '  HostName 127.0.0.1',
        `  Port ${jump.port}`,
        'Host target-via-jump',
        '  HostName 127.0.0.1',
        `  Port ${target.port}`,
        '  ProxyJump jump',
        'Host *',
        `  User ${target.user}`,
        `  IdentityFile ${options.identityFile ?? target.clientKey}`,
        '  IdentitiesOnly yes',
        '',
      ].join('\n'),
    );
    const ownKnownHosts = path.join(dir, 'known_hosts');
    writeFileSync(ownKnownHosts, knownHostsLines.map((l) => `${l}\n`).join(''));
    const knownHosts = new KnownHosts(ownKnownHosts, []);
    const host = resolveHost(await loadSshConfig(configFile), alias);
    const connection = new SshConnection({
      host,
      knownHosts,
      name: alias,
      reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 },
      ...options,
    });
    opened.push(connection);
    return { connection, runner: new SshRunner(connection), knownHosts, ownKnownHosts };
  }

  it('connects with a strict host-key check and runs a script through /bin/sh -s', async () => {
    const { connection, runner } = await connect('target', target.knownHostsLines());
    const result = await runner.run(sh`id -un; printf '%s\\n' "$0"; exit 3`.text);
    expect(result).toEqual({ stdout: `${target.user}\n/bin/sh\n`, stderr: '', code: 3 });
    expect(connection.state).toBe('ready');
  });

  it('keeps the login shell noise out of the output', async () => {
    const { connection, runner } = await connect('target', target.knownHostsLines());
    const raw = await connection.exec('/bin/sh -s', 'echo raw; exit 0\n');
    if (loginShellIsBash) expect(raw.stdout.toString()).toContain('login noise');
    else
      console.warn(`login shell ${os.userInfo().shell} does not read BASH_ENV: the noise is not really printed here`);
    const result = await runner.run(`printf 'out'; printf 'err' >&2`);
    expect(result).toEqual({ stdout: 'out', stderr: 'err', code: 0 });
  });

  it('refuses an unknown host with the fingerprint ssh-keygen prints, and connects once it is accepted', async () => {
    const { connection, knownHosts, ownKnownHosts } = await connect('target', []);
    const error = await connection.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HostKeyUnknownError);
    const presented = (error as HostKeyUnknownError).presented;
    const serverKey = target.hostKeys.find((k) => k.type === presented.keyType)!;
    expect(presented.lookupName).toBe(`[127.0.0.1]:${target.port}`);
    expect(presented.fingerprint).toBe(serverKey.fingerprint);
    expect(presented.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(connection.state).toBe('failed');

    await acceptHostKey(presented, knownHosts);
    const written = readFileSync(ownKnownHosts, 'utf8');
    expect(written).toMatch(/^\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+ /);
    expect(written).not.toContain('127.0.0.1');
    // OpenSSH itself finds the host in the file we wrote.
    expect(
      execFileSync('/usr/bin/ssh-keygen', ['-F', `[127.0.0.1]:${target.port}`, '-f', ownKnownHosts]).toString(),
    ).toContain(presented.keyType);
    const { hostKeys } = await connection.connect();
    expect(hostKeys.map((k) => k.fingerprint)).toEqual([serverKey.fingerprint]);
  });

  it('checks a host known only by its ecdsa key against that key', async () => {
    const ecdsa = target.knownHostsLines().filter((l) => l.includes('ecdsa-sha2-nistp256'));
    const { connection } = await connect('target', ecdsa);
    const { hostKeys } = await connection.connect();
    expect(hostKeys[0]!.keyType).toBe('ecdsa-sha2-nistp256');
  });

  it('refuses a changed host key, naming the host and both fingerprints', async () => {
    const impostor = path.join(work, 'impostor');
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', impostor]);
    const impostorLine = `[127.0.0.1]:${target.port} ${readFileSync(`${impostor}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}`;
    const impostorFingerprint = execFileSync('/usr/bin/ssh-keygen', ['-l', '-E', 'sha256', '-f', `${impostor}.pub`])
      .toString()
      .split(' ')[1]!;
    const { runner } = await connect('target', [impostorLine]);
    const error = await runner.run('echo never').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostKeyChangedError);
    const message = (error as Error).message;
    expect(message).toContain(`[127.0.0.1]:${target.port}`);
    expect(message).toContain(target.hostKeys.find((k) => k.type === 'ssh-ed25519')!.fingerprint);
    expect(message).toContain(impostorFingerprint);
  });

  it('reports an authentication failure with what was tried', async () => {
    const stranger = path.join(work, 'stranger');
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
    const { connection } = await connect('target', target.knownHostsLines(), { identityFile: stranger });
    const error = await connection.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SshError);
    expect((error as SshError).kind).toBe('auth-failed');
    expect((error as SshError).message).toContain(`key ${stranger}`);
    expect(connection.state).toBe('failed');
  });

  it('passes hostile strings through intact and executes none of them', async () => {
    const { runner } = await connect('target', target.knownHostsLines());
    const canary = path.join(work, 'canary');
    const hostile = [
      `'; touch ${canary}; '`,
      `$(touch ${canary})`,
      `\`touch ${canary}\``,
      `"; touch ${canary}; "`,
      `a\nb\r\nc\td`,
      `\\'\\"\\\\`,
      `-n`,
      `*`,
      `$HOME $0 $$ \${x:-y}`,
      `étoile — 星 😀`,
      ``,
      `EOF\nCONCERTINA-END-x 0\n`,
    ];
    // Many values per script (one channel each), NUL-separated on the way back.
    const echoAll = async (values: string[]) =>
      (await runner.run(sh`printf '%s\\0' ${values}`.text)).stdout.split('\0').slice(0, -1);
    expect(await echoAll(hostile)).toEqual(hostile);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 25 },
        ),
        async (values) => {
          expect(await echoAll(values)).toEqual(values);
        },
      ),
      { numRuns: 15 },
    );
    expect(() => readFileSync(canary)).toThrow();
  });

  it('runs 30 concurrent commands on one connection, never more than the channel cap at once', async () => {
    // The default cap, 8, under the server's MaxSessions 10: 30 channels at once would be refused beyond 10.
    const { connection, runner } = await connect('target', target.knownHostsLines());
    const dir = path.join(work, 'concurrency');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        // Each command counts the commands running at its start on the server side.
        runner.run(
          sh`mkdir -p ${dir} && : > ${dir}/${i} && n=$(ls ${dir} | wc -l) && sleep 0.2 && rm ${dir}/${i} && echo ${i} $n`
            .text,
        ),
      ),
    );
    results.forEach((r, i) => {
      expect(r.code).toBe(0);
      expect(r.stdout.split(' ')[0]).toBe(String(i));
      expect(Number(r.stdout.split(' ')[1])).toBeLessThanOrEqual(8);
    });
    expect(connection.limiter.peak).toBe(8);
  });

  it('queues instead of failing when the server allows fewer sessions than the cap', async () => {
    // The jump server has MaxSessions 2; the connection's cap is the default 8.
    const { connection, runner } = await connect('jump', jump.knownHostsLines());
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => runner.run(sh`sleep 0.1; echo ${i}`.text)));
    expect(results.map((r) => r.stdout)).toEqual(Array.from({ length: 10 }, (_, i) => `${i}\n`));
    expect(connection.limiter.limit).toBeLessThanOrEqual(2);
  });

  it('kills a command at its timeout, and the connection goes on', async () => {
    const { runner } = await connect('target', target.knownHostsLines());
    const error = await runner.run('sleep 3017', { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandTimeoutError);
    for (let i = 0; i < 100 && processesRunning(['sleep', '3017']).length; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(processesRunning(['sleep', '3017'])).toEqual([]);
    expect((await runner.run('echo still here')).stdout).toBe('still here\n');
  });

  it('reconnects after the connection is cut; a command cut with it fails with connection-lost', async () => {
    const { connection, runner } = await connect('target', target.knownHostsLines());
    const changes: ConnectionStateChange[] = [];
    connection.onStateChange((c) => changes.push(c));
    expect((await runner.run('echo before')).stdout).toBe('before\n');
    const inFlight = runner.run('sleep 3019; echo late').catch((e: unknown) => e);
    for (let i = 0; i < 100 && !processesRunning(['sleep', '3019']).length; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await target.killConnections()).toBeGreaterThan(0);
    const cut = await inFlight;
    expect(cut).toBeInstanceOf(SshError);
    expect((cut as SshError).kind).toBe('connection-lost');
    expect((await runner.run('echo after')).stdout).toBe('after\n');
    expect(changes.some((c) => c.state === 'reconnecting' && c.error?.kind === 'connection-lost')).toBe(true);
    expect(changes.at(-1)?.state).toBe('ready');
  });

  it('fails clearly while sshd is down and works again once it is back', async () => {
    const { connection, runner } = await connect('target', target.knownHostsLines());
    expect((await runner.run('echo up')).stdout).toBe('up\n');
    await target.stop();
    try {
      const error = await runner.run('echo down').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SshError);
      expect((error as SshError).kind).toMatch(/^(connect-failed|connection-lost)$/);
      expect((error as SshError).message).toContain(`127.0.0.1:${target.port}`);
    } finally {
      await target.start();
    }
    // The background repair (backoff up to 1 s here) or this command reconnects.
    expect((await runner.run('echo back')).stdout).toBe('back\n');
    expect(connection.state).toBe('ready');
  });

  it('connects through a ProxyJump host, both host keys verified', async () => {
    const { connection, runner } = await connect('target-via-jump', [
      ...jump.knownHostsLines(),
      ...target.knownHostsLines(),
    ]);
    const { hostKeys } = await connection.connect();
    expect(hostKeys.map((k) => k.lookupName)).toEqual([`[127.0.0.1]:${jump.port}`, `[127.0.0.1]:${target.port}`]);
    expect((await runner.run('echo through the jump')).stdout).toBe('through the jump\n');
    // The jump server opened the forwarded connection to the target for us.
    expect(readFileSync(jump.logFile, 'utf8')).toContain(
      `server_request_direct_tcpip: originator 127.0.0.1 port 0, target 127.0.0.1 port ${target.port}`,
    );
  });

  it('refuses an unknown jump host before reaching the target', async () => {
    const { connection } = await connect('target-via-jump', target.knownHostsLines());
    const error = await connection.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostKeyUnknownError);
    expect((error as HostKeyUnknownError).presented.lookupName).toBe(`[127.0.0.1]:${jump.port}`);
    expect((error as Error).message).toContain('jump');
  });
});
