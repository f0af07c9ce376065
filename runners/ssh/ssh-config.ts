// ~/.ssh/config, as OpenSSH would apply it to one destination: Host aliases, HostName, User, Port, IdentityFile,
// IdentitiesOnly, IdentityAgent, HostKeyAlias, UserKnownHostsFile and ProxyJump (resolved hop by hop). The `ssh-config` package parses
// and matches; Include is followed here. `Match exec` is never run.
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SSHConfig, { type Directive, type Line, type Section } from 'ssh-config';
import { SshError } from './errors.js';
import { globMatch, hasWildcard } from './glob.js';

/** One SSH hop, fully resolved. */
export interface ResolvedHost {
  /** The destination as asked (an alias of ~/.ssh/config or a host name). */
  readonly alias: string;
  readonly hostName: string;
  readonly port: number;
  readonly user: string;
  /** Private key files to try, in order (absolute). The defaults when the config names none; may not exist. */
  readonly identityFiles: readonly string[];
  /** True when the files were named (config or settings): a missing one is then worth reporting. */
  readonly identityFilesExplicit: boolean;
  /** Decision: IdentitiesOnly yes means no agent at all (OpenSSH would still use agent keys matching the files). */
  readonly identitiesOnly: boolean;
  /** IdentityAgent: a socket path, or 'none'; undefined means SSH_AUTH_SOCK. */
  readonly identityAgent?: string;
  readonly hostKeyAlias?: string;
  /**
   * UserKnownHostsFile (absolute): read in place of the user's default known_hosts files for this hop's key
   * (Concertina's own file is read too, and is still where accepted keys go). Undefined: the defaults; empty: none.
   */
  readonly userKnownHostsFiles?: readonly string[];
  /** Hosts to jump through, the first connected to first. */
  readonly proxyJump: readonly ResolvedHost[];
}

/** Settings of a cluster that take precedence over ~/.ssh/config, like ssh's command-line options. */
export interface HostOverrides {
  readonly hostName?: string;
  readonly user?: string;
  readonly port?: number;
  readonly identityFile?: string | readonly string[];
  /** `[user@]host[:port]` hops separated by commas, or `none`. */
  readonly proxyJump?: string;
}

export interface LoadedSshConfig {
  readonly file: string;
  readonly config: SSHConfig;
}

export interface Environment {
  readonly home: string;
  readonly localUser: string;
  readonly localHost: string;
}

export function currentEnvironment(): Environment {
  return { home: os.homedir(), localUser: os.userInfo().username, localHost: os.hostname() };
}

const MAX_INCLUDE_DEPTH = 16; // as OpenSSH's READCONF_MAX_DEPTH
const MAX_JUMP_DEPTH = 8;

/**
 * Reads an ssh config file (a missing one is empty), with its Include directives followed. Relative Include
 * paths are taken from the directory of `file` (~/.ssh for the user's config, as OpenSSH does).
 */
export async function loadSshConfig(
  file: string = path.join(os.homedir(), '.ssh', 'config'),
  env: Environment = currentEnvironment(),
): Promise<LoadedSshConfig> {
  const text = await readOptional(file);
  const config =
    text === undefined ? new SSHConfig() : await withIncludes(SSHConfig.parse(text), file, path.dirname(file), env, 0);
  return { file, config };
}

export function parseSshConfig(text: string, file = 'ssh config'): LoadedSshConfig {
  return { file, config: SSHConfig.parse(text) };
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SshError('config', `${file}: cannot read: ${(error as Error).message}`);
  }
}

async function withIncludes(
  parsed: SSHConfig,
  file: string,
  baseDir: string,
  env: Environment,
  depth: number,
): Promise<SSHConfig> {
  if (depth > MAX_INCLUDE_DEPTH)
    throw new SshError('config', `${file}: Include nested more than ${MAX_INCLUDE_DEPTH} deep`);
  const out = new SSHConfig();
  for (const line of parsed) {
    if (isDirective(line) && /^include$/i.test(line.param)) {
      for (const included of await includedFiles(line, file, baseDir, env)) {
        out.push(
          ...(await withIncludes(SSHConfig.parse(await readFile(included, 'utf8')), included, baseDir, env, depth + 1)),
        );
      }
    } else if (isSection(line)) {
      // An Include inside a Host/Match block applies only when the block does; that holds when the included
      // lines join the block, which is right as long as they open no blocks of their own.
      const inner = new SSHConfig();
      for (const sub of line.config) {
        if (isDirective(sub) && /^include$/i.test(sub.param)) {
          for (const included of await includedFiles(sub, file, baseDir, env)) {
            const lines = await withIncludes(
              SSHConfig.parse(await readFile(included, 'utf8')),
              included,
              baseDir,
              env,
              depth + 1,
            );
            if (lines.some(isSection)) {
              throw new SshError(
                'config',
                `${included}: included from inside a Host or Match block of ${file} and has blocks of its own; not supported, move the Include above the first Host`,
              );
            }
            inner.push(...lines);
          }
        } else {
          inner.push(sub);
        }
      }
      out.push({ ...line, config: inner } as Section);
    } else {
      out.push(line);
    }
  }
  return out;
}

