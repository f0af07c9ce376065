// The room growth has beside reservations where a running profiled job's later step is in the plan
// (PlannedPass.reservedRoom). The step takes what it needs back from malleable extras by mandatory shrinks
// (fpe-jobs.ts), so it limits growth only where it would take processors a waiting job needs at its start: a step that
// begins before a reservation it overlaps counts there; one that begins after (or away from) every reservation does
// not. A waiting job's start (a reservation, a waiting profiled job's first step) reclaims nothing: it always counts.
import { describe, expect, it } from 'vitest';
import { buildGrid } from '../../core/model/grid.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import type { Reservation } from '../../core/plan/availability.js';
import { PlannedPass, type ProfiledHold } from '../../core/queue/planned-pass.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';

const grid = buildGrid(gridSpecSchema.parse({ clusters: [{ name: 'a', processors: 10 }] }));

/**
 * 10 processors at now = 10: g (malleable, 2, until 1000) and p (profiled, 2 in its current step until 50, then 6
 * for 100 s: to 150); 6 available now. `waiting`: a waiting profiled job's fit, if any.
 */
function room(reserved: Reservation[], waiting: ProfiledHold[] = []) {
  const g = {
    id: 'g',
    seq: 0,
    spec: { walltime: 1000 },
    startTime: 0,
    held: 2,
    size: 2,
    evolving: false,
    malleable: true,
    preallocation: 0,
    sizeHistory: [{ t: 0, v: 2 }],
    components: [{ cluster: 'a', processors: 2 }],
  };
  const p = {
    ...g,
    id: 'p',
    seq: 1,
    spec: {},
    malleable: false,
    evolving: true,
    preallocation: 2,
    profiledStep: { start: 0, duration: 50 },
  };
  const pass = new PlannedPass({
    grid,
    availableFor: () => 6,
    placedJobs: () => [g, p] as unknown as JobRecord[],
    roomFor: () => 0,
    place: () => {},
    failedTry: () => 'kept',
    wake: () => {},
    eventCount: () => 0,
    profiledHolds: () => [
      { id: 'p', seq: 1, cluster: 0, start: 50, steps: [{ duration: 100, nodes: 6 }], holding: 2 },
      ...waiting,
    ],
  });
  return pass.reservedRoom(0, 10, 1000, 6, reserved).free;
}

const w = (start: number, duration: number, n = 2): Reservation => ({ id: 'w', n, start, duration });

describe('growth room beside a profiled job’s later step', () => {
  it('a reservation over before the step: the step does not limit growth', () => {
    // w (2) over [20, 30): 10 - 2 - 2 - 2 = 4 free at its start. The step's dip to 2 over [50, 150) is reclaimed from
    // extras (before: 2, the step counted as if it were a waiting job's start; without w, no limit at all).
    expect(room([w(20, 10)])).toBe(4);
  });

  it('a step that begins inside a reservation’s window: limited by what is free at the reservation’s start', () => {
    // w (2) over [20, 70), the step from 50: at 20, 4 are free; the step, once w runs, reclaims what it lacks
    // (before: 0, the step's start in w's window counted).
    expect(room([w(20, 50)])).toBe(4);
  });

  it('a step that begins before a reservation it overlaps: counted at the reservation’s start', () => {
    // The step (6) from 50 takes free processors first: at w's start (100), 10 - 2 - 6 - 2 = 0 are left for extras.
    expect(room([w(100, 50)])).toBe(0);
  });

  it('a waiting profiled job’s first step counts as a waiting job’s start', () => {
    // q (6) fitted at 160: 10 - 2 - 6 = 2 free at its start; w (2) at 20 leaves 4.
    const q: ProfiledHold = { id: 'q', seq: 2, cluster: 0, start: 160, steps: [{ duration: 50, nodes: 6 }] };
    expect(room([w(20, 10)], [q])).toBe(2);
  });
});
