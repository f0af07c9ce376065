// One Lab run, computed synchronously by its experiment (electron/lab/registry.ts). Runs in the lab worker; tests run
// it in-process too.
export { computeLab, labLabel, labRunsTotal } from './registry.js';
