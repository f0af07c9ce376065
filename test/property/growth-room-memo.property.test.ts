// The growth room a cluster's reservations leave, remembered between polls (core/queue/room-memo.ts), over random
// simulated runs of rigid, malleable, evolving and profiled jobs under the planning queue policies, polled every 5 s:
// every room it answers is the room computed afresh at that moment, and it does answer some (in about a run in five).
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { PlannedPass } from '../../core/queue/planned-pass.js';
import { RoomMemo } from '../../core/queue/room-memo.js';
import { simWorld } from '../support/sim-world.js';
import { evolvingJob, gridOf, malleableJob, profiledJob, rigidJob } from '../support/workload-specs.js';

const jobArb = fc.record({
  // A kind listed twice is drawn twice as often: malleable jobs most, since only they grow.
  kind: fc.constantFrom('rigid', 'rigid', 'malleable', 'malleable', 'malleable', 'evolving', 'profiled'),
  size: fc.integer({ min: 1, max: 8 }),
  grow: fc.integer({ min: 1, max: 8 }),
  runtime: fc.integer({ min: 100, max: 1500 }),
  gap: fc.integer({ min: 0, max: 300 }),
  steps: fc.array(
    fc.record({ duration_s: fc.integer({ min: 10, max: 400 }), processors: fc.integer({ min: 1, max: 8 }) }),
    { minLength: 1, maxLength: 3 },
  ),
});
const scenarioArb = fc.record({
  queue: fc.constantFrom('fcfs' as const, 'easy' as const, 'cbf' as const),
  processors: fc.integer({ min: 10, max: 20 }),
  jobs: fc.array(jobArb, { minLength: 2, maxLength: 12 }),
  seed: fc.integer({ min: 0, max: 1000 }),
  /** With background load (every poll may change what is available) or without. */
  background: fc.boolean(),
});

function spec(j: typeof jobArb extends fc.Arbitrary<infer T> ? T : never, i: number, t: number): JobSpecInput {
  const id = `j${i}`;
  if (j.kind === 'rigid') return rigidJob(id, t, j.size, j.runtime);
  if (j.kind === 'malleable')
    return malleableJob(id, t, { min: j.size, max: j.size + j.grow, runtime: j.runtime, walltime: 4 * j.runtime });
  if (j.kind === 'evolving') return evolvingJob(id, t, { initial: j.size, max: j.size + j.grow, runtime: j.runtime });
  return profiledJob(id, t, j.steps);
}

describe('the remembered growth room (property)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers only what a fresh computation answers', () => {
    const reservedRoom = PlannedPass.prototype.reservedRoom;
    const get = RoomMemo.prototype.get;
    let fresh = false;
    let remembered = 0;
    vi.spyOn(RoomMemo.prototype, 'get').mockImplementation(function (this: RoomMemo, ...args) {
      if (fresh) return undefined;
      const room = get.apply(this, args);
      if (room !== undefined) remembered++;
      return room;
    });
    vi.spyOn(PlannedPass.prototype, 'reservedRoom').mockImplementation(function (this: PlannedPass, ...args) {
      const room = reservedRoom.apply(this, args);
      fresh = true;
      const computed = reservedRoom.apply(this, args);
      fresh = false;
      expect(room, `room on cluster ${args[0]} at ${args[1]}`).toEqual(computed);
      return room;
    });
    fc.assert(
      fc.property(scenarioArb, ({ queue, processors, jobs, seed, background }) => {
        let t = 0;
        const specs = jobs.map((j, i) => spec(j, i, (t += j.gap)));
        const { world } = simWorld(gridOf([processors]), specs, {
          seed,
          background,
          // Polls often beside long jobs: many polls where nothing changed.
          pollIntervalS: 5,
          scheduler: { policy: 'fpsma', queue },
        });
        // With a callback, every poll reaches the scheduler (idle ones are not leapt over).
        world.run(() => {});
      }),
      { numRuns: 100 },
    );
    expect(remembered, 'rooms read again without a plan').toBeGreaterThan(0);
  });
});
