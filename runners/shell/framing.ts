// Framing of a script's output, so that what a login shell prints around it (a .bashrc that echoes, a banner on
// stderr, "stdin: is not a tty") never reaches a parser. The script runs between two lines carrying a random
// token that nothing else can print; only what lies between them is the script's output.
import { randomBytes } from 'node:crypto';
import type { CommandResult } from './command-runner.js';

export interface FramedScript {
  /** The text to feed to `/bin/sh -s`. */
  readonly text: string;
  /** The script's own output and exit status, from everything the remote side printed. */
  unframe(stdout: Buffer, stderr: Buffer, channelCode: number | null): CommandResult;
  /** The PID of the shell running the script, from its begin marker once printed (to kill it another way). */
  shellPid(stdout: Buffer): number | undefined;
}

/**
 * Wraps `script` in begin/end markers. The script travels as a quoted here-document and runs with `eval` in a
 * subshell: a syntax error in it (an unbalanced quote) fails at once instead of leaving sh waiting for more input,
 * an `exit` in it still reaches the end marker, and the wrapper is complete without an end-of-file on stdin (the
 * SSH runner relies on that). Its stdin is /dev/null, so no command in it can swallow what follows (feed data to
 * a command with a here-document instead).
 */
export function frameScript(script: string, token: string = randomBytes(12).toString('hex')): FramedScript {
  const begin = `CONCERTINA-BEGIN-${token}`;
  const end = `CONCERTINA-END-${token}`;
  const delimiter = `CONCERTINA-SCRIPT-${token}`;
  if (script.split('\n').includes(delimiter)) throw new Error('script contains the framing delimiter');
  const text = [
    `printf '%s %s\\n' '${begin}' "$$"`,
    `printf '%s %s\\n' '${begin}' "$$" >&2`,
    `concertina_script=$(cat <<'${delimiter}'`,
    script,
    delimiter,
    ')',
    '( eval "$concertina_script" ) </dev/null',
    'concertina_status=$?',
    // The leading newline keeps the marker on a line of its own when the script's output does not end with one.
    `printf '\\n%s %s\\n' '${end}' "$concertina_status"`,
    `printf '\\n%s\\n' '${end}' >&2`,
    'exit "$concertina_status"',
    '',
  ].join('\n');
  return {
    text,
    unframe(stdout, stderr, channelCode) {
      const out = between(stdout, begin, end);
      const err = between(stderr, begin, end);
      // Decision: when the end marker is missing (the shell was killed or the channel cut), the output after the
      // begin marker is kept and the status is the channel's.
      let code = channelCode;
      if (out.afterEnd !== undefined) {
        const status = /^ (\d+)\n/.exec(out.afterEnd);
        if (status) code = Number(status[1]);
      }
      return { stdout: out.text, stderr: err.text, code };
    },
    shellPid(stdout) {
      const at = stdout.indexOf(`${begin} `);
      if (at < 0) return undefined;
      const pid = /^(\d+)\n/.exec(stdout.subarray(at + begin.length + 1, at + begin.length + 24).toString('latin1'));
      return pid ? Number(pid[1]) : undefined;
    },
  };
}

function between(output: Buffer, begin: string, end: string): { text: string; afterEnd?: string } {
  // The begin line is the marker, a space and the shell's PID.
  const start = output.indexOf(`${begin} `);
  const lineEnd = start < 0 ? -1 : output.indexOf('\n', start);
  // No begin marker: the shell failed before the script started; show everything it said.
  if (lineEnd < 0) return { text: output.toString('utf8') };
  const from = lineEnd + 1;
  const endLine = Buffer.from(`\n${end}`);
  const stop = output.lastIndexOf(endLine);
  if (stop < from) return { text: output.subarray(from).toString('utf8') };
  return {
    text: output.subarray(from, stop).toString('utf8'),
    afterEnd: output.subarray(stop + endLine.length).toString('utf8'),
  };
}
