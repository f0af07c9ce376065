// Every operation on evolution profiles (section 3.1 of the fully-predictably evolving paper) against profiles
// computed by hand, most of them the paper's own examples.
import { describe, expect, it } from 'vitest';
import {
  area,
  asDelayedEp,
  delay,
  epAt,
  epFunction,
  evolutionProfile,
  expansion,
  isDelayedOf,
  isExpandedOf,
  peakNodes,
  satisfiesC1,
  sum,
  totalDuration,
  wasteArea,
} from '../../../core/fpe/evolution-profile.js';
import { busyUntil, locOfMax, maxNodes, mirror } from '../../../core/fpe/resource-profile.js';
import { StepFunction } from '../../../core/time/step-function.js';

// The paper's requested EP: 5 nodes for 500 s, then 10 for 3600 s.
const req = evolutionProfile([
  [500, 5],
  [3600, 10],
]);
// The paper's resource EP: 10 nodes busy for 1200 s, then 20 for 3600 s.
const res = epFunction(
  evolutionProfile([
    [1200, 10],
    [3600, 20],
  ]),
);
// Two peaks of 8: 5 on [0,10), 8 on [10,20), 3 on [20,30), 8 on [30,40), 0 after.
const twoPeaks = StepFunction.fromSteps(0, [
  { t: 0, v: 5 },
  { t: 10, v: 8 },
  { t: 20, v: 3 },
  { t: 30, v: 8 },
  { t: 40, v: 0 },
]);

describe('evolution profiles', () => {
  it('are built from [duration, nodes] pairs, refusing empty steps and fractional or zero node counts', () => {
    expect(req).toEqual([
      { duration: 500, nodes: 5 },
      { duration: 3600, nodes: 10 },
    ]);
    expect(() => evolutionProfile([[0, 5]])).toThrow(/step 1: duration/);
    expect(() =>
      evolutionProfile([
        [10, 1],
        [10, 0],
      ]),
    ).toThrow(/step 2: nodes/);
    expect(() => evolutionProfile([[10, 1.5]])).toThrow(/nodes/);
    expect(totalDuration(req)).toBe(4100);
    expect(area(req)).toBe(500 * 5 + 3600 * 10); // 38,500 node·s
    expect(peakNodes(req)).toBe(10);
  });

  it('ep(t) is n1 on [0, d1), n2 on [d1, d1 + d2), and 0 outside', () => {
    expect(epAt(req, -1)).toBe(0);
    expect(epAt(req, 0)).toBe(5);
    expect(epAt(req, 499)).toBe(5);
    expect(epAt(req, 500)).toBe(10);
    expect(epAt(req, 4099)).toBe(10);
    expect(epAt(req, 4100)).toBe(0);
  });

  it('as a function of time it is the same steps from where it starts, and 0 elsewhere', () => {
    expect(epFunction(req, 2000).steps()).toEqual([
      { t: 2000, v: 5 },
      { t: 2500, v: 10 },
      { t: 6100, v: 0 },
    ]);
    expect(res.steps()).toEqual([
      { t: 0, v: 10 },
      { t: 1200, v: 20 },
      { t: 4800, v: 0 },
    ]);
    // Two adjacent steps with the same node count are one stretch of the function, two steps of the EP.
    expect(
      epFunction(
        evolutionProfile([
          [10, 3],
          [20, 3],
        ]),
      ).steps(),
    ).toEqual([
      { t: 0, v: 3 },
      { t: 30, v: 0 },
    ]);
    for (const t of [0, 499, 500, 4099, 4100]) expect(epFunction(req).valueAt(t)).toBe(epAt(req, t));
  });

  it('delay(ep, t0) prepends a step of t0 seconds on no node; delay by 0 is the EP itself', () => {
    expect(delay(req, 2000)).toEqual([{ duration: 2000, nodes: 0 }, ...req]);
    expect(delay(req, 0)).toBe(req);
    expect(() => delay(req, -1)).toThrow(RangeError);
    expect(epFunction(delay(req, 2000)).steps()).toEqual(epFunction(req, 2000).steps());
  });

  it('the sum of two EPs adds them at every instant', () => {
    // [(10,2),(10,4)] + [(15,1)]: 3 on [0,10), 5 on [10,15), 4 on [15,20), then 0.
    const s = sum(
      evolutionProfile([
        [10, 2],
        [10, 4],
      ]),
      evolutionProfile([[15, 1]]),
    );
    expect(s.steps()).toEqual([
      { t: 0, v: 3 },
      { t: 10, v: 5 },
      { t: 15, v: 4 },
      { t: 20, v: 0 },
    ]);
  });

  it('expanded EPs keep every step and node count, none shorter; delayed ones add a first step on no node', () => {
    expect(
      isExpandedOf(
        evolutionProfile([
          [515, 5],
          [3600, 10],
        ]),
        req,
      ),
    ).toBe(true);
    expect(isExpandedOf(req, req)).toBe(true);
    expect(
      isExpandedOf(
        evolutionProfile([
          [499, 5],
          [3600, 10],
        ]),
        req,
      ),
    ).toBe(false);
    expect(
      isExpandedOf(
        evolutionProfile([
          [500, 6],
          [3600, 10],
        ]),
        req,
      ),
    ).toBe(false);
    expect(isExpandedOf(evolutionProfile([[500, 5]]), req)).toBe(false);
    expect(isDelayedOf(delay(req, 2000), req)).toBe(true);
    expect(isDelayedOf(req, req)).toBe(false);
    expect(
      isDelayedOf(
        [
          { duration: 2000, nodes: 0 },
          { duration: 515, nodes: 5 },
          { duration: 3600, nodes: 10 },
        ],
        req,
      ),
    ).toBe(false);
  });

  it("C1: the paper's scheduled EP {(2000, 0), (515, 5), (3600, 10)} is the requested one delayed by 2000 s and expanded by 15 s", () => {
    const scheduled = {
      start: 2000,
      steps: evolutionProfile([
        [515, 5],
        [3600, 10],
      ]),
    };
    expect(satisfiesC1(scheduled, req)).toBe(true);
    expect(asDelayedEp(scheduled)).toEqual([
      { duration: 2000, nodes: 0 },
      { duration: 515, nodes: 5 },
      { duration: 3600, nodes: 10 },
    ]);
    expect(expansion(scheduled.steps, req)).toBe(15);
    expect(wasteArea(scheduled.steps, req)).toBe(15 * 5); // it waits 15 s holding its 5 nodes
    expect(
      satisfiesC1(
        {
          start: 2000,
          steps: evolutionProfile([
            [500, 10],
            [3600, 10],
          ]),
        },
        req,
      ),
    ).toBe(false);
    expect(satisfiesC1(scheduled, req, 2500)).toBe(false); // starts before it may
  });
});

