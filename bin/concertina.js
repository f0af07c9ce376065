#!/usr/bin/env node
// The `concertina` command: runs the compiled CLI in dist/, which `npm install` builds (its prepare step).
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const entry = new URL('../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('concertina: not built yet (dist/ is missing): run `npm install`, whose prepare step builds it');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exit(await main(process.argv));
