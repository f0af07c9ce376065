// An operator's grow and shrink of one malleable job, played message by message: the same offers, requests and
// releases as the policies' operations, alone on their cluster, within max, min, threshold and what is free.
import { describe, expect, it } from 'vitest';
import { grid, harness, malleable, rigid } from '../support/harness.js';

/** Two malleable jobs (2..10) running at size 2 on a 20-processor cluster; growth is not due. */
function twoRunning(approach: 'pra' | 'pwa' = 'pra', clusters: Parameters<typeof grid>[0] = { a: 20 }) {
  const h = harness(grid(clusters), { policy: 'fpsma', approach });
  for (const [t, id] of [
    [0, 'j1'],
    [1, 'j2'],
  ] as const) {
    h.at(t).submit(malleable(id, 2, 10));
    h.pass();
    h.startAll();
  }
  return h;
}

const errorOf = (r: { ok: boolean; errors?: Array<{ path: string; message: string }> }) =>
  r.ok ? undefined : r.errors![0];

describe('operator grow', () => {
  it("offers the named job the processors asked for, marked as the operator's, and grants what it takes", () => {
    const h = twoRunning();
    const r = h.scheduler.resize('j2', 5, h.now);
    expect(r).toEqual({ ok: true, value: { jobId: 'j2', cluster: 'a', processors: 5, direction: 'grow' } });
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'j2', processors: 5 }]);
    expect(h.ofType('grow.offered')[0]).toMatchObject({ jobId: 'j2', cluster: 'a', processors: 5, operator: true });
    // The offered processors are set aside from the start, as for a policy's grow.
    expect(h.scheduler.snapshot()[0]!.earmarked).toBe(5);
    h.answerGrow(h.apps.growOffers[0]!, 4);
    expect(h.ofType('grow.answered')[0]).toMatchObject({ jobId: 'j2', accepted: 4, operator: true });
    expect(h.manager('a').grows).toEqual([{ jobId: 'j2', processors: 4 }]);
    h.growAll();
    expect(h.scheduler.job('j2')!.size).toBe(6);
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 4, preemptible: 4, earmarked: 0 });
  });

  it('cuts the offer to what is free for growth under the threshold', () => {
    const h = twoRunning('pra', { a: { processors: 20, threshold: 9 } });
    expect(h.scheduler.resize('j1', 8, h.now)).toMatchObject({ ok: true, value: { processors: 5 } }); // 9 - 2 - 2
    expect(h.apps.growOffers[0]).toMatchObject({ jobId: 'j1', processors: 5 });
  });

  it('leaves processors set aside for a waiting job (PWA) out of what it offers', () => {
    const h = harness(grid({ a: 10 }), { policy: 'fpsma', approach: 'pwa' });
    h.submit(malleable('j1', 2, 10));
    h.pass();
    h.startAll();
    h.at(1).submit(malleable('j2', 2, 10, { initial: 4 }));
    h.pass();
    h.startAll();
    h.at(2).submit(rigid('r', 6)); // 4 free: PWA sets 6 aside for r and asks j2 to give back 2
    h.pass();
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 1, jobId: 'j2', processors: 2, mandatory: true }]);
    h.answerShrink(h.apps.shrinkRequests[0]!, 0); // j2 refuses: the operation ends, r keeps its share
    expect(errorOf(h.scheduler.resize('j1', 2, h.now))).toEqual({
      path: 'delta',
      message: 'no processors are free for growth on a',
    });
  });

  it("refuses a grow beyond the job's maximum, naming how far it may go", () => {
    const h = twoRunning();
    expect(errorOf(h.scheduler.resize('j1', 9, h.now))).toEqual({
      path: 'delta',
      message: 'would take job j1 beyond its maximum (2 of max 10: grow by 8 at most)',
    });
    expect(h.apps.growOffers).toEqual([]);
  });

  it('runs alone on its cluster: refused while another operation is under way there', () => {
    const h = twoRunning();
    h.scheduler.resize('j1', 2, h.now);
    expect(errorOf(h.scheduler.resize('j2', 2, h.now))).toEqual({
      path: 'jobId',
      message: 'cluster a is busy with another grow or shrink operation; try again when it ends',
    });
    h.answerGrow(h.apps.growOffers[0]!, 2);
    expect(h.scheduler.resize('j2', 2, h.now).ok).toBe(true);
  });

  it('keeps the cluster from policy growth while it runs, then lets the policy have what the job declined', () => {
    const h = twoRunning();
    h.scheduler.resize('j1', 6, h.now);
    h.at(5).freed('a', 0); // growth is due, but the cluster is busy with the operator's offer
    expect(h.apps.growOffers).toHaveLength(1);
    h.answerGrow(h.apps.growOffers[0]!, 0);
    h.pass(); // the policy (FPSMA) offers all that is free (16) to the oldest job, cut to its room (10 - 2)
    expect(h.apps.growOffers[1]).toMatchObject({ jobId: 'j1', processors: 8 });
    expect(h.ofType('grow.offered')[1]!.operator).toBeUndefined();
  });
});

