import { describe, expect, it } from 'vitest';
import { makeRequest } from '../../../core/coorm/requests.js';
import { toView } from '../../../core/coorm/to-view.js';
import { fit } from '../../../core/coorm/fit.js';
import { eqSchedule, shareInterval } from '../../../core/coorm/eq-schedule.js';
import { schedulePass } from '../../../core/coorm/schedule.js';
import { viewOf } from '../../../core/coorm/views.js';
import type { CoormRequest, RelatedHow, RequestType, View } from '../../../core/coorm/types.js';

let nextId = 1;
function req(
  type: RequestType,
  cid: string,
  n: number,
  duration: number,
  how: RelatedHow = 'FREE',
  parent?: CoormRequest,
): CoormRequest {
  return makeRequest({ id: nextId++, session: 1, cid, n, duration, type, relatedHow: how, parent });
}
function startAt(r: CoormRequest, t: number): CoormRequest {
  r.startedAt = t;
  return r;
}
// A profile from `from` on, as [time, value] pairs: the value at `from`, then every later step.
function steps(v: View, cid: string, from = 0): number[][] {
  const f = v.get(cid);
  if (f === undefined) return [];
  return [
    [from, f.valueAt(from)],
    ...f
      .steps()
      .filter((s) => s.t > from)
      .map((s) => [s.t, s.v]),
  ];
}

describe('toView (Algorithm 1)', () => {
  it('fixes started requests and their NEXT/COALLOC descendants, nothing else', () => {
    const a = startAt(req('NP', 'c', 2, 100), 0);
    const b = req('NP', 'c', 5, 50, 'NEXT', a); // fixed at 100
    const c = req('NP', 'c', 1, 10, 'COALLOC', b); // fixed at 100
    const d = req('NP', 'c', 3, 10); // free, not fixed
    const v = toView([a, b, c, d], 0);
    expect([a.fixed, b.fixed, c.fixed, d.fixed]).toEqual([true, true, true, false]);
    expect([b.scheduledAt, c.scheduledAt]).toEqual([100, 100]);
    // 2 on [0,100), 5+1 on [100,110), 5 on [110,150).
    expect(steps(v, 'c')).toEqual([
      [0, 2],
      [100, 6],
      [110, 5],
      [150, 0],
    ]);
  });

  it('with available resources, limits nAlloc and lets overlapping requests share them', () => {
    const a = startAt(req('P', 'c', 4, Infinity), 0);
    const b = startAt(req('P', 'c', 4, Infinity), 0);
    const avail = viewOf({
      c: [
        [100, 6],
        [Infinity, 3],
      ],
    });
    const v = toView([a, b], 50, { available: avail });
    // From now (50) on the least is 3: a gets 3, b what a leaves (0).
    expect([a.nAlloc, b.nAlloc]).toEqual([3, 0]);
    expect(steps(v, 'c', 50)).toEqual([[50, 3]]);
  });

  it('a refused descendant stays unfixed with its own descendants', () => {
    const a = startAt(req('NP', 'c', 2, 100), 0);
    const b = req('NP', 'c', 5, 50, 'NEXT', a);
    const c = req('NP', 'c', 1, 10, 'NEXT', b);
    toView([a, b, c], 0, { accept: (r) => r !== b });
    expect([a.fixed, b.fixed, c.fixed]).toEqual([true, false, false]);
  });
});

describe('fit (Algorithm 2)', () => {
  it('places free requests into holes, overlapping ones side by side', () => {
    const a = req('PA', 'c', 6, 100);
    const b = req('PA', 'c', 6, 100);
    const v = fit([a, b], viewOf({ c: [[Infinity, 10]] }), 5);
    // 10 nodes: a at 5; b does not fit beside it (6+6 > 10) so waits for a's end.
    expect([a.scheduledAt, b.scheduledAt]).toEqual([5, 105]);
    expect(steps(v, 'c', 5)).toEqual([
      [5, 6],
      [205, 0],
    ]);
  });

  it('delays a NEXT parent until its child fits right after it', () => {
    // 4 nodes now, 8 only from t=300: child (8 nodes) must follow parent (2 nodes, 100 s) directly.
    const avail = viewOf({
      c: [
        [300, 4],
        [Infinity, 8],
      ],
    });
    const p = req('NP', 'c', 2, 100);
    const child = req('NP', 'c', 8, 50, 'NEXT', p);
    fit([p, child], avail, 0);
    expect(p.scheduledAt).toBe(200);
    expect(child.scheduledAt).toBe(300);
  });

  it('delays a COALLOC parent to its partner on another cluster', () => {
    const avail = viewOf({
      a: [[Infinity, 4]],
      b: [
        [50, 0],
        [Infinity, 4],
      ],
    });
    const p = req('NP', 'a', 2, 100);
    const partner = req('NP', 'b', 2, 100, 'COALLOC', p);
    fit([p, partner], avail, 0);
    expect([p.scheduledAt, partner.scheduledAt]).toEqual([50, 50]);
  });

  it('shrinks a preemptible COALLOC child instead of delaying its non-preemptible partner', () => {
    const np = req('NP', 'c', 2, 100);
    np.scheduledAt = 10;
    np.fixed = true;
    const p = req('P', 'c', 9, 100, 'COALLOC', np);
    fit(
      [p],
      viewOf({
        c: [
          [50, 8],
          [Infinity, 5],
        ],
      }),
      0,
    );
    expect(p.scheduledAt).toBe(10);
    expect(p.nAlloc).toBe(5); // least of [10, 110) is 5
  });

  it('leaves a request that can never fit at Infinity', () => {
    const a = req('PA', 'c', 11, 10);
    const v = fit([a], viewOf({ c: [[Infinity, 10]] }), 0);
    expect(a.scheduledAt).toBe(Infinity);
    expect(v.size).toBe(0);
  });
});

