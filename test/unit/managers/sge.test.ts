// Grid Engine's parsers on outputs recorded from Son of Grid Engine 8.1.9 on loopback, and its state map.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterStatus, ParseError } from '../../../runners/managers/batch-system.js';
import {
  parseQstatXml,
  parseQsubTerse,
  parseQueueSummaryXml,
  SgeSystem,
  sgeState,
} from '../../../runners/managers/sge.js';
import { fixture, sections } from './fixtures.js';

describe('qstat -xml parser', () => {
  it('reads running jobs, array tasks (running and pending), held, error and deleting jobs', () => {
    const jobs = parseQstatXml(fixture('sge-qstat-mixed.xml'));
    expect(jobs.map((j) => [j.id, j.rawState, j.state, j.processors])).toEqual([
      ['6', 'r', 'running', 4],
      ['7', 'r', 'running', 1],
      ['8', 'r', 'running', 1],
      ['9', 'r', 'running', 2],
      ['10.1', 'r', 'running', 3],
      ['10.2', 'r', 'running', 3],
      ['13', 'dr', 'running', 1],
      ['10.3-6:1', 'qw', 'pending', 3],
      ['12', 'Eqw', 'failed', 1],
      ['11', 'hqw', 'pending', 1],
    ]);
    expect(jobs.find((j) => j.id === '13')!.deleting).toBe(true);
    expect(jobs.find((j) => j.id === '6')).toMatchObject({ name: 'cnc-concertina-j1-0-r0', user: 'root' });
    // Grid Engine escapes "<" as "%lt;" in its XML (sic); the other entities arrive decoded.
    expect(jobs.find((j) => j.id === '9')!.name).toBe('alice%lt;&>"job');
  });

  it('reads an empty queue as no jobs', () => {
    expect(parseQstatXml(fixture('sge-qstat-empty.xml'))).toEqual([]);
  });

  it('finds the XML after login-shell noise, and refuses output without XML or with broken XML', () => {
    expect(parseQstatXml(`Welcome!\n${fixture('sge-qstat-empty.xml')}`)).toEqual([]);
    expect(() => parseQstatXml('error: commlib error: got select error (Connection refused)\n')).toThrow(/no XML/);
    expect(() =>
      parseQstatXml(
        '<?xml version=\'1.0\'?>\n<job_info><queue_info><job_list state="running"><JB_job_number>1</JB_job_number><slots>1</slots></job_list>',
      ),
    ).toThrow(ParseError);
    expect(() =>
      parseQstatXml(
        "<?xml version='1.0'?><job_info><queue_info><job_list><JB_job_number>x</JB_job_number></job_list></queue_info></job_info>",
      ),
    ).toThrow(/bad JB_job_number/);
  });
});

describe('Grid Engine states', () => {
  it.each([
    ['qw', 'pending'],
    ['hqw', 'pending'],
    ['hRwq', 'pending'],
    ['t', 'pending'],
    ['Rt', 'pending'],
    ['r', 'running'],
    ['Rr', 'running'],
    ['hr', 'running'],
    ['s', 'running'],
    ['S', 'running'],
    ['T', 'running'],
    ['Rs', 'running'],
    ['Eqw', 'failed'],
    ['Ehqw', 'failed'],
    ['z', 'completed'],
    ['dr', 'running'],
    ['dt', 'pending'],
    ['dqw', 'pending'],
    ['Q', 'unknown'],
  ])('%s is %s', (raw, state) => {
    expect(sgeState(raw).state).toBe(state);
    expect(sgeState(raw).deleting).toBe(raw.startsWith('d'));
    // Only a transferring job holds slots before it runs (they count as its own, not as hidden load).
    expect(sgeState(raw).allocated).toBe(raw.replace('d', '').includes('t') && state === 'pending');
  });
});

describe('qstat -g c -xml parser and background load', () => {
  it('reads slots per cluster queue (recorded with 15 of 16 in use); unavailable = neither used nor available', () => {
    expect(parseQueueSummaryXml(fixture('sge-queues.xml'))).toEqual({ total: 16, idle: 1, unavailable: 0 });
    // all.q@vm disabled with 15 slots in use: the one slot left is unavailable.
    expect(parseQueueSummaryXml(fixture('sge-queues-disabled.xml'))).toEqual({ total: 16, idle: 0, unavailable: 1 });
  });

  it('adds queues up', () => {
    const two = fixture('sge-queues.xml').replace(
      '</job_info>',
      '<cluster_queue_summary><name>long.q</name><load>0.1</load><used>3</used><resv>1</resv><available>4</available><total>8</total><temp_disabled>0</temp_disabled><manual_intervention>0</manual_intervention></cluster_queue_summary></job_info>',
    );
    expect(parseQueueSummaryXml(two)).toEqual({ total: 24, idle: 5, unavailable: 1 });
  });

  it("background = slots of running jobs not counted as Concertina's (deleting ones still hold theirs)", () => {
    const system = new SgeSystem();
    const report = system.parseStatus(
      sections({ qstat: fixture('sge-qstat-mixed.xml'), queues: fixture('sge-queues.xml') }),
    );
    // Concertina tracks 6, 7, 8 (4 + 1 + 1); others run 2 + 3 + 3 + 1 = 9.
    expect(clusterStatus(report, (j) => ['6', '7', '8'].includes(j.id))).toEqual({
      processors: 16,
      background: 9,
      reachable: true,
    });
  });

  it('refuses a queue summary with a field that is not a number', () => {
    expect(() =>
      parseQueueSummaryXml(fixture('sge-queues.xml').replace('<total>16</total>', '<total>lots</total>')),
    ).toThrow('qstat -g c -xml: queue all.q: total: expected a whole number, got "lots"');
  });
});

