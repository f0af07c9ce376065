// The pass state key (core/scheduler/state-key.ts): a key asked again with nothing changed is the last one, not hashed
// again (issue 17); any change of a count or of a cluster's values after such a key still moves it.
import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../core/scheduler/cluster-state.js';
import { PassStateKey } from '../../core/scheduler/state-key.js';
import { grid } from '../support/harness.js';

function setup() {
  const clusters = grid({ a: 16, b: 8 }).clusters.map((c) => new ClusterState(c));
  return { clusters, key: new PassStateKey(clusters) };
}

describe('the pass state key', () => {
  it('is the same when asked again with nothing changed, and moves with each count and cluster value', () => {
    const { clusters, key } = setup();
    const first = key.key(1, 0, 2, 3, 0);
    expect(key.key(1, 0, 2, 3, 0)).toBe(first);
    // Each count in turn.
    const byCount = [key.key(2, 0, 2, 3, 0), key.key(1, 1, 2, 3, 0), key.key(1, 0, 1, 3, 0)];
    byCount.push(key.key(1, 0, 2, 4, 0), key.key(1, 0, 2, 3, 1));
    for (const k of byCount) expect(k).not.toBe(first);
    expect(key.key(1, 0, 2, 3, 0)).toBe(first);
    // A cluster's value, after a key that was the last one again.
    expect(key.key(1, 0, 2, 3, 0)).toBe(first);
    clusters[1]!.nonPreemptible = 4;
    const moved = key.key(1, 0, 2, 3, 0);
    expect(moved).not.toBe(first);
    expect(key.key(1, 0, 2, 3, 0)).toBe(moved);
    // Back to the first state: the first key again (the key is of the state, not of its history).
    clusters[1]!.nonPreemptible = 0;
    expect(key.key(1, 0, 2, 3, 0)).toBe(first);
  });

  it('keeps apart two clusters trading their values', () => {
    const { clusters, key } = setup();
    clusters[0]!.nonPreemptible = 3;
    const before = key.key(0, 0, 0, 0, 0);
    clusters[0]!.nonPreemptible = 0;
    clusters[1]!.nonPreemptible = 3;
    expect(key.key(0, 0, 0, 0, 0)).not.toBe(before);
  });
});
