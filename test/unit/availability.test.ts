import { describe, expect, it } from 'vitest';
import { AvailabilityProfile, type Holding } from '../../core/plan/availability.js';
import { StepFunction } from '../../core/time/step-function.js';

const job = (id: string, n: number, end: number): Holding => ({ id, n, end });

// Capacity 10 at now = 0; A (4) ends at 10, B (3) at 20, C (2) at 30, D (1) has no estimated end.
// Free: [0,10) 0, [10,20) 4, [20,30) 7, [30,∞) 9.
const fourJobs = () =>
  AvailabilityProfile.build({
    now: 0,
    capacity: 10,
    running: [job('A', 4, 10), job('B', 3, 20), job('C', 2, 30), job('D', 1, Infinity)],
  });

describe('AvailabilityProfile: free capacity', () => {
  it('is the capacity minus what running jobs hold until their end', () => {
    const p = fourJobs();
    expect([0, 9.5, 10, 19, 20, 30, 1e9].map((t) => p.freeAt(t))).toEqual([0, 0, 4, 4, 7, 9, 9]);
    expect(p.freeAt(Infinity)).toBe(9); // D holds forever
    expect(p.freeAt(-5)).toBe(0); // before now reads as now
  });

  it('freeBetween is the least free over [t1, t2), and the instant t1 when t2 === t1', () => {
    const p = fourJobs();
    expect(p.freeBetween(0, 10)).toBe(0);
    expect(p.freeBetween(10, 20)).toBe(4); // [10, 20) stops before B's release
    expect(p.freeBetween(15, 25)).toBe(4); // min(4, 7)
    expect(p.freeBetween(20, Infinity)).toBe(7);
    expect(p.freeBetween(30, Infinity)).toBe(9);
    expect(p.freeBetween(10, 10)).toBe(4);
    expect(p.freeBetween(9, 9)).toBe(0);
    expect(p.freeBetween(-10, 5)).toBe(0);
    expect(() => p.freeBetween(5, 4)).toThrow(RangeError);
    expect(() => p.freeBetween(NaN, 4)).toThrow(RangeError);
  });

  it('a job whose estimated end has passed holds nothing, and a capacity profile is read from now on', () => {
    // Capacity 8 until 50, then 6 (say, a known drop); E's end (5) is before now (10).
    const capacity = StepFunction.fromSteps(3, [
      { t: 0, v: 8 },
      { t: 50, v: 6 },
    ]);
    const p = AvailabilityProfile.build({ now: 10, capacity, running: [job('E', 4, 5), job('F', 2, 40)] });
    expect(p.freeAt(10)).toBe(6); // 8 - F
    expect(p.freeAt(40)).toBe(8);
    expect(p.freeAt(50)).toBe(6);
    expect(p.earliestFit(8, 5)).toEqual({ fits: true, start: 40, waitsFor: ['F'] });
    // 8 for 20 s: [40, 60) crosses the drop at 50, and 8 is never free again after it.
    expect(p.earliestFit(8, 20)).toEqual({ fits: false, reason: 'never-free', most: 8 });
  });
});

