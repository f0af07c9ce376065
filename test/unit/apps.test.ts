// The simulated applications: FT's power-of-two answers and the speed-up curves of Figure 6.
import { describe, expect, it } from 'vitest';
import { ft, largestPowerOfTwo } from '../../core/sim/apps/ft.js';
import { gadget2 } from '../../core/sim/apps/gadget2.js';

describe('FT', () => {
  it.each([
    // [current, offered, max, accepted]
    [2, 5, 32, 2], // 7 -> 4
    [4, 3, 32, 0], // 7 -> 4: nothing to gain
    [4, 4, 32, 4], // 8
    [16, 30, 32, 16], // bounded by max 32
    [2, 0, 32, 0],
  ])('at %i offered %i (max %i) takes %i', (current, offered, max, accepted) => {
    expect(ft.acceptGrow(current, offered, max)).toBe(accepted);
  });

  it.each([
    // [current, requested, min, released]
    [8, 3, 2, 4], // 5 -> keeps 4: releases more than asked
    [8, 4, 2, 4],
    [2, 1, 2, 0], // at its minimum
    [16, 15, 2, 14], // down to the minimum 2
    [16, 1, 9, 7], // no power of two in 9..15: down to its minimum 9, which it runs on
    [12, 1, 9, 3], // the same from a size it was given at its minimum (9 + 3)
  ])('at %i asked for %i (min %i) releases %i', (current, requested, min, released) => {
    expect(ft.acceptShrink(current, requested, min)).toBe(released);
  });

  it('uses only a power of two of what it is given', () => {
    expect(ft.usableSize(7, 2)).toBe(4);
    expect([1, 2, 3, 31, 32, 33].map(largestPowerOfTwo)).toEqual([1, 2, 2, 16, 32, 32]);
  });

  it('runs about 2 min on 2 processors and about 1 min at best', () => {
    expect(ft.runtime(2)).toBeCloseTo(120, 0);
    const best = Math.min(...[2, 4, 8, 16, 32].map((n) => ft.runtime(n)));
    expect(best).toBeCloseTo(60, 0);
  });
});

describe('GADGET-2', () => {
  it('runs about 10 min on 2 processors and about 4 min at best', () => {
    expect(gadget2.runtime(2)).toBeCloseTo(600, 0);
    const best = Math.min(...Array.from({ length: 45 }, (_, i) => gadget2.runtime(i + 2)));
    expect(best).toBeCloseTo(240, 0);
  });

  it('takes any size within its bounds', () => {
    expect(gadget2.acceptGrow(2, 50, 46)).toBe(44);
    expect(gadget2.acceptShrink(10, 3, 2)).toBe(3);
    expect(gadget2.acceptShrink(3, 3, 2)).toBe(1);
  });
});
