#!/usr/bin/env node
// The `concertina` command: runs the compiled CLI in dist/, which `npm install` builds (its prepare step).
import { existsSync, statSync } from 'node:fs';
import { URL } from 'node:url';

const entry = new URL('../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('concertina: not built yet (dist/ is missing): run `npm install`, whose prepare step builds it');
  process.exit(2);
}
// `simulate` runs from one bundled file (scripts/bundle-cli.mjs), which starts in half the time of ~200 modules;
// every other command runs from dist/ as compiled.
// Decision: a bundle older than the compiled CLI (tsc run alone, without `npm run build`) is stale and left unused.
const bundle = new URL('../dist/cli/simulate.js', import.meta.url);
const fresh = (() => {
  try {
    return statSync(bundle).mtimeMs >= statSync(entry).mtimeMs;
  } catch {
    return false;
  }
})();
const { main } = await import((process.argv[2] === 'simulate' && fresh ? bundle : entry).href);
process.exit(await main(process.argv));
