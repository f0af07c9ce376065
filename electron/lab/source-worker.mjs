// Starts the lab worker from the TypeScript sources, for when the host itself runs from them (under vitest): the
// compiled worker (dist/electron/lab/worker.js) is what the app uses. Decision: a loader that transpiles the
// sources on the fly, rather than a build before the tests, so the worker always runs the code under test.
import { register } from 'node:module';
import { workerData } from 'node:worker_threads';

register('./ts-hooks.mjs', import.meta.url);
await import(workerData.entry);
