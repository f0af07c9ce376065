// The channel cap: never more than the limit at once, waiters served in arrival order, nobody dropped, and a
// lowered limit honoured as channels close.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChannelLimiter } from '../../runners/ssh/channel-limiter.js';

describe('ChannelLimiter', () => {
  it('admits up to the limit, then queues in arrival order', async () => {
    const limiter = new ChannelLimiter(2);
    const order: number[] = [];
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    const waiting = [3, 4, 5].map((n) => limiter.acquire().then((release) => (order.push(n), release)));
    await Promise.resolve();
    expect([limiter.inUse, limiter.queued]).toEqual([2, 3]);
    a();
    a(); // a second release of the same slot is ignored
    const third = await waiting[0]!;
    expect([limiter.inUse, limiter.queued]).toEqual([2, 2]);
    b();
    third();
    for (const release of await Promise.all(waiting.slice(1))) release();
    expect(order).toEqual([3, 4, 5]);
    expect([limiter.inUse, limiter.queued, limiter.peak]).toEqual([0, 0, 2]);
  });

  it('honours a lowered limit as channels close', async () => {
    const limiter = new ChannelLimiter(4);
    const held = await Promise.all([1, 2, 3, 4].map(() => limiter.acquire()));
    const next = limiter.acquire();
    limiter.lowerTo(2);
    held[0]!();
    held[1]!();
    await Promise.resolve();
    expect([limiter.inUse, limiter.queued]).toEqual([2, 1]);
    held[2]!();
    (await next)();
    expect(limiter.inUse).toBe(1);
  });

  it('never exceeds the limit and completes every task, whatever the durations (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }),
        async (limit, delays) => {
          const limiter = new ChannelLimiter(limit);
          let running = 0;
          let most = 0;
          let done = 0;
          await Promise.all(
            delays.map(async (ticks) => {
              const release = await limiter.acquire();
              running++;
              most = Math.max(most, running);
              for (let i = 0; i < ticks; i++) await Promise.resolve();
              running--;
              done++;
              release();
            }),
          );
          expect(most).toBeLessThanOrEqual(limit);
          expect(done).toBe(delays.length);
          expect(limiter.inUse).toBe(0);
        },
      ),
    );
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new ChannelLimiter(0)).toThrow(RangeError);
    expect(() => new ChannelLimiter(1.5)).toThrow(RangeError);
  });
});
