// Host-key verification against OpenSSH known_hosts files, which no maintained npm package does: plain and hashed
// (|1|salt|hash) host names, [host]:port, wildcard and negated patterns, several key types per host, @revoked.
// Concertina reads the user's files and its own, and writes only its own (hashed, like HashKnownHosts yes).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { globMatch } from './glob.js';
import {
  HostKeyChangedError,
  HostKeyRevokedError,
  HostKeyUnknownError,
  SshError,
  type PresentedHostKey,
} from './errors.js';

export interface KnownHostEntry {
  readonly file: string;
  readonly line: number;
  /** `@revoked` or `@cert-authority` lines; null for an ordinary line. */
  readonly marker: 'revoked' | 'cert-authority' | null;
  readonly hosts:
    { readonly hashed: { readonly salt: Buffer; readonly hash: Buffer } } | { readonly patterns: readonly string[] };
  readonly keyType: string;
  readonly key: Buffer;
}

export interface KnownHostsProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export interface ParsedKnownHosts {
  readonly entries: KnownHostEntry[];
  /** Lines that were skipped, with why (OpenSSH skips them too). */
  readonly problems: KnownHostsProblem[];
}

export interface LoadedKnownHosts extends ParsedKnownHosts {
  /** Changes when any file read changes (a key accepted, a line removed): a refused host may then be tried again. */
  readonly signature: string;
}

export function parseKnownHosts(text: string, file: string): ParsedKnownHosts {
  const entries: KnownHostEntry[] = [];
  const problems: KnownHostsProblem[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const fields = trimmed.split(/[ \t]+/);
    let marker: KnownHostEntry['marker'] = null;
    if (fields[0]!.startsWith('@')) {
      const name = fields.shift()!;
      if (name === '@revoked') marker = 'revoked';
      else if (name === '@cert-authority') marker = 'cert-authority';
      else return void problems.push({ file, line, message: `unknown marker ${name}` });
    }
    const [hostField, keyType, keyBase64] = fields;
    if (!hostField || !keyType || !keyBase64)
      return void problems.push({ file, line, message: 'expected: hosts key-type base64-key' });
    const key = Buffer.from(keyBase64, 'base64');
    const embedded = keyTypeOf(key);
    const canonical = key.toString('base64').replace(/=+$/, '') === keyBase64.replace(/=+$/, '');
    if (embedded === undefined || !canonical || !/^[A-Za-z0-9+/]+={0,2}$/.test(keyBase64)) {
      return void problems.push({ file, line, message: 'the key is not valid base64 of an SSH public key' });
    }
    if (embedded !== keyType)
      return void problems.push({ file, line, message: `key type ${keyType} does not match the key (${embedded})` });
    let hosts: KnownHostEntry['hosts'];
    if (hostField.startsWith('|')) {
      const hashed = /^\|1\|([A-Za-z0-9+/=]+)\|([A-Za-z0-9+/=]+)$/.exec(hostField);
      if (!hashed) return void problems.push({ file, line, message: 'hashed host name is not |1|salt|hash' });
      const salt = Buffer.from(hashed[1]!, 'base64');
      const hash = Buffer.from(hashed[2]!, 'base64');
      if (salt.length !== 20 || hash.length !== 20)
        return void problems.push({ file, line, message: 'hashed host name: salt and hash must be 20 bytes' });
      hosts = { hashed: { salt, hash } };
    } else {
      hosts = { patterns: hostField.split(',').filter((p) => p !== '') };
    }
    entries.push({ file, line, marker, hosts, keyType, key });
  });
  return { entries, problems };
}

/** The type name at the start of an SSH public key blob (a uint32 length and the name), or undefined. */
export function keyTypeOf(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || 4 + length > blob.length) return undefined;
  const name = blob.subarray(4, 4 + length).toString('latin1');
  return /^[\x21-\x7e]+$/.test(name) ? name : undefined;
}

