// The Plan view's Gantt layout: items first-fit in processor bands without overlapping in time, running jobs then
// reservations, the window from the earliest start (at most an hour back) past the last end, hover texts.
import { describe, expect, it } from 'vitest';
import {
  layoutPlan,
  PAST_S,
  processorAxis,
  stepSizes,
  type ClusterPlanView,
} from '../../renderer/src/composables/plan-layout.js';

const base: ClusterPlanView = {
  name: 'a',
  processors: 12,
  capacity: [{ t: 10, v: 10 }],
  free: [],
  running: [],
  runningTotal: 0,
  reservations: [],
  reservationsTotal: 0,
};
const run = (id: string, processors: number, start: number, end: number | null, backfilled = false) => ({
  id,
  kind: 'rigid',
  processors,
  size: processors,
  start,
  end,
  backfilled,
  sizes: [{ t: start, v: processors }],
});

describe('plan layout', () => {
  it('stacks running jobs, puts a reservation in the band freed by the job it waits for, and says so on hover', () => {
    // r1 (4, 0..100) on 0..4, r2 (4, 0..200) on 4..8, c (2, backfilled, 5..52) on 8..10; h (6, 100..150): over
    // [100, 150) only r2 (4..8) overlaps, so h takes r1's 0..4 and 8..10 — within the capacity of 10.
    const plan: ClusterPlanView = {
      ...base,
      running: [run('r1', 4, 0, 100), run('r2', 4, 0, 200), run('c', 2, 5, 52, true)],
      reservations: [{ id: 'h', processors: 6, start: 100, end: 150, waitsFor: ['r1'] }],
    };
    const l = layoutPlan(plan, 10);
    expect(l.boxes.map((b) => [b.kind, b.id, b.x0, b.x1, b.bands])).toEqual([
      ['running', 'r1', 0, 100, [[0, 4]]],
      ['running', 'r2', 0, 200, [[4, 8]]],
      ['backfilled', 'c', 5, 52, [[8, 10]]],
      [
        'reserved',
        'h',
        100,
        150,
        [
          [0, 4],
          [8, 10],
        ],
      ],
    ]);
    expect(l.top).toBe(12); // the cluster's processors, not the capacity of 10
    expect(l.left).toBe(0);
    expect(l.right).toBe(671); // at least 10 minutes ahead: 10 + 600, and a tenth of the 610 s shown past it
    expect(l.boxes[3]!.text).toBe(
      'job h reserved · 6 processors · starts 0:01:40 · ends by 0:02:30 (walltime) · waits for job r1',
    );
    expect(l.boxes[2]!.text).toContain('backfilled');
    // Past sizes: each running job's size from its start (or the window's left) to now.
    expect(l.sizes).toEqual([
      { box: 0, t0: 0, t1: 10, v: 4 },
      { box: 1, t0: 0, t1: 10, v: 4 },
      { box: 2, t0: 5, t1: 10, v: 2 },
    ]);
  });

  it('reuses a band once its job has ended; a job without an end reaches the right edge; at most an hour of past, as much ahead', () => {
    const now = 10_000;
    const plan: ClusterPlanView = {
      ...base,
      running: [run('old', 3, 0, null)],
      reservations: [
        { id: 'x', processors: 3, start: 10_100, end: 10_200, waitsFor: [] },
        { id: 'y', processors: 3, start: 10_200, end: 10_300, waitsFor: [] },
      ],
    };
    const l = layoutPlan(plan, now);
    expect(l.left).toBe(now - PAST_S);
    expect(l.right).toBe(now + PAST_S + (2 * PAST_S) / 10);
    const [old, x, y] = l.boxes;
    expect([old!.x0, old!.x1]).toEqual([now - PAST_S, l.right]);
    expect([x!.bands, y!.bands]).toEqual([[[3, 6]], [[3, 6]]]);
    expect(x!.text).toContain('waits for no running job');
    expect(old!.text).toContain('no walltime');
  });

  it("draws a profiled job's scheduled steps as a box per step, each its own size, with the step on hover", () => {
    // r (8, 0..100); x reserved 4 then 2 for 50 s each from 100: each step in the lowest band free then.
    const plan: ClusterPlanView = {
      ...base,
      running: [run('r', 8, 0, 100)],
      reservations: [
        {
          id: 'x',
          processors: 4,
          start: 100,
          end: 200,
          waitsFor: ['r'],
          steps: [
            { t: 100, v: 4 },
            { t: 150, v: 2 },
            { t: 200, v: 0 },
          ],
        },
      ],
    };
    const l = layoutPlan(plan, 10);
    expect(l.boxes.map((b) => [b.kind, b.id, b.x0, b.x1, b.bands])).toEqual([
      ['running', 'r', 0, 100, [[0, 8]]],
      ['reserved', 'x', 100, 150, [[0, 4]]],
      ['reserved', 'x', 150, 200, [[0, 2]]],
    ]);
    expect(l.boxes[2]!.text).toBe('job x reserved · step 2 of 2: 2 processors · 0:02:30–0:03:20 · waits for job r');
  });

  it("draws a started profiled job's current step as its running box and its later steps after it, each its own size", () => {
    // e runs step 2 of 3 (6 processors, 100..150), then 3 for 150..230; w (4) is reserved at 150 beside e's third step.
    const plan: ClusterPlanView = {
      ...base,
      running: [
        {
          ...run('e', 6, 0, 230),
          kind: 'evolving',
          sizes: [
            { t: 0, v: 2 },
            { t: 100, v: 6 },
          ],
          steps: [
            { t: 100, v: 6 },
            { t: 150, v: 3 },
            { t: 230, v: 0 },
          ],
          step: 2,
          stepCount: 3,
        },
      ],
      reservations: [{ id: 'w', processors: 4, start: 150, end: 250, waitsFor: ['e'] }],
    };
    const l = layoutPlan(plan, 120);
    expect(l.boxes.map((b) => [b.kind, b.id, b.x0, b.x1, b.bands])).toEqual([
      ['running', 'e', 0, 150, [[0, 6]]],
      ['planned', 'e', 150, 230, [[0, 3]]],
      ['reserved', 'w', 150, 250, [[3, 7]]],
    ]);
    expect(l.boxes[0]!.text).toContain('step 2 of 3 until 0:02:30');
    expect(l.boxes[1]!.text).toBe('job e (evolving) planned · step 3 of 3: 3 processors · 0:02:30–0:03:50');
  });

  it('draws a shrunk job at what it holds now, its larger past shaded up to its band, within the capacity', () => {
    // DBES's example: A (1 → 2 → 3) and B (1 → 2 → 1) on 4 processors; B was drawn at its past peak, 2, over 3..5.
    const plan: ClusterPlanView = {
      ...base,
      processors: 4,
      capacity: [{ t: 4, v: 4 }],
      running: [
        {
          ...run('A', 3, 0, 2400),
          sizes: [
            { t: 0, v: 2 },
            { t: 4, v: 3 },
          ],
        },
        {
          ...run('B', 1, 0, 1800),
          sizes: [
            { t: 0, v: 2 },
            { t: 4, v: 1 },
          ],
        },
      ],
      reservations: [{ id: 'C', processors: 3, start: 2400, end: 3000, waitsFor: ['A'] }],
    };
    const l = layoutPlan(plan, 4);
    expect(l.boxes.map((b) => [b.id, b.bands])).toEqual([
      ['A', [[0, 3]]],
      ['B', [[3, 4]]],
      ['C', [[0, 3]]],
    ]);
    expect(l.top).toBe(4);
    expect(l.sizes.filter((s) => l.boxes[s.box]!.id === 'B').map((s) => s.v)).toEqual([1]);
    expect(l.boxes[1]!.text).toContain('up to 2 earlier');
  });

  it('draws a pending grow offer from now until the plan frees it, as held by the job offered it, never as free', () => {
    // r (3, 0..40) on 0..3, m (malleable: placed after the others; 4, 0..100) on 3..7; 3 offered to m, held 10..100,
    // after m: on 7..10. h (5, 40..90) waits for r: m's 3..7 and the offer's 7..10 are taken, so h takes r's 0..3
    // and 10..12 (without the offer drawn, 7..9: on processors the offer holds).
    const plan: ClusterPlanView = {
      ...base,
      capacity: [{ t: 10, v: 12 }],
      running: [{ ...run('m', 4, 0, 100), kind: 'malleable' }, run('r', 3, 0, 40)],
      reservations: [{ id: 'h', processors: 5, start: 40, end: 90, waitsFor: ['r'] }],
      offers: { processors: 3, start: 10, end: 100, jobId: 'm' },
    };
    const l = layoutPlan(plan, 10);
    expect(l.boxes.map((b) => [b.kind, b.id, b.x0, b.x1, b.bands])).toEqual([
      ['running', 'r', 0, 40, [[0, 3]]],
      ['running', 'm', 0, 100, [[3, 7]]],
      ['offered', 'm', 10, 100, [[7, 10]]],
      [
        'reserved',
        'h',
        40,
        90,
        [
          [0, 3],
          [10, 12],
        ],
      ],
    ]);
    expect(l.boxes[2]!.text).toContain('3 processors offered to job m');
    expect(l.boxes[2]!.text).toContain('held until');
  });

  it("ticks the processor axis so that its top is a tick; says a profiled job's steps as their sizes", () => {
    expect(processorAxis(4)).toEqual({ max: 4, interval: 1 });
    expect(processorAxis(16)).toEqual({ max: 16, interval: 4 });
    expect(processorAxis(120)).toEqual({ max: 120, interval: 20 });
    // 13 is prime: the top stays 13, ticks every 5 (the last, 10, half a step or more below the top's label).
    expect(processorAxis(13)).toEqual({ max: 13, interval: 5 });
    expect(
      stepSizes([
        { t: 0, v: 2 },
        { t: 10, v: 5 },
        { t: 10, v: 16 },
        { t: 20, v: 4 },
        { t: 30, v: 0 },
      ]),
    ).toBe('2→16→4');
  });
});