describe('resource EP queries', () => {
  it('max(ep, t0, t1) is the largest node count on [t0, t1), and 0 on an empty interval', () => {
    expect(maxNodes(res, 0, 1200)).toBe(10);
    expect(maxNodes(res, 0, 1201)).toBe(20);
    expect(maxNodes(res, 4800, 9000)).toBe(0);
    expect(maxNodes(res, 700, 700)).toBe(0);
  });

  it('loc(ep, t0, t1) is the end of the last stretch at the maximum, cut at t1', () => {
    expect(locOfMax(res, 0, 1000)).toBe(1000); // the maximum lasts up to t1
    expect(locOfMax(res, 0, 6000)).toBe(4800);
    expect(locOfMax(res, 1300, 2000)).toBe(2000);
    expect(locOfMax(twoPeaks, 0, 50)).toBe(40); // the last of two peaks
    expect(locOfMax(twoPeaks, 0, 25)).toBe(20);
    expect(locOfMax(twoPeaks, 0, 35)).toBe(35);
    expect(locOfMax(twoPeaks, 12, 18)).toBe(18);
    expect(locOfMax(twoPeaks, 20, 30)).toBe(30);
    // The defining property: max(ep, t0, t) = max(ep, t0, t1) > max(ep, t, t1).
    for (const [t0, t1] of [
      [0, 50],
      [0, 25],
      [5, 33],
      [21, 29],
    ] as const) {
      const t = locOfMax(twoPeaks, t0, t1);
      expect(maxNodes(twoPeaks, t0, t)).toBe(maxNodes(twoPeaks, t0, t1));
      expect(maxNodes(twoPeaks, t, t1)).toBeLessThan(maxNodes(twoPeaks, t0, t1));
    }
  });

  it('the mirror image turns [a, b) into [-b, -a)', () => {
    const m = mirror(res);
    expect(m.steps()).toEqual([
      { t: -4800, v: 20 },
      { t: -1200, v: 10 },
      { t: 0, v: 0 },
    ]);
    expect(m.initial).toBe(0);
    expect(maxNodes(m, -4800, -1200)).toBe(20);
    expect(maxNodes(m, -1200, 0)).toBe(10);
    expect(mirror(m).equals(res)).toBe(true);
    expect(mirror(twoPeaks).valueAt(-40)).toBe(8);
    expect(mirror(twoPeaks).valueAt(-0.5)).toBe(5);
  });

  it('busyUntil is where the last busy stretch ends', () => {
    expect(busyUntil(res)).toBe(4800);
    expect(busyUntil(StepFunction.constant(0))).toBe(-Infinity);
  });
});
