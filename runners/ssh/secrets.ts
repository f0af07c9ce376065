// Where passwords and key passphrases come from. The transport asks only when a server or a key needs one, and
// never writes what it gets anywhere (not in errors, logs or settings). The desktop host will provide a source
// backed by Electron's safeStorage (the OS keychain); tests use the in-memory one.

/** A secret as stored by a test or a session: a password by account, a passphrase by key file. */
export type SecretKey =
  /** The password of `user` on `host` (the host name and port actually connected to). */
  | { readonly kind: 'password'; readonly user: string; readonly host: string; readonly port: number }
  /** The passphrase of an encrypted private key file. */
  | { readonly kind: 'passphrase'; readonly keyFile: string };

/**
 * What a connection asks for on one hop of its route: the secret, and the hop it would be used on — `user@host:port`
 * as resolved through ~/.ssh/config (HostName, User, Port), whether it is the connection's destination or a jump
 * host on the way, and the connection's name, so that one source can answer for several clusters.
 */
export type SecretRequest = SecretKey & {
  readonly user: string;
  readonly host: string;
  readonly port: number;
  /** True on the hop the connection is for; false on a jump host (ProxyJump) on the way to it. */
  readonly destination: boolean;
  /** The connection's name (a live cluster's name), when it has one. */
  readonly connection?: string;
};

export interface SecretSource {
  /** The secret asked for, or undefined when none is stored (the method is then skipped). */
  get(request: SecretRequest): Promise<string | undefined>;
  /**
   * A value that changes whenever the secrets it gives may have changed (never the secrets themselves): a login
   * refused with the old ones is then tried again at once instead of after its backoff.
   */
  revision?(): number;
}

/** A stable name for a request, e.g. `password:alice@login.example.org:22`, `passphrase:/home/a/.ssh/id_ed25519`. */
export function secretName(request: SecretKey): string {
  return request.kind === 'password'
    ? `password:${request.user}@${request.host}:${request.port}`
    : `passphrase:${request.keyFile}`;
}

/** Secrets held in this process's memory only (tests, and a session where the user typed them). */
export class MemorySecretSource implements SecretSource {
  private readonly secrets = new Map<string, string>();
  /** Every request made, by name (never the secret), so tests can see what was asked. */
  readonly asked: string[] = [];

  private changes = 0;

  set(request: SecretKey, secret: string): this {
    this.secrets.set(secretName(request), secret);
    this.changes++;
    return this;
  }

  revision(): number {
    return this.changes;
  }

  async get(request: SecretRequest): Promise<string | undefined> {
    const name = secretName(request);
    this.asked.push(name);
    return this.secrets.get(name);
  }
}

/** A source with no secrets: agent and unencrypted keys only. */
export const noSecrets: SecretSource = { get: async () => undefined };
