// `concertina simulate` loads only what a run needs (issue 17): nothing of the console, the host or its store, the
// experiments and their plots, SSH or the live runners. The built CLI runs in a child whose module loader records every
// module it resolves.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-imports-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Packages and folders of the built project the simulate path must not load. */
const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  ['the store (better-sqlite3)', /\/node_modules\/better-sqlite3\//],
  ['SSH (ssh2, ssh-config)', /\/node_modules\/(ssh2|ssh-config)\//],
  ['the plots (echarts)', /\/node_modules\/(echarts|zrender|vue-echarts)\//],
  ['the console (vue, naive-ui, pinia)', /\/node_modules\/(vue|@vue|naive-ui|pinia)\//],
  ['the web mode (ws)', /\/node_modules\/ws\//],
  ['the progress bar without a terminal (cli-progress)', /\/node_modules\/cli-progress\//],
  ['the host, its API, store and Lab', /\/dist\/electron\/(host|api|lab|store|live|web|desktop)\//],
  ['the renderer', /\/dist\/renderer\//],
  ['the live runners and SSH', /\/dist\/runners\/(?!shell\/printable\.js)/],
  ['the experiments', /\/dist\/(core\/sim\/experiments|electron\/cli\/(experiment|serve|store-check|commands))/],
];

function modulesOf(...args: string[]): string[] {
  const log = path.join(tmp, `modules-${args.join('-').replace(/\W+/g, '_')}.log`);
  const preload = pathToFileURL(path.join(repoRoot, 'test', 'support', 'module-log.mjs')).href;
  const r = spawnSync(process.execPath, ['--import', preload, 'bin/concertina.js', ...args], {
    cwd: repoRoot,
    env: { ...process.env, CONCERTINA_MODULE_LOG: log },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

describe('what `concertina simulate` loads', () => {
  if (!existsSync(path.join(repoRoot, 'dist', 'electron', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');

  it('a trace replay loads the core and the CLI, nothing of the console, store, plots, SSH or experiments', { timeout: 60_000 }, () => {
    const swf = path.join(tmp, 'one.swf');
    writeFileSync(swf, '1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n');
    const loaded = modulesOf('simulate', '--grid', 'single:4', '--workload', swf, '--json');
    // The log works: it saw the CLI and the core.
    expect(loaded.some((u) => u.endsWith('/dist/electron/cli/main.js'))).toBe(true);
    expect(loaded.some((u) => u.endsWith('/dist/core/sim/simulate.js'))).toBe(true);
    const offending = FORBIDDEN.flatMap(([what, pattern]) => loaded.filter((u) => pattern.test(u)).map((u) => `${what}: ${u}`));
    expect(offending).toEqual([]);
  });

  it('the patterns catch what the other commands load (the check can fail)', { timeout: 60_000 }, () => {
    const loaded = modulesOf('store', '--help');
    expect(loaded.some((u) => /\/dist\/electron\/host\//.test(u))).toBe(true);
    expect(loaded.some((u) => /\/dist\/core\/sim\/experiments\//.test(u))).toBe(true);
  });
});
