// What Electron runs (`electron dist/electron/desktop/entry.js`): loads Electron's main-process modules and starts
// the desktop. Not imported by anything else.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerScheme, startDesktop, type ElectronMain } from './main.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const electron = createRequire(import.meta.url)('electron') as ElectronMain;
registerScheme(electron);
startDesktop(electron, {
  // dist/electron/desktop -> dist/renderer
  consoleDir: path.resolve(here, '..', '..', 'renderer'),
  preload: path.join(here, 'preload.cjs'),
  icon: path.resolve(here, '..', '..', '..', 'assets', 'icons', 'concertina.png'),
}).catch((error: unknown) => {
  console.error(`concertina: the window could not start: ${error instanceof Error ? error.message : String(error)}`);
  electron.app.quit();
});
