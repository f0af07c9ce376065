// A cluster's environment (SLURM_CONF, SGE_ROOT/SGE_CELL...) set for every command run on it: each script is
// preceded by `NAME='value'; export NAME` lines, the names checked as shell identifiers and the values quoted.
import type { CommandResult, CommandRunner, RunOptions } from '../shell/command-runner.js';
import { quote } from '../shell/quote.js';

export function envPrefix(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`env: "${name}" is not a shell variable name`);
      return `${name}=${quote(value)}; export ${name}\n`;
    })
    .join('');
}

export class EnvRunner implements CommandRunner {
  readonly target: string;
  private readonly prefix: string;

  constructor(
    readonly inner: CommandRunner,
    env: Readonly<Record<string, string>>,
  ) {
    this.target = inner.target;
    this.prefix = envPrefix(env);
  }

  run(script: string, options?: RunOptions): Promise<CommandResult> {
    return this.inner.run(this.prefix + script, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
