import { describe, expect, it } from 'vitest';
import { announcedUpdate, CoormRms, spontaneousUpdate } from '../../../core/coorm/index.js';

const value = <T>(r: { ok: true; value: T } | { ok: false }): T => {
  if (!r.ok) throw new Error('refused');
  return r.value;
};
const twoClusters = () =>
  new CoormRms([
    { cid: 'a', nodes: 8 },
    { cid: 'b', nodes: 4 },
  ]);

describe('CoormRms requests', () => {
  it('answers invalid requests with errors naming the field', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    const paths = (spec: Parameters<CoormRms['request']>[1]) => {
      const r = rms.request(s, spec, 0);
      return r.ok ? [] : r.errors.map((e) => e.path);
    };
    expect(paths({ cid: 'x', n: 1, duration: 1, type: 'NP' })).toEqual(['cid']);
    expect(paths({ cid: 'a', n: 0, duration: 1, type: 'NP' })).toEqual(['n']);
    expect(paths({ cid: 'a', n: 1.5, duration: 1, type: 'NP' })).toEqual(['n']);
    expect(paths({ cid: 'a', n: 9, duration: 1, type: 'NP' })).toEqual(['n']); // above the cluster
    expect(paths({ cid: 'a', n: 1, duration: 0, type: 'NP' })).toEqual(['duration']);
    expect(paths({ cid: 'a', n: 1, duration: NaN, type: 'NP' })).toEqual(['duration']);
    expect(paths({ cid: 'a', n: 1, duration: 1, type: 'X' as 'NP' })).toEqual(['type']);
    expect(paths({ cid: 'a', n: 1, duration: 1, type: 'NP', relatedHow: 'NEXT' })).toEqual(['relatedTo']);
    expect(paths({ cid: 'a', n: 1, duration: 1, type: 'NP', relatedHow: 'NEXT', relatedTo: 999 })).toEqual([
      'relatedTo',
    ]);
    const other = rms.connect(0);
    const foreign = value(rms.request(other, { cid: 'a', n: 1, duration: 1, type: 'NP' }, 0));
    expect(paths({ cid: 'a', n: 1, duration: 1, type: 'NP', relatedHow: 'COALLOC', relatedTo: foreign })).toEqual([
      'relatedTo',
    ]);
    const mine = value(rms.request(s, { cid: 'a', n: 1, duration: 1, type: 'NP' }, 0));
    expect(paths({ cid: 'b', n: 1, duration: 1, type: 'NP', relatedHow: 'NEXT', relatedTo: mine })).toEqual(['cid']);
    expect(paths({ cid: 'a', n: 1, duration: 1, type: 'P', relatedHow: 'NEXT', relatedTo: mine })).toEqual(['type']);
    expect(rms.request(999, { cid: 'a', n: 1, duration: 1, type: 'NP' }, 0)).toMatchObject({
      ok: false,
      errors: [{ path: 'session' }],
    });
    expect(rms.messagesProcessed).toBe(2); // only the accepted ones
  });

  it('refuses a non-preemptible request that outgrows the pre-allocation it would be served from', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    value(rms.request(s, { cid: 'a', n: 4, duration: 100, type: 'PA' }, 0));
    const r = rms.request(s, { cid: 'a', n: 5, duration: 10, type: 'NP' }, 0);
    expect(r).toMatchObject({ ok: false, errors: [{ path: 'n' }] });
    // On the other cluster there is no pre-allocation: wrapped in an implicit one, accepted.
    expect(rms.request(s, { cid: 'b', n: 4, duration: 10, type: 'NP' }, 0).ok).toBe(true);
  });

  it('refuses done() on unknown requests and on node IDs the request does not hold', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    const r = value(rms.request(s, { cid: 'a', n: 2, duration: 100, type: 'NP' }, 0));
    rms.advance(0);
    expect(rms.done(s, 999, 1)).toMatchObject({ ok: false, errors: [{ path: 'request' }] });
    expect(rms.done(s, r, 1, [7])).toMatchObject({ ok: false, errors: [{ path: 'releasedNodeIds' }] });
    expect(rms.done(s, r, 1, [1]).ok).toBe(true);
  });
  it("takes a done() that crossed its request's expiry as said, and still refuses one for a request never had", () => {
    const rms = new CoormRms([{ cid: 'a', nodes: 8 }]);
    const s = rms.connect(0);
    const other = rms.connect(0);
    const r = value(rms.request(s, { cid: 'a', n: 2, duration: 10, type: 'NP' }, 0));
    rms.advance(0);
    rms.advance(10); // the pass at its expiry sweeps it out before the application's done() of the same instant
    expect(rms.sessionSnapshot(s)!.requests).toEqual([]);
    expect(rms.done(s, r, 10, [0]).ok).toBe(true);
    expect(rms.done(other, r, 10)).toMatchObject({ ok: false, errors: [{ path: 'request' }] });
    expect(rms.done(s, r + 1, 10)).toMatchObject({ ok: false, errors: [{ path: 'request' }] });
  });

  it('done() ends a request by now: a second one does not lengthen it, and rounding never leaves it running', () => {
    const rms = new CoormRms([{ cid: 'a', nodes: 8 }]);
    const s = rms.connect(0);
    const r = value(rms.request(s, { cid: 'a', n: 2, duration: 100, type: 'NP' }, 0.6));
    rms.advance(0.6);
    // 0.6 + (1.8 - 0.6) is 1.8000000000000003 in floating point.
    rms.done(s, r, 1.8);
    const end = (x: { startedAt: number; duration: number }) => x.startedAt + x.duration;
    expect(end(rms.requestSnapshot(r)!)).toBeLessThanOrEqual(1.8);
    rms.done(s, r, 2.5);
    expect(end(rms.requestSnapshot(r)!)).toBeLessThanOrEqual(1.8);
    rms.advance(2.5);
    expect(rms.requestSnapshot(r)).toBeUndefined();
  });
});

