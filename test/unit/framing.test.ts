// Output framing: what a login shell prints around a script never reaches its output, whatever the script does
// (no trailing newline, exit, a syntax error, reading stdin, being killed).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { frameScript } from '../../runners/shell/framing.js';

// What a noisy login shell prints before running the command, marker look-alikes included.
const NOISE = `echo 'motd CONCERTINA-BEGIN-0 1'; echo 'stderr noise' >&2; printf 'no newline'\n`;

function runFramed(script: string, stdinAfter = '') {
  const framed = frameScript(script);
  const shell = spawnSync('/bin/sh', ['-s'], { input: NOISE + framed.text + stdinAfter });
  return { framed, shell, result: framed.unframe(shell.stdout, shell.stderr, shell.status) };
}

describe('frameScript', () => {
  it('returns exactly what the script printed on each stream, and its status', () => {
    expect(runFramed(`printf 'a\\nb'; printf 'e' >&2; exit 7`).result).toEqual({
      stdout: 'a\nb',
      stderr: 'e',
      code: 7,
    });
    expect(runFramed(`echo 'line'`).result).toEqual({ stdout: 'line\n', stderr: '', code: 0 });
    expect(runFramed('').result).toEqual({ stdout: '', stderr: '', code: 0 });
  });

  it('keeps noise printed after the script out too', () => {
    const framed = frameScript('echo out');
    const shell = spawnSync('/bin/sh', ['-s'], {
      input: NOISE + framed.text.replace(/exit "\$concertina_status"\n$/, 'echo trailing noise; echo more >&2\n'),
    });
    expect(framed.unframe(shell.stdout, shell.stderr, shell.status)).toEqual({ stdout: 'out\n', stderr: '', code: 0 });
  });

  it('reports a syntax error in the script as a failure of the script, not a hang', () => {
    const { result } = runFramed(`echo before\necho 'unterminated`);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/unterminated|Syntax error|EOF/i);
  });

  it('gives the script /dev/null as stdin, so nothing it runs can eat the rest of the input', () => {
    const { result } = runFramed('cat; echo after', 'echo this-must-not-run\n');
    expect(result).toEqual({ stdout: 'after\n', stderr: '', code: 0 });
  });

  it('reports the shell PID from the begin line', () => {
    const { framed, shell } = runFramed('echo $$');
    const pid = framed.shellPid(shell.stdout);
    expect(pid).toBeGreaterThan(1);
    expect(framed.unframe(shell.stdout, shell.stderr, shell.status).stdout).toBe(`${pid}\n`);
  });

  it('keeps what came after the begin marker when the shell is killed before the end', () => {
    const { result } = runFramed('echo partial; kill -9 $$');
    expect(result.stdout).toBe('partial\n');
    expect(result.code).toBeNull();
  });

  it('passes everything through when the shell never started the script', () => {
    const framed = frameScript('echo x');
    expect(framed.unframe(Buffer.from('This account is disabled\n'), Buffer.from(''), 1)).toEqual({
      stdout: 'This account is disabled\n',
      stderr: '',
      code: 1,
    });
  });
});
