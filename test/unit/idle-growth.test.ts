// Growth on an idle cluster (issue 12, part 4): at each poll, processors free for growth are offered to running
// malleable jobs below their caps by the active policy, as at a release; not again for the very processors they
// declined; and not at all with the KOALA paper's trigger (`growthAtPoll: 'freed'`: only processors local users gave back).
import { describe, expect, it } from 'vitest';
import { grid, harness, malleable, rigid } from '../support/harness.js';

describe('growth at a poll of an idle cluster', () => {
  it('grows a malleable job alone on an empty cluster at the next poll, with nothing released', () => {
    const h = harness(grid({ a: 20 }), { policy: 'fpsma', approach: 'pra' });
    h.submit(malleable('ft', 2, 8));
    h.pass();
    h.startAll();
    expect(h.apps.growOffers).toEqual([]); // starting frees nothing
    h.at(10).status('a', 0); // a poll: nothing changed, 18 idle
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'ft', processors: 6 }]); // FPSMA's 18, cut to 8 - 2
    h.answerGrow(h.apps.growOffers[0]!, 6);
    h.growAll();
    expect(h.scheduler.job('ft')!.size).toBe(8);
    h.at(20).status('a', 0); // at its max: nothing more is offered
    expect(h.apps.growOffers).toHaveLength(1);
  });

  it('does not offer again what the jobs declined, until what is free or what they could take changes', () => {
    const h = harness(grid({ a: 20 }), { policy: 'fpsma', approach: 'pra' });
    h.submit(rigid('r', 13));
    h.submit(malleable('ft', 2, 8, { initial: 4 }));
    h.pass();
    h.startAll();
    h.at(10).status('a', 0); // 3 idle: offered, and declined (FT at 4 cannot run at 5, 6 or 7)
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'ft', processors: 3 }]);
    h.answerGrow(h.apps.growOffers[0]!, 0);
    h.at(20).status('a', 0);
    h.at(30).status('a', 0);
    expect(h.apps.growOffers).toHaveLength(1);
    h.at(40).status('a', 1); // a local user took one: 2 idle, asked again
    expect(h.apps.growOffers[1]).toMatchObject({ jobId: 'ft', processors: 2 });
  });

  it('keeps the threshold: nothing is offered when Concertina already holds its share', () => {
    const h = harness(grid({ a: { processors: 20, threshold: 4 } }), { policy: 'fpsma', approach: 'pra' });
    h.submit(malleable('m', 2, 8, { initial: 4 }));
    h.pass();
    h.startAll();
    h.at(10).status('a', 0);
    expect(h.apps.growOffers).toEqual([]);
  });

  it("with the paper's trigger, only processors local users gave back make growth due", () => {
    const h = harness(grid({ a: 20 }), { policy: 'fpsma', approach: 'pra', growthAtPoll: 'freed' });
    h.submit(malleable('ft', 2, 8));
    h.pass();
    h.startAll();
    h.at(10).status('a', 0);
    h.at(20).status('a', 0);
    expect(h.apps.growOffers).toEqual([]);
    h.at(30).freed('a', 0);
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'ft', processors: 6 }]);
  });
});
