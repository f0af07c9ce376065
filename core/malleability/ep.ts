// EP — naive equipartition (a baseline of the DBES paper): the running malleable jobs' sizes are evened out — idle
// processors go to the smallest jobs, shrinks take from the largest — with no regard to what any waiting job needs.
// Unlike `equipartition` (CooRMv2's, which evens out the extras above each minimum and offers what one job declines
// to the others), EP evens out whole sizes in one round of offers.
import { levelUp } from './equipartition.js';
import { evenSizes } from '../dbes/standard.js';
import { baselineIteration } from './baseline.js';
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

/** How `total` processors to take from jobs of sizes `have`, each at most `room[i]`, so the largest come down first. */
export function levelDownCapped(have: readonly number[], room: readonly number[], total: number): number[] {
  const take = have.map(() => 0);
  let left = Math.min(
    total,
    room.reduce((s, r) => s + r, 0),
  );
  while (left > 0) {
    // The largest job that can still give; at a tie, the latest listed (the latest started).
    let pick = -1;
    for (let i = 0; i < have.length; i++) {
      if (take[i]! < room[i]! && (pick < 0 || have[i]! - take[i]! >= have[pick]! - take[pick]!)) pick = i;
    }
    take[pick]!++;
    left--;
  }
  return take;
}

export const ep: MalleabilityPolicy = {
  name: 'ep',
  description: 'Naive equipartition: even out the running malleable jobs’ sizes, whatever the waiting jobs need.',
  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    const growing = jobs.filter((j) => j.growable > 0);
    const give = levelUp(
      growing.map((j) => j.held - j.releasing),
      growing.map((j) => j.growable),
      growValue,
    );
    for (let i = 0; i < growing.length; i++)
      if (give[i]! > 0) yield { kind: 'offerGrow', job: growing[i]!, processors: give[i]! };
  },
  *shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J> {
    const shrinking = jobs.filter((j) => j.shrinkable > 0);
    const take = levelDownCapped(
      shrinking.map((j) => j.held - j.releasing),
      shrinking.map((j) => j.shrinkable),
      shrinkValue,
    );
    const asked: J[] = [];
    for (let i = shrinking.length - 1; i >= 0; i--) {
      if (take[i]! <= 0) continue;
      const accepted = yield { kind: 'requestShrink', job: shrinking[i]!, processors: take[i]! };
      if (accepted > 0) asked.push(shrinking[i]!);
    }
    if (asked.length > 0) yield { kind: 'awaitRelease', jobs: asked };
  },
  iteration: baselineIteration(evenSizes),
};