describe('operator shrink', () => {
  function grown() {
    const h = twoRunning();
    h.at(3).freed('a', 0); // FPSMA offers 16 to j1, which takes 8 (to its max 10); j2 takes the other 8
    h.answerGrow(h.apps.growOffers[0]!, 8);
    h.answerGrow(h.apps.growOffers[1]!, 8);
    h.growAll();
    expect(h.scheduler.job('j1')!.size).toBe(10);
    return h;
  }

  it('asks the job to give back the processors, mandatorily, and waits for the release', () => {
    const h = grown();
    expect(h.scheduler.resize('j1', -5, h.now)).toEqual({
      ok: true,
      value: { jobId: 'j1', cluster: 'a', processors: 5, direction: 'shrink' },
    });
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 3, jobId: 'j1', processors: 5, mandatory: true }]);
    expect(h.ofType('shrink.requested')[0]).toMatchObject({ operator: true, mandatory: true });
    h.answerShrink(h.apps.shrinkRequests[0]!, 5, false);
    expect(h.ofType('shrink.answered')[0]).toMatchObject({ accepted: 5, operator: true });
    // Agreed, not yet released: still one operation on the cluster.
    expect(errorOf(h.scheduler.resize('j2', -1, h.now))?.message).toMatch(/busy/);
    h.scheduler.receive({ type: 'released', jobId: 'j1', processors: 5, offerId: 3 }, h.now);
    expect(h.manager('a').shrinks).toEqual([{ jobId: 'j1', processors: 5 }]);
    expect(h.scheduler.job('j1')!.size).toBe(5);
    expect(h.scheduler.resize('j2', -1, h.now).ok).toBe(true);
  });

  it("refuses a shrink below the job's minimum, naming how far it may go", () => {
    const h = grown();
    expect(errorOf(h.scheduler.resize('j2', -9, h.now))).toEqual({
      path: 'delta',
      message: 'would take job j2 below its minimum (10 of min 2: shrink by 8 at most)',
    });
    expect(h.apps.shrinkRequests).toEqual([]);
  });

  it('sticks: the policy does not grow the job straight back, until an operator grows it', () => {
    const h = grown();
    h.scheduler.resize('j1', -6, h.now);
    h.answerShrink(h.apps.shrinkRequests[0]!, 6);
    h.pass(); // 6 came free: growth is due; PRA offers them, but not to j1 (capped at 4) and j2 is at its max
    expect(h.apps.growOffers).toHaveLength(2);
    expect(h.scheduler.job('j1')!.growable).toBe(0);
    expect(h.scheduler.resize('j1', 3, h.now).ok).toBe(true); // the operator lifts the cap
    h.answerGrow(h.apps.growOffers[2]!, 3);
    h.growAll();
    h.at(10).freed('a', 0);
    expect(h.apps.growOffers.at(-1)).toMatchObject({ jobId: 'j1', processors: 3 }); // up to its max again
  });
});

