// Embedded directives: qsub and sbatch read options from comment lines of the job script (`#$` for Grid Engine,
// anywhere in the script; `#PBS` for PBS and `#SBATCH` for Slurm, up to the first executable line; Slurm's #PBS
// lines anywhere).
// Job arguments and the job id reach the script as quoted words that may hold newlines, so a value such as
// "x\n#$ -t 1-5" would become an option. Each adapter's submit command runs through a real shell against a stand-in
// that records its arguments and the script, and a model of how the real command scans the script finds no
// directive at all (test/integration/batch-systems.test.ts runs such a job on the real daemons).
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchSystem, LocalJobSpec } from '../../../runners/managers/batch-system.js';
import { PbsSystem } from '../../../runners/managers/pbs.js';
import { SgeSystem } from '../../../runners/managers/sge.js';
import { SlurmSystem } from '../../../runners/managers/slurm.js';
import { LocalRunner } from '../../../runners/shell/local-runner.js';

/** Values that hold a directive line of every batch system. */
const HOSTILE = [
  'x\n#$ -t 1-5',
  '#$ -N evil',
  'x\n#PBS -J 1-5\n',
  'x\n#SBATCH --array=1-5\n#SBATCH --wrap=true',
  '\n#BSUB -n 4\n',
  "it's\n#$ -l h_rt=1",
];

/** One pass of a submit command over the script (from the manuals, and Slurm's source for #PBS). */
interface Pass {
  readonly prefixes: readonly string[];
  /** Grid Engine reads the whole script; PBS and sbatch's #SBATCH pass stop at the first line neither blank nor a comment. */
  readonly wholeScript: boolean;
  /** The option that replaces the prefix (`-C ''` turns scanning off), if the command has one. */
  readonly prefixOption?: string;
  /** The option that turns this pass off. */
  readonly offOption?: string;
}

const SCANNERS: Record<string, readonly Pass[]> = {
  sge: [{ prefixes: ['#$'], wholeScript: true, prefixOption: '-C' }],
  pbs: [{ prefixes: ['#PBS'], wholeScript: false, prefixOption: '-C' }],
  // sbatch also reads #PBS lines (--ignore-pbs names #BSUB too) in a pass that goes on past executable lines: found
  // on Slurm 22.05, where `#PBS -J 1-5` in an argument made an array of five.
  slurm: [
    { prefixes: ['#SBATCH'], wholeScript: false },
    { prefixes: ['#PBS', '#BSUB'], wholeScript: true, offOption: '--ignore-pbs' },
  ],
};

/** The lines the real command would take as directives. */
function directives(passes: readonly Pass[], script: string, args: readonly string[]): string[] {
  const found: string[] = [];
  for (const pass of passes) {
    if (pass.offOption && args.includes(pass.offOption)) continue;
    let prefixes = pass.prefixes;
    const at = pass.prefixOption ? args.indexOf(pass.prefixOption) : -1;
    if (at >= 0) prefixes = args[at + 1] ? [args[at + 1]!] : [];
    for (const [i, line] of script.split('\n').entries()) {
      if (i === 0 && line.startsWith('#!')) continue;
      if (prefixes.some((p) => line.startsWith(p))) found.push(line);
      else if (!pass.wholeScript && line.trim() !== '' && !line.trimStart().startsWith('#')) break;
    }
  }
  return found;
}

describe('directive scanning model', () => {
  it('finds what the batch systems would read (so that an empty answer below means something)', () => {
    expect(directives(SCANNERS['sge']!, '#!/bin/sh\necho a\n#$ -t 1-5\n', [])).toEqual(['#$ -t 1-5']);
    expect(directives(SCANNERS['sge']!, '#!/bin/sh\necho a\n#$ -t 1-5\n', ['-C', ''])).toEqual([]);
    expect(directives(SCANNERS['pbs']!, '#!/bin/sh\n#PBS -J 1-5\necho a\n#PBS -N x\n', [])).toEqual(['#PBS -J 1-5']);
    const slurm = '#!/bin/sh\n\n#SBATCH -n 2\n#PBS -N y\necho a\n#SBATCH -n 3\n#PBS -J 1-5\n';
    expect(directives(SCANNERS['slurm']!, slurm, [])).toEqual(['#SBATCH -n 2', '#PBS -N y', '#PBS -J 1-5']);
    expect(directives(SCANNERS['slurm']!, slurm, ['--ignore-pbs'])).toEqual(['#SBATCH -n 2']);
  });
});

describe('no user value becomes a directive', () => {
  let bin: string;
  let runner: LocalRunner;
  beforeAll(() => {
    bin = mkdtempSync(path.join(os.tmpdir(), 'cnc-directives-'));
    // Stand-ins that record their arguments (NUL-separated) and the script on their standard input.
    for (const name of ['qsub', 'sbatch']) {
      writeFileSync(
        path.join(bin, name),
        `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done > "${bin}/${name}.args"\ncat > "${bin}/${name}.stdin"\necho 12\n`,
      );
      chmodSync(path.join(bin, name), 0o755);
    }
    runner = new LocalRunner({ cwd: bin, env: { PATH: `${bin}:${process.env.PATH}` } });
  });
  afterAll(async () => {
    await runner.close();
    rmSync(bin, { recursive: true, force: true });
  });

  const systems: Array<[string, keyof typeof SCANNERS, 'qsub' | 'sbatch', BatchSystem]> = [
    ['Grid Engine', 'sge', 'qsub', new SgeSystem()],
    ['PBS Professional', 'pbs', 'qsub', new PbsSystem()],
    ['TORQUE', 'pbs', 'qsub', new PbsSystem({ flavour: 'torque' })],
    ['Slurm', 'slurm', 'sbatch', new SlurmSystem()],
  ];
  for (const [title, kind, command, system] of systems) {
    it(`${title}: in the arguments, the program and the job id`, async () => {
      const job: LocalJobSpec = {
        name: 'cnc-concertina-j1-0-r0',
        processors: 2,
        program: '#$ -t 1-3\n#PBS -J 1-3\n#SBATCH -a 1-3',
        args: HOSTILE,
        workDir: path.join(bin, 'work'),
        stdoutFile: 'o',
        stderrFile: 'e',
        exitFile: 'x',
        env: { CONCERTINA_JOB_ID: HOSTILE.join('\n'), CONCERTINA_COMPONENT: '0' },
      };
      const result = await runner.run(system.submitCommand(job).text);
      expect(result.code, result.stderr).toBe(0);
      const script = readFileSync(path.join(bin, `${command}.stdin`), 'utf8');
      const args = readFileSync(path.join(bin, `${command}.args`), 'utf8')
        .split('\0')
        .slice(0, -1);
      // The hostile lines did reach the script (inside quotes), and none of them is read as a directive.
      expect(script).toContain('\n#$ -t 1-5');
      expect(directives(SCANNERS[kind]!, script, args)).toEqual([]);
    });
  }
});
