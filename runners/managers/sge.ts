// Grid Engine (Son of Grid Engine 8, and its Univa/Altair relatives that keep the same XML): `qsub -terse` with the
// job script on stdin, `qstat -xml -u '*'` for every user's jobs, `qstat -g c -xml` for slots, `qdel`.
// Decision: slots come from the cluster-queue summary (`qstat -g c`), one element per queue with total, available
// and disabled slots, rather than from `qhost` (which counts cores, not slots) or `qstat -f` (one element per queue
// instance and every job repeated inside them). Queues that share hosts are counted once each.
// XML is read with saxes (well kept, strict, streaming): about six times faster than fast-xml-parser on a 10,000-job
// listing here, which matters for a status round every second. Job names and owners arrive entity-decoded.
import { SaxesParser } from 'saxes';
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

/** Grid Engine's options as a cluster's configuration gives them (the console's form is built from this schema). */
export const sgeOptionsSchema = z.strictObject({
  parallelEnvironment: batchWord.optional().meta({
    title: 'parallel environment',
    description: 'the parallel environment of jobs of more than one processor (empty: smp)',
  }),
  queue: batchWord
    .optional()
    .meta({ title: 'queue', description: 'the queue jobs are submitted to (empty: the default queue)' }),
  extraArgs: extraArgsOption('qsub', '-notify; -l, then h_rt=01:00:00'),
});
export type SgeOptions = z.infer<typeof sgeOptionsSchema>;

/**
 * A Grid Engine state string is a set of letters: q queued, w waiting, h hold, r running, t transferring,
 * R restarted, s/S/T suspended (by user, queue, threshold), E error, d being deleted, z zombie (ended).
 */
export function sgeState(raw: string): { state: LocalState; deleting: boolean; allocated: boolean } {
  const deleting = raw.includes('d');
  const letters = raw.replace('d', '');
  if (!/^[qwhrtRsSTEz]+$/.test(letters)) return { state: 'unknown', deleting, allocated: false };
  // Decision: a job in error state (Eqw) never starts by itself; it counts as failed (and is then deleted).
  if (letters.includes('E')) return { state: 'failed', deleting, allocated: false };
  // Suspended jobs still hold their slots.
  if (/[rsST]/.test(letters)) return { state: 'running', deleting, allocated: false };
  // Transferring: not running yet, but its slots are already taken on the execution host.
  if (/[tqwhR]/.test(letters)) return { state: 'pending', deleting, allocated: letters.includes('t') };
  return { state: 'completed', deleting, allocated: false }; // z
}

export class SgeSystem implements BatchSystem {
  readonly kind = 'sge';
  readonly listing = 'qstat';

  constructor(private readonly options: SgeOptions = {}) {}

  submitCommand(job: LocalJobSpec): ShellFragment {
    const pe = job.processors > 1 ? ['-pe', this.options.parallelEnvironment ?? 'smp', String(job.processors)] : [];
    const walltime = job.walltimeS === undefined ? [] : ['-l', `h_rt=${clockTime(job.walltimeS)}`];
    const extra = [
      ...pe,
      ...walltime,
      ...(this.options.queue ? ['-q', this.options.queue] : []),
      ...(this.options.extraArgs ?? []),
    ];
    // qsub reads `#$` lines anywhere in the script as options, and a job's arguments and id may hold such a line
    // (quoted, after a newline): `-C ''` turns that scanning off (every option is on this command line).
    return sh`${enterWorkDir(job)} && printf '%s' ${jobScript(job)} | qsub -terse -C ${''} -cwd -S /bin/sh -N ${job.name} -o ${job.stdoutFile} -e ${job.stderrFile} ${extra}`;
  }

  parseSubmitted(stdout: string): string {
    return parseQsubTerse(stdout);
  }

  statusCommands(): Record<string, ShellFragment> {
    // With a queue, only its slots and the jobs running in it (pending jobs are all listed, so ours always are).
    const queue = this.options.queue ? ['-q', this.options.queue] : [];
    return {
      qstat: sh`qstat -xml -u '*' ${queue}`,
      queues: sh`qstat -g c -xml ${queue}`,
    };
  }

  parseStatus(sections: ReadonlyMap<string, SectionOutput>): ClusterReport {
    return {
      jobs: parseQstatXml(sectionText(sections, 'qstat', "qstat -xml -u '*'")),
      nodes: parseQueueSummaryXml(sectionText(sections, 'queues', 'qstat -g c -xml')),
    };
  }

  cancelCommand(ids: readonly string[]): ShellFragment {
    return sh`qdel ${ids}`;
  }

