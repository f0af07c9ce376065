// EGS — Equi-Grow & Shrink (KOALA paper, Fig. 5): spread the processors to hand out (or to reclaim) equally over
// all running malleable jobs; the remainder goes as a bonus to the least recently started jobs, or is taken as a
// malus from the most recently started ones.
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

export const egs: MalleabilityPolicy = {
  name: 'egs',
  description: 'Equi-grow and shrink: every running malleable job grows (or shrinks) by an equal share.',

  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    // Decision: the shares go over every running job, as the paper's figure; a job at its maximum is not asked (the
    // manager skips it), so its share stays idle until the next grow.
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
    // Decision: the shares fall on the jobs that can give some back; what a job could not give (its share was above
    // what it runs over its minimum) is shared again among the others, so a mandatory shrink reclaims all it can.
    let candidates = [...jobs].reverse().filter((j) => j.shrinkable > 0);
    let left = shrinkValue;
    const asked: J[] = [];
    while (left > 0 && candidates.length > 0) {
      const share = Math.floor(left / candidates.length);
      const remainder = left % candidates.length;
      const next: J[] = [];
      let agreed = 0;
      for (let i = 0; i < candidates.length; i++) {
        const job = candidates[i]!;
        // Decision: the malus falls on the `remainder` most recently started jobs (i < remainder), as the text says;
        // Fig. 5's `i >= shrinkRemainder` would reclaim more or less than asked.
        const request = Math.min(share + (i < remainder ? 1 : 0), job.shrinkable);
        if (request === 0) continue;
        const accepted = yield { kind: 'requestShrink', job, processors: request };
        agreed += accepted;
        if (accepted > 0 && !asked.includes(job)) asked.push(job);
        if (accepted >= request && job.shrinkable > 0) next.push(job);
      }
      left -= agreed;
      if (agreed === 0) break;
      candidates = next;
    }
    if (asked.length > 0) yield { kind: 'awaitRelease', jobs: asked };
  },
};
