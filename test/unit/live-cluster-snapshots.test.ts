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
  it("adds link states to the grid's clusters and shows an unreachable one left out, with its error", () => {
    const cards = liveClusterSnapshots(
      [snapshot('a')],
      [
        { name: 'a', connection: 'open' },
        { name: 'gone', connection: 'lost', lastError: 'gone: host key changed' },
      ],
    );
    expect(cards).toEqual([
      { ...snapshot('a'), connection: 'open' },
      {
        name: 'gone',
        reachable: false,
        lastPoll: null,
        processors: 0,
        threshold: 0,
        background: 0,
        nonPreemptible: 0,
        preallocatedUnused: 0,
        preemptible: 0,
        earmarked: 0,
        idle: 0,
        runningMalleable: 0,
        connection: 'lost',
        lastError: 'gone: host key changed',
      },
    ]);
  });

  it('shows a cluster in the grid with a placeholder size by its own figures, its idle bounded by them', () => {
    const placeholder = { ...snapshot('late'), processors: 65_536, threshold: 65_536, background: 65_530, idle: 3 };
    const [waiting] = liveClusterSnapshots(
      [{ ...placeholder, reachable: false, background: 0, idle: 65_533 }],
      [{ name: 'late', connection: 'lost', capacity: { processors: 0, threshold: 0, background: 0 } }],
    );
    expect(waiting).toMatchObject({ processors: 0, threshold: 0, background: 0, idle: 0 });
    // Joined with 6 processors, 1 of them background; Concertina holds 3 (1 + 2): 2 idle, as the scheduler says.
    const [joined] = liveClusterSnapshots(
      [placeholder],
      [{ name: 'late', connection: 'open', capacity: { processors: 6, threshold: 6, background: 1 } }],
    );
    expect(joined).toMatchObject({ processors: 6, threshold: 6, background: 1, idle: 2 });
  });

  it("keeps a never-polled cluster's lastPoll as null", () => {
    expect(
      liveClusterSnapshots([{ ...snapshot('a'), lastPoll: Number.NEGATIVE_INFINITY }], [])[0]!.lastPoll,
    ).toBeNull();
  });
});