describe('AvailabilityProfile: earliest fit', () => {
  it('finds the earliest start across several job ends, at the boundary of the release itself', () => {
    const p = fourJobs();
    expect(p.earliestFit(4, 5)).toEqual({ fits: true, start: 10, waitsFor: ['A'] });
    expect(p.earliestFit(2, 5)).toEqual({ fits: true, start: 10, waitsFor: ['A'] });
    // 5 are free at 20 (7); were A or B to hold on, 3 or 4 would be left: both are needed.
    expect(p.earliestFit(5, 5)).toEqual({ fits: true, start: 20, waitsFor: ['A', 'B'] });
    expect(p.earliestFit(7, 100)).toEqual({ fits: true, start: 20, waitsFor: ['A', 'B'] });
    expect(p.earliestFit(9, Infinity)).toEqual({ fits: true, start: 30, waitsFor: ['A', 'B', 'C'] });
  });

  it('starts from `from` (read as now when before it) and waits for nobody when free at once', () => {
    const p = fourJobs();
    expect(p.earliestFit(4, 5, 12)).toEqual({ fits: true, start: 12, waitsFor: ['A'] });
    expect(p.earliestFit(4, 5, 25)).toEqual({ fits: true, start: 25, waitsFor: ['A'] });
    expect(p.earliestFit(9, 1, -100)).toEqual({ fits: true, start: 30, waitsFor: ['A', 'B', 'C'] });
    const empty = AvailabilityProfile.build({ now: 3, capacity: 5 });
    expect(empty.earliestFit(5, 10)).toEqual({ fits: true, start: 3, waitsFor: [] });
  });

  it('gives a clear answer for a request that never fits', () => {
    const p = fourJobs();
    // Larger than all Concertina may use, whatever the duration.
    expect(p.earliestFit(11, 5)).toEqual({ fits: false, reason: 'exceeds-capacity', most: 9 });
    expect(p.earliestFit(11, 0)).toEqual({ fits: false, reason: 'exceeds-capacity', most: 9 });
    // Within the capacity, but D holds 1 with no end: at most 9 are ever free.
    expect(p.earliestFit(10, 5)).toEqual({ fits: false, reason: 'never-free', most: 9 });
  });

  it('a request may end at the instant a reservation starts, and not a moment later', () => {
    const p = AvailabilityProfile.build({
      now: 0,
      capacity: 4,
      reservations: [{ id: 'r', n: 4, start: 10, duration: 10 }],
    });
    expect(p.earliestFit(4, 10)).toEqual({ fits: true, start: 0, waitsFor: [] });
    expect(p.earliestFit(4, 10.5)).toEqual({ fits: true, start: 20, waitsFor: [] });
    expect(p.earliestFit(1, 10.5, 5)).toEqual({ fits: true, start: 20, waitsFor: [] });
  });

  it('a zero-length request needs its processors at its start instant; no processors start at once', () => {
    const p = AvailabilityProfile.build({ now: 0, capacity: 4, running: [job('A', 4, 10)] });
    expect(p.earliestFit(4, 0)).toEqual({ fits: true, start: 10, waitsFor: ['A'] });
    expect(p.earliestFit(0, 100)).toEqual({ fits: true, start: 0, waitsFor: [] });
    const over = AvailabilityProfile.build({ now: 0, capacity: 4, running: [job('A', 6, Infinity)] });
    expect(over.freeAt(0)).toBe(-2);
    expect(over.earliestFit(0, 5)).toEqual({ fits: true, start: 0, waitsFor: [] });
  });

  it('rejects malformed requests', () => {
    const p = fourJobs();
    expect(() => p.earliestFit(NaN, 1)).toThrow(RangeError);
    expect(() => p.earliestFit(-1, 1)).toThrow(RangeError);
    expect(() => p.earliestFit(1, -1)).toThrow(RangeError);
    expect(() => p.earliestFit(1, NaN)).toThrow(RangeError);
    expect(() => p.earliestFit(1, 1, Infinity)).toThrow(RangeError);
    expect(() => AvailabilityProfile.build({ now: 0, capacity: 4, running: [job('A', 1, NaN)] })).toThrow(RangeError);
  });
});

