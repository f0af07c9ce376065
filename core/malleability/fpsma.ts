// FPSMA — Favour Previously Started Malleable Applications (KOALA paper, Fig. 4): grow from the earliest started
// job, shrink from the latest started one, each taking what it accepts before the next is asked.
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

export const fpsma: MalleabilityPolicy = {
  name: 'fpsma',
  description: 'Favour previously started malleable applications: grow the oldest first, shrink the newest first.',

  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    for (const job of jobs) {
      const accepted = yield { kind: 'offerGrow', job, processors: growValue };
      growValue -= accepted;
      if (growValue <= 0) break;
    }
  },

  *shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J> {
    for (let i = jobs.length - 1; i >= 0; i--) {
      const job = jobs[i]!;
      const accepted = yield { kind: 'requestShrink', job, processors: shrinkValue };
      if (accepted > 0) yield { kind: 'awaitRelease', jobs: [job] };
      shrinkValue -= accepted;
      // Decision: stop at <= 0, not == 0 — a job may release more than asked (FT keeps a power of two).
      if (shrinkValue <= 0) break;
    }
  },
};
