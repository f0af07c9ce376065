// Malleability when clusters fill up (issue 11), played message by message against fake managers and applications.
import { describe, expect, it } from 'vitest';
import { grid, harness, malleable, rigid } from '../support/harness.js';

describe('shrinkable processors are only those a job runs above its minimum', () => {
  /** j1 runs at its minimum of 2 on a 10-processor cluster and accepted a grow of 8 that has not started yet. */
  function pendingGrow(policy: 'fpsma' | 'egs') {
    const h = harness(grid({ a: 10 }), { approach: 'pwa', policy });
    h.submit(malleable('j1', 2, 10));
    h.pass();
    h.startAll();
    h.at(1).freed('a', 0); // 8 free: offered to j1
    h.answerGrow(h.apps.growOffers[0]!, 8);
    expect(h.manager('a').grows).toEqual([{ jobId: 'j1', processors: 8 }]); // asked of the manager, not started
    return h;
  }

  it('does not count a grow that has not started as shrinkable, so nothing is asked of a job at its minimum', () => {
    for (const policy of ['fpsma', 'egs'] as const) {
      const h = pendingGrow(policy);
      const j1 = h.scheduler.job('j1')!;
      expect(j1.size).toBe(2);
      expect(j1.shrinkable).toBe(0);
      expect(h.scheduler.clusters[0]!.shrinkable).toBe(0);
      h.at(2).submit(rigid('r', 4)); // 10 - 2 - 8 pending = 0 free; nothing can be shrunk
      h.pass();
      expect(h.apps.shrinkRequests).toEqual([]);
      expect(h.scheduler.job('r')!.state).toBe('queued');
      // Once the grow has started, the 8 are the job's and may be asked back.
      h.growAll();
      expect(j1.shrinkable).toBe(8);
      h.status('a', 0);
      expect(h.apps.shrinkRequests).toEqual([{ offerId: 2, jobId: 'j1', processors: 4, mandatory: true }]);
    }
  });

  it('never asks a job for more than it runs above its minimum', () => {
    const h = harness(grid({ a: 12 }), { approach: 'pwa', policy: 'fpsma' });
    for (const [t, id] of [
      [0, 'j1'],
      [1, 'j2'],
    ] as const) {
      h.at(t).submit(malleable(id, 2, 10));
      h.pass();
      h.startAll();
    }
    h.at(2).freed('a', 0); // 8 free: FPSMA offers them all to j1
    h.answerGrow(h.apps.growOffers[0]!, 6);
    h.answerGrow(h.apps.growOffers[1]!, 2);
    h.growAll(); // j1 at 8, j2 at 4: 12 used
    h.at(3).submit(rigid('r', 5)); // 0 free: 5 to shrink, j2 (latest started) first
    h.pass();
    expect(h.apps.shrinkRequests[0]).toEqual({ offerId: 3, jobId: 'j2', processors: 2, mandatory: true });
    h.answerShrink(h.apps.shrinkRequests[0]!, 2);
    expect(h.apps.shrinkRequests[1]).toEqual({ offerId: 4, jobId: 'j1', processors: 3, mandatory: true });
  });
});

