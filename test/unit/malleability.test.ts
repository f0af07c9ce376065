// FPSMA and EGS (KOALA paper, Figs. 4 and 5) played message by message against fake applications.
import { describe, expect, it } from 'vitest';
import { grid, harness, malleable, rigid } from '../support/harness.js';

/** Three malleable jobs started one after another on a 20-processor cluster, each at its initial size 2. */
function threeRunning(policy: 'fpsma' | 'egs', approach: 'pra' | 'pwa' = 'pra', max = 10) {
  const h = harness(grid({ a: 20 }), { policy, approach });
  for (const [t, id] of [
    [0, 'j1'],
    [1, 'j2'],
    [2, 'j3'],
  ] as const) {
    h.at(t).submit(malleable(id, 2, max));
    h.pass();
    h.startAll();
  }
  return h;
}

describe('FPSMA grow', () => {
  it('offers everything to the earliest started job, then the rest to the next, and stops at zero', () => {
    const h = threeRunning('fpsma');
    h.at(3).freed('a', 0); // a poll sees processors freed by local users: growth is due with 20 - 3*2 = 14 free
    // FPSMA offers all 14 to j1; the message names only what j1 may take (8, to its max 10).
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'j1', processors: 8 }]);
    h.answerGrow(h.apps.growOffers[0]!, 8); // j1 reaches its max of 10
    expect(h.apps.growOffers[1]).toMatchObject({ jobId: 'j2', processors: 6 }); // 14 - 8
    h.answerGrow(h.apps.growOffers[1]!, 6);
    expect(h.apps.growOffers).toHaveLength(2); // growValue reached 0: j3 is not asked
    expect(h.manager('a').grows).toEqual([
      { jobId: 'j1', processors: 8 },
      { jobId: 'j2', processors: 6 },
    ]);
  });

  it('passes what a job declines on to the next one (FT keeping a power of two)', () => {
    const h = threeRunning('fpsma');
    h.at(3).freed('a', 0);
    h.answerGrow(h.apps.growOffers[0]!, 6); // FT at 2 offered 14 keeps 8: takes 6
    expect(h.apps.growOffers[1]).toMatchObject({ jobId: 'j2', processors: 8 });
    h.answerGrow(h.apps.growOffers[1]!, 0); // declined
    expect(h.apps.growOffers[2]).toMatchObject({ jobId: 'j3', processors: 8 });
  });

  it('never lets a job take more than offered nor beyond its maximum', () => {
    const h = threeRunning('fpsma');
    h.at(3).freed('a', 0);
    h.answerGrow(h.apps.growOffers[0]!, 50); // answers more than offered and than max 10
    expect(h.manager('a').grows[0]).toEqual({ jobId: 'j1', processors: 8 });
    expect(h.ofType('grow.answered')[0]!.accepted).toBe(8);
    expect(h.ofType('grow.answered')[0]!.answered).toBe(50); // the application's own answer, kept beside it
  });
});

describe('FPSMA shrink (PWA)', () => {
  function grown() {
    const h = threeRunning('fpsma', 'pwa');
    // Grow each job to 6: 18 of 20 used.
    h.at(3).freed('a', 0);
    h.answerGrow(h.apps.growOffers[0]!, 4);
    h.answerGrow(h.apps.growOffers[1]!, 4);
    h.answerGrow(h.apps.growOffers[2]!, 4);
    h.growAll();
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 6, preemptible: 12, idle: 2 });
    return h;
  }

  it('asks the latest started job first and waits for its release before asking the next', () => {
    const h = grown();
    h.at(10).submit(rigid('r', 9)); // needs 9, 2 idle: shrink 7, of which j3 runs 4 above its minimum
    h.pass();
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 4, jobId: 'j3', processors: 4, mandatory: true }]);
    h.answerShrink(h.apps.shrinkRequests[0]!, 4, false); // j3 can give 4 (down to its min 2) but has not let go yet
    expect(h.apps.shrinkRequests).toHaveLength(1);
    h.scheduler.receive({ type: 'released', jobId: 'j3', processors: 4, offerId: 4 }, 10);
    expect(h.apps.shrinkRequests[1]).toMatchObject({ jobId: 'j2', processors: 3, mandatory: true });
    h.answerShrink(h.apps.shrinkRequests[1]!, 3);
    h.scheduler.advance(10);
    expect(h.scheduler.job('r')!.state).toBe('claiming'); // placed on the released processors
    expect(h.manager('a').submitted.at(-1)).toMatchObject({ jobId: 'r', processors: 9 });
    expect(h.manager('a').shrinks).toEqual([
      { jobId: 'j3', processors: 4 },
      { jobId: 'j2', processors: 3 },
    ]);
  });

  it('stops as soon as a job released more than asked (FT keeps a power of two)', () => {
    const h = grown();
    h.at(10).submit(rigid('r', 5)); // 2 idle: shrink 3
    h.pass();
    h.answerShrink(h.apps.shrinkRequests[0]!, 4); // 6 - 3 = 3 -> FT keeps 2, releases 4
    expect(h.apps.shrinkRequests).toHaveLength(1);
    h.scheduler.advance(10);
    expect(h.scheduler.job('r')!.state).toBe('claiming');
  });

  it('never takes a job below its minimum, whatever it answers', () => {
    const h = grown();
    h.at(10).submit(rigid('r', 6));
    h.pass();
    h.answerShrink(h.apps.shrinkRequests[0]!, 6, false); // j3 holds 6 with min 2: at most 4
    expect(h.ofType('shrink.answered')[0]!.accepted).toBe(4);
  });
});

