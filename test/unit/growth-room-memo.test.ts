// Idle polls where a reservation blocks growth: every poll makes growth due (processors are idle, the malleable job
// could take some), and the pass after it asks how much room the reservations leave. Remembered with what it was
// computed from (core/queue/room-memo.ts), the room is read again without building a plan while nothing changed;
// once something does (the reservation goes), it is computed afresh. Counted in plans built, not in time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AvailabilityProfile } from '../../core/plan/availability.js';
import { grid, harness, malleable, rigid } from '../support/harness.js';

/**
 * 10 processors under cbf: g (malleable 2..8, walltime 1000) runs at 2 beside r (4, walltime 100); w (8) waits,
 * reserved at 100, r's end. 4 processors are idle, but from 100 on w and g hold all 10: growth has no room.
 */
function blocked() {
  const h = harness(grid({ a: 10 }), { policy: 'fpsma', queue: 'cbf' });
  h.submit(malleable('g', 2, 8, { walltime: 1000 }));
  h.submit(rigid('r', 4, { walltime: 100 }));
  h.pass();
  h.startAll();
  h.submit(rigid('w', 8, { walltime: 50 }));
  h.pass();
  expect(h.scheduler.plannedStart('w')).toEqual({ cluster: 0, start: 100 });
  return h;
}

/**
 * Polls the cluster at t = 10 (its pass and the room build a plan each), then at 11, 12, ... (nothing changes: the
 * same background load), counting the plans built at those.
 */
function plansBuiltOverPolls(h: ReturnType<typeof blocked>, polls: number): number {
  h.at(10).status('a', 0);
  const build = vi.spyOn(AvailabilityProfile, 'build');
  for (let k = 1; k <= polls; k++) h.at(10 + k).status('a', 0);
  const built = build.mock.calls.length;
  build.mockRestore();
  return built;
}

describe('growth room under a reservation at idle polls', () => {
  afterEach(() => vi.restoreAllMocks());

  it('builds no plan over 20 polls that change nothing, and offers no growth', () => {
    const h = blocked();
    // Before: one plan per poll, the room's (20); the first poll computed the room, the others read it again.
    expect(plansBuiltOverPolls(h, 20)).toBe(0);
    expect(h.apps.growOffers).toEqual([]);
    expect(h.scheduler.job('g')!.held).toBe(2);
  });

  it('computes the room afresh once the reservation goes, and grows the job', () => {
    const h = blocked();
    plansBuiltOverPolls(h, 5);
    h.scheduler.cancel('w', 16);
    h.at(17).status('a', 0);
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'g', processors: 4 }]);
  });
});
