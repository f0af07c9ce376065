// A pass whose policy closes (QueuePass.closed: EASY once nothing is free now, FCFS behind its blocked head) stops its
// scan; the jobs it does not reach, and those EASY's scan passes over by need (QueuePass.waitsAbove), read why they
// wait now (the queue's ClosedScan), not the reason of their last visit, which may name a head that has started
// since. A job that left the queue keeps what it read last.
import { describe, expect, it, vi } from 'vitest';
import { PlacementQueue } from '../../core/queue/placement-queue.js';
import type { SimWorld } from '../../core/sim/world.js';
import { simWorld } from '../support/sim-world.js';
import { gridOf, rigidJob } from '../support/workload-specs.js';

/** Runs instant by instant until `done` holds (the world must get there). */
function runUntil(world: SimWorld, done: () => boolean): void {
  while (!done()) expect(world.stepInstant()).toBe(true);
}

// On 4 processors: a holds 3 until 100, leaving 1 free; h needs all 4, then b all 4; c needs 2 for 10 seconds.
const jobs = [rigidJob('a', 0, 3, 100), rigidJob('h', 1, 4, 100), rigidJob('b', 2, 4, 100), rigidJob('c', 3, 2, 10)];

describe('the jobs behind a closed scan', () => {
  it('EASY: name the new head once the old one started and left nothing free', () => {
    const { world } = simWorld(gridOf([4]), jobs, { scheduler: { queue: 'easy' } });
    const job = (id: string) => world.scheduler.job(id)!;
    // One processor free: every pass visits c, behind h's reservation.
    world.runUntil(50);
    expect(job('h').plannedStart?.start).toBeGreaterThanOrEqual(100);
    expect(job('c').lastFailure).toBe(
      `waiting: cannot start now without delaying job h's reservation at ${job('h').plannedStart!.start} (easy)`,
    );
    // a ends, h starts and takes all 4: b is the head, and the pass stops behind it, before c.
    runUntil(world, () => job('h').state === 'running');
    expect(job('b').state).toBe('queued');
    const start = job('b').plannedStart!.start;
    expect(job('b').lastFailure).toBe(`reserved to start at ${start} (easy)`);
    expect(job('c').state).toBe('queued');
    expect(job('c').lastFailure).toBe(
      `waiting: cannot start now without delaying job b's reservation at ${start} (easy)`,
    );
  });

  it('EASY: a job passed over by need in a pass that did not close names the new head too', () => {
    // On 6 processors: a holds 3 until 100; h needs 4 (the head, reserved at 100), then b 4 and d 3. At 100 h starts,
    // 2 are left free (the pass does not close), b is the head, and d, needing more than is free, is passed over.
    const { world } = simWorld(
      gridOf([6]),
      [rigidJob('a', 0, 3, 100), rigidJob('h', 1, 4, 100), rigidJob('b', 2, 4, 100), rigidJob('d', 3, 3, 100)],
      { scheduler: { queue: 'easy' } },
    );
    // A short queue: its scans step over jobs by need as a long one's do.
    world.scheduler.queue.byNeedFrom = 0;
    const job = (id: string) => world.scheduler.job(id)!;
    // Whether a pass's scan kept a job without a visit (it returns the least need it passed over).
    const scans = vi.spyOn(PlacementQueue.prototype, 'scan');
    const passedOver = () => scans.mock.results.some((r) => r.type === 'return' && r.value < Infinity);
    world.runUntil(50);
    expect(passedOver()).toBe(true);
    expect(job('d').lastFailure).toBe(
      `waiting: cannot start now without delaying job h's reservation at ${job('h').plannedStart!.start} (easy)`,
    );
    scans.mockClear();
    runUntil(world, () => job('h').state === 'running');
    expect(passedOver()).toBe(true);
    const start = job('b').plannedStart!.start;
    expect(job('b').lastFailure).toBe(`reserved to start at ${start} (easy)`);
    expect(job('d').state).toBe('queued');
    expect(job('d').plannedStart).toBeUndefined();
    expect(job('d').lastFailure).toBe(
      `waiting: cannot start now without delaying job b's reservation at ${start} (easy)`,
    );
    scans.mockRestore();
  });

  it('EASY: a head passed over by need once a job ahead is the head loses its planned start', () => {
    // On 8 processors: r holds 3 with no walltime (the plan holds them for ever) until 100, q 4 until 200. x needs 6:
    // the plan cannot say when, so h (5) is the head, reserved at 200. At 100 r ends: x is the head (at 200), and h,
    // needing more than the 4 now free, is passed over in a pass that does not close.
    const { walltime: _, ...noWalltime } = rigidJob('r', 0, 3, 100);
    const { world } = simWorld(
      gridOf([8]),
      [noWalltime, rigidJob('q', 0, 4, 200), rigidJob('x', 1, 6, 100), rigidJob('h', 2, 5, 100)],
      { scheduler: { queue: 'easy' } },
    );
    world.scheduler.queue.byNeedFrom = 0;
    const job = (id: string) => world.scheduler.job(id)!;
    world.runUntil(50);
    expect(job('x').plannedStart).toBeUndefined();
    expect(job('h').plannedStart?.start).toBe(200);
    const scans = vi.spyOn(PlacementQueue.prototype, 'scan');
    runUntil(world, () => job('r').state === 'completed');
    // h (5) was passed over: the scan returns the least need it passed over.
    expect(scans.mock.results.some((r) => r.type === 'return' && r.value === 5)).toBe(true);
    scans.mockRestore();
    expect(job('x').plannedStart?.start).toBe(200);
    expect(job('h').state).toBe('queued');
    expect(job('h').plannedStart).toBeUndefined();
    expect(job('h').lastFailure).toBe(`waiting: cannot start now without delaying job x's reservation at 200 (easy)`);
  });

  it('FCFS: name the blocked head, the new one once the old one started', () => {
    const { world } = simWorld(gridOf([4]), jobs, { scheduler: { queue: 'fcfs' } });
    const job = (id: string) => world.scheduler.job(id)!;
    // h blocks: no pass visits b or c.
    world.runUntil(50);
    expect(job('h').lastFailure).toBe('at the head of the queue, waiting for 4 processors (fcfs)');
    expect(job('b').lastFailure).toBe('waiting behind job h (fcfs)');
    expect(job('c').lastFailure).toBe('waiting behind job h (fcfs)');
    runUntil(world, () => job('h').state === 'running');
    expect(job('b').lastFailure).toBe('at the head of the queue, waiting for 4 processors (fcfs)');
    expect(job('c').lastFailure).toBe('waiting behind job b (fcfs)');
  });

  it('a job cancelled while behind keeps what it read then, whatever later passes tell the jobs behind them', () => {
    const { world } = simWorld(gridOf([4]), jobs, { scheduler: { queue: 'fcfs' } });
    const job = (id: string) => world.scheduler.job(id)!;
    world.runUntil(50);
    expect(world.scheduler.cancel('c', 50).ok).toBe(true);
    runUntil(world, () => job('h').state === 'running');
    expect(job('c').state).toBe('cancelled');
    expect(job('c').lastFailure).toBe('waiting behind job h (fcfs)');
  });
  it('after a switch to koala, the first koala pass gives each job behind its own reason', () => {
    const { world } = simWorld(gridOf([4]), jobs, { scheduler: { queue: 'fcfs' } });
    const job = (id: string) => world.scheduler.job(id)!;
    world.runUntil(50);
    expect(job('c').lastFailure).toBe('waiting behind job h (fcfs)');
    expect(world.scheduler.setQueuePolicy('koala').ok).toBe(true);
    // koala keeps no closed scan: its next pass visits every job, which from then on reads that visit's reason.
    runUntil(world, () => job('c').tries > 0);
    expect(job('b').lastFailure).toBe('no cluster has 4 processors available (most: 1)');
    expect(job('c').lastFailure).toBe('no cluster has 2 processors available (most: 1)');
  });
});
