// One SSH connection to one cluster's login node (through its jump hosts), shared by every command sent there:
// host keys checked against known_hosts on every hop before any credential is sent, keepalive, reconnection with
// exponential backoff after a loss, a bounded number of session channels (the rest wait), per-command timeouts.
import type { Duplex } from 'node:stream';
import ssh2, { type Client as SshClient, type ClientChannel } from 'ssh2';
import { CommandTimeoutError } from '../shell/errors.js';
import { AuthSequence } from './auth.js';
import { ChannelLimiter } from './channel-limiter.js';
import { SshError, type PresentedHostKey } from './errors.js';
import {
  checkHostKey,
  hostLookupName,
  preferredHostKeyAlgorithms,
  presentedHostKey,
  verdictError,
  type KnownHostEntry,
  type KnownHosts,
} from './known-hosts.js';
import { noSecrets, type SecretSource } from './secrets.js';
import { describeHost, type ResolvedHost } from './ssh-config.js';

export const KEEPALIVE_MIN_MS = 15_000;
export const KEEPALIVE_MAX_MS = 30_000;

export interface SshConnectionOptions {
  readonly host: ResolvedHost;
  readonly knownHosts: KnownHosts;
  /** Passwords and key passphrases, asked for only when needed. */
  readonly secrets?: SecretSource;
  /** The cluster's name, for messages and in each SecretRequest (one source may answer for several clusters). */
  readonly name?: string;
  /** SSH keepalive interval, 15–30 s (default 20 s); the link is declared lost after `keepaliveCountMax` unanswered. */
  readonly keepaliveIntervalMs?: number;
  readonly keepaliveCountMax?: number;
  /** Session channels open at once (default 8, below OpenSSH's MaxSessions of 10). */
  readonly maxChannels?: number;
  /** Time allowed for each hop's TCP connection, handshake and authentication (default 20 s). */
  readonly readyTimeoutMs?: number;
  /** Backoff between reconnection attempts after a loss: doubling from `initialDelayMs` up to `maxDelayMs`. */
  readonly reconnect?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  /**
   * After a failed authentication, no login before this delay: doubling from `initialDelayMs` (default 1 s) up to
   * `maxDelayMs` (default 5 min). Commands in between fail at once with that failure.
   */
  readonly loginRetry?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  /** The clock of `loginRetry`, in milliseconds (default Date.now). */
  readonly now?: () => number;
  /** The agent's socket (default SSH_AUTH_SOCK); the host's IdentityAgent wins. */
  readonly agentSocket?: string;
}

/** The longest wait before a refused login is tried again (growing from 1 s). */
export const LOGIN_RETRY_MAX_MS = 300_000;

/**
 * The wait before the `failures`-th attempt to repair a link: the first at once, then doubling from `initialMs` up
 * to `maxMs`, with ±20 % jitter so that clusters cut together do not all come back in the same instant.
 */
export function backoffDelayMs(failures: number, initialMs: number, maxMs: number): number {
  const base = failures <= 1 ? 0 : Math.min(initialMs * 2 ** (failures - 2), maxMs);
  return Math.round(base * (0.8 + 0.4 * Math.random()));
}

export type ConnectionState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'failed' | 'closed';

export interface ConnectionStateChange {
  readonly state: ConnectionState;
  /** Why the link is not ready (in 'reconnecting' and 'failed'). */
  readonly error?: SshError;
  /**
   * In 'reconnecting': when the next attempt starts. In 'failed' after a failed authentication: how long before a
   * command may try to log in again (absent after a host-key refusal: not before known_hosts or the secrets change).
   */
  readonly retryInMs?: number;
}

export interface ExecOptions {
  /** Kill the command (and reject with CommandTimeoutError) after this long, counted from the channel's opening. */
  readonly timeoutMs?: number;
  /**
   * A script to run on a new channel when a timed-out command's channel is still open a second after the KILL
   * signal (sshd refuses signals for root logins and before OpenSSH 7.9), given what the command printed so far.
   */
  readonly killScript?: (stdoutSoFar: Buffer) => string | undefined;
}

export interface ExecResult {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** Exit status; null when the command was killed by a signal. */
  readonly code: number | null;
  readonly signal?: string;
}

