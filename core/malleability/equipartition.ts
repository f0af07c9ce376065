// Equipartition with filling (CooRMv2's rule for preemptible processors): the preemptible processors of a cluster —
// every running malleable job's processors above its minimum, plus those being handed out — are shared equally among
// the running malleable jobs, and what one job does not take is offered to the others. Unlike EGS, which adds an
// equal amount to every job, it evens out the jobs' extras: growth goes to the jobs with the fewest extras, shrinks
// are taken from those with the most.
import type { MalleabilityPolicy, PolicyProcedure } from './policy.js';
import type { ReadonlyJobRecord } from '../scheduler/job-record.js';

// Decision: the shares are of extras (processors above the minimum), since only those are preemptible; minimums
// are each job's own non-preemptible part.
function extras(job: ReadonlyJobRecord): number {
  return Math.max(0, job.held - job.releasing - job.min);
}

/**
 * How `total` processors to hand out split over jobs holding `have[i]` extras with room for `room[i]` more, so that
 * the extras come out as even as possible (water-filling): each job is raised to a common level, capped by its room;
 * the processors left below the next level go one each to the earliest-listed jobs at the level.
 */
export function levelUp(have: readonly number[], room: readonly number[], total: number): number[] {
  const n = have.length;
  const give = new Array<number>(n).fill(0);
  if (n === 0 || total <= 0) return give;
  const given = (level: number) => {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += Math.min(room[i]!, Math.max(0, level - have[i]!));
    return sum;
  };
  let hi = 0;
  for (let i = 0; i < n; i++) hi = Math.max(hi, have[i]! + room[i]!);
  if (given(hi) <= total) return have.map((_, i) => room[i]!);
  // Highest level whose fill fits in `total`.
  let lo = 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (given(mid) <= total) lo = mid;
    else hi = mid - 1;
  }
  let left = total;
  for (let i = 0; i < n; i++) {
    give[i] = Math.min(room[i]!, Math.max(0, lo - have[i]!));
    left -= give[i]!;
  }
  for (let i = 0; i < n && left > 0; i++) {
    if (have[i]! + give[i]! === lo && give[i]! < room[i]!) {
      give[i]!++;
      left--;
    }
  }
  return give;
}

/**
 * How `total` processors to take back from jobs holding `have[i]` extras: the jobs with the most give back first,
 * down to a common level; the remainder comes one each from the latest-listed jobs at the level.
 */
export function levelDown(have: readonly number[], total: number): number[] {
  const n = have.length;
  const take = new Array<number>(n).fill(0);
  if (n === 0 || total <= 0) return take;
  const taken = (level: number) => {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += Math.max(0, have[i]! - level);
    return sum;
  };
  if (taken(0) <= total) return have.map((h) => Math.max(0, h));
  // Lowest level whose reclaim fits in `total`.
  let lo = 0;
  let hi = Math.max(...have);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (taken(mid) <= total) hi = mid;
    else lo = mid + 1;
  }
  let left = total;
  for (let i = 0; i < n; i++) {
    take[i] = Math.max(0, have[i]! - lo);
    left -= take[i]!;
  }
  for (let i = n - 1; i >= 0 && left > 0; i--) {
    if (have[i]! - take[i]! === lo && lo > 0) {
      take[i]!++;
      left--;
    }
  }
  return take;
}

export const equipartition: MalleabilityPolicy = {
  name: 'equipartition',
  description:
    'Equipartition with filling: even out the running malleable jobs’ extras; what one job leaves is offered to the others.',

  *grow<J extends ReadonlyJobRecord>(jobs: readonly J[], growValue: number): PolicyProcedure<J> {
    let candidates = jobs.filter((j) => j.growable > 0);
    let left = growValue;
    // Filling: a round offers each job its share; jobs that took all of theirs share what the others left.
    while (left > 0 && candidates.length > 0) {
      const offers = levelUp(
        candidates.map(extras),
        candidates.map((j) => j.growable),
        left,
      );
      const tookAll: J[] = [];
      let handed = 0;
      for (let i = 0; i < candidates.length; i++) {
        const offer = offers[i]!;
        if (offer <= 0) {
          if (candidates[i]!.growable > 0) tookAll.push(candidates[i]!);
          continue;
        }
        const accepted = yield { kind: 'offerGrow', job: candidates[i]!, processors: offer };
        handed += accepted;
        if (accepted >= offer && candidates[i]!.growable > 0) tookAll.push(candidates[i]!);
      }
      left -= handed;
      // Nothing taken in a whole round: nobody wants more.
      if (handed === 0) break;
      candidates = tookAll;
    }
  },

  *shrink<J extends ReadonlyJobRecord>(jobs: readonly J[], shrinkValue: number): PolicyProcedure<J> {
    let candidates = jobs.filter((j) => j.shrinkable > 0);
    let left = shrinkValue;
    const asked: J[] = [];
    // A job may give back less than asked (or more: FT keeps a power of two); the rest is asked of the others.
    while (left > 0 && candidates.length > 0) {
      const requests = levelDown(
        candidates.map((j) => Math.min(extras(j), j.shrinkable)),
        left,
      );
      const next: J[] = [];
      let agreed = 0;
      for (let i = candidates.length - 1; i >= 0; i--) {
        const request = requests[i]!;
        if (request <= 0) continue;
        const job = candidates[i]!;
        const accepted = yield { kind: 'requestShrink', job, processors: request };
        agreed += accepted;
        if (accepted > 0 && !asked.includes(job)) asked.push(job);
        if (accepted >= request && job.shrinkable > 0) next.push(job);
      }
      left -= agreed;
      if (agreed === 0) break;
      candidates = next.reverse();
    }
    if (asked.length > 0) yield { kind: 'awaitRelease', jobs: asked };
  },
};