describe('CoormRms passes', () => {
  it('coalesces messages: at most one message-triggered pass per re-scheduling interval', () => {
    const rms = new CoormRms([{ cid: 'a', nodes: 8 }], { reschedulingIntervalS: 5 });
    const s = rms.connect(0);
    rms.advance(0);
    rms.request(s, { cid: 'a', n: 1, duration: 100, type: 'NP' }, 1);
    rms.request(s, { cid: 'a', n: 1, duration: 100, type: 'NP' }, 2);
    expect(rms.nextWakeup()).toBe(5);
    expect(rms.advance(4)).toEqual([]);
    const m = rms.advance(5);
    expect(m.filter((x) => x.type === 'started').length).toBe(2);
    expect(rms.passes).toBe(2);
  });

  it('ends a request when its duration has elapsed, and starts what waited for it', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    const first = value(rms.request(s, { cid: 'b', n: 4, duration: 50, type: 'NP' }, 0));
    const second = value(rms.request(s, { cid: 'b', n: 3, duration: 10, type: 'NP' }, 0));
    rms.advance(0);
    expect(rms.requestSnapshot(second)!.scheduledAt).toBe(50);
    expect(rms.nextWakeup()).toBe(50);
    const m = rms.advance(50);
    expect(m).toContainEqual({ type: 'started', session: s, request: second, nodeIds: [0, 1, 2] });
    expect(rms.requestSnapshot(first)).toBeUndefined();
    expect(rms.freeNodeIds('b')).toEqual([3]);
  });

  it('starts a NEXT successor exactly at its predecessor end, keeping its node IDs and adding more', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    const a = value(rms.request(s, { cid: 'a', n: 2, duration: 30, type: 'NP' }, 0));
    const b = value(rms.request(s, { cid: 'a', n: 5, duration: 30, type: 'NP', relatedHow: 'NEXT', relatedTo: a }, 0));
    const c = value(rms.request(s, { cid: 'a', n: 1, duration: 30, type: 'NP', relatedHow: 'NEXT', relatedTo: b }, 0));
    const other = rms.connect(0);
    value(rms.request(other, { cid: 'a', n: 4, duration: 100, type: 'NP' }, 0));
    rms.advance(0);
    // The chain (first to connect) is placed first: the other app's 4 nodes for 100 s would overlap [30, 60) where
    // the chain holds 5 of 8, so it waits until 60, when the chain is down to 1 node.
    expect(rms.requestSnapshot(a)).toMatchObject({ startedAt: 0, nodeIds: [0, 1] });
    expect(rms.sessionSnapshot(other)!.requests[0]!.scheduledAt).toBe(60);
    expect(rms.advance(30)).toContainEqual({ type: 'started', session: s, request: b, nodeIds: [0, 1, 2, 3, 4] });
    rms.done(s, b, 45, [0, 2, 3, 4]);
    const m = rms.advance(46);
    expect(m).toContainEqual({ type: 'started', session: s, request: c, nodeIds: [1] });
    expect(rms.requestSnapshot(c)!.startedAt).toBe(45);
  });

  it('pushes views only to the applications whose views changed', () => {
    const rms = twoClusters();
    const s1 = rms.connect(0);
    const s2 = rms.connect(0);
    rms.advance(0);
    // A request on b changes both applications' views of b.
    rms.request(s1, { cid: 'b', n: 2, duration: 100, type: 'NP' }, 1);
    const m = rms.advance(1);
    expect(m.filter((x) => x.type === 'views').map((x) => x.session)).toEqual([s1, s2]);
    // A done() on a request that was not started and never changed anything: no views.
    const r = value(
      rms.request(
        s1,
        {
          cid: 'a',
          n: 8,
          duration: 10,
          type: 'NP',
          relatedHow: 'NEXT' as const,
          relatedTo: value(rms.request(s1, { cid: 'a', n: 8, duration: Infinity, type: 'NP' }, 2)),
        },
        2,
      ),
    );
    rms.advance(3);
    rms.done(s1, r, 4);
    expect(rms.advance(4).filter((x) => x.type === 'views')).toEqual([]);
  });

  it('disconnect frees the nodes at once', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    value(rms.request(s, { cid: 'b', n: 4, duration: Infinity, type: 'NP' }, 0));
    rms.advance(0);
    expect(rms.freeNodeIds('b')).toEqual([]);
    rms.disconnect(s, 5);
    expect(rms.freeNodeIds('b')).toEqual([0, 1, 2, 3]);
    expect(rms.sessionIds()).toEqual([]);
  });
});

