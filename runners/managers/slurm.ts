// Slurm: `sbatch --parsable` with the job script on stdin, `squeue` and `sinfo` with explicit formats (not --json:
// slow, and its schema changes between versions), `scancel`. Tested on recorded outputs and on a real slurmctld.
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

/** Slurm's options as a cluster's configuration gives them (the console's form is built from this schema). */
export const slurmOptionsSchema = z.strictObject({
  partition: batchWord
    .optional()
    .meta({ title: 'partition', description: 'the partition jobs are submitted to (empty: the default partition)' }),
  account: batchWord
    .optional()
    .meta({ title: 'account', description: 'the account jobs are charged to (empty: the default account)' }),
  extraArgs: extraArgsOption('sbatch', '--qos=low'),
});
export type SlurmOptions = z.infer<typeof slurmOptionsSchema>;

/** Every state of squeue's `%T` (Slurm 20-24), mapped. Anything else is `unknown`. */
export const SLURM_STATES: Readonly<Record<string, LocalState>> = {
  PENDING: 'pending',
  // Nodes are being readied: not running yet.
  CONFIGURING: 'pending',
  REQUEUED: 'pending',
  REQUEUE_HOLD: 'pending',
  REQUEUE_FED: 'pending',
  RESV_DEL_HOLD: 'pending',
  RUNNING: 'running',
  // Ending, resizing, suspended, stopped, signalled, staging out: the job still holds its processors.
  COMPLETING: 'running',
  RESIZING: 'running',
  SUSPENDED: 'running',
  STOPPED: 'running',
  SIGNALING: 'running',
  STAGE_OUT: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  TIMEOUT: 'failed',
  NODE_FAIL: 'failed',
  PREEMPTED: 'failed',
  BOOT_FAIL: 'failed',
  DEADLINE: 'failed',
  OUT_OF_MEMORY: 'failed',
  SPECIAL_EXIT: 'failed',
  CANCELLED: 'cancelled',
  // A sibling of a federated job started elsewhere.
  REVOKED: 'cancelled',
};

// Fields of a job record; the name is last, so that a `|` in it is harmless, and lines that do not start with the
// round's nonce continue the previous record's name (a name may hold a newline).
const SQUEUE_FIELDS = '%i|%T|%C|%u|%r|%j';
const SINFO_FIELDS = '%N|%C|%T';

export class SlurmSystem implements BatchSystem {
  readonly kind = 'slurm';
  readonly listing = 'squeue';

  constructor(private readonly options: SlurmOptions = {}) {}

  submitCommand(job: LocalJobSpec): ShellFragment {
    const extra = [
      ...(this.options.partition ? [`--partition=${this.options.partition}`] : []),
      ...(this.options.account ? [`--account=${this.options.account}`] : []),
      ...(job.walltimeS === undefined ? [] : [`--time=${clockTime(job.walltimeS, true)}`]),
      ...(this.options.extraArgs ?? []),
    ];
    // sbatch stops reading #SBATCH lines at the first executable line, but reads #PBS ones (e.g. `#PBS -J 1-5`, an
    // array) further on, where a job's quoted arguments and id may put one: --ignore-pbs (every option is here).
    return sh`${enterWorkDir(job)} && printf '%s' ${jobScript(job)} | sbatch --parsable --ignore-pbs --job-name=${job.name} --ntasks=${job.processors} --output=${job.stdoutFile} --error=${job.stderrFile} ${extra}`;
  }

  parseSubmitted(stdout: string): string {
    return parseSbatch(stdout);
  }

  statusCommands(nonce: string): Record<string, ShellFragment> {
    // With a partition, only its nodes and jobs: another partition's jobs on shared nodes are then seen as busy
    // processors that no listed job accounts for (clusterStatus's hidden load).
    const partition = this.options.partition ? [`--partition=${this.options.partition}`] : [];
    return {
      squeue: sh`squeue --noheader --all --states=all ${partition} --format=${`${nonce}|${SQUEUE_FIELDS}`}`,
      sinfo: sh`sinfo --noheader --Node ${partition} --format=${`${nonce}|${SINFO_FIELDS}`}`,
    };
  }