describe('operator shrink of an application that gives back more than asked', () => {
  /** An FT-like job (2..8) grown to 8 on a 20-processor cluster, alone. */
  function ftAt8() {
    const h = harness(grid({ a: 20 }), { policy: 'fpsma', approach: 'pra' });
    h.submit(malleable('ft', 2, 8));
    h.pass();
    h.startAll();
    h.at(1).freed('a', 0);
    h.answerGrow(h.apps.growOffers.at(-1)!, 6);
    h.growAll();
    expect(h.scheduler.job('ft')!.size).toBe(8);
    return h;
  }

  it('caps the job at the size it keeps after the release (8 shrunk by 1 gives back 4: cap 4, never 7)', () => {
    const h = ftAt8();
    const offers = h.apps.growOffers.length;
    expect(h.scheduler.resize('ft', -1, h.now).ok).toBe(true);
    expect(h.apps.shrinkRequests.at(-1)).toMatchObject({ jobId: 'ft', processors: 1, mandatory: true });
    h.answerShrink(h.apps.shrinkRequests.at(-1)!, 4); // keeps a power of two: 8 - 1 = 7 → 4
    const job = h.scheduler.job('ft')!;
    // The record says what the application said.
    expect(h.ofType('shrink.answered').at(-1)).toMatchObject({ jobId: 'ft', accepted: 4, operator: true });
    expect(h.ofType('shrink.answered').at(-1)!.answered).toBeUndefined();
    expect(job.size).toBe(4);
    expect(job.cap).toBe(4); // 8 - 4, not 8 - 1
    expect(job.growable).toBe(0);
    // 4 came free and more at the next polls: the policy does not offer the job anything, so it stays at 4.
    h.at(2).freed('a', 0);
    h.at(3).status('a', 0);
    expect(h.apps.growOffers).toHaveLength(offers);
    expect(job.size).toBe(4);
  });

  it('offers a job below its cap no more than it may take, so its answer is never cut', () => {
    const h = harness(grid({ a: 20 }), { policy: 'fpsma', approach: 'pra' });
    h.submit(malleable('g', 2, 10, { initial: 10 }));
    h.pass();
    h.startAll();
    h.scheduler.resize('g', -4, h.now);
    h.answerShrink(h.apps.shrinkRequests.at(-1)!, 4);
    const job = h.scheduler.job('g')!;
    expect(job.cap).toBe(6);
    // It lets 2 go on its own: at 4, 2 below its cap; 16 are free for growth.
    h.scheduler.receive({ type: 'released', jobId: 'g', processors: 2 }, h.now);
    h.at(5).freed('a', 0);
    expect(h.apps.growOffers.at(-1)).toMatchObject({ jobId: 'g', processors: 2 }); // FPSMA's 16, cut to 6 - 4
    h.answerGrow(h.apps.growOffers.at(-1)!, 2);
    expect(h.ofType('grow.answered').at(-1)).toEqual({
      type: 'grow.answered',
      jobId: 'g',
      offerId: h.apps.growOffers.at(-1)!.offerId,
      accepted: 2,
      t: 5,
    });
    h.growAll();
    expect(job.size).toBe(6);
  });

  it("keeps the application's own answer beside what was taken when it answers more than it was offered", () => {
    const h = ftAt8();
    h.scheduler.resize('ft', -1, h.now);
    h.answerShrink(h.apps.shrinkRequests.at(-1)!, 4);
    h.scheduler.resize('ft', 2, h.now); // the operator lifts the cap, offering 2
    h.answerGrow(h.apps.growOffers.at(-1)!, 4); // a misbehaving application takes 4
    expect(h.ofType('grow.answered').at(-1)).toMatchObject({ accepted: 2, answered: 4, operator: true });
  });
});

describe('operator resize refused', () => {
  it('for a job that is unknown, not malleable, not running, or a delta of 0', () => {
    const h = twoRunning('pra', { a: 20 });
    h.at(2).submit(rigid('r', 2));
    h.pass();
    h.startAll();
    h.at(3).submit(malleable('q', 19, 20)); // 14 free: it waits
    h.pass();
    expect(errorOf(h.scheduler.resize('nope', 1, h.now))).toEqual({ path: 'jobId', message: 'names no job ("nope")' });
    expect(errorOf(h.scheduler.resize('r', 1, h.now))).toEqual({
      path: 'jobId',
      message: 'job r is not malleable (it is rigid)',
    });
    expect(errorOf(h.scheduler.resize('q', 1, h.now))).toEqual({
      path: 'jobId',
      message: 'job q is not running (it is queued)',
    });
    expect(errorOf(h.scheduler.resize('j1', 0, h.now))).toEqual({
      path: 'delta',
      message: 'must be a whole number other than 0',
    });
    expect(errorOf(h.scheduler.resize('j1', 1.5, h.now))).toEqual({
      path: 'delta',
      message: 'must be a whole number other than 0',
    });
    h.finish('j1');
    expect(errorOf(h.scheduler.resize('j1', 1, h.now))).toEqual({
      path: 'jobId',
      message: 'job j1 is not running (it is completed)',
    });
  });
});
