// A private OpenSSH server for tests: 127.0.0.1 on a free port, its own host keys, a client key and config in a
// temporary directory, public-key login only for the user running the tests (root is allowed with keys only),
// started as `sshd -D` and stopped by its PID. Nothing under /etc/ssh or any home directory is touched.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const SSHD = '/usr/sbin/sshd';
const SSH_KEYGEN = '/usr/bin/ssh-keygen';
const SETPRIV = '/usr/bin/setpriv';

/** Why a real sshd cannot be run here, or undefined when it can. */
export function sshdMissing(): string | undefined {
  if (!existsSync(SSHD))
    return `${SSHD} is not installed (scripts/install-test-deps.sh installs openssh-server as root)`;
  if (!existsSync(SSH_KEYGEN)) return `${SSH_KEYGEN} is not installed (package openssh-client)`;
  return undefined;
}

export interface SshdOptions {
  /** MaxSessions (default 10, OpenSSH's default). */
  readonly maxSessions?: number;
  /** Allow direct-tcpip forwarding, for a jump host (default no). */
  readonly allowTcpForwarding?: boolean;
  /** Make the login shell print noise on stdout and stderr before every command (bash reads BASH_ENV). */
  readonly loginNoise?: string;
  /** sshd's LogLevel (default VERBOSE). */
  readonly logLevel?: string;
  /** More public key files whose keys may log in (e.g. another harness's client key). */
  readonly authorizedKeys?: readonly string[];
}

export interface HostKey {
  readonly type: string;
  /** `type base64` as in a .pub file. */
  readonly publicKey: string;
  /** As `ssh-keygen -l -E sha256` prints it. */
  readonly fingerprint: string;
}

export interface Sshd {
  readonly port: number;
  readonly user: string;
  readonly dir: string;
  /** The client's private key (ed25519, unencrypted), authorised for `user`. */
  readonly clientKey: string;
  readonly hostKeys: readonly HostKey[];
  readonly logFile: string;
  /** PID of the listening sshd. */
  pid(): number;
  /** known_hosts lines for [127.0.0.1]:port, one per host key. */
  knownHostsLines(): string[];
  /** SIGKILLs every process serving a connection (the listener stays): clients see their link cut. */
  killConnections(): Promise<number>;
  /** Stops the listener and what it serves, and waits until the port is closed. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same keys. */
  start(): Promise<void>;
  /** stop(), then removes the directory. */
  dispose(): Promise<void>;
}

