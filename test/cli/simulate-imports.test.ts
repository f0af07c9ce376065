// `concertina simulate` loads only what a run needs (issue 17): nothing of the console, the host or its store, the
// experiments and their plots, SSH or the live runners. The built CLI runs in a child whose module loader records every
// module it resolves; when that is the bundle of the simulate path (dist/cli/simulate.cjs), the modules bundled in it
// (dist/cli/simulate-modules.json, written by scripts/bundle-cli.mjs) count as loaded too.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
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
  const resolved = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  if (!resolved.some((u) => u.endsWith('/dist/cli/simulate.cjs'))) return resolved;
  const bundled = JSON.parse(
    readFileSync(path.join(repoRoot, 'dist', 'cli', 'simulate-modules.json'), 'utf8'),
  ) as string[];
  return [...resolved, ...bundled.map((m) => pathToFileURL(path.resolve(repoRoot, m)).href)];
}

/** The forbidden modules among those loaded, each with what it belongs to. */
const offendingIn = (loaded: readonly string[]) =>
  FORBIDDEN.flatMap(([what, pattern]) => loaded.filter((u) => pattern.test(u)).map((u) => `${what}: ${u}`));

describe('what `concertina simulate` loads', () => {
  if (!existsSync(path.join(repoRoot, 'dist', 'electron', 'cli', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` first');

  it(
    'a trace replay loads the core and the CLI, nothing of the console, store, plots, SSH or experiments',
    { timeout: 60_000 },
    () => {
      const swf = path.join(tmp, 'one.swf');
      writeFileSync(swf, '1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n');
      const loaded = modulesOf('simulate', '--grid', 'single:4', '--workload', swf, '--json');
      // The log works: it saw the CLI and the core.
      expect(loaded.some((u) => u.endsWith('/dist/electron/cli/main.js'))).toBe(true);
      expect(loaded.some((u) => u.endsWith('/dist/core/sim/simulate.js'))).toBe(true);
      expect(offendingIn(loaded)).toEqual([]);
    },
  );

  it('a run that prints its table and writes its files (--out) loads no more of them', { timeout: 60_000 }, () => {
    const swf = path.join(tmp, 'two.swf');
    writeFileSync(
      swf,
      '1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 5 0 10 2 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n',
    );
    const loaded = modulesOf('simulate', '--grid', 'single:4', '--workload', swf, '--out', path.join(tmp, 'out'));
    expect(loaded.some((u) => u.endsWith('/dist/core/sim/metrics.js'))).toBe(true);
    expect(offendingIn(loaded)).toEqual([]);
  });

  it(
    'runs from the bundle when it is as new as the compiled CLI, from dist/electron/cli otherwise',
    { timeout: 60_000 },
    () => {
      const bundle = path.join(repoRoot, 'dist', 'cli', 'simulate.cjs');
      const fresh =
        existsSync(bundle) &&
        statSync(bundle).mtimeMs >= statSync(path.join(repoRoot, 'dist', 'electron', 'cli', 'main.js')).mtimeMs;
      const log = path.join(tmp, 'entry.log');
      const preload = pathToFileURL(path.join(repoRoot, 'test', 'support', 'module-log.mjs')).href;
      const r = spawnSync(
        process.execPath,
        ['--import', preload, 'bin/concertina.js', 'simulate', '--workload', 'wm', '--max-jobs', '1', '--json'],
        {
          cwd: repoRoot,
          env: { ...process.env, CONCERTINA_MODULE_LOG: log },
          encoding: 'utf8',
        },
      );
      expect(r.status, r.stderr).toBe(0);
      const resolved = readFileSync(log, 'utf8');
      expect(resolved.includes('/dist/cli/simulate.cjs')).toBe(fresh);
      expect(resolved.includes('/dist/electron/cli/main.js')).toBe(!fresh);
    },
  );

  it('a gzipped trace replays from the bundle too (its gunzip is loaded on demand)', { timeout: 60_000 }, () => {
    const swf = path.join(tmp, 'one.swf.gz');
    writeFileSync(swf, gzipSync('1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n'));
    const loaded = modulesOf('simulate', '--grid', 'single:4', '--workload', swf, '--json');
    expect(loaded.some((u) => u.endsWith('/dist/core/sim/simulate.js'))).toBe(true);
  });

  it(
    'the bundle has a code cache that V8 takes (it would compile 0.6 MB from source on every run otherwise)',
    { timeout: 60_000 },
    () => {
      const bundle = path.join(repoRoot, 'dist', 'cli', 'simulate.cjs');
      if (!existsSync(bundle)) return;
      // Compiled as bin/concertina.js compiles it, with the V8 flags it sets for simulate (V8 takes a cache only under the
      // flags it was made with); V8 says whether it used the cache.
      const flags = readFileSync(path.join(repoRoot, 'bin', 'simulate-v8-flags.json'), 'utf8');
      const check = `for (const f of ${flags.trim()}) require('node:v8').setFlagsFromString(f);
      const vm = require('node:vm'), fs = require('node:fs'), { wrap } = require('node:module');
      const s = new vm.Script(wrap(fs.readFileSync(process.argv[1], 'utf8')), { filename: process.argv[1], cachedData: fs.readFileSync(process.argv[2]), importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
      process.stdout.write(String(s.cachedDataRejected));`;
      const r = spawnSync(
        process.execPath,
        ['-e', check, bundle, path.join(repoRoot, 'dist', 'cli', 'simulate.cache')],
        { encoding: 'utf8' },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe('false');
    },
  );

  it('the patterns catch what the other commands load (the check can fail)', { timeout: 60_000 }, () => {
    const loaded = modulesOf('store', '--help');
    expect(loaded.some((u) => /\/dist\/electron\/host\//.test(u))).toBe(true);
    expect(loaded.some((u) => /\/dist\/core\/sim\/experiments\//.test(u))).toBe(true);
  });
});
