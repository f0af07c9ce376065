// The head node: RT-DLT division, placement on EDF workers (interleaved) or whole nodes (exclusive), refusals with
// their reason, ghosts until idle, and re-placement after an overrun; and the three placement policies.
import { describe, expect, it } from 'vitest';
import { InteractiveHead, type HeadConfig } from '../../../core/interactive/head.js';
import type { InteractiveJob } from '../../../core/interactive/model.js';
import { WorkerNodeState, type HostedTask } from '../../../core/interactive/node.js';
import { nodeSharings } from '../../../core/interactive/sharing.js';
import { taskPlacements } from '../../../core/interactive/placement/index.js';

const even = { cmsMsPerUnit: 1, cpsMsPerUnit: 1 };
const noNet = { cmsMsPerUnit: 0, cpsMsPerUnit: 1 };
const head = (config: Partial<HeadConfig>) =>
  new InteractiveHead({ nodes: 4, cost: even, sharing: 'interleaved', placement: 'first-fit', ...config });
const job = (id: string, dataUnits: number, deadlineMs: number, periodMs: number, arrivalMs = 0): InteractiveJob => ({
  id,
  arrivalMs,
  periodMs,
  dataUnits,
  deadlineMs,
});

describe('InteractiveHead admission', () => {
  it('divides a job by RT-DLT and places its k tasks on distinct nodes when they cannot share', () => {
    const h = head({});
    // σ = 10, D = 12, β = 1/2: k = 3, C = ⌈80/7⌉ = 12
    expect(h.submit(job('a', 10, 12, 24), 0)).toMatchObject({
      ok: true,
      nodes: [0, 1, 2],
      costMs: 12,
      minNodes: 3,
      generation: 1,
    });
    expect(h.nodeReports().map((r) => r.utilization)).toEqual([0.5, 0.5, 0.5, 0]);
    // The same job again: on node 0 dbf(12) = 24 > 12; only node 3 takes one task
    const b = h.submit(job('b', 10, 12, 24), 0);
    expect(b).toEqual({
      ok: false,
      code: 'no-placement',
      message: 'task 2 of 3 (C 12 ms, T 24 ms, D 12 ms) fits on no node: 4 nodes processor demand test fails',
    });
    // rolled back: node 3 hosts nothing
    expect(h.nodeReports()[3]).toMatchObject({ tasks: 0, utilization: 0 });
    expect(h.counters).toMatchObject({ submitted: 2, admitted: 1, refused: { 'no-placement': 1 } });
  });

  it('interleaves a task whose deadline window leaves room', () => {
    const h = head({});
    h.submit(job('a', 10, 12, 24), 0);
    // D = T = 24: one node, E(10, 1) = 20; on node 0 with (12, 24, 12): dbf(12) = 12, dbf(24) = 32 > 24: no.
    // σ = 4, D = T = 24: C = 8: dbf(12) = 12, dbf(24) = 20, dbf(36) = 24+... fits on node 0
    expect(h.submit(job('c', 4, 24, 24), 0)).toMatchObject({ ok: true, nodes: [0], costMs: 8 });
    expect(h.nodeReports()[0]).toMatchObject({ tasks: 2, slackMs: 0 });
  });

  it('exclusive: a node serves one job', () => {
    const h = head({ sharing: 'exclusive' });
    h.submit(job('a', 10, 12, 24), 0);
    expect(h.submit(job('c', 4, 24, 24), 0)).toMatchObject({ ok: true, nodes: [3] });
    expect(h.submit(job('d', 4, 24, 24), 0)).toEqual({
      ok: false,
      code: 'no-placement',
      message: 'task 1 of 1 (C 8 ms, T 24 ms, D 24 ms) fits on no node: 4 nodes held by another job',
    });
  });

  it('widening: more nodes than n_min when n_min tasks fit nowhere', () => {
    // 2 nodes, noNet: σ = 60, D = T = 100 -> k = 1, C = 60; then σ = 80 needs 1 node at C = 80: refused;
    // widened to 2 nodes, C = 40 each: fits beside the first job's 60 on node 0 and alone on node 1.
    const narrow = head({ nodes: 2, cost: noNet });
    narrow.submit(job('a', 60, 100, 100), 0);
    narrow.submit(job('x', 100, 100, 100), 0);
    expect(narrow.submit(job('b', 80, 100, 100), 0)).toMatchObject({ ok: false, code: 'no-placement' });
    const wide = head({ nodes: 2, cost: noNet, widen: 2 });
    wide.submit(job('a', 60, 100, 100), 0);
    wide.submit(job('x', 100, 100, 100), 0);
    expect(wide.submit(job('b', 80, 100, 100), 0)).toMatchObject({
      ok: false,
      code: 'no-placement',
      message: expect.stringContaining('(nor on up to 2 nodes)'),
    });
    // a (60) on node 0, b (70) on node 1; c: σ = 50 fits on neither at C = 50, but at k = 2, C = 25: 85 and 95
    const roomy = head({ nodes: 2, cost: noNet, widen: 2 });
    roomy.submit(job('a', 60, 100, 100), 0);
    expect(roomy.submit(job('b', 70, 100, 100), 0)).toMatchObject({ ok: true, nodes: [1], costMs: 70 });
    expect(roomy.submit(job('c', 50, 100, 100), 0)).toMatchObject({ ok: true, nodes: [0, 1], costMs: 25, minNodes: 1 });
    expect(roomy.counters.widened).toBe(1);
  });

  it('refuses malformed jobs, duplicates and deadlines shorter than the transmission', () => {
    const h = head({});
    expect(h.submit(job('a', 10, 30, 24), 0)).toMatchObject({
      ok: false,
      code: 'invalid',
      message: 'deadline 30 ms is longer than the period 24 ms',
    });
    h.submit(job('a', 10, 12, 24), 0);
    expect(h.submit(job('a', 10, 12, 24), 0)).toMatchObject({
      ok: false,
      code: 'invalid',
      message: 'job a is already running',
    });
    expect(h.submit(job('b', 10, 10, 24), 0)).toMatchObject({ ok: false, code: 'deadline-too-short' });
    // γ = 1 - 100/101, ln γ / ln(1/2) = 6.66: 7 nodes, the cluster has 4
    expect(h.submit(job('c', 100, 101, 240), 0)).toMatchObject({
      ok: false,
      code: 'too-many-nodes',
      message: 'the deadline needs 7 nodes, the cluster has 4',
    });
  });

  it('a finished job stays counted on its node (a ghost) until the node reports idle', () => {
    const h = head({ nodes: 1, cost: noNet });
    h.submit(job('a', 60, 100, 100), 0);
    expect(h.finish('a', 150)).toBe(true);
    expect(h.nodeReports()[0]).toMatchObject({ tasks: 0, ghosts: 1 });
    expect(h.submit(job('b', 60, 100, 100), 150)).toMatchObject({ ok: false, code: 'no-placement' });
    h.nodeIdle(0, 160);
    expect(h.submit(job('c', 60, 100, 100), 160)).toMatchObject({ ok: true, nodes: [0] });
  });

  it('with D = T a departed task stops counting at its last deadline, though the node was never reported idle', () => {
    const h = head({ nodes: 1, cost: noNet });
    // a and b: C = 50 each, D = T = 100, U = 1 on node 0; a ends at 30, its last instance due by 130 at the latest.
    h.submit(job('a', 50, 100, 100), 0);
    h.submit(job('b', 50, 100, 100), 0);
    h.finish('a', 30);
    expect(h.submit(job('c', 50, 100, 100), 129)).toMatchObject({ ok: false, code: 'no-placement' });
    expect(h.submit(job('d', 50, 100, 100), 130)).toMatchObject({ ok: true, nodes: [0] });
    // A task with D < T is not admitted against a departed task's share on the deadline alone.
    h.finish('d', 140);
    expect(h.submit(job('e', 50, 90, 100), 240)).toMatchObject({ ok: false, code: 'no-placement' });
    h.nodeIdle(0, 250);
    expect(h.submit(job('f', 50, 90, 100), 250)).toMatchObject({ ok: true, nodes: [0] });
  });
});