const live = new Set<ChildProcess>();
// Safety net: a test run that dies leaves no sshd behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startSshd(options: SshdOptions = {}): Promise<Sshd> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-sshd-'));
  const user = os.userInfo().username;
  const keygen = (args: string[]) => execFileSync(SSH_KEYGEN, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const hostKeys: HostKey[] = [];
  for (const type of ['ed25519', 'ecdsa']) {
    const file = path.join(dir, `ssh_host_${type}_key`);
    keygen(['-q', '-t', type, '-N', '', '-C', `concertina-test-host-${type}`, '-f', file]);
    const publicKey = readFileSync(`${file}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
    const fingerprint = keygen(['-l', '-E', 'sha256', '-f', `${file}.pub`]).split(' ')[1]!;
    hostKeys.push({ type: publicKey.split(' ')[0]!, publicKey, fingerprint });
  }
  const clientKey = path.join(dir, 'id_ed25519');
  keygen(['-q', '-t', 'ed25519', '-N', '', '-C', 'concertina-test-client', '-f', clientKey]);
  const authorized = [`${clientKey}.pub`, ...(options.authorizedKeys ?? [])].map((f) => readFileSync(f, 'utf8').trim());
  writeFileSync(path.join(dir, 'authorized_keys'), `${authorized.join('\n')}\n`, { mode: 0o600 });
  if (options.loginNoise !== undefined) writeFileSync(path.join(dir, 'noise.sh'), options.loginNoise);

  let port = await freePort();
  const config = path.join(dir, 'sshd_config');
  const logFile = path.join(dir, 'sshd.log');
  const writeConfig = () => writeFileSync(config, sshdConfig(dir, port, user, options));
  // privilege separation needs this directory when sshd runs as root
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) execFileSync('mkdir', ['-p', '-m', '755', '/run/sshd']);

  let child: ChildProcess | undefined;
  const start = async () => {
    for (let tries = 0; ; tries++) {
      writeConfig();
      execFileSync(SSHD, ['-t', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
      writeFileSync(logFile, '');
      // setpriv (util-linux) makes the kernel kill sshd if this process dies without stopping it.
      const argv = [SSHD, '-D', '-f', config, '-E', logFile];
      const proc = existsSync(SETPRIV)
        ? spawn(SETPRIV, ['--pdeathsig', 'KILL', ...argv], { stdio: 'ignore' })
        : spawn(SSHD, argv.slice(1), { stdio: 'ignore' });
      live.add(proc);
      proc.once('exit', () => live.delete(proc));
      try {
        await waitForBanner(port, proc);
        child = proc;
        return;
      } catch (error) {
        proc.kill('SIGKILL');
        const log = readFileSync(logFile, 'utf8');
        // The free port was taken between our probe and sshd's bind: try another.
        if (tries < 3 && /Address already in use/.test(log)) {
          port = await freePort();
          continue;
        }
        throw new Error(`sshd did not start: ${(error as Error).message}\n${log}`);
      }
    }
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.pid === undefined) return;
    const served = descendants(proc.pid);
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    killAll(served);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    await waitGone(served);
  };
  await start();

  return {
    get port() {
      return port;
    },
    user,
    dir,
    clientKey,
    hostKeys,
    logFile,
    pid: () => child?.pid ?? -1,
    knownHostsLines: () => hostKeys.map((k) => `[127.0.0.1]:${port} ${k.publicKey}`),
    async killConnections() {
      if (!child?.pid) return 0;
      const served = descendants(child.pid);
      killAll(served);
      await waitGone(served);
      return served.length;
    },
    stop,
    start,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sshdConfig(dir: string, port: number, user: string, options: SshdOptions): string {
  const lines = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    'AddressFamily inet',
    `HostKey ${path.join(dir, 'ssh_host_ed25519_key')}`,
    `HostKey ${path.join(dir, 'ssh_host_ecdsa_key')}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    // The authorised key lives in our directory, not in the user's home; /tmp is world-writable, hence no
    // StrictModes.
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    'StrictModes no',
    'PubkeyAuthentication yes',
    'AuthenticationMethods publickey',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'HostbasedAuthentication no',
    `PermitRootLogin ${user === 'root' ? 'prohibit-password' : 'no'}`,
    `AllowUsers ${user}`,
    'UsePAM no',
    'UseDNS no',
    'PermitUserRC no',
    'PermitTTY no',
    'X11Forwarding no',
    'AllowAgentForwarding no',
    `AllowTcpForwarding ${options.allowTcpForwarding ? 'yes' : 'no'}`,
    'PrintMotd no',
    'PrintLastLog no',
    `MaxSessions ${options.maxSessions ?? 10}`,
    'MaxStartups 100:30:200',
    'ClientAliveInterval 0',
    `LogLevel ${options.logLevel ?? 'VERBOSE'}`,
  ];
  // OpenSSH 9.8 and later penalise a source address after failed logins; tests fail logins on purpose.
  if (sshdVersion() >= 9.8) lines.push('PerSourcePenalties no');
  // The test user's ~/.bashrc is the machine's, not the test's, and bash reads it for every command sshd runs unless
  // it is a nested shell: SHLVL=1 makes it one. (Here root's runs `pyenv init`: 0.13 s a command, and a minute's
  // stall on pyenv's rehash lock once a session killed by a test leaves that lock behind.)
  const environment = [
    'SHLVL=1',
    ...(options.loginNoise !== undefined ? [`BASH_ENV=${path.join(dir, 'noise.sh')}`] : []),
  ];
  lines.push(`SetEnv ${environment.join(' ')}`);
  return `${lines.join('\n')}\n`;
}

let version: number | undefined;
function sshdVersion(): number {
  if (version === undefined) {
    // `sshd -V` prints "OpenSSH_9.2p1 ..." on stderr and exits non-zero on older releases.
    let text = '';
    try {
      text = execFileSync(SSHD, ['-V'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    } catch (error) {
      text = String((error as { stderr?: Buffer }).stderr ?? '');
    }
    version = Number(/OpenSSH_(\d+\.\d+)/.exec(text)?.[1] ?? 0);
  }
  return version;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until the server sends its SSH banner (or its process exits). */
async function waitForBanner(port: number, proc: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`sshd exited (${proc.exitCode ?? proc.signalCode})`);
    const banner = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setTimeout(1_000);
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString('latin1').startsWith('SSH-2.0-'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (banner) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no SSH banner on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/** Every descendant of `pid`, from /proc (sshd forks a process per connection and its sessions under it). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // The command name is in parentheses and may hold spaces: the fields after the last ')' are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const visit = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      visit(c);
    }
  };
  visit(pid);
  return out;
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function waitGone(pids: readonly number[], timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A killed child stays a zombie until its parent reaps it; a zombie counts as gone.
  const alive = (pid: number) => {
    try {
      return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** Processes whose command line is exactly `args` (for checking that a command was really killed). */
export function processesRunning(args: readonly string[]): number[] {
  const wanted = `${args.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === wanted) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
