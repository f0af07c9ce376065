// FreedRegions (core/plan/freed-regions.ts): which clusters a compression pass searches for a promised job, and over
// which starts. Hand-made logs; the property test test/property/cbf-freed-regions.property.test.ts checks the
// schedules it gives against searching everywhere.
import { describe, expect, it } from 'vitest';
import { FreedRegions } from '../../core/plan/freed-regions.js';

function log(): FreedRegions {
  const r = new FreedRegions();
  r.reset(2);
  r.beginPass(true);
  return r;
}

describe('FreedRegions', () => {
  it('searches everywhere for a job never checked', () => {
    const r = log();
    expect(r.narrow('j', 0, 4, 10, 100)).toBe(true);
    expect([r.from, r.until]).toEqual([-Infinity, Infinity]);
  });

  it('skips a cluster where nothing was freed since the check, and one whose regions have too few free', () => {
    const r = log();
    r.freed(0, 0, 50, 8); // before the check: the job saw it
    r.checked('j');
    expect(r.narrow('j', 0, 4, 10, 100)).toBe(false);
    r.freed(1, 20, 30, 3); // 3 free at most there: a job of 4 cannot use it
    expect(r.narrow('j', 1, 4, 10, 100)).toBe(false);
    expect(r.narrow('j', 1, 3, 10, 100)).toBe(true);
  });

  it('bounds the starts by the windows that cross a region: after its beginning less the walltime, before its end', () => {
    const r = log();
    r.checked('j');
    r.freed(0, 40, 60, 8);
    r.freed(0, 70, 80, 8);
    // Walltime 10: windows crossing [40, 60) or [70, 80) start in (30, 80).
    expect(r.narrow('j', 0, 4, 10, 100)).toBe(true);
    expect([r.from, r.until]).toEqual([30, 80]);
    // Walltime 5, reserved at 35: a window starting before 35 ends by 40, before either region.
    expect(r.narrow('j', 0, 4, 5, 35)).toBe(false);
  });

  it('forgets regions from before the last compressing pass: a job checked earlier is searched everywhere', () => {
    const r = log();
    r.checked('old');
    r.beginPass(true);
    r.checked('recent');
    r.beginPass(true);
    expect(r.narrow('old', 0, 4, 10, 100)).toBe(true);
    expect([r.from, r.until]).toEqual([-Infinity, Infinity]);
    expect(r.narrow('recent', 0, 4, 10, 100)).toBe(false);
    // A pass that does not compress keeps the horizon where it was.
    r.beginPass(false);
    expect(r.narrow('recent', 0, 4, 10, 100)).toBe(false);
  });

  it('searches a job that holds no reservation any more as never checked', () => {
    const r = log();
    r.checked('j');
    r.forget('j');
    expect(r.narrow('j', 0, 4, 10, 100)).toBe(true);
  });
});