/** As `ssh-keygen -l` and OpenSSH's prompts print it: `SHA256:` and unpadded base64. */
export function fingerprintSha256(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The name known_hosts files use for a host: `host` on port 22, `[host]:port` otherwise; lowercase as OpenSSH does. */
export function hostLookupName(host: string, port: number): string {
  const name = host.toLowerCase();
  return port === 22 ? name : `[${name}]:${port}`;
}

/** `|1|salt|hash` for a lookup name: HMAC-SHA1 keyed by a random 20-byte salt, as `ssh-keygen -H` writes. */
export function hashHostName(lookupName: string, salt: Buffer = randomBytes(20)): string {
  const hash = createHmac('sha1', salt).update(lookupName).digest();
  return `|1|${salt.toString('base64')}|${hash.toString('base64')}`;
}

export function entryMatches(entry: KnownHostEntry, lookupName: string): boolean {
  if ('hashed' in entry.hosts) {
    const { salt, hash } = entry.hosts.hashed;
    return timingSafeEqual(createHmac('sha1', salt).update(lookupName).digest(), hash);
  }
  return matchPatternList(entry.hosts.patterns, lookupName);
}

/** OpenSSH pattern lists: any pattern matches, but a matching negated one (`!pat`) excludes the host. */
export function matchPatternList(patterns: readonly string[], name: string): boolean {
  let matched = false;
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) {
      if (matchPattern(pattern.slice(1), name)) return false;
    } else if (matchPattern(pattern, name)) {
      matched = true;
    }
  }
  return matched;
}

/** Host names compare case-insensitively, as OpenSSH lowercases them. */
function matchPattern(pattern: string, name: string): boolean {
  return globMatch(pattern, name, { caseInsensitive: true });
}

export type HostKeyVerdict =
  | { readonly status: 'trusted'; readonly entry: KnownHostEntry }
  | { readonly status: 'unknown'; readonly knownTypes: readonly string[] }
  | { readonly status: 'changed'; readonly known: readonly KnownHostEntry[] }
  | { readonly status: 'revoked'; readonly entry: KnownHostEntry };

/**
 * The verdict on `key` presented by the host known as `lookupName`. Decision: @cert-authority lines are ignored
 * (ssh2 does not do host certificates), so a host known only through a CA is unknown and its plain key can be
 * accepted; a key of a type not yet known for a host that has keys of other types is unknown, as in OpenSSH.
 */
export function checkHostKey(entries: readonly KnownHostEntry[], lookupName: string, key: Buffer): HostKeyVerdict {
  const matching = entries.filter((e) => e.marker !== 'cert-authority' && entryMatches(e, lookupName));
  const revoked = matching.find((e) => e.marker === 'revoked' && e.key.equals(key));
  if (revoked) return { status: 'revoked', entry: revoked };
  const plain = matching.filter((e) => e.marker === null);
  const trusted = plain.find((e) => e.key.equals(key));
  if (trusted) return { status: 'trusted', entry: trusted };
  const type = keyTypeOf(key);
  const sameType = plain.filter((e) => e.keyType === type);
  if (sameType.length) return { status: 'changed', known: sameType };
  return { status: 'unknown', knownTypes: [...new Set(plain.map((e) => e.keyType))] };
}

/** Host key algorithms a client offers, in ssh2's default order (ssh-dss left out: OpenSSH dropped it). */
export const HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
] as const;
export type HostKeyAlgorithm = (typeof HOST_KEY_ALGORITHMS)[number];

const ALGORITHMS_OF_KEY_TYPE: Record<string, readonly HostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/**
 * The algorithms to offer, those of the key types already known for the host first: as OpenSSH does, so that a
 * host with an ed25519 and a known ecdsa key is checked against the ecdsa one instead of looking unknown.
 */
export function preferredHostKeyAlgorithms(entries: readonly KnownHostEntry[], lookupName: string): HostKeyAlgorithm[] {
  const known = new Set(
    entries
      .filter((e) => e.marker === null && entryMatches(e, lookupName))
      .flatMap((e) => ALGORITHMS_OF_KEY_TYPE[e.keyType] ?? []),
  );
  return [...HOST_KEY_ALGORITHMS.filter((a) => known.has(a)), ...HOST_KEY_ALGORITHMS.filter((a) => !known.has(a))];
}

export function presentedHostKey(lookupName: string, key: Buffer): PresentedHostKey {
  return {
    lookupName,
    keyType: keyTypeOf(key) ?? 'unknown',
    fingerprint: fingerprintSha256(key),
    keyBase64: key.toString('base64'),
  };
}

/** The verdict as the error to refuse the connection with, or undefined when the key is trusted. */
export function verdictError(
  verdict: HostKeyVerdict,
  presented: PresentedHostKey,
  subject?: string,
): SshError | undefined {
  switch (verdict.status) {
    case 'trusted':
      return undefined;
    case 'unknown':
      return new HostKeyUnknownError(presented, verdict.knownTypes, subject);
    case 'changed':
      return new HostKeyChangedError(
        presented,
        verdict.known.map((e) => ({ fingerprint: fingerprintSha256(e.key), file: e.file, line: e.line })),
        subject,
      );
    case 'revoked':
      return new HostKeyRevokedError(presented, { file: verdict.entry.file, line: verdict.entry.line }, subject);
  }
}

