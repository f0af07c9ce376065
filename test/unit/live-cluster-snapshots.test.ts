// The live grid's cluster cards: the scheduler's snapshots with each cluster's link state, and a card for a cluster
// left out of the grid because it could not be reached when the world started, carrying its error.
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../core/scheduler/scheduler.js';
import { liveClusterSnapshots } from '../../electron/live/live-run.js';

const snapshot = (name: string): ClusterSnapshot => ({
  name,
  reachable: true,
  lastPoll: 3,
  runningMalleable: 1,
  processors: 8,
  threshold: 8,
  background: 2,
  nonPreemptible: 1,
  preallocatedUnused: 0,
  preemptible: 2,
  earmarked: 0,
  idle: 3,
});

describe('liveClusterSnapshots', () => {
  it('adds link states to the grid\'s clusters and shows an unreachable one left out, with its error', () => {
    const cards = liveClusterSnapshots(
      [snapshot('a')],
      [
        { name: 'a', connection: 'open' },
        { name: 'gone', connection: 'lost', lastError: 'gone: host key changed' },
      ],
    );
    expect(cards).toEqual([
      { ...snapshot('a'), connection: 'open' },
      { name: 'gone', reachable: false, lastPoll: null, processors: 0, threshold: 0, background: 0, nonPreemptible: 0, preallocatedUnused: 0, preemptible: 0, earmarked: 0, idle: 0, runningMalleable: 0, connection: 'lost', lastError: 'gone: host key changed' },
    ]);
  });

  it('keeps a never-polled cluster\'s lastPoll as null', () => {
    expect(liveClusterSnapshots([{ ...snapshot('a'), lastPoll: Number.NEGATIVE_INFINITY }], [])[0]!.lastPoll).toBeNull();
  });
});
