// `concertina serve` as a real process for the host's process tests: started from the built CLI, its URL and token
// read from what it prints, its API called over HTTP, its exit awaited (never a fixed sleep).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout: the folder above this file holding bin/concertina.js (also when run compiled from dist/, as the bench is). */
export const repoRoot = ((dir: string): string => {
  while (!existsSync(path.join(dir, 'bin', 'concertina.js')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})(path.dirname(fileURLToPath(import.meta.url)));

export interface ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The origin and token, once the process has printed its URL. */
  readonly ready: Promise<{ origin: string; token: string }>;
  /** Resolves with the exit code (or the signal's name) when the process has ended. */
  readonly exited: Promise<number | string>;
  stderr(): string;
  /** POSTs to /api/<method>; resolves with the parsed answer. */
  call<T = unknown>(
    method: string,
    body: unknown,
    init?: { signal?: AbortSignal },
  ): Promise<{ ok: boolean; value: T; errors?: Array<{ path: string; message: string }> }>;
}

export function startServe(args: readonly string[]): ServeProcess {
  const child = spawn(process.execPath, ['bin/concertina.js', 'serve', '--port', '0', ...args], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const ready = new Promise<{ origin: string; token: string }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /Open: (\S+)/.exec(out);
      if (m) {
        const url = new URL(m[1]!);
        resolve({ origin: url.origin, token: url.searchParams.get('token')! });
      }
    });
    void exited.then((code) => reject(new Error(`serve ended (${code}) before printing its URL: ${err}`)));
  });
  return {
    child,
    ready,
    exited,
    stderr: () => err,
    async call(method, body, init) {
      const { origin, token } = await ready;
      const r = await fetch(`${origin}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        ...(init?.signal ? { signal: init.signal } : {}),
      });
      return (await r.json()) as never;
    },
  };
}

/** Waits until the host has resumed its stored run (the API answers all along; commands wait for this). */
export async function running(p: ServeProcess): Promise<void> {
  for (;;) {
    const s = await p.call<{ run: { state: string; reason?: string } }>('grid.snapshot', {});
    if (s.value.run.state === 'running') return;
    if (s.value.run.state !== 'resuming') throw new Error(`the run did not resume: ${JSON.stringify(s.value.run)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