describe('a pass makes progress or stops', () => {
  /**
   * EGS under PWA on a 10-processor cluster, local users holding 2: j1 (started first) runs at 4, j2 at its minimum
   * (and maximum) of 2, 2 idle. r needs 3: one more than idle, so a shrink of 1, which falls on j1 (the only job
   * above its minimum). j1 gives nothing back (an application keeping a size it can run at), the operation ends at
   * once, and the next pass would ask the same again.
   */
  function stuck() {
    // The paper's trigger: growth only when processors come free, so that the poll below is only a placement try.
    const h = harness(grid({ a: 10 }), { approach: 'pwa', policy: 'egs', growthAtPoll: 'freed' });
    h.submit(malleable('j1', 2, 10));
    h.submit(malleable('j2', 2, 2));
    h.pass();
    h.startAll();
    h.at(1).status('a', 4);
    h.at(2).freed('a', 2); // 4 free: 2 offered to j1, j2's share dropped (it is at its maximum)
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'j1', processors: 2 }]);
    h.answerGrow(h.apps.growOffers[0]!, 2);
    h.growAll(); // j1 at 4
    expect(h.scheduler.snapshot()[0]).toMatchObject({ background: 2, nonPreemptible: 4, preemptible: 2, idle: 2 });
    return h;
  }

  it('does not repeat a shrink that freed nothing at the same instant', () => {
    const h = stuck();
    const failed = () => h.ofType('placement.failed').filter((e) => e.jobId === 'r').length;
    h.at(5).submit(rigid('r', 3));
    h.scheduler.advance(5);
    expect(h.apps.shrinkRequests.map((o) => [o.jobId, o.processors])).toEqual([['j1', 1]]);
    h.answerShrink(h.apps.shrinkRequests[0]!, 0);
    h.scheduler.advance(5);
    expect(h.scheduler.job('r')!.state).toBe('queued');
    expect(failed()).toBe(1);
    // Nothing changed: the instant is over, not spun again and again.
    expect(h.scheduler.nextWakeup()).not.toBe(5);
    h.scheduler.advance(5);
    expect(failed()).toBe(1);
    expect(h.apps.shrinkRequests).toHaveLength(1);
    // The next poll tries again, once.
    h.at(60).status('a', 2);
    expect(h.apps.shrinkRequests).toHaveLength(2);
    h.answerShrink(h.apps.shrinkRequests[1]!, 0);
    h.scheduler.advance(60);
    expect(failed()).toBe(2);
    expect(h.scheduler.nextWakeup()).not.toBe(60);
  });

  it('counts at most one failed try per poll, however many passes', () => {
    const h = harness(grid({ a: 10 }), { triesThreshold: 3 });
    h.status('a', 6);
    h.submit(rigid('big', 8)); // its own first try at arrival
    h.scheduler.advance(0);
    const big = h.scheduler.job('big')!;
    expect(big.tries).toBe(1);
    // Passes for other reasons (processors freed by jobs that end) try it again and count nothing.
    for (let t = 1; t <= 20; t++) {
      h.at(t).submit(rigid(`small-${t}`, 1));
      h.scheduler.advance(t);
      h.startAll();
      h.finish(`small-${t}`);
      expect(h.scheduler.job(`small-${t}`)!.state).toBe('completed');
    }
    expect(big.tries).toBe(1);
    expect(h.ofType('placement.failed').filter((e) => e.jobId === 'big')).toHaveLength(1);
    h.at(60).status('a', 6);
    expect(big.tries).toBe(2);
    h.at(61).submit(rigid('small', 1));
    h.scheduler.advance(61);
    h.startAll();
    h.finish('small');
    expect(big.tries).toBe(2);
    h.at(120).status('a', 6);
    expect(big.state).toBe('failed');
    expect(big.transitions.at(-1)!.reason).toMatch(/^placement tries exhausted \(3\)/);
  });
});

describe('what the threshold caps', () => {
  /** A 10-processor cluster with a threshold of 6: a rigid job of 5 and a malleable one at its minimum of 2 run. */
  function filled(thresholdScope: 'all' | 'growth') {
    const h = harness(grid({ a: { processors: 10, threshold: 6 } }), { thresholdScope });
    h.status('a', 0);
    h.submit(rigid('r1', 5));
    h.submit(malleable('m', 2, 10));
    h.pass();
    h.startAll();
    return h;
  }

  it('all: nothing Concertina holds goes past it', () => {
    const h = filled('all');
    expect(h.scheduler.job('m')!.state).toBe('queued'); // 5 + 2 > 6
    h.at(1).submit(rigid('r2', 1));
    h.pass();
    expect(h.scheduler.job('r2')!.state).toBe('claiming'); // 5 + 1 = 6: within it
  });

  it('growth: placements take what local users leave, growth stops at the threshold', () => {
    const h = filled('growth');
    expect(h.scheduler.job('m')!.state).toBe('running'); // placed past the threshold: 7 of 10
    h.at(1).freed('a', 0);
    expect(h.apps.growOffers).toEqual([]); // 7 > 6: no growth
    h.at(2).submit(rigid('r2', 3));
    h.pass();
    expect(h.scheduler.job('r2')!.state).toBe('claiming'); // 10 of 10
  });
});
