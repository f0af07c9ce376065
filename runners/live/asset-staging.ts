// Asset staging: the SDK, the slot stub and the demo applications are copied into `<workRoot>/assets/` on each
// cluster through its CommandRunner, so that a cluster that does not share this machine's file system runs them.
// One round trip lists the remote copies' sha256 and executable bit; a second, only when something differs, writes
// each differing file from base64 in a quoted here-document (to a temporary name, then renamed) and prints the new
// hashes, which are checked.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandRunner } from '../shell/command-runner.js';
import { sh, ShellFragment } from '../shell/quote.js';

/** The folders of assets/ that jobs use on a cluster. */
export const STAGED_FOLDERS = ['sdk', 'apps'] as const;

export interface AssetFile {
  /** Relative to the assets folder, with `/` (e.g. `apps/slot-stub.sh`). */
  readonly path: string;
  readonly content: Buffer;
  readonly sha256: string;
  readonly executable: boolean;
}

export interface StagingResult {
  /** The folder the assets are in on the cluster. */
  readonly dir: string;
  /** Files written (missing, different content or executable bit). */
  readonly copied: readonly string[];
  /** Files whose remote copy already matched. */
  readonly unchanged: readonly string[];
}

/** The files to stage, read from a local assets folder (sdk/ and apps/, sorted). */
export function collectAssets(assetsDir: string): AssetFile[] {
  const files: AssetFile[] = [];
  for (const folder of STAGED_FOLDERS) {
    for (const name of readdirSync(path.join(assetsDir, folder)).sort()) {
      const full = path.join(assetsDir, folder, name);
      const stat = statSync(full);
      if (!stat.isFile()) continue;
      const content = readFileSync(full);
      files.push({
        path: `${folder}/${name}`,
        content,
        sha256: createHash('sha256').update(content).digest('hex'),
        executable: (stat.mode & 0o111) !== 0,
      });
    }
  }
  return files;
}

/** Decision: sha256sum (GNU), else shasum -a 256 (BSD, macOS); a cluster with neither is refused with a clear error. */
const HASH_FUNCTION = `cnc_sha() { if command -v sha256sum >/dev/null 2>&1; then sha256sum < "$1"; elif command -v shasum >/dev/null 2>&1; then shasum -a 256 < "$1"; else echo nohash; fi; }`;

/** Prints `<hash> <x|-> <path>` for each file (`missing` when absent). */
function listing(dir: string, files: readonly AssetFile[]): ShellFragment {
  const lines = files.map(
    (f) =>
      sh`p=${`${dir}/${f.path}`}; if [ -f "$p" ]; then h=$(cnc_sha "$p" | cut -c1-64); if [ -x "$p" ]; then x=x; else x=-; fi; else h=missing; x=-; fi; printf '%s %s %s\n' "$h" "$x" ${f.path}`
        .text,
  );
  return new ShellFragment([HASH_FUNCTION, ...lines].join('\n'));
}

/** Base64 lines never equal the delimiter: `_` is not in base64's alphabet. */
const DELIMITER = 'CONCERTINA_END_OF_FILE';

function writing(dir: string, files: readonly AssetFile[]): string {
  const parts = ['set -e', 'umask 022'];
  for (const folder of new Set(files.map((f) => path.posix.dirname(f.path))))
    parts.push(sh`mkdir -p -- ${`${dir}/${folder}`}`.text);
  for (const f of files) {
    const target = `${dir}/${f.path}`;
    const base64 = f.content.toString('base64').replace(/.{1,76}/g, '$&\n');
    // The temporary name carries the remote shell's PID ($$): the quoted path, then that suffix.
    parts.push(sh`t=${target}.staging.$$`.text);
    parts.push(`base64 -d > "$t" <<'${DELIMITER}'\n${base64}${DELIMITER}`);
    parts.push(`chmod ${f.executable ? '755' : '644'} "$t"`);
    parts.push(sh`mv -f "$t" ${target}`.text);
  }
  return parts.join('\n');
}

/**
 * Copies what differs of `files` into `dir` on the runner's machine (created if needed). Throws naming the cluster's
 * target and the file when the remote side cannot hash, write, or ends up with other content.
 */
export async function stageAssets(
  runner: CommandRunner,
  dir: string,
  files: readonly AssetFile[],
  options: { timeoutMs?: number } = {},
): Promise<StagingResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const remote = await readRemote(runner, dir, files, timeoutMs);
  const stale = files.filter((f) => {
    const r = remote.get(f.path);
    return !r || r.sha256 !== f.sha256 || r.executable !== f.executable;
  });
  if (stale.length > 0) {
    const wrote = await runner.run(writing(dir, stale), { timeoutMs });
    if (wrote.code !== 0)
      throw new Error(
        `staging the assets into ${dir} on ${runner.target} failed (exit status ${wrote.code}): ${wrote.stderr.trim() || 'no message'}`,
      );
    const after = await readRemote(runner, dir, stale, timeoutMs);
    for (const f of stale) {
      const r = after.get(f.path);
      if (r?.sha256 !== f.sha256)
        throw new Error(
          `staging ${f.path} into ${dir} on ${runner.target}: the copy's sha256 is ${r?.sha256 ?? 'unknown'}, expected ${f.sha256}`,
        );
    }
  }
  const copied = new Set(stale.map((f) => f.path));
  return { dir, copied: [...copied], unchanged: files.filter((f) => !copied.has(f.path)).map((f) => f.path) };
}

async function readRemote(
  runner: CommandRunner,
  dir: string,
  files: readonly AssetFile[],
  timeoutMs: number,
): Promise<Map<string, { sha256: string; executable: boolean }>> {
  const result = await runner.run(listing(dir, files).text, { timeoutMs });
  if (result.code !== 0)
    throw new Error(
      `listing the staged assets in ${dir} on ${runner.target} failed (exit status ${result.code}): ${result.stderr.trim() || 'no message'}`,
    );
  const known = new Set(files.map((f) => f.path));
  const out = new Map<string, { sha256: string; executable: boolean }>();
  // Only lines of the expected shape count: a login shell's noise on stdout is ignored.
  for (const line of result.stdout.split('\n')) {
    const m = /^([0-9a-f]{64}|missing|nohash) ([x-]) (\S+)$/.exec(line.trim());
    if (!m || !known.has(m[3]!)) continue;
    if (m[1] === 'nohash')
      throw new Error(`${runner.target} has neither sha256sum nor shasum: the assets cannot be staged`);
    if (m[1] !== 'missing') out.set(m[3]!, { sha256: m[1]!, executable: m[2] === 'x' });
  }
  return out;
}

/**
 * Where staging puts a cluster's assets: `<workRoot>/assets`, a relative workRoot anchored at the login directory
 * (as the live world does).
 */
export async function clusterAssetsDir(
  runner: CommandRunner,
  workRoot: string,
  options: { timeoutMs?: number } = {},
): Promise<string> {
  if (workRoot.startsWith('/')) return `${workRoot.replace(/\/+$/, '')}/assets`;
  const probe = await runner.run('cd && pwd', { timeoutMs: options.timeoutMs ?? 30_000 });
  const home = probe.stdout.trim().split('\n').at(-1) ?? '';
  if (probe.code !== 0 || !home.startsWith('/'))
    throw new Error(
      `cannot find the login directory on ${runner.target}: ${probe.stderr.trim() || `exit status ${probe.code}`}`,
    );
  return `${home}/${workRoot}/assets`;
}