describe('beyond the paper (A.6)', () => {
  it('overlapping requests of one application on one cluster add up', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    const first = value(rms.request(s, { cid: 'a', n: 5, duration: 100, type: 'NP' }, 0));
    const second = value(rms.request(s, { cid: 'a', n: 5, duration: 100, type: 'NP' }, 0));
    const third = value(rms.request(s, { cid: 'a', n: 3, duration: 50, type: 'NP' }, 0));
    rms.advance(0);
    // 5 + 5 > 8: the second waits for the first; the third (3) fits beside the first.
    expect([first, second, third].map((id) => rms.requestSnapshot(id)!.scheduledAt)).toEqual([0, 100, 0]);
    expect(rms.requestSnapshot(third)!.nodeIds).toEqual([5, 6, 7]);
  });

  it('a NEXT successor larger than what is free is delayed, not started on nodes that are not there', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    const other = rms.connect(0);
    const small = value(rms.request(s, { cid: 'b', n: 1, duration: Infinity, type: 'NP' }, 0));
    value(rms.request(other, { cid: 'b', n: 2, duration: 30, type: 'NP' }, 0));
    rms.advance(0);
    // No pre-allocation: growing from 1 to 4 needs the other application's 2 nodes, busy until 30.
    const grown = value(spontaneousUpdate(rms, s, small, 4, 10));
    rms.advance(10);
    expect(rms.requestSnapshot(grown)).toMatchObject({ scheduledAt: 30, startedAt: NaN });
    expect(rms.advance(30)).toContainEqual({ type: 'started', session: s, request: grown, nodeIds: [0, 1, 2, 3] });
  });

  it('a pre-allocation that ends under a running request leaves it running, wrapped in an implicit one', () => {
    const rms = twoClusters();
    const s = rms.connect(0);
    const pa = value(rms.request(s, { cid: 'a', n: 6, duration: Infinity, type: 'PA' }, 0));
    const np = value(rms.request(s, { cid: 'a', n: 4, duration: Infinity, type: 'NP' }, 0));
    const other = rms.connect(0);
    rms.advance(0);
    rms.done(s, pa, 5);
    rms.advance(5);
    expect(rms.requestSnapshot(np)).toMatchObject({ insidePA: false, nodeIds: [0, 1, 2, 3] });
    // The other application can now pre-allocate the 4 nodes the ended pre-allocation held beyond the request.
    const next = value(rms.request(other, { cid: 'a', n: 4, duration: 10, type: 'PA' }, 6));
    rms.advance(6);
    expect(rms.requestSnapshot(next)!.startedAt).toBe(6);
    // 8 nodes: 4 run forever, 4 are pre-allocated until 16; another 4 fit from 16 on, 5 never.
    value(rms.request(other, { cid: 'a', n: 4, duration: 10, type: 'PA' }, 7));
    value(rms.request(other, { cid: 'a', n: 5, duration: 10, type: 'PA' }, 7));
    rms.advance(7);
    expect(rms.sessionSnapshot(other)!.requests.map((r) => r.scheduledAt)).toEqual([6, 16, Infinity]);
  });
});