describe('AvailabilityProfile: which running jobs a start waits for', () => {
  it('excuses an early release that the slack covers', () => {
    // Capacity 10: A (2) ends at 10, B (8) at 20. 8 for 5 s start at 20 with 10 free: slack 2 covers A.
    const p = AvailabilityProfile.build({ now: 0, capacity: 10, running: [job('A', 2, 10), job('B', 8, 20)] });
    expect(p.earliestFit(8, 5)).toEqual({ fits: true, start: 20, waitsFor: ['B'] });
    expect(p.earliestFit(9, 5)).toEqual({ fits: true, start: 20, waitsFor: ['A', 'B'] });
  });

  it('breaks ties at equal ends towards the larger job, then the one listed last', () => {
    const sizes = AvailabilityProfile.build({ now: 0, capacity: 8, running: [job('Y', 6, 10), job('X', 2, 10)] });
    expect(sizes.earliestFit(6, 1)).toEqual({ fits: true, start: 10, waitsFor: ['Y'] });
    expect(sizes.earliestFit(7, 1)).toEqual({ fits: true, start: 10, waitsFor: ['X', 'Y'] });
    const same = AvailabilityProfile.build({ now: 0, capacity: 8, running: [job('X', 4, 10), job('Y', 4, 10)] });
    expect(same.earliestFit(4, 1)).toEqual({ fits: true, start: 10, waitsFor: ['Y'] });
  });

  it('names no job when the start comes from a reservation ending, and every release on an overbooked window', () => {
    const p = AvailabilityProfile.build({
      now: 0,
      capacity: 6,
      running: [job('A', 2, 5)],
      reservations: [{ id: 'r', n: 4, start: 0, duration: 10 }],
    });
    // Free: [0,5) 0, [5,10) 2, [10,∞) 6. 4 start at 10, when r ends; A's release is covered by the slack (6 - 4).
    expect(p.earliestFit(4, 1)).toEqual({ fits: true, start: 10, waitsFor: [] });
    expect(p.waitsFor(10, 5, 1)).toEqual(['A']);
    // Asked about a start that does not fit (2 free at 5, 3 asked): everything released by then is named.
    expect(p.waitsFor(5, 3, 1)).toEqual(['A']);
    expect(p.waitsFor(4, 3, 1)).toEqual([]);
  });

  it('a reservation in the plan waits for what its own start needs', () => {
    const p = fourJobs();
    p.reserve({ id: 'q', n: 5, start: 20, duration: 50 });
    expect(p.reservationWaitsFor('q')).toEqual(['A', 'B']);
    p.reserve({ id: 's', n: 4, start: 10, duration: 5 });
    expect(p.reservationWaitsFor('s')).toEqual(['A']);
    expect(p.reservationWaitsFor('none')).toEqual([]);
  });
});

describe('AvailabilityProfile: reservations', () => {
  it('reserve takes n over [start, start + duration) and unreserve gives them back exactly', () => {
    const p = fourJobs();
    const before = p.free;
    p.reserve({ id: 'r1', n: 3, start: 15, duration: 10 });
    expect([10, 15, 20, 25, 30].map((t) => p.freeAt(t))).toEqual([4, 1, 4, 7, 9]);
    expect(p.earliestFit(4, 5)).toEqual({ fits: true, start: 10, waitsFor: ['A'] });
    // 6 s from 10 would cross the dip at 15: at 20, 4 are free again (C, D and r1 hold 6), with no slack.
    expect(p.earliestFit(4, 6)).toEqual({ fits: true, start: 20, waitsFor: ['A', 'B'] });
    expect(p.reservations().map((r) => r.id)).toEqual(['r1']);
    expect(p.unreserve('r1')).toBe(true);
    expect(p.unreserve('r1')).toBe(false);
    expect(p.free.equals(before)).toBe(true);
  });

  it('an open-ended reservation holds forever, one begun before now counts from now, a zero-length one holds nothing', () => {
    const p = AvailabilityProfile.build({ now: 100, capacity: 10 });
    p.reserve({ id: 'forever', n: 2, start: 150, duration: Infinity });
    p.reserve({ id: 'past', n: 3, start: 50, duration: 100 });
    p.reserve({ id: 'instant', n: 5, start: 120, duration: 0 });
    expect([100, 120, 149, 150, 1e12].map((t) => p.freeAt(t))).toEqual([7, 7, 7, 8, 8]);
    expect(p.earliestFit(10, 1)).toEqual({ fits: false, reason: 'never-free', most: 8 });
  });

  it('rejects a second reservation under the same id and malformed ones', () => {
    const p = fourJobs();
    p.reserve({ id: 'r', n: 1, start: 0, duration: 1 });
    expect(() => p.reserve({ id: 'r', n: 1, start: 5, duration: 1 })).toThrow(RangeError);
    expect(() => p.reserve({ id: 'x', n: -1, start: 5, duration: 1 })).toThrow(RangeError);
    expect(() => p.reserve({ id: 'x', n: 1, start: Infinity, duration: 1 })).toThrow(RangeError);
    expect(() => p.reserve({ id: 'x', n: 1, start: 0, duration: NaN })).toThrow(RangeError);
    expect(p.reservations()).toHaveLength(1);
  });
});