/**
 * The known_hosts files Concertina trusts: its own (`ownFile`, where accepted keys are appended) and, read only,
 * the user's and the system's, so that a host already trusted with OpenSSH need not be accepted again.
 */
export class KnownHosts {
  readonly files: readonly string[];
  private readonly userFiles: ReadonlySet<string>;

  constructor(
    readonly ownFile: string,
    readFiles: readonly string[] = KnownHosts.openSshFiles(),
    /** Those of `readFiles` that a host's UserKnownHostsFile replaces (default: the user's ~/.ssh ones). */
    userFiles: readonly string[] = KnownHosts.openSshFiles().slice(0, 2),
  ) {
    this.files = [ownFile, ...readFiles.filter((f) => f !== ownFile)];
    this.userFiles = new Set(userFiles);
  }

  static openSshFiles(home: string = os.homedir()): string[] {
    return [
      path.join(home, '.ssh', 'known_hosts'),
      path.join(home, '.ssh', 'known_hosts2'),
      '/etc/ssh/ssh_known_hosts',
    ];
  }

  /**
   * Reads every file now (a missing file is empty), so that a key accepted a moment ago counts. `userKnownHostsFiles`
   * (a host's UserKnownHostsFile) are read in place of the user's default files; our own file is always read.
   */
  async load(userKnownHostsFiles?: readonly string[]): Promise<LoadedKnownHosts> {
    const entries: KnownHostEntry[] = [];
    const problems: KnownHostsProblem[] = [];
    const digest = createHash('sha256');
    const files =
      userKnownHostsFiles === undefined
        ? this.files
        : [
            ...new Set([
              this.ownFile,
              ...userKnownHostsFiles,
              ...this.files.slice(1).filter((f) => !this.userFiles.has(f)),
            ]),
          ];
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new SshError('config', `${file}: cannot read known_hosts: ${(error as Error).message}`);
      }
      digest.update(`${file}\0${text.length}\0${text}\0`);
      const parsed = parseKnownHosts(text, file);
      entries.push(...parsed.entries);
      problems.push(...parsed.problems);
    }
    return { entries, problems, signature: digest.digest('base64') };
  }

  /**
   * Trusts a host key the user was shown (from a HostKeyUnknownError): appends a hashed line to our own file.
   * Refuses a key whose fingerprint does not match (the UI must show what it stores) and a key that would sit
   * beside a different known key of the same type (a changed key is never accepted over the old one).
   */
  async accept(hostKey: PresentedHostKey): Promise<void> {
    const key = Buffer.from(hostKey.keyBase64, 'base64');
    const type = keyTypeOf(key);
    if (type === undefined || type !== hostKey.keyType)
      throw new SshError('config', `host key for ${hostKey.lookupName}: not a ${hostKey.keyType} key`);
    if (fingerprintSha256(key) !== hostKey.fingerprint) {
      throw new SshError(
        'config',
        `host key for ${hostKey.lookupName}: fingerprint ${hostKey.fingerprint} does not match the key (${fingerprintSha256(key)})`,
      );
    }
    const verdict = checkHostKey((await this.load()).entries, hostKey.lookupName, key);
    if (verdict.status === 'trusted') return;
    if (verdict.status !== 'unknown') throw verdictError(verdict, presentedHostKey(hostKey.lookupName, key))!;
    await mkdir(path.dirname(this.ownFile), { recursive: true, mode: 0o700 });
    await appendFile(this.ownFile, `${hashHostName(hostKey.lookupName)} ${type} ${hostKey.keyBase64}\n`, {
      mode: 0o600,
    });
  }
}

/** Concertina's own known_hosts file, beside its run database: `$XDG_DATA_HOME/concertina/known_hosts`. */
export function defaultKnownHostsFile(): string {
  const dataHome = process.env['XDG_DATA_HOME'] || path.join(os.homedir(), '.local', 'share');
  return path.join(dataHome, 'concertina', 'known_hosts');
}

/** Trusts a host key the user was shown and accepted (see KnownHosts.accept). */
export function acceptHostKey(
  hostKey: PresentedHostKey,
  knownHosts: KnownHosts = new KnownHosts(defaultKnownHostsFile()),
): Promise<void> {
  return knownHosts.accept(hostKey);
}
