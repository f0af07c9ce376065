// PBS Professional / OpenPBS and TORQUE: `qsub` with the job script on stdin, `qstat -f -F json` where the server
// has it (PBS Pro 18+) and the `qstat -f` text otherwise (TORQUE, older PBS, or a server whose JSON does not
// parse), `pbsnodes -a`, `qdel`.
// No PBS server can be installed here (Debian ships none): this adapter is tested ONLY on recorded outputs written
// from the PBS Professional Reference Guide and TORQUE's documentation (test/fixtures/managers/pbs/), never on a
// live server. Decision: processors are counted from `exec_host` when a job runs, else from its resource request.
import {
  clockTime,
  count,
  ParseError,
  sectionText,
  type BatchSystem,
  type ClusterReport,
  type LocalJobInfo,
  type LocalJobSpec,
  type LocalState,
  type NodeCounts,
  type SectionOutput,
} from './batch-system.js';
import { enterWorkDir, jobScript } from './job-script.js';
import { sh, type ShellFragment } from '../shell/quote.js';
import { z } from 'zod';
import { batchWord, extraArgsOption } from './options.js';

/** PBS's options as a cluster's configuration gives them (the console's form is built from this schema). */
export const pbsOptionsSchema = z.strictObject({
  flavour: z.enum(['pbspro', 'torque']).optional().meta({
    title: 'PBS flavour',
    description:
      "how processors are requested: PBS Professional's select=N:ncpus=1 or Torque's procs=N (empty: pbspro)",
  }),
  queue: batchWord
    .optional()
    .meta({ title: 'queue', description: 'the queue jobs are submitted to (empty: the default queue)' }),
  extraArgs: extraArgsOption('qsub', '-l, then walltime=01:00:00'),
});
export type PbsOptions = z.infer<typeof pbsOptionsSchema>;

/** Job states of PBS Pro (Reference Guide, "Job States") and TORQUE (C: completed, kept for keep_completed). */
export const PBS_STATES: Readonly<Record<string, LocalState>> = {
  Q: 'pending', // queued
  H: 'pending', // held
  W: 'pending', // waiting for its start time or file stage-in
  T: 'pending', // in transit between servers
  M: 'pending', // moved to another server
  R: 'running',
  E: 'running', // exiting: still holds its processors
  B: 'running', // an array job whose subjobs have begun
  S: 'running', // suspended (Decision: its processors count as held)
  U: 'running', // suspended because the workstation is busy
  X: 'completed', // an expired subjob; outcome from Exit_status when present
  F: 'completed', // finished (job history); outcome from Exit_status
  C: 'completed', // TORQUE completed; outcome from exit_status
};

// Nodes in these states offer nothing to new jobs.
const NODE_UNAVAILABLE = new Set([
  'down',
  'offline',
  'unknown',
  'state-unknown',
  'stale',
  'unresolvable',
  'maintenance',
  'provisioning',
  'wait-provisioning',
  'sleep',
  'initializing',
]);
// Nodes given whole to one job or reservation: what that job did not ask for is not available either.
const NODE_EXCLUSIVE = new Set(['job-exclusive', 'resv-exclusive', 'busy', 'job-busy']);

export class PbsSystem implements BatchSystem {
  readonly kind = 'pbs';
  readonly listing = 'qstat';
  /** Whether `qstat -f -F json` is tried; once its output does not parse, this server is read as `qstat -f` text. */
  private json = true;

  constructor(private readonly options: PbsOptions = {}) {}

  submitCommand(job: LocalJobSpec): ShellFragment {
    const resources =
      this.options.flavour === 'torque' ? `procs=${job.processors}` : `select=${job.processors}:ncpus=1`;
    const walltime = job.walltimeS === undefined ? [] : ['-l', `walltime=${clockTime(job.walltimeS)}`];
    const extra = [
      ...walltime,
      ...(this.options.queue ? ['-q', this.options.queue] : []),
      ...(this.options.extraArgs ?? []),
    ];
    // PBS starts a job in the home directory; PBS_O_WORKDIR is where qsub ran (the job's directory).
    const script = jobScript(job, sh`cd "$PBS_O_WORKDIR" || exit 1`);
    return sh`${enterWorkDir(job)} && printf '%s' ${script} | qsub -N ${job.name} -o ${job.stdoutFile} -e ${job.stderrFile} -l ${resources} ${extra}`;
  }

  parseSubmitted(stdout: string): string {
    return parsePbsQsub(stdout);
  }

  statusCommands(): Record<string, ShellFragment> {
    return {
      // JSON where the server has it; TORQUE's qstat refuses -F and prints the text form instead.
      qstat: this.json ? sh`qstat -f -F json 2>/dev/null || qstat -f` : sh`qstat -f`,
      pbsnodes: sh`pbsnodes -a`,
    };
  }

