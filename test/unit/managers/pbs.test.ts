// PBS Professional and TORQUE parsers. No PBS server can be installed here: the outputs in test/fixtures/managers
// were written by hand from the PBS Professional Reference Guide and TORQUE's documentation (see the README there).
import { describe, expect, it } from 'vitest';
import { clusterStatus, ParseError } from '../../../runners/managers/batch-system.js';
import {
  execHostProcessors,
  parsePbsnodes,
  parsePbsQsub,
  parseQstatFull,
  parseQstatJson,
  PbsSystem,
  pbsOutcome,
  PBS_STATES,
} from '../../../runners/managers/pbs.js';
import { fixture, sections } from './fixtures.js';

describe('qstat -f (text, TORQUE)', () => {
  const jobs = parseQstatFull(fixture('pbs-torque-qstat-f.txt'));
  const byId = new Map(jobs.map((j) => [j.id, j]));

  it('reads every job with its state and processors (exec_host when running, else the request)', () => {
    expect(jobs.map((j) => [j.id, j.rawState, j.state, j.processors])).toEqual([
      ['548.moab.cluster.org', 'R', 'running', 6],
      ['549.moab.cluster.org', 'Q', 'pending', 8],
      ['550.moab.cluster.org', 'R', 'running', 16],
      ['551.moab.cluster.org', 'H', 'pending', 3],
      ['552[1].moab.cluster.org', 'R', 'running', 1],
      ['545.moab.cluster.org', 'C', 'completed', 1],
      ['546.moab.cluster.org', 'C', 'cancelled', 2],
      ['547.moab.cluster.org', 'C', 'failed', 1],
    ]);
  });

  it('joins values wrapped over tab-indented lines, and takes the user from Job_Owner', () => {
    expect(byId.get('549.moab.cluster.org')!.name).toBe(
      'cnc-concertina-averyveryveryveryveryveryverylongjobidentifier_2d42-0-r0',
    );
    expect(byId.get('548.moab.cluster.org')).toMatchObject({ name: 'cnc-concertina-j1-0-r0', user: 'fred' });
  });

  it('reads how completed jobs ended from exit_status', () => {
    expect(byId.get('545.moab.cluster.org')).toMatchObject({ exitCode: 0, reason: 'exit status 0' });
    expect(byId.get('546.moab.cluster.org')).toMatchObject({ exitCode: 271, reason: 'killed by signal 15' });
    expect(byId.get('547.moab.cluster.org')).toMatchObject({ exitCode: 139, reason: 'exit status 139' });
  });

  it('reads an empty listing as no jobs, skips noise before the first job, and refuses a malformed line', () => {
    expect(parseQstatFull('')).toEqual([]);
    expect(parseQstatFull(`Welcome to the cluster\n${fixture('pbs-torque-qstat-f.txt')}`)).toHaveLength(8);
    expect(() => parseQstatFull('Job Id: 1.srv\n    job_state = R\n    garbage line\n')).toThrow(
      'qstat -f line 3: expected "name = value", got "    garbage line"',
    );
    expect(() => parseQstatFull('Job Id: 1.srv\n    Job_Name = x\n')).toThrow(/job 1.srv has no job_state/);
  });
});