async function includedFiles(line: Directive, file: string, baseDir: string, env: Environment): Promise<string[]> {
  const files: string[] = [];
  for (const raw of valuesOf(line)) {
    const expanded = raw.startsWith('~/') ? path.join(env.home, raw.slice(2)) : raw;
    const full = path.resolve(baseDir, expanded);
    const dir = path.dirname(full);
    const name = path.basename(full);
    if (hasWildcard(dir))
      throw new SshError('config', `${file}: Include ${raw}: wildcards are supported in the file name only`);
    if (!hasWildcard(name)) {
      if ((await readOptional(full)) !== undefined) files.push(full);
      continue;
    }
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue; // as with glob(3): a directory that does not exist matches nothing
    }
    files.push(
      ...names
        .filter((n) => globMatch(name, n))
        .sort()
        .map((n) => path.join(dir, n)),
    );
  }
  return files;
}

function valuesOf(line: { value: unknown }): string[] {
  const value = line.value as string | { val: string }[];
  return typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : value.map((v) => v.val);
}

function isDirective(line: Line): line is Directive {
  return line.type === SSHConfig.DIRECTIVE;
}

function isSection(line: Line): line is Section {
  return line.type === SSHConfig.DIRECTIVE && 'config' in line;
}

export interface Destination {
  readonly host: string;
  readonly user?: string;
  readonly port?: number;
}

/** `[user@]host[:port]`, `[user@][v6addr]:port` or `ssh://[user@]host[:port]`, as ProxyJump accepts. */
export function parseDestination(spec: string, where: string): Destination {
  const text = spec.startsWith('ssh://') ? spec.slice('ssh://'.length) : spec;
  const match = /^(?:([^@\s]+)@)?(\[[^\]\s]+\]|[^:@\s[\]]+)(?::(\d+))?$/.exec(text);
  if (!match) throw new SshError('config', `${where}: "${spec}" is not [user@]host[:port]`);
  const host = match[2]!.startsWith('[') ? match[2]!.slice(1, -1) : match[2]!;
  return { host, ...(match[1] ? { user: match[1] } : {}), ...(match[3] ? { port: parsePort(match[3], where) } : {}) };
}

function parsePort(text: string, where: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535)
    throw new SshError('config', `${where}: Port must be 1..65535 (got "${text}")`);
  return port;
}

/**
 * Applies the config to `destination` (an alias or host name, optionally `user@` and `:port`) and `overrides`,
 * resolving ProxyJump hops through the config too.
 */
export function resolveHost(
  loaded: LoadedSshConfig,
  destination: string,
  overrides: HostOverrides = {},
  env: Environment = currentEnvironment(),
): ResolvedHost {
  return resolve(loaded, parseDestination(destination, 'destination'), overrides, env, []);
}

