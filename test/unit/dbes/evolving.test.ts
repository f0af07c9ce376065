// Evolving jobs under DBES, message by message: no pre-allocation (a job starts at its initial size), each grow a
// request decided by the iteration — from idle processors, else by shrinking expansions (second step first), and
// refused beyond the fairness budget.
import { describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../../core/model/schemas.js';
import { grid, harness, malleable, rigid } from '../../support/harness.js';

const evolving = (id: string, initial: number, max: number, walltime: number): JobSpecInput => ({
  id,
  kind: 'evolving',
  walltime,
  components: [{ min: initial, max, initial, program: 'amr' }],
});
const update = (jobId: string, processors: number) => ({ type: 'update', jobId, processors }) as const;

describe('evolving requests under DBES', () => {
  it('an evolving job holds only its initial size; a request is served by shrinking a second-step expansion', () => {
    const h = harness(grid({ a: 10 }), { policy: 'dbes' });
    h.submit(evolving('e', 2, 8, 1000));
    h.submit(malleable('m', 2, 10, { walltime: 5000 }));
    h.pass();
    // Placed with 2 each (e's pre-allocation of 8 is not held).
    expect(h.ofType('job.placed').map((e) => [e.jobId, e.components[0]!.processors])).toEqual([
      ['e', 2],
      ['m', 2],
    ]);
    h.startAll();
    // The second step gives m the 6 idle.
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'm', processors: 6 }]);
    expect(h.ofType('grow.offered')[0]).toMatchObject({ step: 2 });
    h.answerGrow(h.apps.growOffers[0]!, 6);
    h.growAll();
    expect(h.scheduler.snapshot()[0]).toMatchObject({ idle: 0, preallocatedUnused: 0 });
    // e asks for 6 (4 more): nothing idle, m's second-step expansion gives 4.
    h.at(10).scheduler.receive(update('e', 6), 10);
    h.scheduler.advance(10);
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 2, jobId: 'm', processors: 4, mandatory: true }]);
    expect(h.ofType('shrink.requested')[0]).toMatchObject({ phase: 'evolving', forJob: 'e', fromStep: 2 });
    h.answerShrink(h.apps.shrinkRequests[0]!, 4);
    h.scheduler.advance(10);
    // Granted once released: e's local manager is asked for 4 more.
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
    h.growAll();
    expect(h.scheduler.job('e')!.size).toBe(6);
    expect(h.scheduler.snapshot()[0]).toMatchObject({ idle: 0 });
  });

  it('a request that would delay a reserved job beyond the budget is refused, and the application told', () => {
    // 10: r 6 until 1000, e 2. W (7) is reserved at 1000 (8 free then). e asking 2 more would leave 6 free at 1000:
    // W would wait for e's end at 10000, 9000 s late (budget 1800 s).
    const h = harness(grid({ a: 10 }), { policy: 'dbes' });
    h.submit(rigid('r', 6, { walltime: 1000 }));
    h.submit(evolving('e', 2, 8, 10000));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('W', 7, { walltime: 100 }));
    h.scheduler.advance(1);
    expect(h.scheduler.job('W')!.plannedStart).toEqual({ cluster: 0, start: 1000 });
    h.at(2).scheduler.receive(update('e', 4), 2);
    h.scheduler.advance(2);
    expect(h.ofType('evolve.refused')).toEqual([expect.objectContaining({ jobId: 'e' })]);
    expect(h.apps.refusals[0]!.reason).toContain('delay job W by 9000 s');
    expect(h.manager('a').grows).toEqual([]);
  });

  it('a request within the budget is granted from idle processors', () => {
    const h = harness(grid({ a: 10 }), { policy: 'dbes' });
    h.submit(rigid('r', 6, { walltime: 1000 }));
    h.submit(evolving('e', 2, 8, 10000));
    h.pass();
    h.startAll();
    h.at(2).scheduler.receive(update('e', 4), 2);
    h.scheduler.advance(2);
    expect(h.ofType('evolve.refused')).toEqual([]);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 2 }]);
  });
});

describe('changing the policy', () => {
  it('a job placed under DBES without a pre-allocation has its requests refused under a policy that decides none', () => {
    const h = harness(grid({ a: 10 }), { policy: 'dbes' });
    h.submit(evolving('e', 2, 8, 1000));
    h.pass();
    h.startAll();
    expect(h.scheduler.setPolicy('fpsma').ok).toBe(true);
    h.at(5).scheduler.receive(update('e', 4), 5);
    h.scheduler.advance(5);
    expect(h.apps.refusals).toEqual([
      { jobId: 'e', reason: expect.stringContaining('policy fpsma decides no requests') },
    ]);
  });
});

describe('the fairness budget as a scheduler option', () => {
  it('a budget large enough grants the request the default refuses', () => {
    const h = harness(grid({ a: 10 }), { policy: 'dbes', fairness: { perJob: 10000, perUser: 10000 } });
    h.submit(rigid('r', 6, { walltime: 1000 }));
    h.submit(evolving('e', 2, 8, 10000));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('W', 7, { walltime: 100 }));
    h.scheduler.advance(1);
    h.at(2).scheduler.receive(update('e', 4), 2);
    h.scheduler.advance(2);
    expect(h.ofType('evolve.refused')).toEqual([]);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 2 }]);
  });
});
