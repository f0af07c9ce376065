// CommandRunner on this machine: `/bin/sh -s` with the script on stdin, like the SSH runner does remotely. Used for
// the `local` manager on the workstation itself and by the tests against loopback clusters.
import { spawn } from 'node:child_process';
import type { CommandResult, CommandRunner, RunOptions } from './command-runner.js';
import { CommandTimeoutError } from './errors.js';
import { frameScript } from './framing.js';

export interface LocalRunnerOptions {
  /** Working directory of every script (default: the process's). */
  readonly cwd?: string;
  /** Extra environment for every script, on top of the process's (e.g. SLURM_CONF, SGE_ROOT). */
  readonly env?: Readonly<Record<string, string>>;
  /** Timeout when `run` is given none. */
  readonly defaultTimeoutMs?: number;
}

export class LocalRunner implements CommandRunner {
  readonly target = 'local';
  private readonly running = new Set<number>();
  private closed = false;

  constructor(private readonly options: LocalRunnerOptions = {}) {}

  run(script: string, options: RunOptions = {}): Promise<CommandResult> {
    if (this.closed) return Promise.reject(new Error('local runner: closed'));
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs ?? 60_000;
    // The same framing as over SSH, so that a script behaves alike on both (stdin /dev/null, `exit` in a subshell).
    const framed = frameScript(script);
    return new Promise((resolve, reject) => {
      // detached: the script leads its own process group, so a timeout kills everything it started in the
      // foreground (background jobs that call setsid leave the group on purpose and survive).
      const child = spawn('/bin/sh', ['-s'], {
        cwd: this.options.cwd,
        env: { ...process.env, ...this.options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      const pid = child.pid;
      if (pid !== undefined) this.running.add(pid);
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(pid);
      }, timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', (error) => {
        clearTimeout(timer);
        if (pid !== undefined) this.running.delete(pid);
        reject(new Error(`local runner: cannot start /bin/sh: ${error.message}`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (pid !== undefined) this.running.delete(pid);
        if (timedOut) reject(new CommandTimeoutError(this.target, timeoutMs));
        else resolve(framed.unframe(Buffer.concat(stdout), Buffer.concat(stderr), code));
      });
      // A script that exits before reading all of stdin closes the pipe: that is not an error of ours.
      child.stdin.on('error', () => {});
      child.stdin.end(framed.text);
    });
  }

  /** Kills the scripts still running (their process groups) and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pid of this.running) killGroup(pid);
    this.running.clear();
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
