// Several commands in one script (one round trip), each framed by markers that carry a per-script nonce, so that
// the output is read robustly: whatever a login shell prints around them (banners, "stty: not a tty") is ignored,
// and no job name or message can forge a marker it cannot predict. Each command runs in a subshell (an `exit` in it
// ends only that section) with /dev/null as its standard input: the script itself arrives on the shell's stdin,
// and a command reading it would swallow the rest. Its standard error is kept apart and framed after it.
import { randomBytes } from 'node:crypto';
import type { SectionOutput } from './batch-system.js';
import { sh, ShellFragment } from '../shell/quote.js';

export const newNonce = (): string => randomBytes(8).toString('hex');

/** One script running `commands` in order, each framed; a failing command does not stop the next. */
export function framedScript(nonce: string, commands: Readonly<Record<string, ShellFragment>>): ShellFragment {
  const parts = Object.entries(commands).map(([name, command]) => {
    if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`section name must be [A-Za-z0-9_]+ (got "${name}")`);
    return sh`printf '\n<<%s:begin:%s>>\n' ${nonce} ${name}
(
${command}
) </dev/null 2>"$cnc_err"
cnc_status=$?
printf '\n<<%s:end:%s:%s>>\n' ${nonce} ${name} "$cnc_status"
cat "$cnc_err" 2>/dev/null
printf '\n<<%s:stderr:%s>>\n' ${nonce} ${name}`.text;
  });
  return new ShellFragment(`cnc_err=$(mktemp 2>/dev/null || echo "/tmp/cnc-err.$$")
${parts.join('\n')}
rm -f "$cnc_err"
`);
}

/** The framed sections found in `stdout`, by name. A section whose end marker is missing is left out. */
export function splitSections(stdout: string, nonce: string): Map<string, SectionOutput> {
  const out = new Map<string, SectionOutput>();
  const beginRe = new RegExp(`^<<${nonce}:begin:([A-Za-z0-9_]+)>>$`, 'gm');
  for (let m = beginRe.exec(stdout); m; m = beginRe.exec(stdout)) {
    const name = m[1]!;
    const start = m.index + m[0].length + 1; // past the marker's newline
    const rest = stdout.slice(start);
    const end = new RegExp(`(?:^|\\n)<<${nonce}:end:${name}:(\\d+)>>\\n`).exec(rest);
    if (!end) continue;
    const afterEnd = rest.slice(end.index + end[0].length);
    const errorEnd = new RegExp(`(?:^|\\n)<<${nonce}:stderr:${name}>>(?:\\n|$)`).exec(afterEnd);
    out.set(name, {
      text: rest.slice(0, end.index),
      code: Number(end[1]),
      stderr: errorEnd ? afterEnd.slice(0, errorEnd.index) : '',
    });
    beginRe.lastIndex = start + end.index + end[0].length + (errorEnd ? errorEnd.index + errorEnd[0].length : 0);
  }
  return out;
}
