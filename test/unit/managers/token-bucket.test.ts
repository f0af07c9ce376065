// The submission rate limit: at most `burst` at once, and `perSecond` on average over any window.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../../runners/managers/token-bucket.js';

describe('token bucket', () => {
  it('allows a burst, then one token per 1/perSecond', () => {
    const bucket = new TokenBucket({ burst: 3, perSecond: 2 }, 0);
    expect(bucket.take(5, 0)).toBe(3);
    expect(bucket.take(1, 0)).toBe(0);
    expect(bucket.waitMs(0)).toBe(500);
    expect(bucket.take(1, 499)).toBe(0);
    expect(bucket.take(1, 500)).toBe(1);
    // Refill never exceeds the burst.
    expect(bucket.take(10, 60_000)).toBe(3);
  });

  it('never lets more than burst + perSecond × T through in any window of T ms (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 0.1, max: 50, noNaN: true }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 1, max: 30 })), { maxLength: 60 }),
        (burst, perSecond, steps) => {
          const bucket = new TokenBucket({ burst, perSecond }, 0);
          const taken: Array<{ t: number; n: number }> = [];
          let t = 0;
          for (const [dt, wanted] of steps) {
            t += dt;
            const n = bucket.take(wanted, t);
            expect(n).toBeGreaterThanOrEqual(0);
            expect(n).toBeLessThanOrEqual(wanted);
            taken.push({ t, n });
          }
          for (const start of taken) {
            for (const end of taken) {
              if (end.t < start.t) continue;
              const inWindow = taken.filter((x) => x.t >= start.t && x.t <= end.t).reduce((s, x) => s + x.n, 0);
              expect(inWindow).toBeLessThanOrEqual(burst + (perSecond * (end.t - start.t)) / 1000 + 1e-9);
            }
          }
        },
      ),
    );
  });

  it('refuses a limit that would allow nothing', () => {
    expect(() => new TokenBucket({ burst: 0, perSecond: 1 }, 0)).toThrow(/burst/);
    expect(() => new TokenBucket({ burst: 1, perSecond: 0 }, 0)).toThrow(/perSecond/);
  });
});
