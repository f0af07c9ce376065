// The state a scheduling pass decides from, hashed: two passes at one instant from equal states decide the same, so
// the scheduler stops a round of passes that would only repeat one (issue 11). PassHistory keeps the states seen.
import type { ClusterState } from './cluster-state.js';

/**
 * Hashes `counts` (the scheduler's own: commands and polls so far, poll round, queue length, live jobs, operations
 * running) and each cluster's capacity classes (background, non-preemptible, preemptible, pre-allocated, offered,
 * reserved), growth flag, malleable jobs and last growth.
 * Decision: processors that only move between the malleable jobs of a cluster do not count as progress.
 */
export function passStateKey(counts: readonly number[], clusters: readonly ClusterState[]): number {
  let h1 = 0x2545f491;
  for (const c of counts) h1 = mix(h1, c);
  let h2 = h1;
  for (const s of clusters) {
    // Kept cheap (it runs twice a pass): one multiply per value, a second chain over the first.
    h1 = Math.imul(h1 ^ s.background, 0x9e3779b1);
    h1 = Math.imul(h1 ^ s.nonPreemptible, 0x85ebca6b);
    h1 = Math.imul(h1 ^ s.preemptible, 0xc2b2ae35);
    h1 = Math.imul(h1 ^ s.preallocatedUnused, 0x27d4eb2f);
    h1 = Math.imul(h1 ^ s.offered, 0x165667b1);
    h1 = Math.imul(h1 ^ s.reserved, 0x9e3779b1);
    h1 = Math.imul(h1 ^ ((s.growDue ? 1 : 0) + s.malleableJobs.length * 2), 0x85ebca6b);
    // What growth was last offered from (a growth that offered nothing still learnt not to ask again).
    h1 = Math.imul(h1 ^ (s.lastGrowFree + s.lastGrowRoom * 0x10001), 0xc2b2ae35);
    h2 = Math.imul(h2 ^ (h1 >>> 15), 0xcc9e2d51);
  }
  // Two 32-bit hashes in one exact number (53 bits): a false repeat would need both to collide.
  return (mix(h1, h2) >>> 0) * 0x200000 + (h2 & 0x1fffff);
}

/** The states the passes at one instant started from and left. */
export class PassHistory {
  private instant = Number.NaN;
  private readonly states: number[] = [];

  /** Forgets the states of an earlier instant. */
  at(now: number): void {
    if (now === this.instant) return;
    this.instant = now;
    if (this.states.length > 0) this.states.length = 0;
  }

  /** Whether a pass at this instant already started from or left this state. */
  seen(key: number): boolean {
    return this.states.includes(key);
  }

  record(before: number, after: number): void {
    this.states.push(before, after);
  }
}

/** One step of a 32-bit multiplicative hash (murmur3's mixing) over a whole number. */
function mix(h: number, value: number): number {
  let k = Math.imul(value | 0, 0xcc9e2d51);
  k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}
