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
    // Each cluster's own two hashes, kept by the cluster until one of its values changes: a pass over a large grid
    // where little changed costs one multiply per cluster and chain.
    h1 = Math.imul(h1 ^ s.stateHash(clusterHash), 0x9e3779b1);
    h2 = Math.imul(h2 ^ s.stateHashB ^ (h1 >>> 15), 0xcc9e2d51);
  }
  // Two 32-bit hashes in one exact number (53 bits): a false repeat would need both to collide.
  return (mix(h1, h2) >>> 0) * 0x200000 + (h2 & 0x1fffff);
}

/** Two independent 32-bit hashes of a cluster's values (passStateKey). */
function clusterHash(values: readonly number[]): readonly [number, number] {
  let a = 0x9e3779b1;
  let b = 0x85ebca6b;
  for (const v of values) {
    a = mix(a, v);
    b = Math.imul(b ^ (v | 0) ^ Math.floor(v / 0x100000000), 0xc2b2ae35);
    b = (b << 13) | (b >>> 19);
  }
  return [a, b];
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
