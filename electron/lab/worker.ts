// The lab worker: computes one Lab run off the host's thread, so the API and the UI stay responsive, posting its
// progress and then its outcome (or why it failed) to the host. The spec comes validated; it is checked again here
// because a worker is a boundary too.
import { parentPort, workerData } from 'node:worker_threads';
import { computeLab } from './compute.js';
import { labSpecSchema } from './registry.js';
import type { LabWorkerMessage } from './schemas.js';

const port = parentPort;
if (!port) throw new Error('the lab worker runs only as a worker thread');
const post = (message: LabWorkerMessage) => port.postMessage(message);

const spec = labSpecSchema.safeParse((workerData as { spec?: unknown } | undefined)?.spec);
if (!spec.success)
  post({
    type: 'failed',
    message: `bad spec: ${spec.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  });
else {
  try {
    post({ type: 'done', outcome: computeLab(spec.data, (p) => post({ type: 'progress', ...p })) });
  } catch (error) {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
}