describe('EGS', () => {
  it('grows every job by an equal share, the remainder as a bonus to the earliest started', () => {
    const h = threeRunning('egs');
    h.at(3).freed('a', 0); // 14 free over 3 jobs: 4 each, remainder 2 -> j1 and j2 get 5
    for (const a of [5, 5, 4]) h.answerGrow(h.apps.growOffers.at(-1)!, a);
    expect(h.apps.growOffers.map((o) => [o.jobId, o.processors])).toEqual([
      ['j1', 5],
      ['j2', 5],
      ['j3', 4],
    ]);
  });

  it('sends no offer of zero when there are more jobs than processors', () => {
    const h = threeRunning('egs');
    h.at(3).freed('a', 12); // background 12: 20 - 12 - 6 = 2 free over 3 jobs -> 1, 1, 0
    h.answerGrow(h.apps.growOffers[0]!, 1);
    h.answerGrow(h.apps.growOffers[1]!, 1);
    expect(h.apps.growOffers.map((o) => [o.jobId, o.processors])).toEqual([
      ['j1', 1],
      ['j2', 1],
    ]);
  });

  it('shrinks every job by an equal share, the remainder as a malus on the latest started, and waits for all releases', () => {
    const h = threeRunning('egs', 'pwa');
    h.at(3).freed('a', 0);
    for (const a of [5, 5, 4]) h.answerGrow(h.apps.growOffers.at(-1)!, a); // sizes 7, 7, 6: 20 used
    h.growAll();
    h.at(10).submit(rigid('r', 8)); // 0 idle: shrink 8 = 2 each, remainder 2 -> j3 and j2 give 3
    h.pass();
    for (const a of [3, 3, 2]) h.answerShrink(h.apps.shrinkRequests.at(-1)!, a, false);
    expect(h.apps.shrinkRequests.map((o) => [o.jobId, o.processors])).toEqual([
      ['j3', 3],
      ['j2', 3],
      ['j1', 2],
    ]);
    // All three were asked before any release; r waits until every release is in.
    h.scheduler.receive(
      { type: 'released', jobId: 'j3', processors: 3, offerId: h.apps.shrinkRequests[0]!.offerId },
      10,
    );
    h.scheduler.receive(
      { type: 'released', jobId: 'j2', processors: 3, offerId: h.apps.shrinkRequests[1]!.offerId },
      10,
    );
    h.scheduler.advance(10);
    expect(h.scheduler.job('r')!.state).toBe('queued');
    h.scheduler.receive(
      { type: 'released', jobId: 'j1', processors: 2, offerId: h.apps.shrinkRequests[2]!.offerId },
      10,
    );
    h.scheduler.advance(10);
    expect(h.scheduler.job('r')!.state).toBe('claiming');
  });

  /** j1 (2..10), j2 (2..3) and j3 (2..2) started in that order on 20 processors, then 14 freed for growth. */
  function unevenRoom() {
    const h = harness(grid({ a: 20 }), { policy: 'egs', approach: 'pwa' });
    for (const [t, id, max] of [
      [0, 'j1', 10],
      [1, 'j2', 3],
      [2, 'j3', 2],
    ] as const) {
      h.at(t).submit(malleable(id, 2, max));
      h.pass();
      h.startAll();
    }
    h.at(3).freed('a', 0);
    return h;
  }

  it('shares a mandatory shrink among the jobs above their minimum, asking again for what a share could not give', () => {
    const h = unevenRoom(); // 14 over three jobs: 5, 5, 4 offered; j2 is told only the 1 it may take, j3 nothing
    for (const a of [5, 1]) h.answerGrow(h.apps.growOffers.at(-1)!, a); // sizes 7, 3, 2: 8 idle
    h.growAll();
    h.at(10).submit(rigid('r', 12)); // 4 to reclaim from j2 (1 above its min) and j1 (5): 2 each, j2 gives its 1
    h.pass();
    for (const a of [1, 2, 1]) h.answerShrink(h.apps.shrinkRequests.at(-1)!, a, true);
    expect(h.apps.shrinkRequests.map((o) => [o.jobId, o.processors])).toEqual([
      ['j2', 1],
      ['j1', 2],
      ['j1', 1],
    ]);
    h.scheduler.advance(10);
    expect(h.scheduler.job('r')!.state).toBe('claiming');
  });
});