/** A login the server or known_hosts refused, and what must change (or how long to wait) before another. */
interface Refusal {
  readonly error: SshError;
  /** Clock time from which a command may log in again; undefined: only once something below changes. */
  readonly retryAt: number | undefined;
  /** known_hosts as it was read for the refused attempt (its signature). */
  readonly knownHosts: string | undefined;
  /** The secret source's revision when the refused attempt began. */
  readonly secrets: number | undefined;
}

/**
 * Refusals a retry soon would only repeat, at a cost: each failed authentication counts towards the account's
 * lockout (pam_faillock, fail2ban), and a host key does not become trusted by trying again.
 */
function refusesLogin(error: SshError): boolean {
  return (
    error.kind === 'auth-failed' ||
    error.kind === 'host-key-unknown' ||
    error.kind === 'host-key-changed' ||
    error.kind === 'host-key-revoked'
  );
}

interface Link {
  readonly clients: readonly SshClient[];
  readonly target: SshClient;
  readonly hostKeys: readonly PresentedHostKey[];
  lost: boolean;
  /** The last error a client of the link reported after it was up (e.g. a keepalive timeout). */
  lastError?: Error;
}

export class SshConnection {
  readonly description: string;
  readonly limiter: ChannelLimiter;
  private stateValue: ConnectionState = 'idle';
  private link: Link | undefined;
  private connecting: Promise<Link> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** The last login refused, while no login has succeeded since; and how many in a row. */
  private refusal: Refusal | undefined;
  private refusals = 0;
  /** The known_hosts signature the last attempt read (see Refusal). */
  private knownHostsRead: string | undefined;
  /** Set once a link was up: from then on a loss is repaired in the background until close(). */
  private wanted = false;
  private readonly listeners = new Set<(change: ConnectionStateChange) => void>();
  private readonly keepaliveIntervalMs: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SshConnectionOptions) {
    this.keepaliveIntervalMs = options.keepaliveIntervalMs ?? 20_000;
    if (!(this.keepaliveIntervalMs >= KEEPALIVE_MIN_MS && this.keepaliveIntervalMs <= KEEPALIVE_MAX_MS)) {
      throw new SshError(
        'config',
        `keepalive interval must be ${KEEPALIVE_MIN_MS / 1000}–${KEEPALIVE_MAX_MS / 1000} s (got ${this.keepaliveIntervalMs} ms)`,
      );
    }
    this.limiter = new ChannelLimiter(options.maxChannels ?? 8);
    this.initialDelayMs = options.reconnect?.initialDelayMs ?? 500;
    this.maxDelayMs = options.reconnect?.maxDelayMs ?? 30_000;
    this.now = options.now ?? Date.now;
    const where = describeHost(options.host);
    this.description = options.name ? `${options.name} (${where})` : where;
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  /** Follows the link's state (for the console); returns the unsubscribe function. */
  onStateChange(listener: (change: ConnectionStateChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connects now unless connected. Resolves with every hop's host key; rejects with a typed SshError. */
  async connect(): Promise<{ hostKeys: readonly PresentedHostKey[] }> {
    const link = await this.ready();
    return { hostKeys: link.hostKeys };
  }

  /**
   * Runs `command` on a new session channel with `input` on its stdin, once a channel is free. `input` is
   * written but stdin is left open, so that the command can still be signalled (ssh2 sends no signal after
   * end-of-file): it must not wait for end-of-file (the framed scripts of runners/shell/framing.ts do not).
   * The timeout runs from the channel's opening: time spent waiting for a free channel does not count.
   */
  async exec(command: string, input: string, options: ExecOptions = {}): Promise<ExecResult> {
    for (;;) {
      const link = await this.ready();
      const release = await this.limiter.acquire();
      if (link.lost) {
        release();
        continue; // lost while waiting for a channel: ready() reconnects or says why it cannot
      }
      let channel: ClientChannel;
      try {
        channel = await openExec(link.target, command);
      } catch (error) {
        release();
        if (link.lost) throw this.lostError(link);
        // OpenSSH answers "open failed" beyond MaxSessions: its limit is lower than ours, so wait for a channel
        // to close and try again instead of failing (queue, never drop).
        if (/open failed/i.test((error as Error).message) && this.limiter.inUse > 0) {
          this.limiter.lowerTo(this.limiter.inUse);
          continue;
        }
        throw new SshError(
          'channel-failed',
          `${this.description}: cannot open a session channel: ${(error as Error).message}`,
          { cause: error },
        );
      }
      return this.collect(link, channel, input, options, release);
    }
  }

  /** Closes the link and stops reconnecting; commands still running are cut. */
  async close(): Promise<void> {
    if (this.stateValue === 'closed') return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.setState({ state: 'closed' });
    const link = this.link;
    this.link = undefined;
    if (link) {
      link.lost = true;
      await endClients(link.clients);
    }
  }

  private async ready(): Promise<Link> {
    for (;;) {
      if (this.stateValue === 'closed') throw new SshError('closed', `${this.description}: connection closed`);
      if (this.link && !this.link.lost) return this.link;
      if (this.connecting) return this.connecting;
      const refusal = this.refusal;
      if (refusal === undefined) break;
      const retry = await this.mayLogInAgain(refusal);
      if (this.refusal !== refusal) continue; // another command tried meanwhile: see how that went
      if (!retry) throw refusal.error;
      this.refusal = undefined;
      break;
    }
    // Decision: after a transient failure a command needing the link does not wait out the backoff; it tries at
    // once. The backoff paces only the background repairs; callers (pollers) have their own pace. A refused login
    // is different: see mayLogInAgain.
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    return this.attempt();
  }

  /**
   * Whether a login refused before may be tried again now. Decision: a failed authentication waits out its backoff
   * (1 s doubling up to 5 min by default); a refused host key is never tried again by time alone — only once
   * known_hosts changes (the key accepted, an old line removed). Either is tried at once when the secrets change.
   */
  private async mayLogInAgain(refusal: Refusal): Promise<boolean> {
    if (refusal.secrets !== this.options.secrets?.revision?.()) return true;
    if (refusal.retryAt !== undefined && this.now() >= refusal.retryAt) return true;
    try {
      return (await this.readKnownHosts(this.hops())).signature !== refusal.knownHosts;
    } catch {
      return false; // unreadable now: the attempt would fail the same way
    }
  }

  private refuse(error: SshError, secrets: number | undefined): void {
    this.refusals++;
    const delay =
      error.kind === 'auth-failed'
        ? Math.min(
            this.loginDelayMs('initialDelayMs', 1_000) * 2 ** (this.refusals - 1),
            this.loginDelayMs('maxDelayMs', LOGIN_RETRY_MAX_MS),
          )
        : undefined;
    this.refusal = {
      error,
      retryAt: delay === undefined ? undefined : this.now() + delay,
      knownHosts: this.knownHostsRead,
      secrets,
    };
    this.setState({ state: 'failed', error, ...(delay !== undefined ? { retryInMs: delay } : {}) });
  }

  private loginDelayMs(which: 'initialDelayMs' | 'maxDelayMs', fallback: number): number {
    return this.options.loginRetry?.[which] ?? fallback;
  }

  private attempt(): Promise<Link> {
    this.setState({ state: 'connecting' });
    const secrets = this.options.secrets?.revision?.();
    this.knownHostsRead = undefined;
    const attempt = this.openLink().then(
      (link) => {
        this.connecting = undefined;
        if (this.stateValue === 'closed') {
          void endClients(link.clients);
          throw new SshError('closed', `${this.description}: connection closed`);
        }
        this.link = link;
        this.failures = 0;
        this.refusals = 0;
        this.wanted = true;
        this.watch(link);
        this.setState({ state: 'ready' });
        return link;
      },
      (error: unknown) => {
        this.connecting = undefined;
        const failure =
          error instanceof SshError
            ? error
            : new SshError('connect-failed', `${this.description}: ${(error as Error).message}`, { cause: error });
        if (this.stateValue !== 'closed') {
          if (refusesLogin(failure)) this.refuse(failure, secrets);
          else if (this.wanted && !failure.permanent) this.scheduleRetry(failure);
          else this.setState({ state: 'failed', error: failure });
        }
        throw failure;
      },
    );
    this.connecting = attempt;
    return attempt;
  }

  private scheduleRetry(error: SshError): void {
    this.failures++;
    const delay = backoffDelayMs(this.failures, this.initialDelayMs, this.maxDelayMs);
    this.setState({ state: 'reconnecting', error, retryInMs: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.attempt().catch(() => {}); // the failure is in the state change; the loop goes on from attempt()
    }, delay);
    this.retryTimer.unref();
  }

  private watch(link: Link): void {
    const onLoss = () => {
      if (link.lost) return;
      link.lost = true;
      void endClients(link.clients);
      if (this.link === link) this.link = undefined;
      if (this.stateValue === 'closed') return;
      this.scheduleRetry(this.lostError(link));
    };
    for (const client of link.clients) {
      client.on('error', (error: Error) => (link.lastError = error));
      client.on('end', onLoss);
      client.on('close', onLoss);
    }
  }

  private lostError(link: Link): SshError {
    const why = link.lastError ? `: ${link.lastError.message}` : '';
    return new SshError('connection-lost', `${this.description}: connection lost${why}`, { cause: link.lastError });
  }

  private setState(change: ConnectionStateChange): void {
    this.stateValue = change.state;
    for (const listener of this.listeners) listener(change);
  }

  /** The route's hops, the jump hosts first. */
  private hops(): ResolvedHost[] {
    const host = this.options.host;
    return [...host.proxyJump, { ...host, proxyJump: [] }];
  }

  /** Each hop's known_hosts entries (its UserKnownHostsFile honoured), and one signature over all they read. */
  private async readKnownHosts(
    hops: readonly ResolvedHost[],
  ): Promise<{ entries: (readonly KnownHostEntry[])[]; signature: string }> {
    const loaded = await Promise.all(hops.map((hop) => this.options.knownHosts.load(hop.userKnownHostsFiles)));
    return { entries: loaded.map((l) => l.entries), signature: loaded.map((l) => l.signature).join(' ') };
  }

  private async openLink(): Promise<Link> {
    const hops = this.hops();
    const known = await this.readKnownHosts(hops);
    this.knownHostsRead = known.signature;
    const clients: SshClient[] = [];
    const hostKeys: PresentedHostKey[] = [];
    try {
      let sock: Duplex | undefined;
      for (const [i, hop] of hops.entries()) {
        const role = i < hops.length - 1 ? ' (jump host)' : '';
        if (i > 0) sock = await forwardOut(clients[i - 1]!, hop, `${describeHost(hops[i - 1]!)} (jump host)`);
        const { client, hostKey } = await this.connectHop(hop, known.entries[i]!, sock, role, i === hops.length - 1);
        clients.push(client);
        hostKeys.push(hostKey);
      }
    } catch (error) {
      await endClients(clients);
      throw error;
    }
    return { clients, target: clients.at(-1)!, hostKeys, lost: false };
  }

  private connectHop(
    hop: ResolvedHost,
    entries: readonly KnownHostEntry[],
    sock: Duplex | undefined,
    role: string,
    destination: boolean,
  ): Promise<{ client: SshClient; hostKey: PresentedHostKey }> {
    const who = `${this.options.name ? `${this.options.name}: ` : ''}${hop.user}@${hop.hostName}:${hop.port}${role}`;
    const lookupName = hop.hostKeyAlias ? hop.hostKeyAlias.toLowerCase() : hostLookupName(hop.hostName, hop.port);
    const route = { destination, ...(this.options.name !== undefined ? { connection: this.options.name } : {}) };
    const auth = new AuthSequence(
      hop,
      this.options.secrets ?? noSecrets,
      this.options.agentSocket ?? process.env['SSH_AUTH_SOCK'],
      route,
    );
    const readyTimeout = this.options.readyTimeoutMs ?? 20_000;
    return new Promise((resolve, reject) => {
      const client = new ssh2.Client();
      client.once('close', () => closedClients.add(client));
      let hostKey: PresentedHostKey | undefined;
      let refusal: SshError | undefined;
      let settled = false;
      const fail = (error: SshError) => {
        if (settled) return;
        settled = true;
        client.end();
        reject(error);
      };
      client.on('ready', () => {
        // Commands are small request/answer exchanges: Nagle's algorithm would hold each back for an ACK.
        client.setNoDelay(true);
        settled = true;
        resolve({ client, hostKey: hostKey! });
      });
      client.on('error', (error: Error & { level?: string }) => {
        if (refusal) return fail(refusal);
        if (error.level === 'client-authentication')
          return fail(new SshError('auth-failed', `${who}: authentication failed: ${auth.describe()}`));
        if (error.level === 'client-timeout')
          return fail(new SshError('connect-failed', `${who}: no answer within ${readyTimeout} ms`, { cause: error }));
        fail(new SshError('connect-failed', `${who}: ${error.message}`, { cause: error }));
      });
      client.on('close', () =>
        fail(refusal ?? new SshError('connect-failed', `${who}: connection closed during the handshake`)),
      );
      client.connect({
        host: hop.hostName,
        port: hop.port,
        username: hop.user,
        ...(sock ? { sock } : {}),
        readyTimeout,
        keepaliveInterval: this.keepaliveIntervalMs,
        keepaliveCountMax: this.options.keepaliveCountMax ?? 3,
        algorithms: { serverHostKey: preferredHostKeyAlgorithms(entries, lookupName) },
        // Checked before authentication starts: no credential goes to a host that is not the one known.
        hostVerifier: (key: Buffer) => {
          hostKey = { ...presentedHostKey(lookupName, key), host: hop.alias, port: hop.port };
          refusal = verdictError(
            checkHostKey(entries, lookupName, key),
            hostKey,
            `${who} (known_hosts name ${lookupName})`,
          );
          return refusal === undefined;
        },
        authHandler: auth.handler,
      });
    });
  }

  private collect(
    link: Link,
    channel: ClientChannel,
    input: string,
    options: ExecOptions,
    release: () => void,
  ): Promise<ExecResult> {
    const { timeoutMs, killScript } = options;
    return new Promise((resolve, reject) => {
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let exit: { code: number | null; signal?: string } | undefined;
      let settled = false;
      let closed = false;
      const graceTimers: NodeJS.Timeout[] = [];
      const later = (ms: number, action: () => void) => {
        const t = setTimeout(action, ms);
        t.unref();
        graceTimers.push(t);
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              settled = true;
              // OpenSSH delivers the signal to the session's process group (killpg): the script and what it
              // started in the foreground die, then the server closes the channel.
              channel.signal('KILL');
              channel.close();
              // Still open a second later: the server ignored the signal and keeps the channel until the command
              // ends by itself. Kill it from another channel, if the caller knows how.
              later(1_000, () => {
                const script = closed || link.lost ? undefined : killScript?.(Buffer.concat(stdout));
                if (script) this.exec('/bin/sh -s', script, { timeoutMs: 10_000 }).catch(() => {});
              });
              // The slot is freed anyway after a grace period (if that overruns MaxSessions, exec() lowers the
              // limit).
              later(5_000, release);
              reject(new CommandTimeoutError(this.description, timeoutMs));
            }, timeoutMs);
      channel.on('data', (chunk: Buffer) => stdout.push(chunk));
      channel.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      channel.on('exit', (code: number | null, signal?: string) => {
        exit = typeof code === 'number' ? { code } : { code: null, ...(signal ? { signal } : {}) };
        // sshd keeps the channel open while anything still holds the command's stdout or stderr (a background
        // process started without redirecting them). The command itself has ended: past a moment for its last
        // output to arrive, take what it printed and close the channel instead of waiting for that process.
        if (!settled) later(1_000, () => finish());
      });
      channel.on('error', () => {}); // reported through 'close' and the link's state
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!closed) {
          channel.close();
          later(5_000, release);
        }
        if (exit === undefined && link.lost) return reject(this.lostError(link));
        resolve({
          stdout: Buffer.concat(stdout),
          stderr: Buffer.concat(stderr),
          code: exit?.code ?? null,
          ...(exit?.signal ? { signal: exit.signal } : {}),
        });
      };
      channel.on('close', () => {
        closed = true;
        clearTimeout(timer);
        graceTimers.forEach(clearTimeout);
        release();
        finish();
      });
      channel.write(input);
    });
  }
}

function openExec(client: SshClient, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    try {
      client.exec(command, (error, channel) => (error ? reject(error) : resolve(channel)));
    } catch (error) {
      reject(error as Error);
    }
  });
}

function forwardOut(jump: SshClient, hop: ResolvedHost, jumpName: string): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    jump.forwardOut('127.0.0.1', 0, hop.hostName, hop.port, (error, stream) => {
      if (error)
        reject(
          new SshError(
            'connect-failed',
            `${jumpName}: cannot reach ${hop.hostName}:${hop.port} through it: ${error.message}`,
            { cause: error },
          ),
        );
      else resolve(stream);
    });
  });
}

const closedClients = new WeakSet<SshClient>();

/** Ends the clients, the target first, and waits (briefly) until their sockets are closed. */
async function endClients(clients: readonly SshClient[]): Promise<void> {
  await Promise.all(
    [...clients]
      .reverse()
      .filter((client) => !closedClients.has(client))
      .map(
        (client) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 2_000);
            timer.unref();
            client.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            client.end();
          }),
      ),
  );
}
