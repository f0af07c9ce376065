// One adapter per batch system (after PSI/J's executors): the same few members everywhere — the command that
// submits a local job and the parser of its id, the status commands and their pure parsers with a full state map,
// and the cancel command. Everything else (tags, polling, recovery, rate limits, malleable collections) is generic
// and lives in batch-local-manager.ts.
import type { ClusterStatus } from '../../core/ports.js';
import type { ShellFragment } from '../shell/quote.js';

/** A local job's state, mapped from the batch system's own codes. */
export type LocalState = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'unknown';

/** What the manager asks a batch system to run: one local job. */
export interface LocalJobSpec {
  /** The local job name; carries Concertina's tag (see naming.ts). Only [A-Za-z0-9_-]. */
  readonly name: string;
  readonly processors: number;
  readonly program: string;
  readonly args: readonly string[];
  /** Directory the job runs in, created by the submit command; absolute or relative to the login directory. */
  readonly workDir: string;
  /** File names inside workDir: the job's standard output and error, and the exit status written at its end. */
  readonly stdoutFile: string;
  readonly stderrFile: string;
  readonly exitFile: string;
  /** Exported to the program. Names must be shell identifiers. */
  readonly env: Readonly<Record<string, string>>;
  /** Seconds after which the batch system kills the local job (Slurm --time, Grid Engine h_rt, PBS walltime). */
  readonly walltimeS?: number;
}

/** One local job as the status command reported it. */
export interface LocalJobInfo {
  /** The batch system's id (an array task as `<id>_<task>` or `<id>.<task>`). */
  readonly id: string;
  readonly name: string;
  readonly user: string;
  readonly state: LocalState;
  /** The batch system's own state code, for reasons and logs. */
  readonly rawState: string;
  /** Processors the job holds (running) or asks for (pending). */
  readonly processors: number;
  /** Why it waits or how it ended, when the batch system says. */
  readonly reason?: string;
  /** Exit status, when the batch system reports one for an ended job. */
  readonly exitCode?: number;
  /** Being deleted (Grid Engine's `d`): if it vanishes next, it was cancelled. */
  readonly deleting?: boolean;
  /** Not running yet but its processors already given to it (Slurm's CONFIGURING: nodes being readied). */
  readonly allocated?: boolean;
  /** Killed by the batch system for running past its time limit (Slurm's TIMEOUT). */
  readonly timedOut?: boolean;
}

/** Processor counts of the whole cluster (every node and queue the adapter sees). */
export interface NodeCounts {
  readonly total: number;
  /** Free for a new job now. */
  readonly idle: number;
  /** On nodes or queues that are down, drained, offline or disabled. */
  readonly unavailable: number;
}

export interface ClusterReport {
  readonly jobs: readonly LocalJobInfo[];
  readonly nodes: NodeCounts;
}

/** Output of one command of a status round (see sections.ts). */
export interface SectionOutput {
  /** Its standard output. */
  readonly text: string;
  readonly code: number;
  readonly stderr: string;
}

export interface BatchSystem {
  /** `slurm`, `sge`, `pbs`, `local`. */
  readonly kind: string;
  /** What lists the jobs, for messages ("squeue", "qstat"). */
  readonly listing: string;
  /** Shell that submits `job` and prints its id on stdout (and nothing else). */
  submitCommand(job: LocalJobSpec): ShellFragment;
  /** The id in what submitCommand printed; throws when there is none. */
  parseSubmitted(stdout: string): string;
  /**
   * Commands of a status round, by section name: together they list every job of every user (with the ones that
   * ended recently, where the system keeps them) and the processor counts. `nonce` is unpredictable per round:
   * adapters whose listings are line-based prefix each record with it, so that no job name can forge a record.
   */
  statusCommands(nonce: string): Readonly<Record<string, ShellFragment>>;
  /**
   * The report from the sections' outputs; throws ParseError on output it cannot read (one whose `retry` is set
   * when the adapter's next status commands read the cluster another way: the manager runs them at once).
   */
  parseStatus(sections: ReadonlyMap<string, SectionOutput>, nonce: string): ClusterReport;
  /** Shell that cancels the given local jobs. */
  cancelCommand(ids: readonly string[]): ShellFragment;
  /**
   * Shell that prints a line for each of the named local jobs still waiting to start (nothing once all have started
   * or left the queue). Optional: with it, a grow's submission waits on the cluster for its local jobs to start.
   */
  pendingCommand?(names: readonly string[]): ShellFragment;
  /** A key under which an id printed by submitCommand and the same job's id in a listing are equal. */
  jobKey?(id: string): string;
}

