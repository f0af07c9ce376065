// A live cluster's batch options reach its submit commands: the configuration (checked by liveClusterSchema) gives
// the adapter its partition, account, parallel environment, queue, PBS flavour and extra options, each one word on
// the command line of a stand-in qsub/sbatch run through a real shell.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchSystemSettings } from '../../runners/live/batch-settings.js';
import { liveClusterSchema } from '../../runners/live/config.js';
import type { LocalJobSpec } from '../../runners/managers/batch-system.js';
import { createBatchSystem } from '../../runners/managers/index.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';

let bin: string;
let runner: LocalRunner;

beforeAll(() => {
  bin = mkdtempSync(path.join(os.tmpdir(), 'cnc-batch-settings-'));
  for (const name of ['qsub', 'sbatch']) {
    writeFileSync(
      path.join(bin, name),
      `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done > "${bin}/${name}.args"\ncat > /dev/null\necho 12\n`,
    );
    chmodSync(path.join(bin, name), 0o755);
  }
  runner = new LocalRunner({ cwd: bin, env: { PATH: `${bin}:${process.env.PATH}` } });
});

afterAll(async () => {
  await runner.close();
  rmSync(bin, { recursive: true, force: true });
});

const job = (processors: number): LocalJobSpec => ({
  name: 'cnc-t-j1-0-r0',
  processors,
  program: '/bin/true',
  args: [],
  workDir: path.join(bin ?? '/tmp', 'w'),
  stdoutFile: 'o',
  stderrFile: 'e',
  exitFile: 'x',
  env: {},
});

/** The arguments the stand-in received for a job of `processors` on a cluster configured with `system` and `batch`. */
async function submittedArgs(system: string, batch: object, processors = 2): Promise<string[]> {
  const config = liveClusterSchema.parse({ name: 'c', login: { via: 'local' }, system, batch });
  const adapter = createBatchSystem(batchSystemSettings(config, { cores: 4, workRoot: '/w' }));
  const result = await runner.run(adapter.submitCommand(job(processors)).text);
  expect(result.code, result.stderr).toBe(0);
  const command = system === 'slurm' ? 'sbatch' : 'qsub';
  return readFileSync(path.join(bin, `${command}.args`), 'utf8')
    .split('\0')
    .slice(0, -1);
}

describe('batch options of a live cluster', () => {
  it('Slurm: partition, account and extra options, each one argument', async () => {
    const args = await submittedArgs('slurm', {
      partition: 'short',
      account: 'proj x',
      extraArgs: ['--qos=low', '--comment=a b; $(id)'],
    });
    expect(args).toEqual(
      expect.arrayContaining(['--partition=short', '--account=proj x', '--qos=low', '--comment=a b; $(id)']),
    );
    expect(await submittedArgs('slurm', {})).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^--(partition|account)=/)]),
    );
  });

  it('Grid Engine: the parallel environment of a multi-processor job and the queue', async () => {
    const args = await submittedArgs('sge', { parallelEnvironment: 'mpi', queue: 'long.q' }, 4);
    expect(args.join(' ')).toContain('-pe mpi 4 -q long.q');
    expect((await submittedArgs('sge', {}, 4)).join(' ')).toContain('-pe smp 4');
  });

  it("Slurm's partition and Grid Engine's queue bound what the status round counts", () => {
    const status = (system: string, batch: object) => {
      const config = liveClusterSchema.parse({ name: 'c', login: { via: 'local' }, system, batch });
      return Object.values(
        createBatchSystem(batchSystemSettings(config, { cores: 4, workRoot: '/w' })).statusCommands('n'),
      ).map((c) => c.text);
    };
    expect(status('slurm', { partition: 'short' })).toEqual([
      expect.stringContaining("squeue --noheader --all --states=all '--partition=short'"),
      expect.stringContaining("sinfo --noheader --Node '--partition=short'"),
    ]);
    expect(status('sge', { queue: 'long.q' })).toEqual([
      "qstat -xml -u '*' '-q' 'long.q'",
      "qstat -g c -xml '-q' 'long.q'",
    ]);
    expect(status('sge', {}).join(' ')).not.toContain('-q');
  });

  it('PBS: the flavour chooses how processors are asked for, and the queue', async () => {
    expect((await submittedArgs('pbs', { flavour: 'torque', queue: 'batch' }, 3)).join(' ')).toContain(
      '-l procs=3 -q batch',
    );
    expect((await submittedArgs('pbs', {}, 3)).join(' ')).toContain('-l select=3:ncpus=1');
  });

  it('a plain host: its slots, else all its cores, with its queue under the work root', () => {
    const config = (slots?: number) =>
      liveClusterSchema.parse({ name: 'c', login: { via: 'local' }, system: 'local', ...(slots ? { slots } : {}) });
    expect(batchSystemSettings(config(2), { cores: 8, workRoot: '/w' })).toEqual({
      kind: 'local',
      slots: 2,
      stateDir: '/w/local',
    });
    expect(batchSystemSettings(config(), { cores: 8, workRoot: '/w' })).toEqual({
      kind: 'local',
      slots: 8,
      stateDir: '/w/local',
    });
  });
});

describe("the live configuration composed from the adapters' option schemas", () => {
  it('refuses a batch option no adapter knows, naming it, and one of another system, naming the systems it applies to', () => {
    const parse = (system: string, batch: object) =>
      liveClusterSchema.safeParse({ name: 'c', login: { via: 'local' }, system, batch });
    const unknown = parse('slurm', { partitoin: 'short' });
    expect(unknown.success ? [] : unknown.error.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['batch', 'Unrecognized key: "partitoin"'],
    ]);
    const elsewhere = parse('pbs', { parallelEnvironment: 'mpi' });
    expect(elsewhere.success ? [] : elsewhere.error.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['batch.parallelEnvironment', 'applies to Grid Engine only, not PBS'],
    ]);
    const badValue = parse('pbs', { flavour: 'openpbs' });
    expect(badValue.success ? [] : badValue.error.issues.map((i) => i.path.join('.'))).toEqual(['batch.flavour']);
  });
});
