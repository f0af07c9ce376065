#!/usr/bin/env node
// `npm start`: the Electron window when Electron is installed; otherwise (as where its binary cannot be
// downloaded) the same host in headless web mode, keeping its run in the user's data folder so a restart resumes it.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
let electron;
try {
  electron = require('electron');
} catch {
  electron = undefined;
}
if (typeof electron === 'string') {
  console.error('concertina: the Electron window is not built yet; starting the web mode instead.');
} else {
  console.error('concertina: Electron is not available on this machine (its binary cannot be downloaded here); starting the web mode instead.');
}
const dataDir = path.join(process.env.XDG_DATA_HOME || path.join(homedir(), '.local', 'share'), 'concertina');
mkdirSync(dataDir, { recursive: true });
const child = spawn(process.execPath, ['bin/concertina.js', 'serve', '--store', path.join(dataDir, 'run.db'), ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
