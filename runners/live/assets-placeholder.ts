// The staged assets by name: `{assets}` in a job's program or arguments stands for the folder asset staging put the
// SDK and the demo applications in on the cluster the job runs on, so that a user picks a demo without knowing each
// cluster's path. Free of Node: the console's Submit form offers the same names.
import type { LocalJobRequest } from '../../core/ports.js';

export const ASSETS_PLACEHOLDER = '{assets}';

/** The demo applications staged on every cluster (executable, `#!/usr/bin/env node`), as the Submit form offers them. */
/** `args`: what its arguments are, the first that sets its amount of work, and how long the default runs. */
export const DEMO_APPS = [
  {
    program: `${ASSETS_PLACEHOLDER}/apps/ft-demo.mjs`,
    label: 'FT demo (accepts powers of two)',
    model: 'ft',
    args: 'args: [blocks] [log2-points]; its work is the number of blocks (FFTs of 2^12 points): 400000 by default, a few minutes on 2 processors; 4000 takes seconds',
  },
  {
    program: `${ASSETS_PLACEHOLDER}/apps/gadget-demo.mjs`,
    label: 'GADGET demo (accepts any size)',
    model: 'gadget2',
    args: 'args: [bodies] [steps]; its work is the number of steps (of 1000 bodies): 30000 by default, a few minutes on 2 processors; 300 takes seconds',
  },
  {
    program: `${ASSETS_PLACEHOLDER}/apps/periodic-demo.mjs`,
    label: 'periodic demo (interactive jobs)',
    model: 'ft',
    kind: 'interactive',
    args: 'args: [iterations] [load] [overrun-every] [overrun-factor]; forks its tasks every period, each computing load × C ms (default 0.5; 0 iterations: until cancelled); every n-th iteration factor × C (an overrun)',
  },
] as const;

/**
 * The request with every `{assets}` in its program and arguments replaced by `dir`. Decision: the text is replaced
 * as it is, no escapes; the result stays one quoted word each (the job script quotes the program and every
 * argument), so neither the placeholder nor `dir` ever reaches a shell unquoted.
 */
export function expandAssets(request: LocalJobRequest, dir: string): LocalJobRequest {
  const expand = (text: string) => text.split(ASSETS_PLACEHOLDER).join(dir);
  if (!request.program.includes(ASSETS_PLACEHOLDER) && !request.args.some((a) => a.includes(ASSETS_PLACEHOLDER)))
    return request;
  return { ...request, program: expand(request.program), args: request.args.map(expand) };
}
