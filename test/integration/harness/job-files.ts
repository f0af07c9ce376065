// A live job as a test reads it: the scheduler's events about it, and the application protocol's messages in its job
// folder (to-app.jsonl, from-app.jsonl), complete lines only and each one decoded (a bad line fails the test).
import path from 'node:path';
import { runTag } from '../../../runners/live/live-world.js';
import type { LiveWorld } from '../../../runners/live/types.js';
import { jobDirName } from '../../../runners/managers/naming.js';
import {
  decodeFromApp,
  decodeToApp,
  type FromAppMessage,
  type ToAppMessage,
} from '../../../runners/protocol/messages.js';
import { completeLines } from './common.js';

/** A job's messages, read from the folder of a live run whose clusters work under `workRoot` (Concertina's runs). */
export function jobFiles(workRoot: () => string, world: () => LiveWorld) {
  const jobDir = (jobId: string) =>
    path.join(workRoot(), 'jobs', jobDirName(runTag('concertina', world().persistentState().runId), jobId));
  function lines<M>(
    jobId: string,
    file: string,
    decode: (line: string) => { ok: true; message: M } | { ok: false; reason: string },
  ): M[] {
    return completeLines(path.join(jobDir(jobId), file)).map((line) => {
      const d = decode(line);
      if (!d.ok) throw new Error(`${jobId}: bad ${file} line ${line}: ${d.reason}`);
      return d.message;
    });
  }
  return {
    jobDir,
    toApp: (jobId: string) => lines<ToAppMessage>(jobId, 'to-app.jsonl', decodeToApp),
    fromApp: (jobId: string) => lines<FromAppMessage>(jobId, 'from-app.jsonl', decodeFromApp),
  };
}