describe('qstat -f -F json (PBS Pro)', () => {
  const jobs = parseQstatJson(fixture('pbs-pro-qstat-f.json'));
  const byId = new Map(jobs.map((j) => [j.id, j]));

  it('reads every job, array parents and unknown states included', () => {
    expect(jobs.map((j) => [j.id, j.rawState, j.state, j.processors])).toEqual([
      ['1234.pbs01', 'R', 'running', 4],
      ['1235.pbs01', 'Q', 'pending', 1],
      ['1236.pbs01', 'R', 'running', 8],
      ['1237.pbs01', 'H', 'pending', 2],
      ['1238[].pbs01', 'B', 'running', 1],
      ['1239.pbs01', 'E', 'running', 2],
      ['1230.pbs01', 'F', 'cancelled', 1],
      ['1231.pbs01', 'F', 'failed', 1],
      ['1232.pbs01', 'W', 'pending', 3],
      ['1233.pbs01', 'Z', 'unknown', 1],
    ]);
    expect(byId.get('1235.pbs01')!.reason).toBe(
      'Not Running: Insufficient amount of resource: ncpus (R: 1 A: 0 T: 16)',
    );
    expect(byId.get('1231.pbs01')!.reason).toBe('PBS could not run the job (exit status -1)');
  });

  it('reads a server with no job (no "Jobs" key) and refuses broken JSON', () => {
    expect(parseQstatJson(fixture('pbs-pro-qstat-f-empty.json'))).toEqual([]);
    expect(() => parseQstatJson('{"Jobs": {"1.srv": {"job_state": "R", "Job_Name": "a\\qb"}}}')).toThrow(
      /malformed JSON/,
    );
    expect(() => parseQstatJson('{"Jobs": 3}')).toThrow(/"Jobs" is not an object/);
  });
});

describe('pbsnodes -a', () => {
  it('PBS Pro: ncpus available and assigned; offline and down nodes are unavailable', () => {
    // node01, node02: 8 - 2 idle each; node03 job-busy 8 of 8; node04 offline (2 used, 6 unavailable); node05 down.
    expect(parsePbsnodes(fixture('pbs-pro-pbsnodes-a.txt'))).toEqual({ total: 40, idle: 12, unavailable: 14 });
  });

  it('TORQUE: np and the cores listed in jobs (ranges and lists)', () => {
    // n001, n002 job-exclusive and full; n003 6 idle; n004 4 idle; n005 2 of 4 idle; n006 down (8).
    expect(parsePbsnodes(fixture('pbs-torque-pbsnodes-a.txt'))).toEqual({ total: 44, idle: 12, unavailable: 8 });
  });

  it('refuses a node without a processor count', () => {
    expect(() => parsePbsnodes('n1\n     state = free\n')).toThrow(
      'pbsnodes: node n1: ncpus/np: expected a whole number, got undefined',
    );
  });
});