describe('high-level updates', () => {
  it('an announced update keeps the size until the announced time, then changes it; others see it coming', () => {
    const rms = new CoormRms([{ cid: 'a', nodes: 10 }]);
    const nea = rms.connect(0);
    const pa = value(rms.request(nea, { cid: 'a', n: 10, duration: Infinity, type: 'PA' }, 0));
    const np = value(
      rms.request(nea, { cid: 'a', n: 2, duration: Infinity, type: 'NP', relatedHow: 'COALLOC', relatedTo: pa }, 0),
    );
    const mal = rms.connect(0);
    value(rms.request(mal, { cid: 'a', n: 8, duration: Infinity, type: 'P' }, 0));
    rms.advance(0);
    const up = value(announcedUpdate(rms, nea, np, 7, 60, 10));
    const m = rms.advance(10);
    const malView = m.find((x) => x.type === 'views' && x.session === mal);
    // 8 until 70, then 10 - 7 = 3.
    expect(malView && malView.type === 'views' ? malView.preemptive.get('a')!.steps() : []).toEqual([{ t: 70, v: 3 }]);
    expect(rms.requestSnapshot(up.bridge)).toMatchObject({ startedAt: 10, nodeIds: [0, 1] });
    expect(rms.nextWakeup()).toBe(70);
    // The malleable application complies at 69 by shrinking to 3.
    spontaneousUpdate(rms, mal, 3, 3, 69);
    rms.advance(69);
    const at70 = rms.advance(70);
    // The malleable application kept its lowest IDs 2, 3, 4; the NEA keeps 0, 1 and gets the 5 released.
    expect(at70).toContainEqual({ type: 'started', session: nea, request: up.next, nodeIds: [0, 1, 5, 6, 7, 8, 9] });
    expect(rms.requestSnapshot(up.next)!.startedAt).toBe(70);
  });

  it('answers bad update arguments with errors naming the field', () => {
    const rms = new CoormRms([{ cid: 'a', nodes: 10 }]);
    const s = rms.connect(0);
    const np = value(rms.request(s, { cid: 'a', n: 2, duration: 100, type: 'NP' }, 0));
    rms.advance(0);
    expect(spontaneousUpdate(rms, s, 999, 3, 1)).toMatchObject({ ok: false, errors: [{ path: 'request' }] });
    expect(announcedUpdate(rms, s, np, 3, 0, 1)).toMatchObject({ ok: false, errors: [{ path: 'announceS' }] });
    // 99 s left: an announce of 120 s would outlive the request.
    expect(announcedUpdate(rms, s, np, 3, 120, 1)).toMatchObject({ ok: false, errors: [{ path: 'announceS' }] });
    expect(spontaneousUpdate(rms, s, np, 11, 1)).toMatchObject({ ok: false, errors: [{ path: 'n' }] });
    expect(rms.requestSnapshot(np)).toMatchObject({ n: 2, duration: 100 });
  });

  it('refuses a spontaneous update beyond the pre-allocation without touching the current request', () => {
    const rms = new CoormRms([{ cid: 'a', nodes: 10 }]);
    const s = rms.connect(0);
    value(rms.request(s, { cid: 'a', n: 4, duration: Infinity, type: 'PA' }, 0));
    const np = value(rms.request(s, { cid: 'a', n: 2, duration: Infinity, type: 'NP' }, 0));
    rms.advance(0);
    expect(spontaneousUpdate(rms, s, np, 5, 3)).toMatchObject({ ok: false, errors: [{ path: 'n' }] });
    expect(rms.requestSnapshot(np)).toMatchObject({ n: 2, duration: Infinity });
  });
});

