import { describe, expect, it } from 'vitest';
import { makeRequest } from '../../../core/coorm/requests.js';
import { findViolation, heldPreemptible, nextViewDrop } from '../../../core/coorm/violations.js';
import { viewOf } from '../../../core/coorm/views.js';

function holding(cid: string, ids: number[]) {
  const r = makeRequest({
    id: ids[0]! + 100,
    session: 1,
    cid,
    n: ids.length,
    duration: Infinity,
    type: 'P',
    relatedHow: 'FREE',
    parent: undefined,
  });
  r.nodeIds = ids;
  return r;
}

describe('violations', () => {
  const requests = [holding('a', [0, 1]), holding('a', [2]), holding('b', [0])];
  // a: 4 nodes until 100, then 2; b: 1 until 50, then nothing.
  const view = viewOf({
    a: [
      [100, 4],
      [Infinity, 2],
    ],
    b: [[50, 1]],
  });

  it('sums holdings per cluster', () => {
    expect([...heldPreemptible(requests)]).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
  });

  it('finds the first cluster held beyond the view, at the time asked', () => {
    expect(findViolation(requests, view, 10)).toBeUndefined();
    expect(findViolation(requests, view, 60)).toEqual({ cid: 'b', held: 1, allowed: 0 });
    expect(findViolation(requests, view, 100)).toEqual({ cid: 'a', held: 3, allowed: 2 });
    expect(findViolation(requests, undefined, 100)).toBeUndefined();
  });

  it('tells when the view will drop below the holdings', () => {
    expect(nextViewDrop(requests, view, 0)).toBe(50);
    expect(nextViewDrop(requests.slice(0, 2), view, 0)).toBe(100);
    expect(nextViewDrop(requests.slice(0, 1), view, 0)).toBe(Infinity);
  });
});
