// An in-process SSH server for tests (no root, no sshd): logins by password or public key as configured, every
// authentication attempt recorded (so a test can say which host was offered which credential), commands run on
// this machine with /bin/sh, and direct-tcpip forwarding for use as a jump host.
import { spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import ssh2, { type AuthContext, type Connection, type ParsedKey } from 'ssh2';
import { sshKeyPair } from './ssh-keys.js';

export interface FakeSshdOptions {
  /** Passwords that log in, by user. */
  readonly passwords?: Readonly<Record<string, string>>;
  /** Public keys (OpenSSH one-line form) that log in, by user. */
  readonly keys?: Readonly<Record<string, readonly string[]>>;
  /** Forward direct-tcpip channels (a jump host). */
  readonly forwarding?: boolean;
}

export interface LoginAttempt {
  readonly method: string;
  readonly user: string;
  /** What was offered with the password and keyboard-interactive methods. */
  readonly password?: string;
  /** The public key offered (base64 of its blob), with the publickey method. */
  readonly key?: string;
}

export interface FakeSshd {
  readonly port: number;
  /** Every authentication attempt, in order ('none' queries left out). */
  readonly attempts: LoginAttempt[];
  /** The known_hosts line for [127.0.0.1]:port. */
  readonly knownHostsLine: string;
  close(): Promise<void>;
}

export async function startFakeSshd(options: FakeSshdOptions): Promise<FakeSshd> {
  const hostPair = sshKeyPair('ed25519');
  const attempts: LoginAttempt[] = [];
  const clients = new Set<Connection>();
  /** Commands running, each with the promise of its shell's exit. */
  const children = new Map<number, Promise<void>>();
  const authorised = (user: string, key: { algo: string; data: Buffer }) =>
    (options.keys?.[user] ?? [])
      .map((line) => ssh2.utils.parseKey(line) as ParsedKey)
      .find((parsed) => parsed.type === key.algo && parsed.getPublicSSH().equals(key.data));
  const server = new ssh2.Server({ hostKeys: [hostPair.private] }, (client: Connection) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => {});
    client.on('authentication', (ctx: AuthContext) => {
      if (ctx.method === 'none') return ctx.reject(['publickey', 'password', 'keyboard-interactive']);
      if (ctx.method === 'password') {
        attempts.push({ method: 'password', user: ctx.username, password: ctx.password });
        return options.passwords?.[ctx.username] === ctx.password ? ctx.accept() : ctx.reject();
      }
      if (ctx.method === 'keyboard-interactive') {
        return ctx.prompt([{ prompt: 'Password: ', echo: false }], (answers) => {
          attempts.push({ method: 'keyboard-interactive', user: ctx.username, password: answers[0] ?? '' });
          if (options.passwords?.[ctx.username] === answers[0]) ctx.accept();
          else ctx.reject();
        });
      }
      if (ctx.method === 'publickey') {
        attempts.push({ method: 'publickey', user: ctx.username, key: ctx.key.data.toString('base64') });
        const key = authorised(ctx.username, ctx.key);
        if (!key) return ctx.reject();
        if (!ctx.signature) return ctx.accept(); // the client asks whether this key would do
        return ctx.blob && key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) ? ctx.accept() : ctx.reject();
      }
      ctx.reject();
    });
    client.on('tcpip', (accept, reject, info) => {
      if (!options.forwarding) return reject();
      const socket = net.connect(info.destPort, info.destIP, () => {
        const channel = accept();
        socket.pipe(channel).pipe(socket);
        channel.on('close', () => socket.destroy());
      });
      socket.on('error', () => reject());
    });
    client.on('session', (acceptSession) => {
      const session = acceptSession();
      session.on('exec', (acceptExec, _reject, info) => {
        const channel = acceptExec();
        // Like sshd, each command leads its own process group, killed whole when its channel closes: a loop the
        // command started must not go on writing into a test's folder after the test (ENOTEMPTY on its removal).
        const child = spawn('/bin/sh', ['-c', info.command], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
        const pid = child.pid;
        if (pid !== undefined) {
          children.set(pid, new Promise<void>((resolve) => child.on('exit', () => resolve())));
          child.on('exit', () => children.delete(pid));
        }
        channel.pipe(child.stdin).on('error', () => {});
        child.stdout.pipe(channel, { end: false });
        child.stderr.pipe(channel.stderr, { end: false });
        child.on('close', (code, signal) => {
          if (typeof code === 'number') channel.exit(code);
          else channel.exit(signal ?? 'KILL');
          channel.close();
        });
        channel.on('close', () => killGroup(child.pid));
        session.on('signal', (_accept, _reject, { name }) => child.kill(`SIG${name}` as NodeJS.Signals));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    attempts,
    knownHostsLine: `[127.0.0.1]:${port} ${hostPair.public.split(' ').slice(0, 2).join(' ')}`,
    close: async () => {
      for (const client of clients) client.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // No command outlives the server: each group killed, each shell reaped.
      for (const pid of children.keys()) killGroup(pid);
      await Promise.all(children.values());
    },
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
