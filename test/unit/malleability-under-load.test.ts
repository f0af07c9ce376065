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
    for (const [t, id] of [[0, 'j1'], [1, 'j2']] as const) {
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
