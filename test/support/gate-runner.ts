// A CommandRunner in front of a real one that a test can hold shut: commands wait while it is paused, as they
// would while a connection is down, and then run for real.
import type { CommandResult, CommandRunner, RunOptions } from '../../runners/shell/command-runner.js';

export class GateRunner implements CommandRunner {
  readonly target: string;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  constructor(private readonly inner: CommandRunner) {
    this.target = `gated ${inner.target}`;
  }

  pause(): void {
    if (this.gate) return;
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  resume(): void {
    this.open?.();
    this.gate = undefined;
    this.open = undefined;
  }

  async run(script: string, options?: RunOptions): Promise<CommandResult> {
    while (this.gate) await this.gate;
    return this.inner.run(script, options);
  }

  close(): Promise<void> {
    this.resume();
    return this.inner.close();
  }
}
