// Slurm's parsers on outputs recorded from Slurm 22.05 on loopback, and its commands run through a real shell
// against stand-ins for sbatch that record what they were given.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockTime, clusterStatus, hiddenLoad, ParseError } from '../../../runners/managers/batch-system.js';
import { parseLocalJobName } from '../../../runners/managers/naming.js';
import { framedScript, splitSections } from '../../../runners/managers/sections.js';
import { parseSbatch, parseSinfo, parseSqueue, SLURM_STATES, SlurmSystem } from '../../../runners/managers/slurm.js';
import { LocalRunner } from '../../../runners/shell/local-runner.js';
import { sh } from '../../../runners/shell/quote.js';
import { fixture, fixturesDir, RECORDED_NONCE, sections } from './fixtures.js';

const N = RECORDED_NONCE;

describe('squeue parser', () => {
  it('reads every job of a mixed queue: states, CPUs, array tasks, a name with a pipe and a newline', () => {
    const jobs = parseSqueue(fixture('slurm-squeue-mixed.txt'), N);
    expect(jobs.map((j) => [j.id, j.state, j.processors])).toEqual([
      ['9', 'cancelled', 1],
      ['5_[3-5]', 'pending', 3],
      ['7', 'pending', 1],
      ['8', 'pending', 1],
      ['6', 'pending', 1],
      ['1', 'running', 4],
      ['2', 'running', 1],
      ['3', 'running', 1],
      ['4', 'running', 2],
      ['5_1', 'running', 3],
      ['5_2', 'running', 3],
    ]);
    expect(jobs.find((j) => j.id === '4')!.name).toBe('alice|pipe\nnewline');
    expect(jobs.find((j) => j.id === '6')!.reason).toBe('JobHeldUser');
    expect(jobs.find((j) => j.id === '1')).not.toHaveProperty('reason'); // "None" is no reason
    expect(jobs.map((j) => parseLocalJobName(j.name, 'concertina')?.jobId).filter(Boolean)).toEqual([
      'j1',
      'm-7',
      'm-7',
    ]);
  });

  it('maps ended jobs still listed (MinJobAge) to completed, failed and cancelled', () => {
    const jobs = parseSqueue(fixture('slurm-squeue-ended.txt'), N);
    const byId = new Map(jobs.map((j) => [j.id, j]));
    expect(byId.get('8')).toMatchObject({ state: 'completed', rawState: 'COMPLETED' });
    expect(byId.get('7')).toMatchObject({ state: 'failed', rawState: 'FAILED', reason: 'NonZeroExitCode' });
    expect(byId.get('9')).toMatchObject({ state: 'cancelled' });
    expect(byId.get('5_1')).toMatchObject({ state: 'cancelled' });
  });

  it('reads an empty queue as no jobs', () => {
    expect(parseSqueue(fixture('slurm-squeue-empty.txt'), N)).toEqual([]);
    expect(parseSqueue('', N)).toEqual([]);
  });

  it('keeps a state it does not know as unknown, with the raw code', () => {
    const [job] = parseSqueue(`${N}|12|POWER_UP_NODE|2|bob|None|x\n`, N);
    expect(job).toMatchObject({ state: 'unknown', rawState: 'POWER_UP_NODE', processors: 2 });
  });

  it('cannot be fooled by a job name that imitates a record (it lacks the round nonce)', () => {
    const forged = `${N}|4|RUNNING|2|mallory|None|x\n1|RUNNING|999|root|None|cnc-concertina-j1-0-r0\n`;
    const jobs = parseSqueue(forged, N);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.name).toBe('x\n1|RUNNING|999|root|None|cnc-concertina-j1-0-r0');
  });

  it('refuses malformed records with the line number', () => {
    expect(() => parseSqueue(`${N}|12|RUNNING|two|bob|None|x\n`, N)).toThrow(/squeue line 1: CPUs/);
    expect(() => parseSqueue(`${N}|12|RUNNING\n`, N)).toThrow(ParseError);
    expect(() => parseSqueue(`${N}|x12|RUNNING|1|bob|None|x\n`, N)).toThrow(/bad job id/);
  });

  it('has a state map covering every state of squeue', () => {
    expect(Object.keys(SLURM_STATES).sort()).toEqual(
      [
        'BOOT_FAIL',
        'CANCELLED',
        'COMPLETED',
        'COMPLETING',
        'CONFIGURING',
        'DEADLINE',
        'FAILED',
        'NODE_FAIL',
        'OUT_OF_MEMORY',
        'PENDING',
        'PREEMPTED',
        'REQUEUED',
        'REQUEUE_FED',
        'REQUEUE_HOLD',
        'RESIZING',
        'RESV_DEL_HOLD',
        'REVOKED',
        'RUNNING',
        'SIGNALING',
        'SPECIAL_EXIT',
        'STAGE_OUT',
        'STOPPED',
        'SUSPENDED',
        'TIMEOUT',
      ].sort(),
    );
  });
});