  parseStatus(sections: ReadonlyMap<string, SectionOutput>, nonce: string): ClusterReport {
    return {
      jobs: parseSqueue(sectionText(sections, 'squeue', 'squeue'), nonce),
      nodes: parseSinfo(sectionText(sections, 'sinfo', 'sinfo'), nonce),
    };
  }

  cancelCommand(ids: readonly string[]): ShellFragment {
    return sh`scancel ${ids}`;
  }

  pendingCommand(names: readonly string[]): ShellFragment {
    // Names are made by localJobName ([A-Za-z0-9_-]): a comma-separated list is unambiguous.
    return sh`squeue --noheader --all --states=PENDING,CONFIGURING --name=${names.join(',')} --format=%j`;
  }
}

/** The job id printed by `sbatch --parsable`: `<id>` or `<id>;<cluster>`. */
export function parseSbatch(stdout: string): string {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^(\d+)(?:;\S+)?$/.exec(lines[i]!);
    if (m) return m[1]!;
  }
  throw new ParseError(`sbatch: no job id in its output ${JSON.stringify(stdout.slice(0, 200))}`);
}

/** Records of `squeue --format=<nonce>|%i|%T|%C|%u|%r|%j`. */
export function parseSqueue(text: string, nonce: string): LocalJobInfo[] {
  const jobs: Array<LocalJobInfo & { name: string }> = [];
  const head = `${nonce}|`;
  text.split('\n').forEach((line, index) => {
    if (!line.startsWith(head)) {
      // A name with a newline goes on over the following lines; before the first record it is noise.
      const last = jobs.at(-1);
      if (last && line !== '') jobs[jobs.length - 1] = { ...last, name: `${last.name}\n${line}` };
      return;
    }
    const fields = line.slice(head.length).split('|');
    if (fields.length < 6)
      throw new ParseError(
        `squeue line ${index + 1}: expected 6 fields, got ${fields.length}: ${JSON.stringify(line)}`,
      );
    const [id, rawState, cpus, user, reason] = fields as [string, string, string, string, string];
    const name = fields.slice(5).join('|');
    if (!/^\d+(?:_(?:\d+|\[[^\]]*\]))?(?:\+\d+)?$/.test(id))
      throw new ParseError(`squeue line ${index + 1}: bad job id ${JSON.stringify(id)}`);
    jobs.push({
      id,
      name,
      user,
      state: SLURM_STATES[rawState] ?? 'unknown',
      rawState,
      ...(rawState === 'CONFIGURING' ? { allocated: true } : {}),
      ...(rawState === 'TIMEOUT' ? { timedOut: true } : {}),
      processors: count(cpus, `squeue line ${index + 1}: CPUs`),
      ...(reason && reason !== 'None' ? { reason } : {}),
    });
  });
  return jobs;
}

/** Records of `sinfo --Node --format=<nonce>|%N|%C|%T`; a node listed in several partitions counts once. */
export function parseSinfo(text: string, nonce: string): NodeCounts {
  const seen = new Set<string>();
  let total = 0;
  let idle = 0;
  let unavailable = 0;
  const head = `${nonce}|`;
  text.split('\n').forEach((line, index) => {
    if (!line.startsWith(head)) return; // noise
    const [node, cpus] = line.slice(head.length).split('|');
    const m = /^(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(cpus ?? '');
    if (!node || !m)
      throw new ParseError(`sinfo line ${index + 1}: expected node|A/I/O/T|state, got ${JSON.stringify(line)}`);
    if (seen.has(node)) return;
    seen.add(node);
    // A/I/O/T: allocated, idle, other (down, drained, reserved for maintenance), total.
    idle += Number(m[2]);
    unavailable += Number(m[3]);
    total += Number(m[4]);
  });
  if (!seen.size)
    throw new ParseError(`sinfo listed no node${text.trim() ? `: ${JSON.stringify(text.trim().slice(0, 200))}` : ''}`);
  return { total, idle, unavailable };
}