  parseStatus(sections: ReadonlyMap<string, SectionOutput>): ClusterReport {
    const jobs = sectionText(sections, 'qstat', 'qstat -f');
    return {
      jobs: jobs.trimStart().startsWith('{') ? this.parseJson(jobs) : parseQstatFull(jobs),
      nodes: parsePbsnodes(sectionText(sections, 'pbsnodes', 'pbsnodes -a')),
    };
  }

  private parseJson(text: string): LocalJobInfo[] {
    try {
      return parseQstatJson(text);
    } catch (error) {
      if (!(error instanceof ParseError) || !this.json) throw error;
      // Decision: PBS Professional's JSON is not always valid (some values go out unescaped): the text form, which
      // every PBS prints, is read from then on, starting with a new round at once.
      this.json = false;
      throw new ParseError(`${error.message}; reading the qstat -f text instead`, true);
    }
  }

  cancelCommand(ids: readonly string[]): ShellFragment {
    return sh`qdel ${ids}`;
  }

  /** TORQUE may print `123.server` at submission and `123.server.domain` in qstat: the sequence number decides. */
  jobKey(id: string): string {
    return id.split('.')[0]!;
  }
}

/** qsub prints the job id: `1234.server` (PBS Pro, TORQUE), `1234[].server` for an array. */
export function parsePbsQsub(stdout: string): string {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^\d+(?:\[\d*\])?(?:\.[A-Za-z0-9._-]+)?$/.test(lines[i]!)) return lines[i]!;
  }
  throw new ParseError(`qsub: no job id in its output ${JSON.stringify(stdout.slice(0, 200))}`);
}

/** Processors in an exec_host value: `n1/0-1+n2/0-3` (TORQUE ranges) or `n1/0*4+n2/0*4` (PBS Pro counts). */
export function execHostProcessors(execHost: string): number {
  let total = 0;
  for (const part of execHost.split('+')) {
    const slots = part.trim().split('/')[1];
    if (slots === undefined) continue;
    const star = /^\d+\*(\d+)$/.exec(slots);
    if (star) total += Number(star[1]);
    else total += rangeCount(slots);
  }
  return total;
}

/** `0-3,5` counts 5. */
function rangeCount(list: string): number {
  let n = 0;
  for (const item of list.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(item.trim());
    if (m) n += m[2] === undefined ? 1 : Math.max(0, Number(m[2]) - Number(m[1]) + 1);
  }
  return n;
}

/** Processors asked for: PBS Pro's ncpus, TORQUE's procs, or nodes=N:ppn=M[+...]. */
function requested(resources: Record<string, string>): number {
  if (resources['ncpus']) return count(resources['ncpus'], 'Resource_List.ncpus');
  if (resources['procs']) return count(resources['procs'], 'Resource_List.procs');
  const nodes = resources['nodes'];
  if (nodes) {
    let n = 0;
    for (const chunk of nodes.split('+')) {
      const [first, ...props] = chunk.split(':');
      const hosts = /^\d+$/.test(first ?? '') ? Number(first) : 1;
      const ppn = props.map((p) => /^ppn=(\d+)$/.exec(p)).find(Boolean);
      n += hosts * (ppn ? Number(ppn[1]) : 1);
    }
    return n;
  }
  return 1;
}

/** Decision: an exit status of 256+signal means killed; by SIGTERM or SIGKILL (what qdel sends) it counts as cancelled. */
export function pbsOutcome(exitStatus: number): { state: LocalState; reason: string } {
  if (exitStatus === 0) return { state: 'completed', reason: 'exit status 0' };
  if (exitStatus >= 256) {
    const signal = exitStatus - 256;
    return { state: signal === 9 || signal === 15 ? 'cancelled' : 'failed', reason: `killed by signal ${signal}` };
  }
  if (exitStatus < 0) return { state: 'failed', reason: `PBS could not run the job (exit status ${exitStatus})` };
  return { state: 'failed', reason: `exit status ${exitStatus}` };
}

function jobInfo(
  id: string,
  attributes: Record<string, string>,
  resources: Record<string, string>,
  where: string,
): LocalJobInfo {
  const rawState = attributes['job_state'] ?? '';
  if (!rawState) throw new ParseError(`${where}: job ${id} has no job_state`);
  let state = PBS_STATES[rawState] ?? 'unknown';
  const exit = attributes['Exit_status'] ?? attributes['exit_status'];
  let reason = attributes['comment'];
  let exitCode: number | undefined;
  if (exit !== undefined && /^-?\d+$/.test(exit.trim()) && state === 'completed') {
    exitCode = Number(exit);
    const outcome = pbsOutcome(exitCode);
    state = outcome.state;
    reason = outcome.reason;
  }
  const execHost = attributes['exec_host'];
  const processors = execHost && state === 'running' ? execHostProcessors(execHost) : requested(resources);
  return {
    id,
    name: attributes['Job_Name'] ?? '',
    user: (attributes['Job_Owner'] ?? '').split('@')[0]!,
    state,
    rawState,
    processors,
    ...(reason ? { reason } : {}),
    ...(exitCode !== undefined ? { exitCode } : {}),
  };
}

