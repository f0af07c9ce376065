// What can go wrong on an SSH link, as typed errors with a `kind`, and as plain objects for the API (`toFailure`).

export type SshErrorKind =
  | 'config' // ~/.ssh/config or the cluster's settings cannot be used
  | 'host-key-unknown' // the host is not in known_hosts: the user must see the fingerprint and accept it
  | 'host-key-changed' // the host presented another key than the one known: refused
  | 'host-key-revoked' // the host presented a key marked @revoked: refused
  | 'auth-failed' // every authentication method was refused
  | 'connect-failed' // the TCP connection or the handshake failed (transient: retried with backoff)
  | 'connection-lost' // the link dropped while a command was running
  | 'channel-failed' // the server refused to open a session channel
  | 'closed'; // the connection was closed by us

/** An error on the SSH link to `host` (`user@hostname:port`, or the jump host concerned). */
export class SshError extends Error {
  constructor(
    readonly kind: SshErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SshError';
  }

  /** Errors a retry cannot fix without the user: no reconnection loop after them. */
  get permanent(): boolean {
    return this.kind !== 'connect-failed' && this.kind !== 'connection-lost' && this.kind !== 'channel-failed';
  }

  toFailure(): SshFailure {
    return { kind: this.kind, message: this.message } as SshFailure;
  }
}

/** The host key a host presented, as OpenSSH would print it, and what `acceptHostKey` needs to trust it. */
export interface PresentedHostKey {
  /** Name looked up in known_hosts: `host`, or `[host]:port` when the port is not 22 (lowercase). */
  readonly lookupName: string;
  /** Key type from the key itself, e.g. `ssh-ed25519`. */
  readonly keyType: string;
  /** `SHA256:` and the unpadded base64 SHA-256 of the key, as `ssh-keygen -l` prints it. */
  readonly fingerprint: string;
  /** The key blob in base64, as in a known_hosts line. */
  readonly keyBase64: string;
  /**
   * The hop that presented it, as the route names it (an ~/.ssh/config alias or a host name) and its port: what
   * resolves through ssh config to the same HostName, Port and HostKeyAlias again (absent when fetched directly).
   */
  readonly host?: string;
  readonly port?: number;
}

export class HostKeyUnknownError extends SshError {
  constructor(
    readonly presented: PresentedHostKey,
    /** Key types already known for this host (when another type was presented). */
    readonly knownTypes: readonly string[],
    /** How the host is named in the message (default its known_hosts name). */
    subject: string = presented.lookupName,
  ) {
    super(
      'host-key-unknown',
      `${subject}: host key not known (${presented.keyType} ${presented.fingerprint})` +
        (knownTypes.length ? `; keys of other types are known for it (${knownTypes.join(', ')})` : '') +
        '; accept it to connect',
    );
    this.name = 'HostKeyUnknownError';
  }

  override toFailure(): SshFailure {
    return {
      kind: 'host-key-unknown',
      message: this.message,
      hostKey: this.presented,
      knownTypes: [...this.knownTypes],
    };
  }
}

export class HostKeyChangedError extends SshError {
  constructor(
    readonly presented: PresentedHostKey,
    /** Fingerprints of the keys of the same type known for this host, with where they are written. */
    readonly known: readonly { fingerprint: string; file: string; line: number }[],
    subject: string = presented.lookupName,
  ) {
    super(
      'host-key-changed',
      `${subject}: HOST KEY CHANGED, connection refused: it presented ${presented.keyType} ` +
        `${presented.fingerprint}, known_hosts has ${known.map((k) => `${k.fingerprint} (${k.file}:${k.line})`).join(', ')}. ` +
        'Someone may be intercepting the connection, or the host was reinstalled; if you trust the new key, remove the old line first.',
    );
    this.name = 'HostKeyChangedError';
  }

  override toFailure(): SshFailure {
    return {
      kind: 'host-key-changed',
      message: this.message,
      hostKey: this.presented,
      knownFingerprints: this.known.map((k) => k.fingerprint),
    };
  }
}

export class HostKeyRevokedError extends SshError {
  constructor(
    readonly presented: PresentedHostKey,
    readonly where: { file: string; line: number },
    subject: string = presented.lookupName,
  ) {
    super(
      'host-key-revoked',
      `${subject}: host key ${presented.fingerprint} is marked @revoked (${where.file}:${where.line}); connection refused`,
    );
    this.name = 'HostKeyRevokedError';
  }

  override toFailure(): SshFailure {
    return { kind: 'host-key-revoked', message: this.message, hostKey: this.presented };
  }
}

/** A plain, serialisable description of an SSH failure for the API and the console. */
export type SshFailure =
  | { kind: 'host-key-unknown'; message: string; hostKey: PresentedHostKey; knownTypes: string[] }
  | { kind: 'host-key-changed'; message: string; hostKey: PresentedHostKey; knownFingerprints: string[] }
  | { kind: 'host-key-revoked'; message: string; hostKey: PresentedHostKey }
  | { kind: Exclude<SshErrorKind, 'host-key-unknown' | 'host-key-changed' | 'host-key-revoked'>; message: string };