/** Output a parser cannot read; the message names the command and the line. */
export class ParseError extends Error {
  constructor(
    message: string,
    /** The adapter's next status commands read the cluster another way: worth a new round at once. */
    readonly retry = false,
  ) {
    super(message);
    this.name = 'ParseError';
  }
}

/** The section's output, or a ParseError saying which command failed and why. */
export function sectionText(sections: ReadonlyMap<string, SectionOutput>, name: string, command: string): string {
  const section = sections.get(name);
  if (!section) throw new ParseError(`${command}: no output (the command did not run)`);
  if (section.code !== 0) {
    throw new ParseError(
      `${command} exited with status ${section.code}: ${firstLine(section.stderr) || firstLine(section.text) || 'no message'}`,
    );
  }
  return section.text;
}

/**
 * A walltime as batch systems write it, `H:MM:SS` (hours past 24 as they are), rounded up to a whole second, or with
 * `days` `D-HH:MM:SS` (Slurm reads hours past 24 in that form only).
 */
export function clockTime(seconds: number, days = false): string {
  let s = Math.max(1, Math.ceil(seconds));
  const d = days ? Math.floor(s / 86400) : 0;
  s -= d * 86400;
  const two = (n: number) => String(n).padStart(2, '0');
  const hms = `${days ? two(Math.floor(s / 3600)) : Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return days ? `${d}-${hms}` : hms;
}

export const firstLine = (text: string) => text.trim().split('\n')[0]?.trim() ?? '';

/** Parses a non-negative integer field, or throws a ParseError naming it. */
export function count(value: string | number | undefined, what: string): number {
  const n = typeof value === 'number' ? value : Number.parseInt(String(value ?? '').trim(), 10);
  if (!Number.isInteger(n) || n < 0 || (typeof value === 'string' && !/^\s*\d+\s*$/.test(value))) {
    throw new ParseError(`${what}: expected a whole number, got ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * The cluster's status for the scheduler. Background load: processors held by running local jobs that are not
 * Concertina's as the scheduler counts them (`counted`) — other users' jobs, and tagged jobs the manager does not
 * track or has already given back (still ending) — plus processors on nodes or queues that are down or disabled,
 * plus `hidden` (see hiddenLoad).
 * Decision: a job in a state the adapter does not know counts as holding its processors.
 */
export function clusterStatus(
  report: ClusterReport,
  counted: (info: LocalJobInfo) => boolean,
  hidden = 0,
): ClusterStatus {
  let background = report.nodes.unavailable + hidden;
  for (const info of report.jobs) {
    if (holds(info) && !counted(info)) background += info.processors;
  }
  return { processors: report.nodes.total, background: Math.min(background, report.nodes.total), reachable: true };
}

/**
 * Processors the nodes or queues report busy that no listed job holds: jobs the listing does not show (a site that
 * hides other users' jobs, Slurm's PrivateData=jobs; another partition's or queue's jobs on shared nodes), and jobs
 * that started between the listing and the node counts (the caller keeps only what two rounds agree on).
 */
export function hiddenLoad(report: ClusterReport): number {
  let listed = 0;
  for (const info of report.jobs) if (holds(info) || info.allocated) listed += info.processors;
  const busy = report.nodes.total - report.nodes.idle - report.nodes.unavailable;
  return Math.max(0, busy - listed);
}

const holds = (info: LocalJobInfo) => info.state === 'running' || info.state === 'unknown';