/**
 * `qstat -f` text: a `Job Id: X` line, then `    name = value` attributes; long values go on over lines that start
 * with a tab. Anything before the first `Job Id:` is noise.
 */
export function parseQstatFull(text: string): LocalJobInfo[] {
  const jobs: LocalJobInfo[] = [];
  let id: string | undefined;
  let attributes: Record<string, string> = {};
  let last: string | undefined;
  const flush = () => {
    if (id === undefined) return;
    const resources: Record<string, string> = {};
    for (const [k, v] of Object.entries(attributes))
      if (k.startsWith('Resource_List.')) resources[k.slice('Resource_List.'.length)] = v;
    jobs.push(jobInfo(id, attributes, resources, 'qstat -f'));
  };
  text.split('\n').forEach((line, index) => {
    const header = /^Job Id:\s*(\S+)\s*$/.exec(line);
    if (header) {
      flush();
      id = header[1]!;
      attributes = {};
      last = undefined;
      return;
    }
    if (id === undefined || line.trim() === '') return;
    if (line.startsWith('\t') && last !== undefined) {
      attributes[last] += line.slice(1);
      return;
    }
    const attribute = /^\s+([A-Za-z_][\w.]*) = (.*)$/.exec(line);
    if (!attribute)
      throw new ParseError(`qstat -f line ${index + 1}: expected "name = value", got ${JSON.stringify(line)}`);
    last = attribute[1]!;
    attributes[last] = attribute[2]!;
  });
  flush();
  return jobs;
}

/** `qstat -f -F json` (PBS Pro 18+): `{"Jobs": {"<id>": {attributes, "Resource_List": {...}}}}`. */
export function parseQstatJson(text: string): LocalJobInfo[] {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new ParseError(`qstat -f -F json: malformed JSON: ${(error as Error).message}`);
  }
  if (!root || typeof root !== 'object') throw new ParseError('qstat -f -F json: expected an object');
  // With no job at all, PBS Pro leaves the "Jobs" key out.
  const jobs = (root as Record<string, unknown>)['Jobs'] ?? {};
  if (typeof jobs !== 'object' || jobs === null) throw new ParseError('qstat -f -F json: "Jobs" is not an object');
  return Object.entries(jobs as Record<string, unknown>).map(([id, value]) => {
    const job = (value ?? {}) as Record<string, unknown>;
    const attributes: Record<string, string> = {};
    for (const [k, v] of Object.entries(job))
      if (typeof v === 'string' || typeof v === 'number') attributes[k] = String(v);
    const resources: Record<string, string> = {};
    const list = job['Resource_List'];
    if (list && typeof list === 'object') for (const [k, v] of Object.entries(list)) resources[k] = String(v);
    return jobInfo(id, attributes, resources, 'qstat -f -F json');
  });
}

/**
 * `pbsnodes -a`: a node name alone on a line, then `     name = value` attributes. PBS Pro gives
 * resources_available.ncpus and resources_assigned.ncpus; TORQUE gives np and the jobs on each core
 * (`0-1/12.srv,3/13.srv`).
 */
export function parsePbsnodes(text: string): NodeCounts {
  let total = 0;
  let idle = 0;
  let unavailable = 0;
  let node: string | undefined;
  let attributes: Record<string, string> = {};
  const flush = () => {
    if (node === undefined) return;
    const where = `pbsnodes: node ${node}`;
    const cpus = count(
      attributes['resources_available.ncpus'] ?? attributes['np'] ?? attributes['pcpus'],
      `${where}: ncpus/np`,
    );
    const assigned = attributes['resources_assigned.ncpus'];
    const used = Math.min(
      cpus,
      assigned !== undefined
        ? count(assigned, `${where}: resources_assigned.ncpus`)
        : torqueJobCores(attributes['jobs'] ?? ''),
    );
    const states = (attributes['state'] ?? 'unknown').split(',').map((s) => s.trim());
    total += cpus;
    if (states.some((s) => NODE_UNAVAILABLE.has(s))) unavailable += cpus - used;
    else if (states.some((s) => NODE_EXCLUSIVE.has(s))) unavailable += cpus - used;
    else idle += cpus - used;
  };
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    if (!/^\s/.test(line)) {
      flush();
      node = line.trim();
      attributes = {};
      return;
    }
    if (node === undefined) return;
    const attribute = /^\s+([A-Za-z_][\w.]*) = (.*)$/.exec(line);
    if (!attribute)
      throw new ParseError(`pbsnodes line ${index + 1}: expected "name = value", got ${JSON.stringify(line)}`);
    attributes[attribute[1]!] = attribute[2]!;
  });
  flush();
  return { total, idle, unavailable };
}

/** Cores in TORQUE's `jobs` attribute: `0/12.srv,1/12.srv` or `0-1,3/12.srv,4/13.srv`. */
function torqueJobCores(jobs: string): number {
  let n = 0;
  for (const m of jobs.matchAll(/((?:\d+(?:-\d+)?,?)+)\/[^,\s]+/g)) n += rangeCount(m[1]!.replace(/,$/, ''));
  return n;
}
