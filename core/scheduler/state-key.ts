// The state a scheduling pass decides from, hashed: two passes at one instant from equal states decide the same, so
// the scheduler stops a round of passes that would only repeat one (issue 11). PassHistory keeps the states seen.
import type { ClusterState } from './cluster-state.js';
import { ReusedList } from './reused-list.js';

/** How many values a cluster gives the key (ClusterState.stateValues). */
const STATE_VALUES = 8;

/**
 * Hashes the scheduler's counts (its own: commands and polls so far, poll round, queue length, live jobs, operations
 * running) and each cluster's capacity classes (background, non-preemptible, preemptible, pre-allocated, offered,
 * reserved), growth flag, malleable jobs and last growth.
 * Decision: processors that only move between the malleable jobs of a cluster do not count as progress.
 */
export class PassStateKey {
  /** Clusters whose values changed since the last key (each joins once: ClusterState.watchStateHash). */
  private readonly stale = new ReusedList<ClusterState>();
  /** Per cluster index, its terms of the two sums below. */
  private readonly termA: Int32Array;
  private readonly termB: Int32Array;
  private sumA = 0;
  private sumB = 0;
  /** Scratch: a cluster's values, the scheduler's counts, and the last two hashes of `hash`. */
  private readonly values = new Float64Array(STATE_VALUES);
  private readonly counts = new Float64Array(5);
  private hashA = 0;
  private hashB = 0;
  /** The last key made, once one is (`keyMade`). */
  private lastKey = 0;
  private keyMade = false;

  constructor(clusters: readonly ClusterState[]) {
    this.termA = new Int32Array(clusters.length);
    this.termB = new Int32Array(clusters.length);
    for (const s of clusters) s.watchStateHash(this.stale);
  }

  /** The key of the scheduler's counts (see the class comment) and the clusters' values. */
  key(epoch: number, pollRound: number, queued: number, unfinished: number, operations: number): number {
    // The clusters' terms are summed (mod 2^32), so a key is made again from the clusters that changed only: a pass
    // over a large grid where little changed costs nothing per unchanged cluster. Each term mixes in the cluster's
    // index, so two clusters trading their values change the sum.
    const values = this.values;
    const stale = this.stale;
    const counts = this.counts;
    // Nothing changed since the last key (the key before a pass is mostly the one after the last): the same key, not
    // hashed again. `counts` holds the last key's counts.
    if (
      stale.count === 0 &&
      this.keyMade &&
      counts[0] === epoch &&
      counts[1] === pollRound &&
      counts[2] === queued &&
      counts[3] === unfinished &&
      counts[4] === operations
    )
      return this.lastKey;
    for (let k = 0; k < stale.count; k++) {
      const s = stale.items[k]!;
      const i = s.cluster.index;
      s.stateValues(values);
      this.hash(values, STATE_VALUES, 0x9e3779b1, 0x85ebca6b);
      const a = fmix(this.hashA ^ Math.imul(i + 1, 0x9e3779b1));
      const b = fmix(this.hashB ^ Math.imul(i + 1, 0x85ebca6b) ^ 0x5bd1e995);
      this.sumA = (this.sumA - this.termA[i]! + a) | 0;
      this.sumB = (this.sumB - this.termB[i]! + b) | 0;
      this.termA[i] = a;
      this.termB[i] = b;
    }
    if (stale.count > 0) stale.clear();
    counts[0] = epoch;
    counts[1] = pollRound;
    counts[2] = queued;
    counts[3] = unfinished;
    counts[4] = operations;
    this.hash(counts, 5, 0x2545f491, 0);
    let h1 = this.hashA;
    const h2 = mix(mix(h1, this.sumB), this.sumA);
    h1 = mix(mix(h1, this.sumA), this.sumB);
    // Two 32-bit hashes in one exact number (53 bits): a false repeat would need both to collide.
    this.lastKey = (h1 >>> 0) * 0x200000 + (fmix(h2) & 0x1fffff);
    this.keyMade = true;
    return this.lastKey;
  }

  /**
   * Two independent 32-bit hashes of `values[0..count)` from seeds a and b, into hashA and hashB: `mix` for the
   * first, written out in the loop, since a key is made twice per pass and a call per value was most of its cost
   * before the code is optimized (a short run's passes mostly are not).
   */
  private hash(values: Float64Array, count: number, a: number, b: number): void {
    for (let k = 0; k < count; k++) {
      const v = values[k]!;
      let m = Math.imul(v | 0, 0xcc9e2d51);
      m = Math.imul((m << 15) | (m >>> 17), 0x1b873593);
      a ^= m;
      a = (a << 13) | (a >>> 19);
      a = (Math.imul(a, 5) + 0xe6546b64) | 0;
      b = Math.imul(b ^ (v | 0) ^ Math.floor(v / 0x100000000), 0xc2b2ae35);
      b = (b << 13) | (b >>> 19);
    }
    this.hashA = a;
    this.hashB = b;
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
