#!/usr/bin/env node
// Bundles the built `concertina simulate` path (dist/electron/cli/main.js and what it imports: the core, commander,
// zod) into dist/cli/simulate.cjs, which bin/concertina.js runs for `simulate`, and writes V8's code cache of it
// (dist/cli/simulate.cache) from a one-job run. Node's module loader costs about as
// much per file as a run of a small trace; one file instead of some 200 halves the start-up (issue 17). Run after tsc
// (`npm run build`). dist/cli/simulate-modules.json lists the modules bundled, for the test that the simulate path
// loads nothing of the console, store, plots or SSH.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'cli');
/** Packages bundled; any other is left to Node (none is on the simulate path: the test checks it). */
// Decision: zod stays on the simulate path. The scheduler's module validates submissions with core/model/schemas.ts
// and imports it at load; bundled, zod and the schemas built at load cost about 0.03 s of CPU (a third of the start-up
// left), and a second, hand-written validator for the same specs would drift from it.
const BUNDLED = ['commander', 'zod'];
// Decision: the bundle is CommonJS, not an ES module, for the code cache: Node 20 compiles an ES module from source on
// every run (module.enableCompileCache is Node 22's), while a script compiled through node:vm takes V8's cached data.
// Its import()s become require()s (dynamicImportInCjs off): Node 20 runs no import() from a vm script without
// --experimental-vm-modules.

const bundled = new Set();
await build({
  configFile: false,
  root,
  logLevel: 'warn',
  build: {
    ssr: path.join(root, 'dist', 'electron', 'cli', 'main.js'),
    outDir,
    emptyOutDir: true,
    minify: false,
    sourcemap: false,
    target: 'node20',
    rolldownOptions: {
      output: {
        entryFileNames: 'simulate.cjs',
        chunkFileNames: '[name]-[hash].js',
        format: 'cjs',
        dynamicImportInCjs: false,
      },
    },
  },
  ssr: { noExternal: BUNDLED, target: 'node' },
  plugins: [
    {
      // The other commands never run from this file (bin/concertina.js sends them to dist/electron/cli/main.js).
      name: 'concertina-other-commands-apart',
      enforce: 'pre',
      resolveId(source, importer) {
        if (source === './commands.js' && importer?.endsWith(path.join('electron', 'cli', 'main.js'))) {
          return { id: '../electron/cli/commands.js', external: true };
        }
        return null;
      },
    },
    {
      // Decision: commander's child_process serves only subcommands that are executables of their own, which
      // `simulate` has none of; a stand-in that says so if ever called spares the start-up Node's child_process (3 ms).
      name: 'concertina-no-child-process',
      enforce: 'pre',
      resolveId(source, importer) {
        const childProcess = source === 'node:child_process' || source === 'child_process';
        return childProcess && importer?.includes(`${path.sep}commander${path.sep}`) ? '\0no-child-process' : null;
      },
      load(id) {
        if (id !== '\0no-child-process') return null;
        const refuse = "() => { throw new Error('concertina simulate runs no subcommand executables'); }";
        return `module.exports = { spawn: ${refuse}, execFile: ${refuse} };`;
      },
    },
    {
      name: 'concertina-bundled-modules',
      generateBundle(_options, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type === 'chunk')
            for (const id of chunk.moduleIds) bundled.add(path.relative(root, id).split(path.sep).join('/'));
        }
      },
    },
  ],
});
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, 'simulate-modules.json'), `${JSON.stringify([...bundled].sort(), null, 1)}\n`);
const bundleFile = path.join(outDir, 'simulate.cjs');
writeFileSync(bundleFile, asciiOnly(readFileSync(bundleFile, 'utf8')));

/**
 * The bundle with every character past ASCII written as a \u escape. V8 keeps a source with any character past
 * Latin-1 (a dash, an arrow in a message) as two bytes per character: 1.5 MB instead of 0.74 MB, kept for the whole run
 * (issue 17). An escape means the same character in a string, template, regular expression or identifier, and is
 * inert in a comment.
 */
function asciiOnly(source) {
  return source.replace(/[\u0080-\uffff]/g, (c, at) => {
    // Decision: an escaped non-ASCII character (`\—`, never written in the sources) would change meaning; refuse it.
    if (source[at - 1] === '\\') throw new Error(`bundle-cli: a backslash before "${c}" at ${at} cannot be escaped`);
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

// The code cache, written after a one-job run so that it holds the functions a run compiles, not only the top level.
// emptyOutDir removed the previous one: V8 checks a cache against its source's length only, never its text.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-bundle-'));
try {
  const swf = path.join(tmp, 'one.swf');
  writeFileSync(swf, '1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n');
  const run = spawnSync(
    process.execPath,
    [path.join(root, 'bin', 'concertina.js'), 'simulate', '--grid', 'single:4', '--workload', swf, '--json'],
    {
      env: { ...process.env, CONCERTINA_CODE_CACHE: 'write' },
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`the one-job run that writes the code cache failed: ${run.stderr}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