describe('pre-allocation guarantees', () => {
  /** Non-preemptible node counts promised on a cluster now: started requests, whether their IDs came or not. */
  const promised = (rms: CoormRms, cid: string, now: number) => {
    let sum = 0;
    for (const s of rms.sessionIds()) {
      for (const r of rms.sessionSnapshot(s)!.requests)
        if (r.type === 'NP' && r.cid === cid && r.startedAt <= now && now < r.startedAt + r.duration) sum += r.n;
    }
    return sum;
  };

  it("a request inside a pre-allocation never takes the room of the same application's wrapped requests", () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);
    const a = rms.connect(0);
    const b = rms.connect(0);
    rms.advance(0);
    // A wrapped request of 4 first (no pre-allocation yet), then a pre-allocation of 4 and a request filling it.
    value(rms.request(a, { cid: 'c', n: 4, duration: Infinity, type: 'NP' }, 1));
    rms.advance(1);
    value(rms.request(a, { cid: 'c', n: 4, duration: Infinity, type: 'PA' }, 2));
    rms.advance(2);
    const first = value(rms.request(a, { cid: 'c', n: 4, duration: 20, type: 'NP' }, 3));
    rms.advance(3);
    value(rms.request(b, { cid: 'c', n: 2, duration: Infinity, type: 'NP' }, 4));
    rms.advance(4);
    expect(rms.requestSnapshot(first)).toMatchObject({ startedAt: 3, insidePA: true });
    // A second request of 4 inside: the pre-allocation is full until the first ends (the wrapped request's 4 nodes
    // are its own, not room), so it waits for then.
    const second = value(rms.request(a, { cid: 'c', n: 4, duration: 10, type: 'NP' }, 5));
    rms.advance(5);
    expect(rms.requestSnapshot(second)).toMatchObject({ startedAt: NaN, scheduledAt: 23, insidePA: true });
    expect(promised(rms, 'c', 5)).toBe(10);
    expect(rms.advance(23)).toContainEqual({ type: 'started', session: a, request: second, nodeIds: [4, 5, 6, 7] });
  });

  it('a request inside pre-allocations must fit in them over its whole duration, or is refused naming the field', () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);
    const a = rms.connect(0);
    const b = rms.connect(0);
    value(rms.request(b, { cid: 'c', n: 6, duration: 10, type: 'NP' }, 0));
    // Two pre-allocations of 4 for 10 s: the second fits only once b's 6 nodes are back, at 10.
    value(rms.request(a, { cid: 'c', n: 4, duration: 10, type: 'PA' }, 0));
    value(rms.request(a, { cid: 'c', n: 4, duration: 10, type: 'PA' }, 0));
    rms.advance(0);
    // Their sizes add up to 8, but never at once.
    expect(rms.request(a, { cid: 'c', n: 8, duration: 5, type: 'NP' }, 1)).toMatchObject({
      ok: false,
      errors: [{ path: 'n' }],
    });
    // 4 nodes for 25 s outlast them, 4 for 15 s fit across both.
    expect(rms.request(a, { cid: 'c', n: 4, duration: 25, type: 'NP' }, 1)).toMatchObject({
      ok: false,
      errors: [{ path: 'duration' }],
    });
    const across = value(rms.request(a, { cid: 'c', n: 4, duration: 15, type: 'NP' }, 1));
    rms.advance(1);
    expect(rms.requestSnapshot(across)).toMatchObject({ startedAt: 1, nodeIds: [6, 7, 8, 9] });
  });

  it('resizing a started pre-allocation beyond what is free is refused naming n; a resize that fits is served and guaranteed', () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);
    const nea = rms.connect(0);
    const pa = value(rms.request(nea, { cid: 'c', n: 6, duration: Infinity, type: 'PA' }, 0));
    const np = value(
      rms.request(nea, { cid: 'c', n: 2, duration: Infinity, type: 'NP', relatedHow: 'COALLOC', relatedTo: pa }, 0),
    );
    const rigid = rms.connect(0);
    value(rms.request(rigid, { cid: 'c', n: 3, duration: 30, type: 'NP' }, 0));
    rms.advance(0);
    // 10 - 6 - 3: one node is free, so the pre-allocation can grow to 7 but not to 8.
    expect(spontaneousUpdate(rms, nea, pa, 8, 5)).toMatchObject({ ok: false, errors: [{ path: 'n' }] });
    expect(rms.requestSnapshot(pa)).toMatchObject({ n: 6, duration: Infinity, startedAt: 0 });
    const grown = value(spontaneousUpdate(rms, nea, pa, 7, 5));
    rms.advance(5);
    expect(rms.requestSnapshot(grown)).toMatchObject({ startedAt: 5 });
    // Another application asking for the free node meanwhile waits: it is pre-allocated.
    const other = value(rms.request(rigid, { cid: 'c', n: 1, duration: 10, type: 'NP' }, 6));
    // The evolving application grows inside its grown pre-allocation at once.
    const up = value(spontaneousUpdate(rms, nea, np, 7, 6));
    const m = rms.advance(6);
    expect(m).toContainEqual({ type: 'started', session: nea, request: up, nodeIds: [0, 1, 5, 6, 7, 8, 9] });
    expect(rms.requestSnapshot(other)).toMatchObject({ startedAt: NaN, scheduledAt: 30 });
    // An announced growth is checked where it takes effect: the rigid application's 3 nodes are back at 30, and the
    // node it asked for meanwhile is promised from 30 to 40.
    expect(announcedUpdate(rms, nea, grown, 10, 10, 7)).toMatchObject({ ok: false, errors: [{ path: 'n' }] });
    expect(announcedUpdate(rms, nea, grown, 10, 35, 7).ok).toBe(true);
  });

  it('a running request keeps its nodes from others while its application replaces its pre-allocation', () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);
    // The other application connected first: with connection order it would be served first.
    const other = rms.connect(0);
    const nea = rms.connect(0);
    const pa = value(rms.request(nea, { cid: 'c', n: 6, duration: Infinity, type: 'PA' }, 0));
    const np = value(
      rms.request(nea, { cid: 'c', n: 4, duration: Infinity, type: 'NP', relatedHow: 'COALLOC', relatedTo: pa }, 0),
    );
    rms.advance(0);
    const waiting = value(rms.request(other, { cid: 'c', n: 7, duration: Infinity, type: 'NP' }, 5));
    rms.advance(5);
    // The application ends its pre-allocation and asks for a larger one, its request still running.
    rms.done(nea, pa, 6);
    const larger = value(rms.request(nea, { cid: 'c', n: 8, duration: Infinity, type: 'PA' }, 6));
    rms.advance(6);
    // The 4 nodes the request holds are nobody else's: 7 do not fit beside them; the new pre-allocation covers them.
    expect(rms.requestSnapshot(waiting)).toMatchObject({ startedAt: NaN });
    expect(rms.requestSnapshot(larger)).toMatchObject({ startedAt: 6 });
    expect(rms.requestSnapshot(np)).toMatchObject({ nodeIds: [0, 1, 2, 3], insidePA: true });
    expect(promised(rms, 'c', 6)).toBe(4);
  });

  it('a request whose clock waited for its nodes is counted as running past its pre-allocation, so nobody is promised them', () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);
    const squatter = rms.connect(0);
    const nea = rms.connect(0);
    const rigid = rms.connect(0);
    // All 10 nodes go to a preemptible request; a pre-allocation of 4 for 0..40 starts beside it.
    const p = value(rms.request(squatter, { cid: 'c', n: 10, duration: 100, type: 'P' }, 0));
    value(rms.request(nea, { cid: 'c', n: 4, duration: 40, type: 'PA' }, 0));
    rms.advance(0);
    // A request filling the pre-allocation to its end starts at 1, but its nodes are still held preemptibly.
    const np = value(rms.request(nea, { cid: 'c', n: 4, duration: 39, type: 'NP' }, 1));
    const later = value(rms.request(rigid, { cid: 'c', n: 7, duration: 10, type: 'PA' }, 1));
    rms.advance(1);
    expect(rms.requestSnapshot(np)).toMatchObject({ startedAt: 1, nodeIds: [], insidePA: true });
    expect(rms.requestSnapshot(later)).toMatchObject({ scheduledAt: 40 });
    // The nodes come back at 2: the request's 39 s run from then, to 41, one second past its pre-allocation.
    rms.done(squatter, p, 2);
    rms.advance(2);
    expect(rms.requestSnapshot(np)).toMatchObject({ startedAt: 2, nodeIds: [0, 1, 2, 3] });
    // Its 4 nodes are still held at 40: 7 more do not fit on 10 until it ends.
    expect(rms.requestSnapshot(later)).toMatchObject({ scheduledAt: 41 });
  });
});

