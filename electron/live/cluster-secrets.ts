// Clusters' passwords and key passphrases. In the window they are encrypted by the OS keychain (Electron's
// safeStorage) and only the ciphertext is stored; in web mode there is no keychain, so they are held in this
// process's memory for the session and asked again after a restart — never written anywhere.
import type { SecretKind, Store } from '../store/store.js';
import type { SecretRequest, SecretSource } from '../../runners/ssh/secrets.js';
import type { LiveClusterConfig } from '../../runners/live/types.js';

/** The OS keychain's encryption (Electron's safeStorage), as text: ciphertext in base64. */
export interface SecretCipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

/** The subset of Electron's safeStorage the cipher needs (stubbed in tests). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plaintext: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** A cipher over safeStorage, or undefined when the OS offers no encryption (then secrets stay in memory). */
export function safeStorageCipher(safeStorage: SafeStorageLike | undefined): SecretCipher | undefined {
  if (!safeStorage?.isEncryptionAvailable()) return undefined;
  return {
    encrypt: (plaintext) => safeStorage.encryptString(plaintext).toString('base64'),
    decrypt: (ciphertext) => safeStorage.decryptString(Buffer.from(ciphertext, 'base64')),
  };
}

export class ClusterSecrets {
  /** Session-only secrets (no keychain, or no store). */
  private readonly memory = new Map<string, string>();
  /** Bumped whenever a secret is set or forgotten: a connection refused with the old one may then try at once. */
  private changes = 0;

  constructor(
    private readonly store: Store | undefined,
    private readonly cipher: SecretCipher | undefined,
  ) {}

  /** Whether secrets survive a restart (encrypted in the store) or last for this session only. */
  get persistent(): boolean {
    return this.store !== undefined && this.cipher !== undefined;
  }

  set(cluster: string, kind: SecretKind, value: string): void {
    this.changes++;
    if (this.store && this.cipher) this.store.saveSecret(cluster, kind, this.cipher.encrypt(value));
    else this.memory.set(`${kind}:${cluster}`, value);
  }

  get(cluster: string, kind: SecretKind): string | undefined {
    const held = this.memory.get(`${kind}:${cluster}`);
    if (held !== undefined) return held;
    const ciphertext = this.cipher ? this.store?.secret(cluster, kind) : undefined;
    return ciphertext === undefined ? undefined : this.cipher!.decrypt(ciphertext);
  }

  has(cluster: string, kind: SecretKind): boolean {
    return (
      this.memory.has(`${kind}:${cluster}`) ||
      (this.cipher !== undefined && this.store?.secret(cluster, kind) !== undefined)
    );
  }

  /** Gives a renamed cluster's secrets to its new name too (the old name's go with the old name's removal). */
  rename(from: string, to: string): void {
    this.changes++;
    for (const kind of ['password', 'passphrase'] as const) {
      const held = this.memory.get(`${kind}:${from}`);
      if (held !== undefined) this.memory.set(`${kind}:${to}`, held);
      const ciphertext = this.cipher ? this.store?.secret(from, kind) : undefined;
      if (ciphertext !== undefined) this.store!.saveSecret(to, kind, ciphertext);
    }
  }

  /** Forgets a removed cluster's session secrets (the store drops its stored ones with the cluster). */
  forget(cluster: string): void {
    this.changes++;
    for (const kind of ['password', 'passphrase'] as const) this.memory.delete(`${kind}:${cluster}`);
  }

  /**
   * The source the cluster's SSH connection asks — in Test connection, asset staging and the live run alike.
   * Decision: the cluster's password and passphrase are given only on its destination hop, as the connection
   * resolved it through ~/.ssh/config (alias → HostName, User, Port), for any key file that hop uses; never to a
   * jump host (from the settings or the config), even for a key file the destination shares with it — a jump host
   * that needs a secret must be reached with the agent or an unencrypted key. A request from a connection of
   * another name gets nothing.
   */
  sourceFor(config: LiveClusterConfig): SecretSource {
    return {
      revision: () => this.changes,
      get: async (request: SecretRequest) => {
        if (config.login.via !== 'ssh' || !request.destination || request.connection !== config.name) return undefined;
        return this.get(config.name, request.kind);
      },
    };
  }
}
