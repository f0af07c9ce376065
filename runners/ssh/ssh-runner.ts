// CommandRunner over SSH: each script runs as `/bin/sh -s` on the cluster's login node, framed so that the login
// shell's noise stays out of its output, on the cluster's one shared connection.
import type { CommandResult, CommandRunner, RunOptions } from '../shell/command-runner.js';
import { frameScript } from '../shell/framing.js';
import { SshConnection, type SshConnectionOptions } from './connection.js';
import { defaultKnownHostsFile, KnownHosts } from './known-hosts.js';
import { loadSshConfig, resolveHost, type HostOverrides } from './ssh-config.js';

export interface SshRunnerOptions {
  /** Timeout when `run` is given none (default 60 s). */
  readonly defaultTimeoutMs?: number;
}

export class SshRunner implements CommandRunner {
  readonly target: string;

  constructor(
    readonly connection: SshConnection,
    private readonly options: SshRunnerOptions = {},
  ) {
    this.target = connection.description;
  }

  async run(script: string, options: RunOptions = {}): Promise<CommandResult> {
    const framed = frameScript(script);
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs ?? 60_000;
    const result = await this.connection.exec('/bin/sh -s', framed.text, {
      timeoutMs,
      killScript: (stdoutSoFar) => {
        const pid = framed.shellPid(stdoutSoFar);
        return pid === undefined ? undefined : frameScript(killProcessGroupScript(pid)).text;
      },
    });
    return framed.unframe(result.stdout, result.stderr, result.code);
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}

/**
 * Kills the process group of the shell `pid` (sshd makes each session's shell a group leader with setsid), found
 * in /proc (Linux) or with `ps`; the shell alone when neither can say.
 */
export function killProcessGroupScript(pid: number): string {
  if (!Number.isInteger(pid) || pid < 2) throw new RangeError(`not a process id: ${pid}`);
  return [
    'group=',
    // Fields after the command name, which is in parentheses and may hold spaces: state, ppid, pgrp.
    `if [ -r /proc/${pid}/stat ]; then stat=$(cat /proc/${pid}/stat) && set -- \${stat##*) } && group=$3; fi`,
    `[ -n "$group" ] || group=$(ps -o pgid= -p ${pid} 2>/dev/null | tr -d ' ')`,
    `if [ -n "$group" ] && [ "$group" -gt 1 ]; then kill -s KILL -- "-$group" 2>/dev/null; else kill -s KILL ${pid} 2>/dev/null; fi`,
    'exit 0',
  ].join('\n');
}

export interface OpenSshRunnerOptions extends Omit<SshConnectionOptions, 'host' | 'knownHosts'>, SshRunnerOptions {
  /** An alias of ~/.ssh/config or a host name, optionally `user@` and `:port`. */
  readonly destination: string;
  /** The cluster's own settings, over ~/.ssh/config. */
  readonly overrides?: HostOverrides;
  /** Default ~/.ssh/config. */
  readonly sshConfigFile?: string;
  /** Default: Concertina's own file plus the user's and the system's (see KnownHosts). */
  readonly knownHosts?: KnownHosts;
}

/** Resolves the destination through ~/.ssh/config and returns its runner (connected at the first command). */
export async function openSshRunner(options: OpenSshRunnerOptions): Promise<SshRunner> {
  const { destination, overrides, sshConfigFile, knownHosts, defaultTimeoutMs, ...connection } = options;
  const host = resolveHost(await loadSshConfig(sshConfigFile), destination, overrides);
  return new SshRunner(
    new SshConnection({ ...connection, host, knownHosts: knownHosts ?? new KnownHosts(defaultKnownHostsFile()) }),
    defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs },
  );
}
