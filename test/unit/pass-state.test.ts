// The pass-state hash that stops a pass repeating at one instant: each cluster rehashes only when a counter changed
// (issue 11's speed-up), so every counter's change must be noticed, and equal states must hash equal.
import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../core/scheduler/cluster-state.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';
import { grid, harness, malleable, rigid } from '../support/harness.js';

function hashOf(state: ClusterState): [number, number] {
  const into: [number, number] = [0, 0];
  state.passHash(into);
  return into;
}

describe('a cluster notes each change of what a pass decides from', () => {
  const setters: Array<[string, (s: ClusterState, n: number) => void]> = [
    ['background', (s, n) => (s.background = n)],
    ['nonPreemptible', (s, n) => (s.nonPreemptible = n)],
    ['preemptible', (s, n) => (s.preemptible = n)],
    ['preallocatedUnused', (s, n) => (s.preallocatedUnused = n)],
    ['offered', (s, n) => (s.offered = n)],
    ['reserved', (s, n) => (n > 0 ? s.reserve('q', n) : s.release('q'))],
    ['growDue', (s, n) => (s.growDue = n > 0)],
  ];

  for (const [name, set] of setters) {
    it(`${name}: marks the cluster changed once, and its hash follows the value`, () => {
      const changes: ClusterState[] = [];
      const state = new ClusterState(grid({ a: 64 }).clusters[0]!, 'all', changes);
      expect(changes).toEqual([state]); // a new cluster is hashed once
      const initial = hashOf(state);
      changes.length = 0;
      set(state, 3);
      set(state, 5);
      expect(changes).toEqual([state]);
      const changed = hashOf(state);
      expect(changed).not.toEqual(initial);
      changes.length = 0;
      set(state, 0);
      expect(changes).toEqual([state]);
      expect(hashOf(state)).toEqual(initial); // back to the same state: the same hash, so a repeat is seen
    });
  }

  it('malleable jobs joining and leaving count; their order alone does not', () => {
    const changes: ClusterState[] = [];
    const state = new ClusterState(grid({ a: 64 }).clusters[0]!, 'all', changes);
    const initial = hashOf(state);
    changes.length = 0;
    const job = { id: 'm' } as JobRecord;
    state.addMalleableJob(job);
    expect(changes).toEqual([state]);
    expect(hashOf(state)).not.toEqual(initial);
    changes.length = 0;
    state.removeMalleableJob(job);
    expect(changes).toEqual([state]);
    expect(hashOf(state)).toEqual(initial);
  });

  it('two clusters in the same state hash differently (a change moving between them is a change)', () => {
    const g = grid({ a: 64, b: 64 });
    expect(hashOf(new ClusterState(g.clusters[0]!))).not.toEqual(hashOf(new ClusterState(g.clusters[1]!)));
  });
});

describe("the scheduler's pass-state key", () => {
  it('is stable while nothing changes, moves with any cluster, and comes back with the state', () => {
    const h = harness(grid({ a: 16, b: 16, c: 16 }), { approach: 'pra', policy: 'egs' });
    const key = h.scheduler.stateKey();
    expect(h.scheduler.stateKey()).toBe(key);
    for (const cluster of h.scheduler.clusters) {
      cluster.background += 2;
      const moved = h.scheduler.stateKey();
      expect(moved).not.toBe(key);
      cluster.background -= 2;
      expect(h.scheduler.stateKey()).toBe(key);
    }
  });

  it('agrees with a scheduler that reached the same state by another road', () => {
    // One scheduler hashes after every step, the other only at the end: the incremental sums must not drift.
    const stepwise = harness(grid({ a: 16, b: 16 }), { approach: 'pra', policy: 'egs' });
    const atOnce = harness(grid({ a: 16, b: 16 }), { approach: 'pra', policy: 'egs' });
    for (const h of [stepwise, atOnce]) {
      h.submit(rigid('r', 4));
      if (h === stepwise) h.scheduler.stateKey();
      h.submit(malleable('m', 2, 8));
      if (h === stepwise) h.scheduler.stateKey();
      h.pass();
      if (h === stepwise) h.scheduler.stateKey();
      h.startAll();
    }
    expect(stepwise.scheduler.stateKey()).toBe(atOnce.scheduler.stateKey());
  });
});
