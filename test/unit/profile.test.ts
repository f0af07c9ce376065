import { describe, expect, it } from 'vitest';
import { earliestStart, fitsAt, profileHole } from '../../core/time/profile.js';
import { StepFunction } from '../../core/time/step-function.js';

// Free: 0 before 10, 4 on [10, 20), 1 on [20, 30), 4 from 30.
const f = StepFunction.fromSteps(0, [
  { t: 10, v: 4 },
  { t: 20, v: 1 },
  { t: 30, v: 4 },
]);

describe('profile fits', () => {
  it('fitsAt reads the half-open window [start, start + duration)', () => {
    expect(fitsAt(f, 10, 10, 4)).toBe(true); // ends at the instant the step falls
    expect(fitsAt(f, 10, 10.5, 4)).toBe(false);
    expect(fitsAt(f, 9.5, 1, 4)).toBe(false);
    expect(fitsAt(f, 30, Infinity, 4)).toBe(true);
    expect(fitsAt(f, Infinity, 5, 100)).toBe(true); // a window that never begins
  });

  it('a zero-length request needs its processors at its start instant', () => {
    expect(fitsAt(f, 5, 0, 1)).toBe(false);
    expect(fitsAt(f, 10, 0, 4)).toBe(true);
    expect(earliestStart(f, 0, 0, 4)).toBe(10);
    expect(earliestStart(f, 21, 0, 2)).toBe(30);
    expect(earliestStart(f, 0, 0, 5)).toBe(Infinity);
  });

  it('earliestStart and profileHole find the first window that fits', () => {
    expect(earliestStart(f, 0, 10, 4)).toBe(10);
    expect(earliestStart(f, 0, 11, 4)).toBe(30);
    expect(earliestStart(f, 0, 25, 1)).toBe(10);
    expect(profileHole(f, 4, 11, -Infinity)).toBe(30);
    expect(profileHole(f, 4, 11, Infinity)).toBe(Infinity);
  });
});
