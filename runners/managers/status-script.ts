// The script of a manager's status round and what it reads back: the batch system's status commands, the exit-status
// files of the local jobs watched, and which files exist of those whose submission is unsure, as sections of one
// script (sections.ts); also the wait a grow's submission makes on the cluster for its local jobs to start.
import { ParseError, type BatchSystem, type ClusterReport, type SectionOutput } from './batch-system.js';
import { sh, type ShellFragment } from '../shell/quote.js';
import type { Member } from './tracked-jobs.js';

/** What a status round read: the batch system's report, exit statuses by file, and traces (see statusSections). */
export interface StatusRead {
  readonly parsed: ClusterReport;
  readonly exits: Map<string, number>;
  /** Names of unsure members with a file in their directory; undefined when none was asked for or it failed. */
  readonly traces: ReadonlySet<string> | undefined;
}

/**
 * The status commands, the exit-status files of `watched`, and which of the files a job leaves in its directory
 * exist for those whose submission is unsure, as sections of one script.
 */
export function statusSections(
  system: BatchSystem,
  nonce: string,
  watched: readonly Member[],
): Record<string, ShellFragment> {
  const commands: Record<string, ShellFragment> = { ...system.statusCommands(nonce) };
  if (watched.length)
    commands['cnc_exits'] = exitsCommand(
      nonce,
      watched.map((m) => `${m.spec.workDir}/${m.spec.exitFile}`),
    );
  const unsure = watched.filter((m) => m.phase === 'unsure');
  if (unsure.length) commands['cnc_traces'] = tracesCommand(nonce, unsure.flatMap(traces));
  return commands;
}

/** The report, exit statuses and traces in a script's sections; throws when they are missing or do not parse. */
export function readStatus(
  system: BatchSystem,
  sections: ReadonlyMap<string, SectionOutput>,
  nonce: string,
  stderr: string,
): StatusRead {
  if (!sections.size)
    throw new ParseError(
      `no output from the status commands${stderr.trim() ? `: ${stderr.trim().split('\n')[0]}` : ''}`,
    );
  const traced = sections.get('cnc_traces');
  return {
    parsed: system.parseStatus(sections, nonce),
    exits: parseExits(sections.get('cnc_exits')?.text ?? '', nonce),
    // Undefined when the traces were not read (then no unsure member may be submitted again on this round).
    traces: traced && traced.code === 0 ? parseTraces(traced.text, nonce) : undefined,
  };
}

/** A shell's exit status: above 128, the program was killed by signal status - 128. */
export function exitText(status: number): string {
  return status > 128 && status < 160
    ? `exit status ${status} (killed by signal ${status - 128})`
    : `exit status ${status}`;
}

/**
 * Waits while `pending` prints anything: about 25 checks 50 ms apart (about 2 s with the commands' own time).
 * Decision: a sleep that cannot take fractions (a strict POSIX one) ends the wait; the watch loop then goes on.
 */
export function waitStartedCommand(pending: ShellFragment): ShellFragment {
  return sh`cnc_i=0
while [ "$cnc_i" -lt 25 ] && [ -n "$(${pending} 2>/dev/null)" ]; do
  sleep 0.05 2>/dev/null || break
  cnc_i=$((cnc_i + 1))
done`;
}

/** The files a local job leaves in its directory once it has started, by which an unsure submission is known to have run. */
export function traces(m: Member): Array<{ name: string; path: string }> {
  return [m.spec.exitFile, m.spec.stdoutFile, m.spec.stderrFile].map((file) => ({
    name: m.name,
    path: `${m.spec.workDir}/${file}`,
  }));
}

/** Prints `<nonce>|<path>|<status>` for each exit-status file that exists. */
function exitsCommand(nonce: string, paths: readonly string[]): ShellFragment {
  return sh`for f in ${paths}; do
  if [ -f "$f" ]; then printf '%s|%s|%s\n' ${nonce} "$f" "$(cat "$f")"; fi
done`;
}

/** Prints `<nonce>|<name>` for each of `files` that exists. */
function tracesCommand(nonce: string, files: ReadonlyArray<{ name: string; path: string }>): ShellFragment {
  return sh`set -- ${files.flatMap((f) => [f.name, f.path])}
while [ "$#" -ge 2 ]; do
  if [ -e "$2" ]; then printf '%s|%s\n' ${nonce} "$1"; fi
  shift 2
done`;
}

function parseTraces(text: string, nonce: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) if (line.startsWith(`${nonce}|`)) out.add(line.slice(nonce.length + 1).trim());
  return out;
}

function parseExits(text: string, nonce: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${nonce}|`)) continue;
    const rest = line.slice(nonce.length + 1);
    const cut = rest.lastIndexOf('|');
    const status = rest.slice(cut + 1).trim();
    if (cut > 0 && /^\d+$/.test(status)) out.set(rest.slice(0, cut), Number(status));
  }
  return out;
}