describe('sinfo parser and background load', () => {
  it('sums CPUs over nodes: allocated, idle, other (drained), total', () => {
    expect(parseSinfo(fixture('slurm-sinfo.txt'), N)).toEqual({ total: 16, idle: 2, unavailable: 0 });
    expect(parseSinfo(fixture('slurm-sinfo-drained.txt'), N)).toEqual({ total: 16, idle: 0, unavailable: 8 });
  });

  it('counts a node listed in two partitions once', () => {
    const text = `${N}|n1|2/6/0/8|mixed\n${N}|n1|2/6/0/8|mixed\n${N}|n2|0/8/0/8|idle\n`;
    expect(parseSinfo(text, N)).toEqual({ total: 16, idle: 14, unavailable: 0 });
  });

  it("background = running CPUs of jobs not counted as Concertina's, plus unavailable CPUs", () => {
    const report = {
      jobs: parseSqueue(fixture('slurm-squeue-mixed.txt'), N),
      nodes: parseSinfo(fixture('slurm-sinfo.txt'), N),
    };
    // Concertina tracks jobs 1, 2 and 3 (4 + 1 + 1 CPUs); the others run 2 + 3 + 3 = 8.
    expect(clusterStatus(report, (j) => ['1', '2', '3'].includes(j.id))).toEqual({
      processors: 16,
      background: 8,
      reachable: true,
    });
    // Before recovery, even tagged jobs are unknown to the scheduler: all 14 allocated CPUs are background.
    expect(clusterStatus(report, () => false).background).toBe(14);
    const drained = { jobs: report.jobs, nodes: parseSinfo(fixture('slurm-sinfo-drained.txt'), N) };
    expect(clusterStatus(drained, (j) => ['1', '2', '3'].includes(j.id)).background).toBe(16);
  });

  it("takes the CPUs of a job whose nodes are being readied (CONFIGURING) for that job's, not for hidden load", () => {
    // Ours, 4 CPUs, configuring on n1 (which sinfo already shows allocated); nobody else runs anything.
    const jobs = parseSqueue(`${N}|7|CONFIGURING|4|me|None|cnc-concertina-j1-0-m1\n`, N);
    expect(jobs[0]).toMatchObject({ state: 'pending', allocated: true, processors: 4 });
    const report = { jobs, nodes: parseSinfo(`${N}|n1|4/4/0/8|mixed\n${N}|n2|0/8/0/8|idle\n`, N) };
    expect(hiddenLoad(report)).toBe(0);
    expect(clusterStatus(report, (j) => j.id === '7', hiddenLoad(report)).background).toBe(0);
    // The same CPUs busy with no job listed are hidden load (another partition's job, say).
    expect(hiddenLoad({ jobs: [], nodes: report.nodes })).toBe(4);
  });
});

describe('walltimes', () => {
  const job = {
    name: 'n',
    processors: 2,
    program: 'p',
    args: [],
    workDir: 'w',
    stdoutFile: 'o',
    stderrFile: 'e',
    exitFile: 'x',
    env: {},
  };

  it('writes a walltime as H:MM:SS, or D-HH:MM:SS, rounded up to a whole second', () => {
    expect(clockTime(3600)).toBe('1:00:00');
    expect(clockTime(59.2)).toBe('0:01:00');
    expect(clockTime(90061)).toBe('25:01:01'); // 1 day, 1 h, 1 min, 1 s
    expect(clockTime(90061, true)).toBe('1-01:01:01');
    expect(clockTime(149, true)).toBe('0-00:02:29');
  });

  it("asks Slurm for the job's walltime with --time, and nothing without one", () => {
    expect(new SlurmSystem().submitCommand({ ...job, walltimeS: 3601 }).text).toContain("'--time=0-01:00:01'");
    expect(new SlurmSystem().submitCommand(job).text).not.toContain('--time');
  });

  it('marks a job Slurm ended for its time limit (TIMEOUT)', () => {
    const text = `${N}|12|TIMEOUT|2|alice|TimeLimit|cnc-concertina-j-0-r0\n${N}|13|FAILED|2|alice|NonZeroExitCode|other\n`;
    const [timedOut, failed] = parseSqueue(text, N);
    expect(timedOut).toMatchObject({ state: 'failed', rawState: 'TIMEOUT', timedOut: true });
    expect(failed!.timedOut).toBeUndefined();
  });
});

describe('sbatch output', () => {
  it('reads the id, with or without a cluster name, after warnings', () => {
    expect(parseSbatch('42\n')).toBe('42');
    expect(parseSbatch('42;cluster2\n')).toBe('42');
    expect(parseSbatch('sbatch: warning: something odd\n43\n')).toBe('43');
    expect(() => parseSbatch('sbatch: error: Batch job submission failed\n')).toThrow(ParseError);
  });
});

