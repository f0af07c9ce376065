// A granted grow whose local jobs never run (the batch system fails or cancels them: the manager answers growFailed):
// the processors go back to the cluster, and the application hears of it, instead of waiting for them forever. An
// evolving job's update is refused (with why) once none of it is on its way, after the size it reached; a malleable
// job is told what each grant comes to (`granted`), so that its target is what it holds and it takes offers again.
import { describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { grid, harness, malleable } from '../support/harness.js';

const evolving = (id: string, min: number, max: number, initial: number): JobSpecInput => ({
  id,
  kind: 'evolving',
  components: [{ min, max, initial, program: 'amr' }],
});

const reason = 'member 3 (4713) failed: local state failed (exit status 3)';

/** Evolving e (2..8, at 2) alone on 10 processors, with the application's update to 6 asked of the manager. */
function updating(options: { policy?: string } = {}) {
  const h = harness(grid({ a: 10 }), options);
  h.submit(evolving('e', 2, 8, 2));
  h.pass();
  h.startAll();
  h.scheduler.receive({ type: 'update', jobId: 'e', processors: 6 }, 0);
  h.scheduler.advance(0);
  expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
  const from = (message: { type: 'grown' | 'growFailed'; processors: number }) => {
    h.scheduler.receive(
      message.type === 'grown'
        ? { type: 'grown', cluster: 'a', jobId: 'e', processors: message.processors }
        : { type: 'growFailed', cluster: 'a', jobId: 'e', processors: message.processors, reason },
      h.now,
    );
    h.scheduler.advance(h.now);
  };
  return { h, from, job: h.scheduler.job('e')! };
}

describe("an evolving job's update whose grow fails", () => {
  it('is refused with the reason, after its size, when none of its processors come', () => {
    const { h, from, job } = updating();
    h.at(5);
    from({ type: 'growFailed', processors: 4 });
    expect([job.size, job.pendingGrow, job.held]).toEqual([2, 0, 2]);
    expect(h.apps.sizes.get('e')).toBe(2);
    expect(h.apps.refusals).toEqual([{ jobId: 'e', reason: `its grow failed: ${reason}` }]);
    expect(h.ofType('evolve.refused')).toMatchObject([{ t: 5, jobId: 'e', reason: `its grow failed: ${reason}` }]);
    expect(h.ofType('job.evolved').at(-1)).toMatchObject({ t: 5, size: 2, preallocation: 8 });
    // Asked again, the update is served as any other.
    h.scheduler.receive({ type: 'update', jobId: 'e', processors: 6 }, 6);
    h.scheduler.advance(6);
    expect(h.manager('a').grows.at(-1)).toEqual({ jobId: 'e', processors: 4 });
  });

  // Of 4, one fails first and 3 come later: it hears once, when the last is settled: size 5, then the refusal.
  it('is told once the rest of the update is settled: the size it reached, then the refusal', () => {
    const { h, from, job } = updating();
    h.at(5);
    from({ type: 'growFailed', processors: 1 });
    expect(h.apps.sizes.has('e')).toBe(false);
    expect(h.apps.refusals).toEqual([]);
    h.at(8);
    from({ type: 'grown', processors: 3 });
    expect([job.size, job.pendingGrow]).toEqual([5, 0]);
    expect(h.apps.sizes.get('e')).toBe(5);
    expect(h.apps.refusals).toEqual([{ jobId: 'e', reason: `its grow failed: ${reason}` }]);
    expect(h.ofType('evolve.refused')).toHaveLength(1);
  });

  it('tells a job granted its request by dbes (no pre-allocation) the same way', () => {
    const h = harness(grid({ a: 10 }), { policy: 'dbes' });
    h.submit(evolving('e', 2, 8, 2));
    h.pass();
    h.startAll();
    const job = h.scheduler.job('e')!;
    expect(job.preallocating).toBe(false);
    h.scheduler.receive({ type: 'update', jobId: 'e', processors: 5 }, 0);
    h.pass();
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 3 }]);
    h.scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'e', processors: 3, reason }, 1);
    h.at(1).scheduler.advance(1);
    expect([job.size, job.held]).toEqual([2, 2]);
    expect(h.apps.refusals).toEqual([{ jobId: 'e', reason: `its grow failed: ${reason}` }]);
  });
});