describe('InteractiveHead overruns', () => {
  it('re-places a job whose instance ran longer than C, with σ scaled by measured/C and 25 % headroom', () => {
    const h = head({ nodes: 2, cost: noNet });
    h.submit(job('a', 60, 100, 100), 0);
    expect(h.completed({ jobId: 'a', generation: 1, node: 0, executedMs: 60, missed: false }, 60)).toBeUndefined();
    // σ' = 60 × 70/60 × 1.25 = 87.5 -> C = 88; node 0 still holds the old task as a ghost (60 + 88 > 100): node 1
    const r = h.completed({ jobId: 'a', generation: 1, node: 0, executedMs: 70, missed: true }, 170);
    expect(r).toMatchObject({ ok: true, generation: 2, nodes: [1], costMs: 88, dataUnits: 87.5, sinceMs: 170 });
    expect(h.placementOf('a')?.generation).toBe(2);
    // A late report of the old placement changes nothing
    expect(h.completed({ jobId: 'a', generation: 1, node: 0, executedMs: 75, missed: false }, 175)).toBeUndefined();
    expect(h.counters).toMatchObject({
      completions: 3,
      misses: 1,
      overruns: 1,
      replacements: 1,
      droppedOnReplacement: 0,
    });
  });

  it('stops the job when no re-placement exists, and says why', () => {
    const h = head({ nodes: 1, cost: noNet });
    h.submit(job('a', 60, 100, 100), 0);
    // σ' = 60 × 90/60 × 1.25 = 112.5 > D = 100 on one node: 2 nodes needed
    const r = h.completed({ jobId: 'a', generation: 1, node: 0, executedMs: 90, missed: false }, 90);
    expect(r).toEqual({ ok: false, code: 'too-many-nodes', message: 'the deadline needs 2 nodes, the cluster has 1' });
    const g = head({ nodes: 2, cost: noNet });
    g.submit(job('a', 40, 100, 100), 0);
    g.submit(job('b', 90, 100, 100), 0);
    // a: σ' = 40 × 60/40 × 1.25 = 75 -> C = 75; node 0 holds a's ghost (40), node 1 holds b (90)
    expect(g.completed({ jobId: 'a', generation: 1, node: 0, executedMs: 60, missed: false }, 60)).toMatchObject({
      ok: false,
      code: 'no-placement',
    });
    expect(g.placementOf('a')).toBeUndefined();
    expect(g.counters.droppedOnReplacement).toBe(1);
    expect(h.placementOf('a')).toBeUndefined();
    expect(h.counters.droppedOnReplacement).toBe(1);
  });
});

