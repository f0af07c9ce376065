// The end of a local job's standard error, read from the cluster over the manager's own connection so that a failed
// job shows why it failed. Bounded: the last TAIL_BYTES of the file, at most TAIL_LINES lines, without terminal
// escapes or control characters (the text reaches the console and the CLI).
import type { CommandRunner } from '../shell/command-runner.js';
import { printable } from '../shell/printable.js';
import { sh, type ShellFragment } from '../shell/quote.js';

/** Decision: 4 KiB and 20 lines: an error message and its context (a stack trace's top), never a whole log. */
export const TAIL_BYTES = 4096;
export const TAIL_LINES = 20;

/** Prints the file's size on one line, then its last TAIL_BYTES bytes; nothing when it cannot be read. */
export function tailCommand(file: string): ShellFragment {
  return sh`if [ -r ${file} ]; then wc -c < ${file} && tail -c ${TAIL_BYTES} ${file}; fi`;
}

/** The tail's text from the command's output; undefined when the file could not be read. */
export function parseTail(stdout: string): string | undefined {
  const cut = stdout.indexOf('\n');
  if (cut < 0) return undefined;
  const size = Number(stdout.slice(0, cut).trim());
  if (!Number.isFinite(size)) return undefined;
  let lines = stdout.slice(cut + 1).split('\n');
  // Cut inside the file: its first line is a part of one (maybe even of a character); it goes.
  if (size > TAIL_BYTES && lines.length > 1) lines = lines.slice(1);
  const text = lines.map((line) => printable(line).trimEnd());
  while (text.length && text[text.length - 1] === '') text.pop();
  return text.slice(-TAIL_LINES).join('\n');
}

/** The tail of `file` on the cluster (undefined when it cannot be read there); rejects when the command fails. */
export async function readTail(runner: CommandRunner, file: string, timeoutMs: number): Promise<string | undefined> {
  const result = await runner.run(tailCommand(file).text, { timeoutMs });
  return parseTail(result.stdout);
}