describe("a malleable job's grow that fails", () => {
  /** Malleable g (2..8, at 2) on 10 processors, offered 8 when local users free the cluster, answering `accepted`. */
  function granted(accepted: number) {
    const h = harness(grid({ a: 10 }), { policy: 'fpsma' });
    h.submit(malleable('g', 2, 8));
    h.pass();
    h.startAll();
    h.at(1).freed('a', 0);
    const offer = h.apps.growOffers[0]!;
    h.answerGrow(offer, accepted);
    h.scheduler.advance(1);
    return { h, offer, job: h.scheduler.job('g')! };
  }
  const failed = (h: ReturnType<typeof harness>, processors: number) => {
    h.scheduler.receive({ type: 'growFailed', cluster: 'a', jobId: 'g', processors, reason }, h.now);
    h.scheduler.advance(h.now);
  };

  it('tells the application what its grant comes to, and offers the processors again', () => {
    const { h, offer, job } = granted(4);
    expect(h.manager('a').grows).toEqual([{ jobId: 'g', processors: 4 }]);
    h.at(2);
    h.scheduler.receive({ type: 'grown', cluster: 'a', jobId: 'g', processors: 1 }, 2);
    failed(h, 1);
    expect(h.apps.grants).toEqual([{ offerId: offer.offerId, jobId: 'g', granted: 3, accepted: 4 }]);
    failed(h, 2);
    // Counted on the grant as it stood: 3, of which 1 comes.
    expect(h.apps.grants.at(-1)).toEqual({ offerId: offer.offerId, jobId: 'g', granted: 1, accepted: 3 });
    expect([job.size, job.pendingGrow]).toEqual([3, 0]);
    // Each answer is told as it came, for the console: which job, how many processors, the size it stays at, why.
    expect(h.ofType('job.growFailed')).toEqual([
      { t: 2, type: 'job.growFailed', jobId: 'g', cluster: 'a', processors: 1, size: 3, reason },
      { t: 2, type: 'job.growFailed', jobId: 'g', cluster: 'a', processors: 2, size: 3, reason },
    ]);
    // The 3 that failed are free again: growth offers them to the job, which has room for them.
    h.at(3).pass();
    expect(h.apps.growOffers.at(-1)).toMatchObject({ jobId: 'g', processors: 3 });
  });

  it('tells each offer of its own part when a failure spans two grants (the latest first)', () => {
    const { h, offer } = granted(2);
    h.at(2).freed('a', 0);
    const second = h.apps.growOffers[1]!;
    h.answerGrow(second, 2);
    h.scheduler.advance(2);
    expect(h.manager('a').grows).toEqual([
      { jobId: 'g', processors: 2 },
      { jobId: 'g', processors: 2 },
    ]);
    failed(h, 3);
    expect(h.apps.grants).toEqual([
      { offerId: second.offerId, jobId: 'g', granted: 0, accepted: 2 },
      { offerId: offer.offerId, jobId: 'g', granted: 1, accepted: 2 },
    ]);
  });

  // Adopted after a restart with 2 of its processors still waiting to start: the offer they were granted for is not
  // known here; the application is told as of offer 0 (offers are numbered from 1).
  it("tells an adopted job's application of a grow asked before the restart", () => {
    const h = harness(grid({ a: 10 }));
    const adopted = { cluster: 'a', processors: 2, growing: 2, submitTime: -30, startTime: -20 };
    expect(h.scheduler.adopt(malleable('g', 2, 8), adopted, 0).ok).toBe(true);
    failed(h, 2);
    expect(h.apps.grants).toEqual([{ offerId: 0, jobId: 'g', granted: 0, accepted: 2 }]);
    expect(h.scheduler.job('g')!.held).toBe(2);
  });
});
