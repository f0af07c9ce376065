// EGS — Equi-Grow & Shrink (KOALA paper, Fig. 5): spread the processors to hand out (or to reclaim) equally over
// all running malleable jobs; the remainder goes as a bonus to the least recently started jobs, or is taken as a
// malus from the most recently started ones.
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

export const egs: MalleabilityPolicy = {
  name: 'egs',
  description: 'Equi-grow and shrink: every running malleable job grows (or shrinks) by an equal share.',

  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    if (jobs.length === 0) return;
    const share = Math.floor(growValue / jobs.length);
    const remainder = growValue % jobs.length;
    for (let i = 0; i < jobs.length; i++) {
      const offer = share + (i < remainder ? 1 : 0);
      // Decision: a share of zero is not sent (more jobs than processors to hand out).
      if (offer > 0) yield { kind: 'offerGrow', job: jobs[i]!, processors: offer };
    }
  },

  *shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J> {
    if (jobs.length === 0) return;
    const newestFirst = [...jobs].reverse();
    const share = Math.floor(shrinkValue / newestFirst.length);
    const remainder = shrinkValue % newestFirst.length;
    const asked: J[] = [];
    for (let i = 0; i < newestFirst.length; i++) {
      // Decision: the malus falls on the `remainder` most recently started jobs (i < remainder), as the text says;
      // Fig. 5's `i >= shrinkRemainder` would reclaim more or less than asked.
      const request = share + (i < remainder ? 1 : 0);
      if (request === 0) continue;
      const accepted = yield { kind: 'requestShrink', job: newestFirst[i]!, processors: request };
      if (accepted > 0) asked.push(newestFirst[i]!);
    }
    if (asked.length > 0) yield { kind: 'awaitRelease', jobs: asked };
  },
};