describe('qsub -terse output', () => {
  it('reads a job id and an array job id', () => {
    expect(parseQsubTerse('12\n')).toBe('12');
    expect(parseQsubTerse('10.1-6:1\n')).toBe('10');
    expect(() =>
      parseQsubTerse('Unable to run job: job rejected: the initial working directory "/x" does not exist.\n'),
    ).toThrow(ParseError);
  });

  it('builds the submit command with a parallel environment only for more than one slot', () => {
    const job = {
      name: 'n',
      processors: 1,
      program: 'p',
      args: [],
      workDir: 'w',
      stdoutFile: 'o',
      stderrFile: 'e',
      exitFile: 'x',
      env: {},
    };
    expect(new SgeSystem().submitCommand(job).text).not.toContain('-pe');
    expect(new SgeSystem({ parallelEnvironment: 'mpi' }).submitCommand({ ...job, processors: 4 }).text).toContain(
      "'-pe' 'mpi' '4'",
    );
  });

  it("asks for the job's walltime as a hard run-time limit (h_rt), and none without one", () => {
    const job = {
      name: 'n',
      processors: 1,
      program: 'p',
      args: [],
      workDir: 'w',
      stdoutFile: 'o',
      stderrFile: 'e',
      exitFile: 'x',
      env: {},
    };
    expect(new SgeSystem().submitCommand({ ...job, walltimeS: 7200 }).text).toContain("'-l' 'h_rt=2:00:00'");
    expect(new SgeSystem().submitCommand(job).text).not.toContain('h_rt');
  });
});

describe('waiting for grown local jobs to start', () => {
  const entry = (id: number, name: string, state: string) =>
    `    <job_list state="${state === 'qw' ? 'pending' : 'running'}">\n      <JB_job_number>${id}</JB_job_number>\n      <JB_name>${name}</JB_name>\n      <JB_owner>root</JB_owner>\n      <state>${state}</state>\n      <slots>1</slots>\n    </job_list>\n`;

  /** What the pending command prints against a `qstat` that answers with these jobs. */
  function waiting(names: string[], jobs: Array<[string, string]>): string[] {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-sge-pending-'));
    try {
      const xml = `<?xml version='1.0'?>\n<job_info>\n  <queue_info>\n${jobs.map(([name, state], i) => entry(i + 1, name, state)).join('')}  </queue_info>\n  <job_info>\n  </job_info>\n</job_info>\n`;
      writeFileSync(path.join(dir, 'qstat.xml'), xml);
      writeFileSync(path.join(dir, 'qstat'), `#!/bin/sh\ncat '${dir}/qstat.xml'\n`, { mode: 0o755 });
      const out = execFileSync('/bin/sh', ['-c', new SgeSystem().pendingCommand(names).text], {
        env: { PATH: `${dir}:/usr/bin:/bin` },
        encoding: 'utf8',
      });
      return out.split('\n').filter(Boolean);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('prints the named jobs still queued or on their way to their host (t), not running, failed or other ones', () => {
    const jobs: Array<[string, string]> = [
      ['cnc-j-0-m1', 'r'],
      ['cnc-j-0-m2', 't'],
      ['cnc-j-0-m3', 'qw'],
      ['cnc-j-0-m4', 'Eqw'],
      ['cnc-j-0-m5', 'dr'],
      ['cnc-j-0-m10', 'qw'],
      ['someone-else', 'qw'],
    ];
    expect(waiting(['cnc-j-0-m1', 'cnc-j-0-m2', 'cnc-j-0-m3', 'cnc-j-0-m4', 'cnc-j-0-m5', 'cnc-j-0-m6'], jobs)).toEqual(
      ['cnc-j-0-m2', 'cnc-j-0-m3'],
    );
    expect(waiting(['cnc-j-0-m1'], jobs)).toEqual([]);
    expect(waiting(['cnc-j-0-m1'], [])).toEqual([]);
  });
});
