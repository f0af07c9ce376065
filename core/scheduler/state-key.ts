// The state a scheduling pass decides from, hashed: two passes at one instant from equal states decide the same, so
// the scheduler stops a round of passes that would only repeat one (issue 11). PassHistory keeps the states seen.
import type { ClusterState } from './cluster-state.js';

/**
 * Hashes `counts` (the scheduler's own: commands and polls so far, poll round, queue length, live jobs, operations
 * running) and each cluster's capacity classes (background, non-preemptible, preemptible, pre-allocated, offered,
 * reserved), growth flag, malleable jobs and last growth.
 * Decision: processors that only move between the malleable jobs of a cluster do not count as progress.
 */
export class PassStateKey {
  /** Clusters whose values changed since the last key (each joins once: ClusterState.watchStateHash). */
  private readonly stale: ClusterState[] = [];
  /** Per cluster index, its terms of the two sums below. */
  private readonly termA: Int32Array;
  private readonly termB: Int32Array;
  private sumA = 0;
  private sumB = 0;

  constructor(clusters: readonly ClusterState[]) {
    this.termA = new Int32Array(clusters.length);
    this.termB = new Int32Array(clusters.length);
    for (const s of clusters) s.watchStateHash(this.stale);
  }

  key(counts: readonly number[]): number {
    // The clusters' terms are summed (mod 2^32), so a key is made again from the clusters that changed only: a pass
    // over a large grid where little changed costs nothing per unchanged cluster. Each term mixes in the cluster's
    // index, so two clusters trading their values change the sum.
    for (const s of this.stale) {
      const i = s.cluster.index;
      const a = fmix(s.stateHash(clusterHash) ^ Math.imul(i + 1, 0x9e3779b1));
      const b = fmix(s.stateHashB ^ Math.imul(i + 1, 0x85ebca6b) ^ 0x5bd1e995);
      this.sumA = (this.sumA - this.termA[i]! + a) | 0;
      this.sumB = (this.sumB - this.termB[i]! + b) | 0;
      this.termA[i] = a;
      this.termB[i] = b;
    }
    // Written only when some cluster changed: setting an array's length is a runtime call, and most keys find none.
    if (this.stale.length > 0) this.stale.length = 0;
    let h1 = 0x2545f491;
    for (const c of counts) h1 = mix(h1, c);
    const h2 = mix(mix(h1, this.sumB), this.sumA);
    h1 = mix(mix(h1, this.sumA), this.sumB);
    // Two 32-bit hashes in one exact number (53 bits): a false repeat would need both to collide.
    return (h1 >>> 0) * 0x200000 + (fmix(h2) & 0x1fffff);
  }
}

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
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
  /** The states of this instant: the first `count` (the array is reused from instant to instant). */
  private readonly states: number[] = [];
  private count = 0;

  /** Forgets the states of an earlier instant. */
  at(now: number): void {
    if (now === this.instant) return;
    this.instant = now;
    this.count = 0;
  }

  /** Whether a pass at this instant already started from or left this state. */
  seen(key: number): boolean {
    for (let i = 0; i < this.count; i++) if (this.states[i] === key) return true;
    return false;
  }

  record(before: number, after: number): void {
    this.states[this.count++] = before;
    this.states[this.count++] = after;
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
