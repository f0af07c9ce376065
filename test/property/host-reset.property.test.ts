// Whatever grid and workload a user sends through sim.reset — sane, extreme or absurd — the host answers it (a run,
// or errors naming the field), and then keeps answering grid.snapshot while the run computes at any speed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPEEDS } from '../../electron/api/contract.js';
import { Host } from '../../electron/host/host.js';
import { RESET_WORKLOADS } from '../../electron/api/contract.js';

/** Numbers a user might type, from sensible to absurd (the schemas decide which are refused). */
const anyNumber = fc.oneof(
  fc.integer({ min: 1, max: 512 }),
  fc.constantFrom(
    0,
    -1,
    0.5,
    1e-9,
    1e-7,
    0.1,
    1,
    1e7,
    1e7 + 1,
    1e12,
    Number.MAX_SAFE_INTEGER,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ),
  fc.double({ min: 1e-9, max: 1e9, noNaN: true }),
);

const clusterArb = fc.record(
  {
    name: fc.constantFrom('a', 'b', 'c', 'd', ''),
    processors: anyNumber,
    threshold: anyNumber,
    background: fc.record(
      { meanInterarrivalS: anyNumber, minSize: anyNumber, maxSize: anyNumber, meanDurationS: anyNumber },
      { requiredKeys: ['meanInterarrivalS', 'maxSize', 'meanDurationS'] },
    ),
  },
  { requiredKeys: ['name', 'processors'] },
);

const resetArb = fc.record({
  grid: fc.oneof(
    fc.constantFrom<unknown>('das3', 'nope', 42, null),
    fc.record({ clusters: fc.array(clusterArb, { minLength: 0, maxLength: 6 }) }),
  ),
  workload: fc.constantFrom(...RESET_WORKLOADS, 'bogus'),
  seed: fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(-1, 1.5, 2 ** 40)),
});

describe('sim.reset with any grid and workload', () => {
  it('answers, and grid.snapshot answers after it at every speed', () => {
    const clock = { wall: 0 };
    const host = new Host({ workload: 'none', clock: () => clock.wall, speed: 'max', sliceMs: 10 });
    fc.assert(
      fc.property(
        resetArb,
        fc.constantFrom(...SPEEDS),
        fc.integer({ min: 1, max: 10_000_000 }),
        (reset, speed, wallStepMs) => {
          const r = host.call('sim.reset', reset);
          if (!r.ok)
            for (const e of r.errors)
              expect(e.path === '' || /^(grid|workload|seed)\b/.test(e.path), `${e.path}: ${e.message}`).toBe(true);
          expect(host.call('sim.setSpeed', { speed }).ok).toBe(true);
          for (let i = 0; i < 3; i++) {
            clock.wall += wallStepMs;
            host.tick();
            const s = host.call('grid.snapshot', {});
            expect(s.ok).toBe(true);
            if (s.ok) expect(Number.isFinite(s.value.time) && Number.isFinite(s.value.behindS)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
    host.stop();
  });
});
