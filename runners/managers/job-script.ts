// The script every local job runs, whatever the batch system: export Concertina's variables, run the program, and
// record its exit status in a file of the job's directory. The file is how an ended job's outcome is known when
// the batch system no longer lists it (Slurm without accounting, Grid Engine, PBS without history).
import type { LocalJobSpec } from './batch-system.js';
import { quote, sh, ShellFragment } from '../shell/quote.js';

/**
 * The job script's text. `preamble` is the batch system's own first lines (e.g. PBS moves to the submit
 * directory); the program and every argument are quoted words.
 * Values may hold newlines, so a line of the script may start with `#SBATCH` or `#PBS` inside a quoted value: sbatch
 * (#SBATCH) and PBS's qsub read directives only up to the first executable line, and the line after the shebang
 * (the preamble, an export, or the program) is always one that starts with project text. Grid Engine's `#$` and
 * sbatch's `#PBS` lines are read further on: their submit commands turn that off (sge.ts, slurm.ts).
 */
export function jobScript(job: LocalJobSpec, preamble: ShellFragment = sh``): string {
  const exports = Object.entries(job.env).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new Error(`environment variable name "${name}" is not a shell identifier`);
    return `${name}=${quote(value)}; export ${name}`;
  });
  const temporary = `${job.exitFile}.tmp`;
  return [
    '#!/bin/sh',
    ...(preamble.text ? [preamble.text] : []),
    ...exports,
    sh`${job.program} ${job.args}`.text,
    'status=$?',
    // Written then renamed, so that a reader never sees a half-written status.
    sh`printf '%s\n' "$status" > ${temporary} && mv -f ${temporary} ${job.exitFile}`.text,
    'exit "$status"',
    '',
  ].join('\n');
}

/** `mkdir -p DIR && cd DIR` for the submit command: the job runs in its directory. */
export function enterWorkDir(job: LocalJobSpec): ShellFragment {
  return sh`mkdir -p -- ${job.workDir} && cd -- ${job.workDir}`;
}