  pendingCommand(names: readonly string[]): ShellFragment {
    // qstat's plain listing cuts names at 10 characters: the XML one is read element by element. Decision: a job in
    // `t` (on its way to the execution host, not yet running: sgeState counts it pending) is still waited for;
    // `-s p` alone let the wait end a status round before the grown jobs run (the grow then waited on the watch
    // loop's rounds). Error states (E) end the wait: such a job never starts by itself.
    return sh`qstat -xml -u '*' | awk -v names=${` ${names.join(' ')} `} ${SGE_WAITING_AWK}`;
  }
}

/** Prints the name of each job of `names` (space-separated, padded) whose <state> is not running, ended or in error. */
const SGE_WAITING_AWK = `/<JB_name>/ { n = $0; sub(/.*<JB_name>/, "", n); sub(/<\\/JB_name>.*/, "", n) }
/<state>/ { s = $0; sub(/.*<state>/, "", s); sub(/<\\/state>.*/, "", s) }
/<\\/job_list>/ { if (n != "" && index(names, " " n " ") && s !~ /[rsSTEz]/) print n; n = ""; s = "" }`;

/** `qsub -terse` prints the job id (`123`, or `123.1-10:1` for an array). */
export function parseQsubTerse(stdout: string): string {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^(\d+)(?:\.\d+-\d+:\d+)?$/.exec(lines[i]!);
    if (m) return m[1]!;
  }
  throw new ParseError(`qsub: no job id in its output ${JSON.stringify(stdout.slice(0, 200))}`);
}

/**
 * The text of each direct child of every `element` element, in document order:
 * `<job_list><JB_name>x</JB_name>...</job_list>` gives `[{ JB_name: 'x', ... }]`. Anything before the XML
 * declaration (login-shell noise) is skipped; malformed or truncated XML is a ParseError.
 */
export function xmlRecords(output: string, element: string, command: string): Array<Record<string, string>> {
  const start = output.indexOf('<?xml');
  if (start < 0) throw new ParseError(`${command}: no XML in its output ${JSON.stringify(output.slice(0, 200))}`);
  const records: Array<Record<string, string>> = [];
  let current: Record<string, string> | undefined;
  let depth = 0;
  let field: string | undefined;
  let text = '';
  const parser = new SaxesParser();
  parser.on('error', (error) => {
    throw new ParseError(`${command}: malformed XML: ${error.message}`);
  });
  parser.on('opentag', (tag) => {
    if (current) {
      depth++;
      if (depth === 1) {
        field = tag.name;
        text = '';
      }
    } else if (tag.name === element) {
      current = {};
      depth = 0;
    }
  });
  parser.on('text', (t) => {
    if (field !== undefined) text += t;
  });
  parser.on('closetag', () => {
    if (!current) return;
    if (depth === 0) {
      records.push(current);
      current = undefined;
      return;
    }
    if (depth === 1 && field !== undefined) current[field] = text.trim();
    if (depth === 1) field = undefined;
    depth--;
  });
  parser.write(output.slice(start)).close();
  return records;
}

/** `qstat -xml -u '*'`: running jobs under queue_info, pending ones under job_info; one element per array task. */
export function parseQstatXml(output: string): LocalJobInfo[] {
  return xmlRecords(output, 'job_list', 'qstat -xml').map((job, i) => {
    const number = job['JB_job_number'] ?? '';
    if (!/^\d+$/.test(number))
      throw new ParseError(`qstat -xml: job_list ${i + 1}: bad JB_job_number ${JSON.stringify(number)}`);
    const tasks = job['tasks'];
    const rawState = job['state'] ?? '';
    const { state, deleting, allocated } = sgeState(rawState);
    return {
      id: tasks ? `${number}.${tasks}` : number,
      name: job['JB_name'] ?? '',
      user: job['JB_owner'] ?? '',
      state,
      rawState,
      processors: count(job['slots'], `qstat -xml: job ${number}: slots`),
      ...(deleting ? { deleting } : {}),
      ...(allocated ? { allocated } : {}),
    };
  });
}

/** `qstat -g c -xml`: one cluster_queue_summary per cluster queue. */
export function parseQueueSummaryXml(output: string): NodeCounts {
  let total = 0;
  let idle = 0;
  let unavailable = 0;
  for (const q of xmlRecords(output, 'cluster_queue_summary', 'qstat -g c -xml')) {
    const name = q['name'] || '?';
    const field = (key: string) => count(q[key], `qstat -g c -xml: queue ${name}: ${key}`);
    const [all, used, available] = [field('total'), field('used'), field('available')];
    total += all;
    idle += available;
    // Decision: what is neither used nor available is unavailable: reserved, or on queue instances disabled, in
    // alarm, suspended or in error (temp_disabled and manual_intervention also count the used slots there, so
    // they are not added as such).
    unavailable += Math.max(0, all - used - available);
  }
  return { total, idle, unavailable };
}
