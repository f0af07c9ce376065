// Growth at a pass (core/scheduler/growth.ts): the room a reservation leaves, a plan of the cluster, is asked only where
// a running malleable job could take more; on a trace of rigid jobs growth comes due after every end (issue 17).
import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../core/scheduler/cluster-state.js';
import { GrowthTrigger, NO_ROOM_LIMIT, type GrowthRoom } from '../../core/scheduler/growth.js';
import { grid } from '../support/harness.js';

function setup() {
  const state = new ClusterState(grid({ a: 16 }).clusters[0]!);
  const grows: number[] = [];
  const roomAsked: number[] = [];
  const growth = new GrowthTrigger(
    { busy: () => false, grow: (_state, free) => grows.push(free) },
    (_state, now): GrowthRoom => {
      roomAsked.push(now);
      return NO_ROOM_LIMIT;
    },
  );
  return { state, growth, grows, roomAsked };
}

describe('growth at a pass', () => {
  it('asks for no reserved room where no running malleable job could grow, and grows nothing', () => {
    const { state, growth, grows, roomAsked } = setup();
    // Processors came free (a rigid job ended): growth is due, but the cluster runs no malleable job.
    growth.due(state);
    expect(growth.growRunning(state, 10)).toBe(false);
    expect(roomAsked).toEqual([]);
    expect(grows).toEqual([]);
    // The flag is down: the next pass does not try again.
    expect(state.growDue).toBe(false);
  });
});
