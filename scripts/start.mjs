#!/usr/bin/env node
// `npm start`: the Electron window when Electron and a display are there; otherwise (as where Electron's binary
// cannot be downloaded) the same host in headless web mode, keeping its run in the user's data folder so a restart
// resumes it. Either way it says in one line which one it starts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
// `npm start` builds dist/ before it runs this.
import { systemReason } from '../dist/electron/cli/export.js';

const require = createRequire(import.meta.url);

/** The Electron binary's path, or why there is none. */
function electronBinary() {
  let binary;
  try {
    // The electron package exports its binary's path; it throws when the binary was never downloaded.
    binary = require('electron');
  } catch {
    return { why: 'Electron is not available on this machine (its binary cannot be downloaded here)' };
  }
  if (typeof binary !== 'string' || !existsSync(binary)) return { why: 'the Electron binary is missing' };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return { why: 'there is no display for a window' };
  return { binary };
}

/** Ends with one line on stderr and `code` (2: misuse, the machine's set-up or the user's environment). */
function fail(message, code) {
  console.error(`concertina: ${message}`);
  process.exit(code);
}

function run(command, args) {
  const child = spawn(command, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => fail(`cannot start ${path.basename(command)} (${systemReason(error)})`, 1));
  child.on('exit', (code) => process.exit(code ?? 0));
}

const electron = electronBinary();
if (electron.binary) {
  console.error('concertina: opening the window');
  run(electron.binary, ['dist/electron/desktop/entry.js', ...process.argv.slice(2)]);
} else {
  console.error(`concertina: ${electron.why}; starting the web mode instead.`);
  const dataDir = path.join(process.env.XDG_DATA_HOME || path.join(homedir(), '.local', 'share'), 'concertina');
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    fail(
      `cannot create the data folder ${dataDir} (${systemReason(error)}); set XDG_DATA_HOME to a folder you can write to`,
      2,
    );
  }
  run(process.execPath, [
    'bin/concertina.js',
    'serve',
    '--store',
    path.join(dataDir, 'run.db'),
    ...process.argv.slice(2),
  ]);
}