describe('answers that come late', () => {
  it('keeps offered processors from other jobs until the answer arrives, then places with what was declined', () => {
    const h = harness(grid({ a: 10 }), { policy: 'fpsma', approach: 'pra' });
    h.submit(malleable('m', 2, 8));
    h.pass();
    h.startAll();
    h.at(5).freed('a', 0); // offer 8 to m
    h.at(6).submit(rigid('r', 4));
    h.pass();
    expect(h.scheduler.job('r')!.state).toBe('queued'); // the 8 are on offer: running jobs first (PRA)
    h.at(30).answerGrow(h.apps.growOffers[0]!, 0); // declined, much later
    h.scheduler.advance(30);
    expect(h.scheduler.job('r')!.state).toBe('claiming');
  });
});

describe('a grow operation in progress', () => {
  it('keeps all it will offer from waiting jobs until it ends, then hands back what was not taken', () => {
    const h = harness(grid({ a: 16 }), { policy: 'egs', approach: 'pra' });
    for (const id of ['j1', 'j2']) {
      h.submit(malleable(id, 1, 8, { initial: 1 }));
      h.pass();
      h.startAll();
    }
    h.at(1).freed('a', 0); // 14 free: EGS offers 7 to j1, then 7 to j2
    h.at(2).submit(rigid('r', 6));
    h.scheduler.advance(2);
    expect(h.scheduler.job('r')!.state).toBe('queued'); // the 14 are set aside for the operation
    h.answerGrow(h.apps.growOffers[0]!, 1); // j1 takes 1 of its 7
    h.scheduler.advance(2);
    expect(h.scheduler.job('r')!.state).toBe('queued'); // j2's 7 are still set aside
    h.answerGrow(h.apps.growOffers[1]!, 7);
    h.scheduler.advance(2);
    // 16 = 2 + 1 + 7 + 6: the 6 that j1 left go to r once the operation has ended, and never more than 16 in all.
    expect(h.scheduler.job('r')!.state).toBe('claiming');
    const [a] = h.scheduler.snapshot();
    expect(a!.nonPreemptible + a!.preemptible).toBe(16);
    expect(a!.earmarked).toBe(0);
  });
});

describe('voluntary release', () => {
  it('tells the manager and frees the processors for waiting jobs', () => {
    const h = harness(grid({ a: 10 }), { approach: 'pwa' });
    h.submit(malleable('m', 2, 10, { initial: 10 }));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('r', 3));
    // PWA would shrink m; the application lets 4 go on its own first.
    h.scheduler.receive({ type: 'released', jobId: 'm', processors: 4 }, 1);
    h.scheduler.advance(1);
    expect(h.manager('a').shrinks).toEqual([{ jobId: 'm', processors: 4 }]);
    expect(h.ofType('job.shrunk')[0]).toMatchObject({ jobId: 'm', processors: 4, size: 6, voluntary: true });
    expect(h.scheduler.job('r')!.state).toBe('claiming');
  });
});

describe('threshold', () => {
  it('never grows Concertina past the per-cluster threshold', () => {
    const h = harness(grid({ a: { processors: 20, threshold: 12 } }));
    h.submit(malleable('m', 2, 20));
    h.pass();
    h.startAll();
    h.at(1).freed('a', 0);
    expect(h.apps.growOffers[0]!.processors).toBe(10); // 12 - 2, although 18 are idle
  });

  it('refuses a job larger than any threshold', () => {
    const h = harness(grid({ a: { processors: 20, threshold: 12 } }));
    const r = h.scheduler.submit(rigid('big', 13), 0);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toEqual({
        path: 'components[0].processors',
        message: 'is larger than every cluster (13 > 12)',
      });
  });
});