function resolve(
  loaded: LoadedSshConfig,
  dest: Destination,
  overrides: HostOverrides,
  env: Environment,
  seen: readonly string[],
): ResolvedHost {
  if (seen.length > MAX_JUMP_DEPTH)
    throw new SshError(
      'config',
      `${loaded.file}: ProxyJump chain longer than ${MAX_JUMP_DEPTH} (${seen.join(' -> ')})`,
    );
  const where = `${loaded.file}: Host ${dest.host}`;
  const computed = loaded.config.compute(
    { Host: dest.host, ...(dest.user ? { User: dest.user } : {}) },
    { ignoreCase: true, matchExec: false },
  );
  const one = (key: string): string | undefined => {
    const value = computed[key];
    return Array.isArray(value) ? value[0] : value;
  };
  if (one('proxycommand') !== undefined && overrides.proxyJump === undefined && one('proxyjump') === undefined) {
    throw new SshError(
      'config',
      `${where}: ProxyCommand is not supported (it would run a local command); use ProxyJump`,
    );
  }
  const hostName =
    overrides.hostName ?? expandTokens(one('hostname') ?? dest.host, { h: dest.host, n: dest.host }, where, env);
  const user = overrides.user ?? dest.user ?? one('user') ?? env.localUser;
  const portText =
    overrides.port !== undefined ? String(overrides.port) : dest.port !== undefined ? String(dest.port) : one('port');
  const port = portText === undefined ? 22 : parsePort(portText, where);
  const tokens = { h: hostName, n: dest.host, r: user, p: String(port) };
  const configured =
    overrides.identityFile !== undefined
      ? [overrides.identityFile].flat()
      : ((computed['identityfile'] as string[] | undefined) ?? []);
  const identityFiles = configured.length
    ? configured.map((f) => path.resolve(env.home, expandTokens(f, tokens, where, env)))
    : ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((f) => path.join(env.home, '.ssh', f));
  const agent = one('identityagent');
  const hostKeyAlias = one('hostkeyalias');
  const knownHostsSetting = computed['userknownhostsfile'] as string | string[] | undefined;
  const userKnownHostsFiles =
    knownHostsSetting === undefined
      ? undefined
      : [knownHostsSetting]
          .flat()
          .filter((f) => f !== 'none')
          .map((f) => path.resolve(env.home, expandTokens(f, tokens, where, env)));
  const jumpSpec = overrides.proxyJump ?? one('proxyjump');
  const self = `${user}@${hostName}:${port}`;
  if (seen.includes(self))
    throw new SshError('config', `${loaded.file}: ProxyJump loop (${[...seen, self].join(' -> ')})`);
  return {
    alias: dest.host,
    hostName,
    port,
    user,
    identityFiles,
    identityFilesExplicit: configured.length > 0,
    identitiesOnly: /^yes$/i.test(one('identitiesonly') ?? 'no'),
    ...(agent === undefined || agent === 'SSH_AUTH_SOCK'
      ? {}
      : { identityAgent: agent === 'none' ? 'none' : path.resolve(env.home, expandTokens(agent, tokens, where, env)) }),
    ...(hostKeyAlias ? { hostKeyAlias } : {}),
    ...(userKnownHostsFiles ? { userKnownHostsFiles } : {}),
    proxyJump:
      jumpSpec === undefined || jumpSpec === 'none' ? [] : resolveJumps(loaded, jumpSpec, env, [...seen, self]),
  };
}

/**
 * `ProxyJump a,b`: b is reached through a, and a through whatever its own config says, as `ssh -J` does (the
 * last hop's own ProxyJump is overridden by the list).
 */
function resolveJumps(
  loaded: LoadedSshConfig,
  spec: string,
  env: Environment,
  seen: readonly string[],
): ResolvedHost[] {
  const hops = spec.split(',').map((s) => parseDestination(s.trim(), `${loaded.file}: ProxyJump`));
  const chain: ResolvedHost[] = [];
  hops.forEach((hop, i) => {
    const resolved = resolve(loaded, hop, i === 0 ? {} : { proxyJump: 'none' }, env, seen);
    chain.push(...(i === 0 ? resolved.proxyJump : []), { ...resolved, proxyJump: [] });
  });
  return chain;
}

/** ssh_config TOKENS: %% %d %h %l %n %p %r %u and a leading ~. Unknown tokens are an error, not a silent literal. */
function expandTokens(
  text: string,
  values: Partial<Record<'h' | 'n' | 'r' | 'p', string>>,
  where: string,
  env: Environment,
): string {
  const all: Record<string, string | undefined> = {
    '%': '%',
    d: env.home,
    u: env.localUser,
    l: env.localHost,
    ...values,
  };
  const expanded = text.replace(/%(.)/g, (_, token: string) => {
    const value = all[token];
    if (value === undefined) throw new SshError('config', `${where}: token %${token} in "${text}" is not supported`);
    return value;
  });
  return expanded === '~' ? env.home : expanded.startsWith('~/') ? path.join(env.home, expanded.slice(2)) : expanded;
}

/** `user@host:port` and the jump hosts, for messages. */
export function describeHost(host: ResolvedHost): string {
  const self = `${host.user}@${host.hostName}:${host.port}`;
  return host.proxyJump.length
    ? `${self} via ${host.proxyJump.map((h) => `${h.user}@${h.hostName}:${h.port}`).join(', ')}`
    : self;
}
