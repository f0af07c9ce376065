// The CooRMv2 paper's application models: the AMR working set and speed-up model (section 2) and the PSA's bag of
// tasks (section 5.1.2).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Random } from '../../core/random.js';
import {
  AMR_STEPS,
  PAPER_SPEEDUP,
  dataSizeMiB,
  dynamicArea,
  efficiency,
  equivalentStaticNodes,
  nodesForEfficiency,
  staticArea,
  stepDuration,
  workingSetProfile,
} from '../../core/sim/coorm/amr.js';
import { TaskBag } from '../../core/sim/coorm/task-bag.js';

const S_MAX = PAPER_SPEEDUP.sMaxMiB;
const sizeArb = fc.double({ min: 0, max: S_MAX, noNaN: true });

describe('working-set profile (acceleration–deceleration)', () => {
  it('has 1000 steps in [0, 1000] with a maximum of exactly 1000, the same for the same seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const s = workingSetProfile(new Random(seed));
        expect(s).toHaveLength(AMR_STEPS);
        expect(Math.max(...s)).toBe(1000);
        expect(Math.min(...s)).toBeGreaterThanOrEqual(0);
        expect(workingSetProfile(new Random(seed))).toEqual(s);
      }),
      { numRuns: 50 },
    );
    expect(workingSetProfile(new Random(1))).not.toEqual(workingSetProfile(new Random(2)));
  });

  it('is mostly increasing: the last tenth is larger than the first tenth', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const s = workingSetProfile(new Random(seed));
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        expect(mean(s.slice(900))).toBeGreaterThan(mean(s.slice(0, 100)));
      }),
      { numRuns: 50 },
    );
  });

  it('moves by small steps: noise of σ = 2 on a velocity that gains 0.01 per step', () => {
    const s = workingSetProfile(new Random(7), 1000);
    let bigJumps = 0;
    for (let i = 1; i < s.length; i++) if (Math.abs(s[i]! - s[i - 1]!) > 100) bigJumps++;
    expect(bigJumps).toBe(0);
  });
});

describe('speed-up model t(n, S) = A·S/n + B·n + C·S + D', () => {
  it('uses the paper constants: one step of 1000 MiB on one node', () => {
    // 7.26e-3·1000 + 1.23e-4 + 1.13e-6·1000 + 1.38 = 7.26 + 0.000123 + 0.00113 + 1.38
    expect(stepDuration(1, 1000)).toBeCloseTo(8.641253, 9);
    // 7.26e-3·1000/10 + 1.23e-4·10 + 0.00113 + 1.38
    expect(stepDuration(10, 1000)).toBeCloseTo(0.726 + 0.00123 + 0.00113 + 1.38, 9);
    expect(dataSizeMiB(1000)).toBe(S_MAX);
    expect(dataSizeMiB(500)).toBe(S_MAX / 2);
    expect(S_MAX).toBeCloseTo(3.16 * 2 ** 20, 6);
  });

  it('efficiency is 1 on one node and falls as nodes are added', () => {
    fc.assert(
      fc.property(sizeArb, fc.integer({ min: 1, max: 5000 }), (s, n) => {
        expect(efficiency(1, s)).toBeCloseTo(1, 12);
        expect(efficiency(n + 1, s)).toBeLessThan(efficiency(n, s));
      }),
    );
  });

  it('the node count for the target is the largest that still reaches it', () => {
    fc.assert(
      fc.property(sizeArb, fc.double({ min: 0.3, max: 0.95, noNaN: true }), (s, target) => {
        const n = nodesForEfficiency(s, target);
        expect(n).toBeGreaterThanOrEqual(1);
        if (n > 1) expect(efficiency(n, s)).toBeGreaterThanOrEqual(target);
        expect(efficiency(n + 1, s)).toBeLessThan(target);
      }),
    );
  });

  it('needs more nodes for more data, and about 1500 at S_max for 75 %', () => {
    fc.assert(
      fc.property(sizeArb, sizeArb, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(nodesForEfficiency(lo)).toBeLessThanOrEqual(nodesForEfficiency(hi));
      }),
    );
    const peak = nodesForEfficiency(S_MAX);
    expect(peak).toBeGreaterThan(1400);
    expect(peak).toBeLessThan(1600);
  });
});

describe('equivalent static allocation n_eq', () => {
  it('gives the same area as the dynamic allocation, and lies between its smallest and largest node count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const sizes = workingSetProfile(new Random(seed), 200).map((s) => dataSizeMiB(s));
        const nEq = equivalentStaticNodes(sizes);
        const dynamic = dynamicArea(sizes);
        expect(staticArea(nEq, sizes) / dynamic).toBeCloseTo(1, 9);
        const counts = sizes.map((s) => nodesForEfficiency(s));
        expect(nEq).toBeGreaterThanOrEqual(Math.min(...counts));
        expect(nEq).toBeLessThanOrEqual(Math.max(...counts));
      }),
      { numRuns: 30 },
    );
  });

  it('of a constant working set is its own node count', () => {
    const sizes = new Array(10).fill(S_MAX / 3) as number[];
    expect(equivalentStaticNodes(sizes)).toBeCloseTo(nodesForEfficiency(S_MAX / 3), 6);
  });
});

describe('task bag of a parameter-sweep application', () => {
  it('completes tasks after their duration and counts their work', () => {
    const bag = new TaskBag(600);
    bag.start(0, 5);
    bag.start(100, 3);
    expect(bag.running).toBe(8);
    expect(bag.nextCompletion()).toBe(600);
    expect(bag.completeUntil(599)).toBe(0);
    expect(bag.completeUntil(600)).toBe(5);
    expect(bag.nextCompletion()).toBe(700);
    expect(bag.usefulNodeS).toBe(5 * 600);
    expect(bag.running).toBe(3);
  });

  it('kills the youngest tasks first and counts their lost work as waste', () => {
    const bag = new TaskBag(600);
    bag.start(0, 2);
    bag.start(100, 2);
    bag.start(300, 1);
    // at 400: the task of 300 (100 s) and the two of 100 (300 s each) go
    expect(bag.kill(400, 3).lost).toBe(100 + 2 * 300);
    expect(bag.wasteNodeS).toBe(700);
    expect(bag.running).toBe(2);
    expect(bag.killed).toBe(3);
    expect(bag.nextCompletion()).toBe(600);
    expect(() => bag.kill(400, 3)).toThrow(RangeError);
  });

  it('tells which cohorts a kill touched and what each has left', () => {
    const bag = new TaskBag(600);
    bag.start(0, 4, 7);
    bag.start(50, 2, 8);
    bag.start(50, 1, 9);
    expect(bag.kill(100, 4).cohorts).toEqual([
      { tag: 9, left: 0 },
      { tag: 8, left: 0 },
      { tag: 7, left: 3 },
    ]);
    expect(bag.running).toBe(3);
  });

  it('never loses or invents tasks: started = running + completed + killed', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 })),
          { maxLength: 40 },
        ),
        (ops) => {
          const bag = new TaskBag(60);
          let now = 0;
          let started = 0;
          for (const [dt, add, kill] of ops) {
            now += dt;
            bag.completeUntil(now);
            bag.kill(now, Math.min(kill, bag.running));
            bag.start(now, add);
            started += add;
            expect(bag.running + bag.completed + bag.killed).toBe(started);
            expect(bag.wasteNodeS).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
  });
});
