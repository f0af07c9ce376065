// Shared pieces of the loopback daemon harness: package checks (skip with a reason, or fail in CI), free ports,
// waiting, and stopping processes by the PIDs the harness itself recorded.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const execFileAsync = promisify(execFile);
/** This folder in the sources (also when running compiled from dist/, as the benchmark does: its C file is not copied). */
export const harnessDir = sourceDir(path.dirname(fileURLToPath(import.meta.url)));

function sourceDir(dir: string): string {
  const parts = dir.split(path.sep);
  const dist = parts.lastIndexOf('dist');
  return dist >= 0 && parts.slice(dist + 1, dist + 3).join('/') === 'test/integration'
    ? [...parts.slice(0, dist), ...parts.slice(dist + 1)].join(path.sep)
    : dir;
}

/** Debian packages not installed (dpkg's view), in the order given. */
export function missingPackages(packages: readonly string[]): string[] {
  const status = existsSync('/var/lib/dpkg/status') ? readFileSync('/var/lib/dpkg/status', 'utf8') : '';
  const installed = new Set<string>();
  for (const stanza of status.split(/\n\n+/)) {
    const name = /^Package: (.+)$/m.exec(stanza)?.[1];
    if (name && /^Status: install ok installed$/m.test(stanza)) installed.add(name.trim());
  }
  return packages.filter((p) => !installed.has(p));
}

/**
 * Whether a suite that needs `packages` (and root) can run. Elsewhere than CI a missing piece is a skip with a
 * printed reason; in CI (CI=true) the project's scripts install everything, so a missing piece is a failure.
 */
export function requireDaemons(suite: string, packages: readonly string[]): boolean {
  const missing = missingPackages(packages);
  let why = '';
  if (missing.length)
    why = `Debian packages missing: ${missing.join(' ')} (scripts/install-test-deps.sh installs them as root)`;
  else if (process.getuid?.() !== 0) why = 'the loopback daemons must be started as root';
  if (!why) return true;
  if (process.env.CI) throw new Error(`${suite} cannot run: ${why}`);
  console.warn(`Skipping ${suite}: ${why}.`);
  return false;
}

/** `count` consecutive TCP ports free on 127.0.0.1 (checked by binding them), from a random base. */
export async function freePorts(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    let all = true;
    for (let p = base; p < base + count && all; p++) all = await portFree(p);
    if (all) return base;
  }
  throw new Error(`no ${count} consecutive free ports found on 127.0.0.1`);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The whole lines of a file another process appends to: the last one counts only once its newline is written (a
 * line read half-written would be taken for a bad message).
 */
export function completeLines(file: string): string[] {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries `check` every `intervalMs` until it returns true; throws `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  intervalMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error; // not yet; said on timeout, to tell "never true" from "kept failing"
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last check failed: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

/** Runs a command, resolving with its output; rejects with stderr in the message on failure. */
export async function run(
  file: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(file, args as string[], {
      env: { ...process.env, ...env },
      timeout: timeoutMs,
      maxBuffer: 64 * 2 ** 20,
    });
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

export function readPid(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number.parseInt(readFileSync(file, 'utf8').trim().split(/\s+/)[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The process's command line, or undefined when it is gone. */
export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return undefined;
  }
}

/** The process's environment entries, or an empty list when it is gone. */
export function environment(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Every descendant of `pid`, read from /proc (children first listed after their parent). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const visit = (p: number) => {
    let children: number[] = [];
    try {
      const tasks = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8');
      children = tasks.split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return;
    }
    for (const c of children) {
      out.push(c);
      visit(c);
    }
  };
  visit(pid);
  return out;
}

/** Processes whose /proc/<pid>/comm is `name` (to find leftovers that the harness then identifies further). */
export function processesNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const alive = (pid: number) => commandLine(pid) !== undefined && !/^Z/.test(stateOf(pid));

function stateOf(pid: number): string {
  try {
    return /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

/**
 * SIGTERM the given processes, wait up to `timeoutMs` for them to go, then SIGKILL what is left. Only PIDs the
 * caller identified (recorded PID files checked against their command lines) are ever passed here.
 */
export async function stopPids(pids: readonly number[], timeoutMs = 10_000): Promise<void> {
  const live = pids.filter(alive);
  for (const pid of live) signal(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (live.some(alive) && Date.now() < deadline) await sleep(100);
  for (const pid of live.filter(alive)) signal(pid, 'SIGKILL');
  const killDeadline = Date.now() + 2_000;
  while (live.some(alive) && Date.now() < killDeadline) await sleep(50);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** TCP and UDP sockets listening beyond loopback, owned by any of `pids` (nothing the tests start may do that). */
export async function nonLoopbackListeners(pids: readonly number[]): Promise<string[]> {
  const out = await run('ss', ['-H', '-ltunp']).catch(() => '');
  const wanted = new Set(pids.map(String));
  return out
    .split('\n')
    .filter((line) => [...line.matchAll(/pid=(\d+)/g)].some((m) => wanted.has(m[1]!)))
    .filter((line) => {
      const local = line.trim().split(/\s+/)[4] ?? '';
      return !/^(127\.[\d.]+|\[::1\]|\[::ffff:127\.[\d.]+\]):\d+$/.test(local);
    });
}
