// Figure 8(f)'s observation: under PWA, beyond some time the malleability manager changes nothing. Judged on the
// share of a PWA series' grows and shrinks that fall in the second half of its runs.
import { describe, expect, it } from 'vitest';
import {
  analyseKoala,
  koalaRunMatrix,
  OBSERVATION_THRESHOLDS,
  runKoalaCase,
  type KoalaRun,
} from '../../core/sim/experiments/koala.js';

const runs = koalaRunMatrix(1).map((spec) => runKoalaCase(spec));
const late = (rs: readonly KoalaRun[]) =>
  analyseKoala(rs, { seeds: 1 }).observations.find((o) => o.id === 'pwa-few-operations-late')!;

/** The runs with each PWA run's operations moved into one bucket: its first, or its last. */
function moved(where: 'first' | 'last'): KoalaRun[] {
  return runs.map((r) => {
    if (r.approach !== 'pwa') return r;
    const grows = r.activity.reduce((s, b) => s + b.grows, 0);
    const shrinks = r.activity.reduce((s, b) => s + b.shrinks, 0);
    const at = where === 'first' ? 0 : r.activity.length - 1;
    return { ...r, activity: r.activity.map((_, i) => (i === at ? { grows, shrinks } : { grows: 0, shrinks: 0 })) };
  });
}

describe("PWA's operations late in the run", () => {
  it('holds when every operation comes early, and not when they all come late', () => {
    const early = late(moved('first'));
    expect(early.holds).toBe(true);
    expect(Object.values(early.figures).every((share) => share === 0)).toBe(true);
    const lateOnly = late(moved('last'));
    expect(lateOnly.holds).toBe(false);
    expect(Object.values(lateOnly.figures).every((share) => share === 1)).toBe(true);
  });

  it('measures the share of the real runs against the stated threshold', () => {
    const o = late(runs);
    for (const share of Object.values(o.figures)) {
      expect(share).toBeGreaterThan(0);
      expect(share).toBeLessThan(1);
    }
    expect(o.holds).toBe(
      Object.values(o.figures).every((share) => share <= OBSERVATION_THRESHOLDS.lateOperationsShare),
    );
    expect(o.measured).toMatch(/of its grows and shrinks in the second half/);
  });
});
