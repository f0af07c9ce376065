// The one way runners reach a machine: run a POSIX shell script there and read what it printed. Implemented over
// SSH (runners/ssh) and locally (local-runner.ts); batch-system adapters depend only on this interface.

export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The script's exit status; null when it was killed (by a signal or the timeout). */
  readonly code: number | null;
}

export interface RunOptions {
  /** Kill the command and reject with a timeout error after this long. */
  readonly timeoutMs?: number;
}

export interface CommandRunner {
  /** A name for messages ("lab1 (gridtest@127.0.0.1:2222)", "local"). */
  readonly target: string;
  /**
   * Runs `script` with `/bin/sh -s` (the script travels on stdin, never on a command line). Build scripts with
   * `sh` from quote.ts so that every value is quoted. Rejects only when the command could not be run at all
   * (connection lost, timeout); a failing script resolves with its non-zero code.
   */
  run(script: string, options?: RunOptions): Promise<CommandResult>;
  close(): Promise<void>;
}