describe('placement policies', () => {
  // Implicit deadlines, T = D = 100; a new task of C 20. After adding it the slack is 100 - (hosted + 20):
  // n1 (30): 50, n0 (60): 20, n2 (idle): 80, n3 (90): does not fit.
  const nodes = [30, 60, 0, 90].map((c, i) => {
    const n = new WorkerNodeState(i);
    if (c > 0) n.add({ jobId: `h${i}`, index: 0, generation: 1, costMs: c, periodMs: 100, deadlineMs: 100 });
    return n;
  });
  const task: HostedTask = { jobId: 'new', index: 0, generation: 1, costMs: 20, periodMs: 100, deadlineMs: 100 };
  const cases: Array<[keyof typeof taskPlacements, number]> = [
    ['first-fit', 0],
    ['best-fit', 1],
    ['worst-fit', 2],
  ];
  it.each(cases)('%s picks node %i', (name, expected) => {
    const policy = taskPlacements[name];
    expect(policy.choose(nodes, (n) => nodeSharings.interleaved.accepts(n, task, policy.needsSlack))).toBe(expected);
  });
  it('no policy picks a node that refuses', () => {
    const big: HostedTask = { ...task, costMs: 80 };
    for (const policy of Object.values(taskPlacements))
      expect(policy.choose(nodes, (n) => nodeSharings.interleaved.accepts(n, big, policy.needsSlack))).toBe(2);
    const huge: HostedTask = { ...task, costMs: 101, deadlineMs: 100 };
    for (const policy of Object.values(taskPlacements))
      expect(policy.choose(nodes, (n) => nodeSharings.interleaved.accepts(n, huge, policy.needsSlack))).toBeUndefined();
  });
});
