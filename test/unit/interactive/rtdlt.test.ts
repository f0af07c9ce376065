// RT-DLT on homogeneous nodes (OPR, all nodes available at the fork) against hand-computed cases.
import { describe, expect, it } from 'vitest';
import { beta, divide, fractions, iterationTimeMs, minNodes } from '../../../core/interactive/rtdlt.js';

const even = { cmsMsPerUnit: 1, cpsMsPerUnit: 1 }; // β = 1/2
const fastNet = { cmsMsPerUnit: 1, cpsMsPerUnit: 99 }; // β = 0.99
const noNet = { cmsMsPerUnit: 0, cpsMsPerUnit: 3 };

describe('RT-DLT, optimal partitioning on homogeneous nodes', () => {
  it('β = Cps / (Cms + Cps)', () => {
    expect(beta(even)).toBe(0.5);
    expect(beta(fastNet)).toBeCloseTo(0.99, 12);
  });

  it('E(σ, n) = σ·Cms / (1 - β^n)', () => {
    // σ = 10, β = 1/2: n = 1: 10 / (1/2) = 20; n = 2: 10 / (3/4) = 13.33; n = 3: 10 / (7/8) = 80/7 = 11.43
    expect(iterationTimeMs(10, 1, even)).toBeCloseTo(20, 12);
    expect(iterationTimeMs(10, 2, even)).toBeCloseTo(40 / 3, 12);
    expect(iterationTimeMs(10, 3, even)).toBeCloseTo(80 / 7, 12);
    // Without transmission cost the load just divides: 10·3 / 4 = 7.5
    expect(iterationTimeMs(10, 4, noNet)).toBe(7.5);
  });

  it('the fractions make every node finish at E: α = 4/7, 2/7, 1/7 for β = 1/2 on 3 nodes', () => {
    const a = fractions(3, even);
    expect(a[0]).toBeCloseTo(4 / 7, 12);
    expect(a[1]).toBeCloseTo(2 / 7, 12);
    expect(a[2]).toBeCloseTo(1 / 7, 12);
    // node i finishes at Σ_{j<=i} α_j·σ·Cms + α_i·σ·Cps: 40/7 + 40/7 = 60/7 + 20/7 = 70/7 + 10/7 = 80/7
    let sent = 0;
    for (const x of a) {
      sent += x * 10 * even.cmsMsPerUnit;
      expect(sent + x * 10 * even.cpsMsPerUnit).toBeCloseTo(80 / 7, 12);
    }
  });

  it('n_min = ⌈ln γ / ln β⌉ with γ = 1 - σ·Cms/D', () => {
    // σ = 10, D = 12, β = 1/2: γ = 1/6, ln(1/6)/ln(1/2) = 2.585 -> 3 (E(2) = 13.3 > 12 >= E(3) = 11.43)
    expect(minNodes(10, 12, even)).toBe(3);
    // σ = 100, D = 500, β = 0.99: γ = 0.8, ln 0.8 / ln 0.99 = 22.2 -> 23
    expect(minNodes(100, 500, fastNet)).toBe(23);
    // Exactly on a boundary: σ = 10, D = 40/3 is met by 2 nodes
    expect(minNodes(10, 40 / 3, even)).toBe(2);
    // One node suffices: D >= σ·(Cms + Cps) = 20
    expect(minNodes(10, 20, even)).toBe(1);
    // No transmission cost: ⌈σ·Cps / D⌉ = ⌈30/7⌉ = 5
    expect(minNodes(10, 7, noNet)).toBe(5);
  });

  it('divide gives k = n_min and C = ⌈E(σ, k)⌉', () => {
    expect(divide({ dataUnits: 10, deadlineMs: 12 }, even, 64)).toEqual({
      ok: true,
      nodes: 3,
      costMs: 12,
      minNodes: 3,
    });
    // E(100, 23) = 100 / (1 - 0.99^23) = 100 / 0.20639 = 484.52 -> 485
    expect(divide({ dataUnits: 100, deadlineMs: 500 }, fastNet, 64)).toEqual({
      ok: true,
      nodes: 23,
      costMs: 485,
      minNodes: 23,
    });
    // 10·3 / 5 = 6 exactly: no rounding up
    expect(divide({ dataUnits: 10, deadlineMs: 7 }, noNet, 64)).toEqual({ ok: true, nodes: 5, costMs: 6, minNodes: 5 });
  });

  it('divide on more nodes than n_min (widening): C shrinks', () => {
    // E(10, 4) = 10 / (15/16) = 10.67 -> 11
    expect(divide({ dataUnits: 10, deadlineMs: 12 }, even, 64, 4)).toEqual({
      ok: true,
      nodes: 4,
      costMs: 11,
      minNodes: 3,
    });
    // fewer than n_min is never given
    expect(divide({ dataUnits: 10, deadlineMs: 12 }, even, 64, 2)).toMatchObject({ nodes: 3 });
  });

  it('refuses a deadline shorter than the transmission, and more nodes than the cluster has', () => {
    expect(divide({ dataUnits: 10, deadlineMs: 10 }, even, 64)).toMatchObject({
      ok: false,
      code: 'deadline-too-short',
    });
    expect(divide({ dataUnits: 10, deadlineMs: 12 }, even, 2)).toMatchObject({
      ok: false,
      code: 'too-many-nodes',
      message: 'the deadline needs 3 nodes, the cluster has 2',
    });
  });
});