describe('Slurm commands through a real shell', () => {
  let bin: string;
  let runner: LocalRunner;
  beforeAll(() => {
    bin = mkdtempSync(path.join(os.tmpdir(), 'cnc-fake-slurm-'));
    // Stand-ins that record their arguments (one per line, NUL-separated) and standard input.
    const recorder = (name: string, reply: string) => {
      const file = path.join(bin, name);
      writeFileSync(
        file,
        `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done > "${bin}/${name}.args"\ncat > "${bin}/${name}.stdin"\n${reply}\n`,
      );
      chmodSync(file, 0o755);
    };
    recorder('sbatch', 'echo 77');
    recorder('scancel', 'exit 0');
    runner = new LocalRunner({ cwd: bin, env: { PATH: `${bin}:${process.env.PATH}` } });
  });
  afterAll(async () => {
    await runner.close();
    rmSync(bin, { recursive: true, force: true });
  });

  const args = (name: string) =>
    readFileSync(path.join(bin, `${name}.args`), 'utf8')
      .split('\0')
      .slice(0, -1);

  it('submits with the script on stdin and every value as one argument, hostile ones included', async () => {
    const system = new SlurmSystem({ partition: "debug'; rm -rf /", extraArgs: ['--qos=low'] });
    const job = {
      name: 'cnc-concertina-j1-0-r0',
      processors: 3,
      program: '/opt/app/run it',
      args: ["it's", '$(touch pwned)', 'a\nb', 'ü ☃'],
      workDir: path.join(bin, "work dir's"),
      stdoutFile: 'cnc-concertina-j1-0-r0.out',
      stderrFile: 'cnc-concertina-j1-0-r0.err',
      exitFile: 'cnc-concertina-j1-0-r0.exit',
      env: { CONCERTINA_JOB_ID: 'j1; $(x)' },
    };
    const result = await runner.run(system.submitCommand(job).text);
    expect(result.code).toBe(0);
    expect(system.parseSubmitted(result.stdout)).toBe('77');
    expect(args('sbatch')).toEqual([
      '--parsable',
      '--ignore-pbs',
      '--job-name=cnc-concertina-j1-0-r0',
      '--ntasks=3',
      '--output=cnc-concertina-j1-0-r0.out',
      '--error=cnc-concertina-j1-0-r0.err',
      "--partition=debug'; rm -rf /",
      '--qos=low',
    ]);
    // The job script arrived on stdin; run it (with the program swapped for printf) to see the words it passes.
    const script = readFileSync(path.join(bin, 'sbatch.stdin'), 'utf8');
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    const probe = script.replace("'/opt/app/run it'", `printf '%s\\0'`);
    const ran = await runner.run(`cd ${JSON.stringify(job.workDir)} && ${probe.replace('#!/bin/sh\n', '')}`);
    expect(ran.stdout.split('\0').slice(0, -1)).toEqual(job.args);
    expect(readFileSync(path.join(job.workDir, 'cnc-concertina-j1-0-r0.exit'), 'utf8')).toBe('0\n');
  });

  it('cancels with one scancel for many ids', async () => {
    await runner.run(new SlurmSystem().cancelCommand(['5', '6']).text);
    expect(args('scancel')).toEqual(['5', '6']);
  });

  it('reads a status round through login-shell noise', async () => {
    const system = new SlurmSystem();
    const script = framedScript(N, {
      squeue: sh`cat ${path.join(fixturesDir, 'slurm-squeue-mixed.txt')}`,
      sinfo: sh`cat ${path.join(fixturesDir, 'slurm-sinfo.txt')}`,
    });
    const noisy = `echo 'Welcome to lab1 (Debian GNU/Linux 12)'; echo 'stty: not a tty' >&2; printf 'no newline at the end of a banner'\n${script.text}echo 'logout'\n`;
    const result = await runner.run(noisy);
    const report = system.parseStatus(splitSections(result.stdout, N), N);
    expect(report.jobs).toHaveLength(11);
    expect(report.nodes).toEqual({ total: 16, idle: 2, unavailable: 0 });
  });

  it('names the failing command and its message when squeue fails', async () => {
    const script = framedScript(N, {
      squeue: sh`echo 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2; exit 1`,
      sinfo: sh`true`,
    });
    const result = await runner.run(script.text);
    expect(() => new SlurmSystem().parseStatus(splitSections(result.stdout, N), N)).toThrow(
      'squeue exited with status 1: slurm_load_jobs error: Unable to contact slurm controller (connect failure)',
    );
  });

  it('parses the sections the adapter asks for', () => {
    expect(() => new SlurmSystem().parseStatus(sections({ squeue: '' }), N)).toThrow('sinfo: no output');
  });
});