describe('conservative backfilling', () => {
  it('serves pre-allocations in submission order: a later one never pushes back a reservation already granted', () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);
    const early = rms.connect(0);
    const late = rms.connect(0);
    const busy = rms.connect(0);
    value(rms.request(busy, { cid: 'c', n: 6, duration: 100, type: 'NP' }, 0));
    rms.advance(0);
    const first = value(rms.request(late, { cid: 'c', n: 8, duration: 50, type: 'PA' }, 1));
    rms.advance(1);
    expect(rms.requestSnapshot(first)!.scheduledAt).toBe(100);
    // The application that connected first asks later: it queues behind, and a small one backfills before both.
    const second = value(rms.request(early, { cid: 'c', n: 8, duration: 50, type: 'PA' }, 2));
    const small = value(rms.request(early, { cid: 'c', n: 4, duration: 90, type: 'PA' }, 2));
    rms.advance(2);
    expect([first, second, small].map((id) => rms.requestSnapshot(id)!.scheduledAt)).toEqual([100, 150, 2]);
  });
});

describe('preemptible sharing', () => {
  // A large malleable application holds the whole cluster; a small one asks for 2; a third asks for nothing.
  const run = (preemptibleSharing: 'fill' | 'strict') => {
    const rms = new CoormRms([{ cid: 'a', nodes: 10 }], { preemptibleSharing });
    const large = rms.connect(0);
    const small = rms.connect(0);
    const idle = rms.connect(0);
    const big = value(rms.request(large, { cid: 'a', n: 10, duration: Infinity, type: 'P' }, 0));
    rms.advance(0);
    value(rms.request(small, { cid: 'a', n: 2, duration: Infinity, type: 'P' }, 1));
    rms.advance(1);
    const view = (s: number) => rms.sessionSnapshot(s)!.preemptive!.get('a')!.valueAt(1);
    // What the large one may keep of its 10 nodes.
    return { views: [small, large, idle].map(view), keeps: rms.requestSnapshot(big)!.nAlloc };
  };

  it('fills by default: the large application gets what the small one leaves', () => {
    // Congested (12 > 10): round 1 shares 10 in 3 (one partition for the idle application), round 2 gives the large
    // one the rest.
    expect(run('fill')).toEqual({ views: [3, 8, 3], keeps: 8 });
  });

  it('strict: each gets its equal partition, what the small one leaves stays unused', () => {
    expect(run('strict')).toEqual({ views: [5, 5, 3], keeps: 5 });
    expect(() => new CoormRms([{ cid: 'a', nodes: 1 }], { preemptibleSharing: 'x' as 'strict' })).toThrow(
      /preemptibleSharing/,
    );
  });
});