describe('eqSchedule (Algorithm 3)', () => {
  it('shares a congested interval in rounds of equal shares, the first keeping a partition for idle applications', () => {
    const out = [0, 0, 0];
    // 10 nodes, requests 2, 20 and nothing (Algorithm 3 lines 8-18): round 1 has 2 wanting plus one partition for
    // the idle one, share 3: the first takes 2, the second 3, the idle one is offered 3; round 2 gives the second
    // the 5 left. Views are the shares offered: 3, 3 + 5, 3.
    const idle = shareInterval(10, [2, 20, 0], out);
    expect(out).toEqual([3, 8, 3]);
    expect(idle).toBe(3);
    // Without an idle application, round 1 shares 10 by 2.
    const two = [0, 0];
    shareInterval(10, [2, 20], two);
    expect(two).toEqual([5, 8]);
    // An application not on this cluster is idle here too.
    shareInterval(10, [2, 20], two, 3);
    expect(two).toEqual([3, 8]);
    // One exactly satisfied by a round (r = 0) counts as a partition in the next and is offered its share (lines 12,
    // 14): 13 nodes, requests 6 and 20: round 1 shares 6 each (1 left, the first at r = 0); round 2 shares the 1
    // left by 2 (at least 1): the first is offered 1 more, the second takes it.
    shareInterval(13, [6, 20], two);
    expect(two).toEqual([7, 7]);
  });

  it('lets each application fill what the others leave when uncongested, never below its equal part', () => {
    const out = [0, 0, 0];
    shareInterval(10, [1, 3, 0], out);
    // a: max(10-4+1, 5) = 7; b: max(10-4+3, 5) = 9; idle: max(10-4, floor(10/3)) = 6.
    expect(out).toEqual([7, 9, 6]);
  });

  it('strict sharing offers each application its equal partition only, congested or not', () => {
    const out = [0, 0, 0];
    // Congested: 10 between the 2 asking, the idle one counting itself as a third; nobody fills the first one's 3.
    expect(shareInterval(10, [2, 20, 0], out, 3, 'strict')).toBe(3);
    expect(out).toEqual([5, 5, 3]);
    // Uncongested: the same partitions, where filling would offer 7, 9 and 6.
    shareInterval(10, [1, 3, 0], out, 3, 'strict');
    expect(out).toEqual([5, 5, 3]);
    shareInterval(10, [1, 3, 0], out, 3);
    expect(out).toEqual([7, 9, 6]);
  });

  it('computes preemptive views and nAlloc of two malleable applications', () => {
    const a = startAt(req('P', 'c', 8, Infinity), 0);
    const b = startAt(req('P', 'c', 8, Infinity), 0);
    const views = eqSchedule([[a], [b], []], viewOf({ c: [[Infinity, 10]] }), 0);
    // Congested (16 > 10): round 1 shares 10 in 3 (a partition for the idle third one): 3 each, 4 left; round 2
    // shares them between the two wanting more: 5 each. The idle one is offered its first-round share, 3.
    expect(steps(views[0]!, 'c')).toEqual([[0, 5]]);
    expect(steps(views[1]!, 'c')).toEqual([[0, 5]]);
    expect(steps(views[2]!, 'c')).toEqual([[0, 3]]);
    expect([a.nAlloc, b.nAlloc, a.scheduledAt]).toEqual([5, 5, 0]);
  });
});

describe('main pass (Algorithm 4)', () => {
  it('backfills pre-allocations, serves NP inside them and gives the rest to preemptible requests', () => {
    const pa1 = req('PA', 'c', 6, 100);
    const np1 = req('NP', 'c', 2, 100, 'COALLOC', pa1);
    np1.insidePA = true;
    const rigid = req('NP', 'c', 6, 50); // wrapped in an implicit PA: cannot start beside pa1 (6 + 6 > 10)
    const small = req('NP', 'c', 4, 100); // fits beside pa1: backfilled
    const mall = req('P', 'c', 10, Infinity);
    const res = schedulePass(
      [{ cid: 'c', nodes: 10 }],
      [
        { pa: [pa1], np: [np1], p: [] },
        { pa: [], np: [rigid], p: [] },
        { pa: [], np: [small], p: [] },
        { pa: [], np: [], p: [mall] },
      ],
      0,
    );
    expect([pa1.scheduledAt, np1.scheduledAt, rigid.scheduledAt, small.scheduledAt]).toEqual([0, 0, 100, 0]);
    // Preemptible: 10 - 2 - 4 on [0,100), 10 - 6 on [100,150), 10 after.
    expect(steps(res.preemptible, 'c')).toEqual([
      [0, 4],
      [150, 10],
    ]);
    // A FREE preemptible request waits for a hole of its full size (the paper's findHole).
    expect([mall.scheduledAt, mall.nAlloc]).toEqual([150, 10]);
    expect(steps(res.preemptive[3]!, 'c')).toEqual([
      [0, 4],
      [150, 10],
    ]);
    // The rigid app sees what every request leaves (a new request would queue last: nothing until 100, pa1 and the
    // backfilled small one take it all) plus its own reservation: 6 of its own and 4 free on [100,150).
    expect(steps(res.nonPreemptive[1]!, 'c')).toEqual([
      [0, 0],
      [100, 10],
    ]);
    // The pre-allocating app sees its own pre-allocation beside what is free.
    expect(steps(res.nonPreemptive[0]!, 'c')).toEqual([
      [0, 6],
      [100, 4],
      [150, 10],
    ]);
  });
});