describe('PBS adapter', () => {
  it('maps every PBS Pro and TORQUE job state', () => {
    expect(Object.keys(PBS_STATES).sort()).toEqual(['B', 'C', 'E', 'F', 'H', 'M', 'Q', 'R', 'S', 'T', 'U', 'W', 'X']);
  });

  it("reads exit statuses: 0, a program error, a signal (qdel's are cancellations), a PBS failure", () => {
    expect(pbsOutcome(0).state).toBe('completed');
    expect(pbsOutcome(3)).toEqual({ state: 'failed', reason: 'exit status 3' });
    expect(pbsOutcome(265)).toEqual({ state: 'cancelled', reason: 'killed by signal 9' });
    expect(pbsOutcome(271).state).toBe('cancelled');
    expect(pbsOutcome(267)).toEqual({ state: 'failed', reason: 'killed by signal 11' });
    expect(pbsOutcome(-3).state).toBe('failed');
  });

  it('counts processors in exec_host strings of both flavours', () => {
    expect(execHostProcessors('n003/0-1+n004/0-3')).toBe(6);
    expect(execHostProcessors('n1/0+n1/1+n2/0')).toBe(3);
    expect(execHostProcessors('node01/0*4+node02/0*4')).toBe(8);
    expect(execHostProcessors('n1/0,2,4-5')).toBe(4);
  });

  it("reads qsub's job id, and matches ids that differ in the server suffix", () => {
    expect(parsePbsQsub('1234.pbs01\n')).toBe('1234.pbs01');
    expect(parsePbsQsub('1238[].pbs01\n')).toBe('1238[].pbs01');
    expect(() => parsePbsQsub('qsub: Unknown queue\n')).toThrow(ParseError);
    const pbs = new PbsSystem();
    expect(pbs.jobKey('548.moab')).toBe(pbs.jobKey('548.moab.cluster.org'));
    expect(pbs.jobKey('548.moab')).not.toBe(pbs.jobKey('549.moab'));
  });

  it('asks for processors the way each flavour does, and starts the job in its directory', () => {
    const job = {
      name: 'cnc-concertina-j-0-r0',
      processors: 3,
      program: 'p',
      args: [],
      workDir: 'w',
      stdoutFile: 'o',
      stderrFile: 'e',
      exitFile: 'x',
      env: {},
    };
    expect(new PbsSystem().submitCommand(job).text).toContain("-l 'select=3:ncpus=1'");
    expect(new PbsSystem({ flavour: 'torque' }).submitCommand(job).text).toContain("-l 'procs=3'");
    expect(new PbsSystem().submitCommand(job).text).toContain('cd "$PBS_O_WORKDIR" || exit 1');
  });

  it("asks both flavours for the job's walltime, and none without one", () => {
    const job = {
      name: 'n',
      processors: 3,
      program: 'p',
      args: [],
      workDir: 'w',
      stdoutFile: 'o',
      stderrFile: 'e',
      exitFile: 'x',
      env: {},
    };
    expect(new PbsSystem().submitCommand({ ...job, walltimeS: 100_000 }).text).toContain("'-l' 'walltime=27:46:40'");
    expect(new PbsSystem({ flavour: 'torque' }).submitCommand({ ...job, walltimeS: 60 }).text).toContain(
      "'-l' 'walltime=0:01:00'",
    );
    expect(new PbsSystem().submitCommand(job).text).not.toContain('walltime');
  });

  it('reads a status round in either form, and gives the background load', () => {
    const pbs = new PbsSystem();
    const pro = pbs.parseStatus(
      sections({ qstat: fixture('pbs-pro-qstat-f.json'), pbsnodes: fixture('pbs-pro-pbsnodes-a.txt') }),
    );
    // Concertina's 1234 runs 4; others hold 8 (1236) + 1 (1238[]) + 2 (1239, exiting) + 1 (1233, unknown state) = 12,
    // plus 14 unavailable.
    expect(clusterStatus(pro, (j) => j.id === '1234.pbs01')).toEqual({
      processors: 40,
      background: 26,
      reachable: true,
    });
    const torque = pbs.parseStatus(
      sections({ qstat: fixture('pbs-torque-qstat-f.txt'), pbsnodes: fixture('pbs-torque-pbsnodes-a.txt') }),
    );
    // Concertina's 548 runs 6; others hold 16 (550) + 1 (552[1]), plus 8 unavailable.
    expect(clusterStatus(torque, (j) => j.id === '548.moab.cluster.org')).toEqual({
      processors: 44,
      background: 25,
      reachable: true,
    });
  });
});

describe('PBS status when qstat -F json prints JSON that does not parse', () => {
  // PBS Professional leaves some characters unescaped in its JSON (here a backslash in a job name).
  const broken = '{"Jobs": {"1.srv": {"job_state": "R", "Job_Name": "a\\qb"}}}';

  it('asks for a new round at once, and reads the qstat -f text from then on', () => {
    const pbs = new PbsSystem();
    expect(pbs.statusCommands()['qstat']!.text).toBe('qstat -f -F json 2>/dev/null || qstat -f');
    let error: unknown;
    try {
      pbs.parseStatus(sections({ qstat: broken, pbsnodes: fixture('pbs-pro-pbsnodes-a.txt') }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ParseError);
    expect(error).toMatchObject({ retry: true, message: expect.stringContaining('malformed JSON') });
    expect(pbs.statusCommands()['qstat']!.text).toBe('qstat -f');
    const report = pbs.parseStatus(
      sections({ qstat: fixture('pbs-torque-qstat-f.txt'), pbsnodes: fixture('pbs-torque-pbsnodes-a.txt') }),
    );
    expect(report.jobs).toHaveLength(8);
  });
});
