// The host's grid history: bounded, evenly thinned, always spanning the whole run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GridHistory } from '../../electron/host/grid-history.js';

describe('grid history', () => {
  it('samples no more often than its step', () => {
    const h = new GridHistory<number>(10, 5);
    const taken = [0, 1, 4, 5, 9, 10, 12].filter((t) => h.offer(t, () => [t]));
    expect(taken).toEqual([0, 5, 10]);
  });

  it('stays within its limit and spans the run from (near) its start to its last sample', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 50 }), fc.integer({ min: 1, max: 5000 }), (limit, steps) => {
        const h = new GridHistory<number>(limit, 1);
        for (let t = 0; t < steps; t++) h.offer(t, () => [t]);
        const view = h.view();
        expect(view.length).toBeLessThanOrEqual(limit);
        expect(view.length).toBe(Math.min(limit, h.state().samples.length));
        // Oldest first, strictly increasing.
        for (let i = 1; i < view.length; i++) expect(view[i]!.time).toBeGreaterThan(view[i - 1]!.time);
        const last = h.state().samples.at(-1)!.time;
        expect(view.at(-1)!.time).toBe(last);
        // Thinning keeps the run's start (within one step) and the view starts within one stride of it.
        const { samples, stepS } = h.state();
        expect(samples[0]!.time).toBeLessThanOrEqual(stepS === 1 ? 0 : stepS);
        expect(view[0]!.time).toBeLessThanOrEqual(
          samples[Math.min(samples.length - 1, Math.ceil(samples.length / limit))]!.time,
        );
      }),
    );
  });

  it('doubles its step when it thins, and comes back from its stored state', () => {
    const h = new GridHistory<number>(4, 1);
    for (let t = 0; t < 8; t++) h.offer(t, () => [t]);
    expect(h.state().stepS).toBe(2);
    expect(h.state().samples.map((s) => s.time)).toEqual([1, 3, 5, 7]);
    const again = new GridHistory<number>(4, 1, h.state());
    expect(again.offer(8, () => [8])).toBe(false); // within the doubled step of 7
    expect(again.offer(9, () => [9])).toBe(true);
    again.clear();
    expect(again.view()).toEqual([]);
  });
});
