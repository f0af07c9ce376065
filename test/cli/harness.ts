// What the CLI tests share: a stream that keeps what the CLI writes, the CLI run in process through main(), and a
// temporary folder per test file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { main, type CliStream } from '../../electron/cli/main.js';

/** A stream that keeps what is written to it (a terminal when `tty`). */
export function capture(tty = false): CliStream & { text: string } {
  const sink = {
    text: '',
    isTTY: tty,
    write(chunk: string, callback?: (error?: Error | null) => void): boolean {
      sink.text += chunk;
      callback?.();
      return true;
    },
  };
  return sink;
}

/** `concertina <args>` in process: its exit code and what it wrote. */
export async function runCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = capture();
  const stderr = capture();
  const code = await main(['node', 'concertina', ...args], { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A temporary folder made before the file's tests and removed after them; read `.path` inside a test. */
export function tempDirForFile(prefix: string): { readonly path: string } {
  const dir = { path: '' };
  beforeAll(() => {
    dir.path = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir.path) rmSync(dir.path, { recursive: true, force: true });
  });
  return dir;
}
