#!/usr/bin/env node
// The `concertina` command: runs the compiled CLI in dist/, which `npm install` builds (its prepare step).
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { fileURLToPath, URL } from 'node:url';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

const entry = new URL('../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('concertina: not built yet (dist/ is missing): run `npm install`, whose prepare step builds it');
  process.exit(2);
}
// A simulate run is a batch computation that nobody watches pause, so its full collections run whole rather than in
// increments beside the program (issue 17): with incremental marking, a replay's old generation grew to twice what
// it held live. Peak RSS of the NASA replay: easy 126 -> 115 MiB; cbf 137 -> 117, or 135 in the runs where no full
// collection comes before the end; at the same CPU (LCG and Lublin too). V8 reads the flag each time it would start marking, so setting it now is safe; the code cache is made under it.
// Decision: only `simulate`; the console's host (`serve`) keeps its short incremental pauses.
// TurboFan's inlining budget is lowered too: a replay's cold run is mostly V8 compiling large inlined functions that
// run a few thousand times (CPU, interleaved pairs: NASA easy 0.82 -> 0.70 s, medians of 5; HPC2N cbf 0.89 -> 0.74,
// of 3). The flags are in simulate-v8-flags.json, which the code-cache test reads too (V8 takes a cache only under
// the flags it was made with).
if (process.argv[2] === 'simulate') {
  const flags = JSON.parse(readFileSync(new URL('./simulate-v8-flags.json', import.meta.url), 'utf8'));
  for (const flag of flags) v8.setFlagsFromString(flag);
}

// `simulate` runs from one bundled file (scripts/bundle-cli.mjs), which starts in half the time of ~200 modules;
// every other command runs from dist/ as compiled.
// Decision: a bundle older than the compiled CLI (tsc run alone, without `npm run build`) is stale and left unused.
const bundle = fileURLToPath(new URL('../dist/cli/simulate.cjs', import.meta.url));
const fresh = (() => {
  try {
    return statSync(bundle).mtimeMs >= statSync(entry).mtimeMs;
  } catch {
    return false;
  }
})();

/**
 * The bundle's `main`, compiled with V8's code cache beside it (dist/cli/simulate.cache, written by the build), which
 * spares the parse and compile of its 0.6 MB: a third of the start-up left. A cache V8 rejects (another Node, other
 * flags) costs nothing but that saving. CONCERTINA_CODE_CACHE=write (the build) writes the cache after the run, so it
 * holds the functions a run compiled, not only the top level.
 */
function bundled() {
  const cacheFile = bundle.replace(/\.cjs$/, '.cache');
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new vm.Script(Module.wrap(readFileSync(bundle, 'utf8')), {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} };
  script
    .runInThisContext()
    .call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  const writeCache = () => writeFileSync(cacheFile, script.createCachedData());
  return { main: module.exports.main, after: process.env.CONCERTINA_CODE_CACHE === 'write' ? writeCache : () => {} };
}

const { main, after } =
  process.argv[2] === 'simulate' && fresh ? bundled() : { ...(await import(entry.href)), after: () => {} };
const code = await main(process.argv);
after();
process.exit(code);
