// The paper's Figure 8: a non-predictably evolving application (NEA) and a malleable one share a 10-node cluster.
import { describe, expect, it } from 'vitest';
import { CoormRms, spontaneousUpdate, type RmsMessage, type View } from '../../../core/coorm/index.js';

const plainView = (v: View) =>
  Object.fromEntries([...v].map(([cid, f]) => [cid, { initial: f.initial, steps: f.steps().map((s) => [s.t, s.v]) }]));
const plain = (ms: RmsMessage[]) =>
  ms.map((m) =>
    m.type === 'views' ? { ...m, nonPreemptive: plainView(m.nonPreemptive), preemptive: plainView(m.preemptive) } : m,
  );
const flat = (n: number) => ({ c: { initial: n, steps: [] } });
const value = <T>(r: { ok: true; value: T } | { ok: false }): T => {
  if (!r.ok) throw new Error('refused');
  return r.value;
};

describe('Figure 8 interaction', () => {
  it('runs steps 1-15 message by message', () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);

    // 1-2: the NEA connects and gets its views at the next pass: the whole cluster.
    const nea = rms.connect(0);
    expect(rms.nextWakeup()).toBe(0);
    expect(plain(rms.advance(0))).toEqual([
      { type: 'views', session: nea, nonPreemptive: flat(10), preemptive: flat(10) },
    ]);
    expect(rms.nextWakeup()).toBe(Infinity);

    // 3-5: a pre-allocation of 8 and a first non-preemptible request of 2 inside it, started at once.
    const pa = value(rms.request(nea, { cid: 'c', n: 8, duration: Infinity, type: 'PA' }, 1));
    const np = value(
      rms.request(nea, { cid: 'c', n: 2, duration: Infinity, type: 'NP', relatedHow: 'COALLOC', relatedTo: pa }, 1),
    );
    expect(rms.nextWakeup()).toBe(1);
    expect(plain(rms.advance(1))).toEqual([
      { type: 'started', session: nea, request: pa, nodeIds: [] },
      { type: 'started', session: nea, request: np, nodeIds: [0, 1] },
      // Its own pre-allocation stays in its non-preemptive view; 8 are left preemptible.
      { type: 'views', session: nea, nonPreemptive: flat(10), preemptive: flat(8) },
    ]);

    // 6-7: the malleable application connects: 2 left non-preemptibly (the pre-allocation is taken), 8 preemptibly.
    const mal = rms.connect(2);
    expect(plain(rms.advance(2))).toEqual([
      { type: 'views', session: mal, nonPreemptive: flat(2), preemptive: flat(8) },
    ]);

    // 8-9: it asks for its whole preemptive view; the NEA, now idle for preemptible resources, is offered
    // max(8 - 8, floor(8 / 2)) = 4.
    const extra = value(rms.request(mal, { cid: 'c', n: 8, duration: Infinity, type: 'P' }, 3));
    expect(plain(rms.advance(3))).toEqual([
      { type: 'started', session: mal, request: extra, nodeIds: [2, 3, 4, 5, 6, 7, 8, 9] },
      { type: 'views', session: nea, nonPreemptive: flat(10), preemptive: flat(4) },
    ]);

    // 10-11: the NEA grows to 6 inside its pre-allocation (request + done).
    const grown = value(spontaneousUpdate(rms, nea, np, 6, 10));
    expect(rms.nextWakeup()).toBe(10);
    // 12: the malleable application's preemptive view drops to 10 - 6 = 4; the NEA's grown request has started
    // (it holds its resources) but waits for the nodes the malleable application still holds. The NEA, requesting
    // nothing preemptible, is offered the first round's share of the congested 4 nodes: 4 / (1 wanting + 1) = 2
    // (Algorithm 3 lines 12-17: a round serves every r >= 0); the malleable one gets 2 + 2.
    expect(plain(rms.advance(10))).toEqual([
      { type: 'views', session: nea, nonPreemptive: flat(10), preemptive: flat(2) },
      { type: 'views', session: mal, nonPreemptive: flat(2), preemptive: flat(4) },
    ]);
    expect(rms.requestSnapshot(grown)).toMatchObject({ startedAt: 10, awaitingIds: true, nodeIds: [0, 1] });

    // 13-14: the malleable application frees 4 nodes (its own update, naming the IDs it releases).
    const shrunk = value(spontaneousUpdate(rms, mal, extra, 4, 10.5));
    // Coalesced: the next pass is one re-scheduling interval after the last one.
    expect(rms.nextWakeup()).toBe(11);
    expect(rms.advance(10.9)).toEqual([]);
    // 15: the RMS gives those nodes to the NEA; the malleable application goes on with the 4 it kept.
    expect(plain(rms.advance(11))).toEqual([
      { type: 'started', session: nea, request: grown, nodeIds: [0, 1, 6, 7, 8, 9] },
      { type: 'started', session: mal, request: shrunk, nodeIds: [2, 3, 4, 5] },
    ]);
    expect(rms.freeNodeIds('c')).toEqual([]);
    expect(rms.nextWakeup()).toBe(Infinity);
  });

  it('kills the malleable application when it keeps the nodes its view took back', () => {
    const rms = new CoormRms([{ cid: 'c', nodes: 10 }]);
    const nea = rms.connect(0);
    const pa = value(rms.request(nea, { cid: 'c', n: 8, duration: Infinity, type: 'PA' }, 0));
    const np = value(
      rms.request(nea, { cid: 'c', n: 2, duration: Infinity, type: 'NP', relatedHow: 'COALLOC', relatedTo: pa }, 0),
    );
    const mal = rms.connect(0);
    value(rms.request(mal, { cid: 'c', n: 8, duration: Infinity, type: 'P' }, 0));
    rms.advance(0);
    const grown = value(spontaneousUpdate(rms, nea, np, 6, 10));
    rms.advance(10); // view pushed: 4; the application ignores it
    expect(rms.nextWakeup()).toBe(11); // the grace of one re-scheduling interval
    const messages = rms.advance(11);
    expect(messages[0]).toMatchObject({ type: 'killed', session: mal });
    expect(messages[1]).toEqual({ type: 'started', session: nea, request: grown, nodeIds: [0, 1, 2, 3, 4, 5] });
    expect(rms.sessionIds()).toEqual([nea]);
    expect(rms.done(mal, 3, 12)).toMatchObject({ ok: false, errors: [{ path: 'session' }] });
  });
});
