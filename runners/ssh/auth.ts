// The authentication methods tried on one hop, in OpenSSH's order: the agent, each identity file (asking the
// secret source for a passphrase when the key is encrypted), then password and keyboard-interactive with the
// password from the secret source. Nothing here keeps a secret beyond handing it to ssh2.
import { readFile } from 'node:fs/promises';
import ssh2, { type AnyAuthMethod, type AuthenticationType, type AuthHandlerMiddleware, type ParsedKey } from 'ssh2';
import type { ResolvedHost } from './ssh-config.js';
import type { SecretRequest, SecretSource } from './secrets.js';

type AuthMethod = AnyAuthMethod;

interface Candidate {
  /** The SSH method it counts as (the agent's keys are 'publickey'). */
  readonly method: 'publickey' | 'password' | 'keyboard-interactive';
  readonly label: string;
  /** The attempt, or undefined to skip it (with `skipped` saying why). */
  prepare(): Promise<AuthMethod | undefined>;
}

export class AuthSequence {
  private readonly candidates: Candidate[];
  private index = 0;
  /** What was tried, and why other methods were skipped: for the error message, never holding secrets. */
  readonly tried: string[] = [];
  readonly skipped: string[] = [];
  /** The methods the server said it accepts, from its last refusal. */
  serverMethods: string[] = [];

  /**
   * `route` says where this hop is on the connection's route: every secret is asked for with this hop's resolved
   * user@host:port and that, so that the source can keep a cluster's secrets from a jump host.
   */
  constructor(
    host: ResolvedHost,
    secrets: SecretSource,
    agentSocket: string | undefined,
    route: { readonly destination: boolean; readonly connection?: string } = { destination: true },
  ) {
    const user = host.user;
    const hop = {
      user,
      host: host.hostName,
      port: host.port,
      destination: route.destination,
      ...(route.connection !== undefined ? { connection: route.connection } : {}),
    };
    const ask = (request: SecretRequest) => secrets.get(request);
    // A source may keep a destination's secrets from a jump host (Concertina's clusters do): say so where it matters.
    const onJump = route.destination ? '' : ' (none is given to a jump host for the cluster behind it)';
    const candidates: Candidate[] = [];
    const agent = host.identityAgent ?? agentSocket;
    if (!host.identitiesOnly && agent && agent !== 'none') {
      candidates.push({
        method: 'publickey',
        label: `agent (${agent})`,
        prepare: async () => ({ type: 'agent', username: user, agent }),
      });
    }
    for (const file of host.identityFiles) {
      candidates.push({
        method: 'publickey',
        label: `key ${file}`,
        prepare: async () => {
          const key = await this.loadKey(
            file,
            host.identityFilesExplicit,
            () => ask({ kind: 'passphrase', keyFile: file, ...hop }),
            onJump,
          );
          return key && { type: 'publickey', username: user, key };
        },
      });
    }
    const password = async () => ask({ kind: 'password', ...hop });
    candidates.push({
      method: 'password',
      label: 'password',
      prepare: async () => {
        const secret = await password();
        if (secret === undefined)
          this.skipped.push(`no password stored for ${user}@${host.hostName}:${host.port}${onJump}`);
        return secret === undefined ? undefined : { type: 'password', username: user, password: secret };
      },
    });
    candidates.push({
      method: 'keyboard-interactive',
      label: 'keyboard-interactive (password)',
      prepare: async () => {
        const secret = await password();
        if (secret === undefined) return undefined;
        // Decision: answer every hidden prompt with the stored password and visible ones with nothing; that is
        // what PAM's password conversation asks for. Other conversations (OTP) fail and are reported as such.
        return {
          type: 'keyboard-interactive',
          username: user,
          prompt: (_n, _i, _l, prompts, finish) => finish(prompts.map((p) => (p.echo ? '' : secret))),
        };
      },
    });
    this.candidates = candidates;
  }

  /** ssh2's authHandler: the next method the server still accepts, or false when none is left. */
  readonly handler: AuthHandlerMiddleware = (methodsLeft, _partialSuccess, callback) => {
    // ssh2 takes `false` for "nothing left", which its type declarations leave out.
    const next = callback as (auth: AuthMethod | false) => void;
    if (methodsLeft) this.serverMethods = methodsLeft;
    void this.next(methodsLeft).then(next, () => next(false));
  };

  private async next(methodsLeft: AuthenticationType[] | null): Promise<AuthMethod | false> {
    while (this.index < this.candidates.length) {
      const candidate = this.candidates[this.index++]!;
      if (methodsLeft && !methodsLeft.includes(candidate.method)) continue;
      const attempt = await candidate.prepare();
      if (attempt) {
        this.tried.push(candidate.label);
        return attempt;
      }
    }
    return false;
  }

  describe(): string {
    const tried = this.tried.length ? `tried ${this.tried.join(', ')}` : 'no method could be tried';
    const skipped = this.skipped.length ? `; ${this.skipped.join('; ')}` : '';
    const server = this.serverMethods.length ? `; the server accepts ${this.serverMethods.join(', ')}` : '';
    return `${tried}${skipped}${server}`;
  }

  private async loadKey(
    file: string,
    explicit: boolean,
    passphraseOf: () => Promise<string | undefined>,
    onJump: string,
  ): Promise<ParsedKey | undefined> {
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (error) {
      // Default key files that do not exist are not worth a word; a named one is.
      if (explicit || (error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.skipped.push(`key ${file}: ${(error as Error).message}`);
      return undefined;
    }
    let parsed = ssh2.utils.parseKey(data);
    if (parsed instanceof Error && /passphrase|encrypted/i.test(parsed.message)) {
      const passphrase = await passphraseOf();
      if (passphrase === undefined) {
        this.skipped.push(`key ${file} is encrypted and no passphrase is stored for it${onJump}`);
        return undefined;
      }
      parsed = ssh2.utils.parseKey(data, passphrase);
      if (parsed instanceof Error) {
        this.skipped.push(`key ${file}: the stored passphrase does not decrypt it`);
        return undefined;
      }
    }
    if (parsed instanceof Error) {
      this.skipped.push(`key ${file}: ${parsed.message}`);
      return undefined;
    }
    const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey) : parsed;
    if (!key.isPrivateKey()) {
      this.skipped.push(`key ${file}: not a private key`);
      return undefined;
    }
    return key;
  }
}
