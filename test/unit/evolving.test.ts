// Evolving jobs inside the multicluster scheduler, played message by message against fake clusters and
// applications: placement of the pre-allocation, guaranteed growth by mandatory shrinks of malleable extras (at once,
// or ahead of an announced update with a deadline), refused updates, shrinking, and the per-job views.
import { describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { grid, harness, malleable, rigid } from '../support/harness.js';

function evolving(
  id: string,
  min: number,
  max: number,
  initial: number,
  extra: Partial<JobSpecInput> & { cluster?: string } = {},
): JobSpecInput {
  const { cluster, ...rest } = extra;
  return { id, kind: 'evolving', components: [{ min, max, initial, cluster, program: 'amr' }], ...rest };
}

/**
 * On a 16-processor cluster: evolving `e` (2..12, starts at 2) and malleable `m` (2..14, starts at 2), then a poll
 * frees processors and `m` grows by 12 into the idle ones and e's unused pre-allocation.
 */
function filled(options: { approach?: 'pra' | 'pwa'; policy?: string } = {}) {
  const h = harness(grid({ a: 16 }), options);
  h.at(0).submit(evolving('e', 2, 12, 2));
  h.pass();
  h.startAll();
  h.submit(malleable('m', 2, 14, { initial: 2 }));
  h.pass();
  h.startAll();
  // Growth may take 16 - 2 - 2 = 12: the 2 outside the pre-allocation and its 10 unused processors.
  h.at(1).freed('a', 0);
  expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'm', processors: 12 }]);
  h.answerGrow(h.apps.growOffers[0]!, 12);
  h.growAll();
  return h;
}

const update = (processors: number, announceS?: number) =>
  announceS === undefined
    ? ({ type: 'update', jobId: 'e', processors } as const)
    : ({ type: 'update', jobId: 'e', processors, announceS } as const);

describe('placing an evolving job', () => {
  it('needs its whole pre-allocation on one cluster, starts its local job with its initial size', () => {
    const h = harness(grid({ small: 10, big: 20 }));
    h.submit(evolving('e', 2, 12, 4));
    h.pass();
    // small has the minimum (2) and the initial size (4) but not the pre-allocation (12).
    expect(h.ofType('job.placed')[0]!.components).toEqual([{ cluster: 'big', processors: 12 }]);
    expect(h.manager('big').submitted[0]).toMatchObject({ jobId: 'e', processors: 4 });
    h.startAll();
    expect(h.ofType('job.started')[0]).toMatchObject({ jobId: 'e', cluster: 'big', size: 4, preallocation: 12 });
    // 20 = 4 in use + 8 pre-allocated unused + 8 idle.
    expect(h.scheduler.snapshot()[1]).toMatchObject({ nonPreemptible: 4, preallocatedUnused: 8, idle: 8 });
    expect(h.scheduler.clusters[1]!.preallocatedUnused).toBe(8);
  });

  it('refuses at submission a pre-allocation larger than every cluster, naming max', () => {
    const h = harness(grid({ a: 10 }));
    const r = h.scheduler.submit(evolving('e', 2, 11, 2), 0);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ path: 'components[0].max' });
  });

  it('waits while another job holds processors its pre-allocation needs', () => {
    const h = harness(grid({ a: 16 }));
    h.submit(rigid('r', 8));
    h.pass();
    h.submit(evolving('e', 2, 12, 2));
    h.pass();
    expect(h.ofType('job.placed')).toHaveLength(1);
    expect(h.ofType('placement.failed')[0]!.reason).toMatch(/pre-allocation of 12/);
  });
});

describe('placing an evolving job over malleable extras', () => {
  function busy(approach: 'pra' | 'pwa') {
    const h = harness(grid({ a: 16 }), { approach });
    h.submit(malleable('m', 2, 16, { initial: 16 }));
    h.pass();
    h.startAll();
    h.at(5).submit(evolving('e', 2, 12, 4));
    h.pass();
    return h;
  }

  it('PRA: its pre-allocation may overlap extras, but its initial size must be free: it waits', () => {
    const h = busy('pra');
    // Non-preemptible room 16 - 2 = 14 ≥ 12, but 0 processors are free for its initial 4 (room 0 + 12 - 4 = 8 < 12).
    expect(h.ofType('job.placed').map((e) => e.jobId)).toEqual(['m']);
    expect(h.apps.shrinkRequests).toEqual([]);
  });

  it('PWA: extras are shrunk mandatorily for its initial size only, then it is placed', () => {
    const h = busy('pwa');
    // missing = 12 - 8 = 4: the initial size.
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 1, jobId: 'm', processors: 4, mandatory: true }]);
    h.answerShrink(h.apps.shrinkRequests[0]!, 4);
    h.pass();
    expect(h.ofType('job.placed').at(-1)).toMatchObject({ jobId: 'e', components: [{ cluster: 'a', processors: 12 }] });
    h.startAll();
    // m keeps 10 extras, 8 of them in e's unused pre-allocation: 2 + 4 + 10 = 16.
    expect(h.scheduler.snapshot()[0]).toMatchObject({
      nonPreemptible: 6,
      preemptible: 10,
      preallocatedUnused: 0,
      idle: 0,
    });
  });
});

describe('pre-allocated processors', () => {
  it('are never given to rigid jobs nor to malleable minimums', () => {
    const h = harness(grid({ a: 16 }));
    h.submit(evolving('e', 2, 12, 2));
    h.pass();
    h.startAll();
    // 16 - 2 in use - 10 pre-allocated unused = 4 for non-preemptible jobs.
    h.submit(rigid('r6', 6));
    h.submit(malleable('m5', 5, 8));
    h.pass();
    expect(h.ofType('job.placed').map((e) => e.jobId)).toEqual(['e']);
    h.submit(rigid('r4', 4));
    h.pass();
    expect(h.ofType('job.placed').map((e) => e.jobId)).toEqual(['e', 'r4']);
  });

  it('are filled by malleable growth, preemptibly', () => {
    const h = filled();
    // 16 = 4 non-preemptible (e's 2, m's minimum 2) + 12 extras, 10 of them in e's pre-allocation.
    expect(h.scheduler.snapshot()[0]).toMatchObject({
      nonPreemptible: 4,
      preemptible: 12,
      preallocatedUnused: 0,
      idle: 0,
    });
    expect(h.scheduler.clusters[0]!.preallocatedUnused).toBe(10);
  });

  it('PWA does not shrink extras inside a pre-allocation for a job they could not make room for', () => {
    const h = filled({ approach: 'pwa' });
    // Only 12 - 10 = 2 of m's extras lie outside e's pre-allocation: a rigid job of 3 cannot be made room for.
    h.at(2).submit(rigid('r3', 3));
    h.pass();
    expect(h.apps.shrinkRequests).toEqual([]);
    h.submit(rigid('r2', 2));
    h.pass();
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 2, jobId: 'm', processors: 2, mandatory: true }]);
  });
});

describe('an update inside the pre-allocation', () => {
  it('spontaneous: shrinks malleable extras mandatorily at once, then grows the evolving job', () => {
    const h = filled();
    h.at(5).scheduler.receive(update(8), 5);
    expect(h.ofType('evolve.requested')).toEqual([
      { type: 'evolve.requested', t: 5, jobId: 'e', cluster: 'a', processors: 8, announceS: 0 },
    ]);
    // e in use 2 + 6 promised, m 14: 8 + 14 = 22 on 16 processors: 6 of m's extras must go, with no deadline.
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 2, jobId: 'm', processors: 6, mandatory: true }]);
    expect(h.manager('a').grows.filter((g) => g.jobId === 'e')).toEqual([]);
    h.answerShrink(h.apps.shrinkRequests[0]!, 6);
    h.pass();
    expect(h.manager('a').grows.at(-1)).toEqual({ jobId: 'e', processors: 6 });
    h.growAll();
    expect(h.ofType('job.evolved').at(-1)).toMatchObject({ jobId: 'e', size: 8, preallocation: 12 });
    expect(h.apps.sizes.get('e')).toBe(8);
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 10, preemptible: 6, idle: 0 });
  });

  it('takes idle processors first and shrinks nobody when they suffice', () => {
    const h = harness(grid({ a: 16 }));
    h.submit(evolving('e', 2, 12, 2));
    h.pass();
    h.startAll();
    h.submit(malleable('m', 2, 4, { initial: 4 }));
    h.pass();
    h.startAll();
    // 16 - 2 - 4 = 10 idle (inside and outside the pre-allocation): growing e by 10 needs no shrink.
    h.at(3).scheduler.receive(update(12), 3);
    expect(h.apps.shrinkRequests).toEqual([]);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 10 }]);
  });

  it('announced: asks the malleable job to release by the update time, grows the evolving job then', () => {
    const h = filled();
    h.at(10).scheduler.receive(update(8, 60), 10);
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 2, jobId: 'm', processors: 6, mandatory: true, deadline: 70 }]);
    h.answerShrink(h.apps.shrinkRequests[0]!, 6, false);
    // Until 70 m keeps its 6: its preemptive view says so, and nothing is asked of the local manager yet.
    const v = h.scheduler.views('m', 10)!;
    expect(v.preemptive).toEqual([
      { t: 10, v: 14 },
      { t: 70, v: 8 },
    ]);
    h.at(40).pass();
    expect(h.manager('a').grows.filter((g) => g.jobId === 'e')).toEqual([]);
    h.at(70).scheduler.receive({ type: 'released', jobId: 'm', processors: 6, offerId: 2 }, 70);
    h.scheduler.advance(70);
    expect(h.manager('a').grows.at(-1)).toEqual({ jobId: 'e', processors: 6 });
    // The processors promised to e were not offered back to m meanwhile (m's only offer was its first growth).
    expect(h.apps.growOffers).toHaveLength(1);
  });

  it('shrinking the evolving job frees processors malleable jobs may fill', () => {
    const h = filled();
    h.at(5).scheduler.receive(update(8), 5);
    h.answerShrink(h.apps.shrinkRequests[0]!, 6);
    h.pass();
    h.growAll();
    h.at(20).scheduler.receive(update(3), 20);
    expect(h.manager('a').shrinks).toContainEqual({ jobId: 'e', processors: 5 });
    expect(h.ofType('job.evolved').at(-1)).toMatchObject({ t: 20, size: 3 });
    expect(h.apps.sizes.get('e')).toBe(3);
    h.scheduler.advance(20);
    // m (8 of max 14) is offered the 5 e gave back.
    expect(h.apps.growOffers.at(-1)).toMatchObject({ jobId: 'm', processors: 5 });
  });

  it('an announced shrink takes effect at its time', () => {
    const h = filled();
    h.at(5).scheduler.receive(update(8), 5);
    h.answerShrink(h.apps.shrinkRequests[0]!, 6);
    h.pass();
    h.growAll();
    h.at(100).scheduler.receive(update(2, 30), 100);
    expect(h.manager('a').shrinks.filter((s) => s.jobId === 'e')).toEqual([]);
    h.at(130).scheduler.advance(130);
    expect(h.manager('a').shrinks).toContainEqual({ jobId: 'e', processors: 6 });
    expect(h.ofType('job.evolved').at(-1)).toMatchObject({ t: 130, size: 2 });
  });
});

describe('updates and the malleability manager', () => {
  it('a grow offer in flight is cut by what an update was promised meanwhile', () => {
    const h = harness(grid({ a: 16 }));
    h.submit(evolving('e', 2, 12, 2));
    h.pass();
    h.startAll();
    h.submit(malleable('m', 2, 14, { initial: 2 }));
    h.pass();
    h.startAll();
    h.at(1).freed('a', 0);
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'm', processors: 12 }]);
    // Before m answers, e asks for 6 more: nothing to shrink yet (m has no extras), so e is served at once...
    h.at(2).scheduler.receive(update(8), 2);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 6 }]);
    // ...and m can take only 12 - 6 of its offer: 8 + 8 = 16.
    h.answerGrow(h.apps.growOffers[0]!, 12);
    expect(h.ofType('grow.answered')[0]!.accepted).toBe(6);
    h.growAll();
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 10, preemptible: 6, idle: 0 });
  });

  it('a spontaneous update is served at once while malleable jobs release by the deadline of an announced one', () => {
    const h = harness(grid({ a: 24 }));
    h.submit(evolving('e1', 2, 8, 2));
    h.submit(evolving('e2', 2, 8, 2));
    h.pass();
    h.startAll();
    h.submit(malleable('m', 2, 24, { initial: 2 }));
    h.pass();
    h.startAll();
    // 24 - 6 in use = 18 for growth: 6 idle and the 12 unused of the two pre-allocations.
    h.at(1).freed('a', 0);
    h.answerGrow(h.apps.growOffers[0]!, 18);
    h.growAll();
    h.at(10).scheduler.receive({ type: 'update', jobId: 'e1', processors: 8, announceS: 60 }, 10);
    expect(h.apps.shrinkRequests[0]).toEqual({ offerId: 2, jobId: 'm', processors: 6, mandatory: true, deadline: 70 });
    h.answerShrink(h.apps.shrinkRequests[0]!, 6, false);
    h.at(20).scheduler.receive({ type: 'update', jobId: 'e2', processors: 8 }, 20);
    // m gives 6 more at once (it keeps the 6 it owes e1 until 70).
    expect(h.apps.shrinkRequests[1]).toEqual({ offerId: 3, jobId: 'm', processors: 6, mandatory: true });
    h.answerShrink(h.apps.shrinkRequests[1]!, 6);
    h.pass();
    // (growAll took m's own grow off the fake manager's list.)
    expect(h.manager('a').grows).toEqual([{ jobId: 'e2', processors: 6 }]);
    h.at(70).scheduler.receive({ type: 'released', jobId: 'm', processors: 6, offerId: 2 }, 70);
    h.scheduler.advance(70);
    expect(h.manager('a').grows).toEqual([
      { jobId: 'e2', processors: 6 },
      { jobId: 'e1', processors: 6 },
    ]);
  });
});

describe('refused updates', () => {
  it.each([
    ['above the pre-allocation', 13, /asks for 13 processors, outside its 2\.\.12/],
    ['below the minimum', 1, /asks for 1 processors, outside its 2\.\.12/],
    ['not whole', 2.5, /asks for 2\.5 processors/],
  ])('%s', (_name, processors, reason) => {
    const h = filled();
    h.at(5).scheduler.receive(update(processors), 5);
    expect(h.ofType('evolve.refused')[0]!.reason).toMatch(reason);
    expect(h.apps.refusals[0]!.reason).toMatch(reason);
    expect(h.apps.shrinkRequests).toEqual([]);
    expect(h.ofType('evolve.requested')).toEqual([]);
  });

  it('from a job that is not evolving', () => {
    const h = filled();
    h.scheduler.receive({ type: 'update', jobId: 'm', processors: 4 }, 5);
    expect(h.apps.refusals).toEqual([
      { jobId: 'm', reason: expect.stringMatching(/not evolving \(it is malleable\)/) },
    ]);
  });

  it('from an evolving job not running yet', () => {
    const h = harness(grid({ a: 16 }));
    h.submit(evolving('e', 2, 12, 2));
    h.pass();
    h.scheduler.receive(update(4), 0);
    expect(h.ofType('evolve.refused')[0]!.reason).toMatch(/not running \(it is claiming\)/);
  });
});

describe('views', () => {
  it('an evolving job: its pre-allocation guaranteed, its size history allocated', () => {
    const h = filled();
    h.at(5).scheduler.receive(update(8), 5);
    h.answerShrink(h.apps.shrinkRequests[0]!, 6);
    h.pass();
    h.growAll();
    const v = h.scheduler.views('e', 6)!;
    expect(v.nonPreemptive).toEqual([{ t: 0, v: 12 }]);
    expect(v.preemptive).toEqual([{ t: 0, v: 0 }]);
    expect(v.allocated).toEqual([
      { t: 0, v: 2 },
      { t: 5, v: 8 },
    ]);
  });

  it('a malleable job: its minimum guaranteed, its size and what it could grow into preemptible', () => {
    const h = harness(grid({ a: 16 }));
    h.submit(malleable('m', 2, 10, { initial: 4 }));
    h.pass();
    h.startAll();
    const v = h.scheduler.views('m', 3)!;
    expect(v.nonPreemptive).toEqual([{ t: 0, v: 2 }]);
    // 4 held + 12 idle, capped at its max of 10.
    expect(v.preemptive).toEqual([{ t: 3, v: 10 }]);
    expect(v.allocated).toEqual([{ t: 0, v: 4 }]);
  });

  it('an ended job drops to zero at its end; an unknown job has none', () => {
    const h = filled();
    h.at(50).finish('e');
    const v = h.scheduler.views('e', 60)!;
    expect(v.nonPreemptive).toEqual([
      { t: 0, v: 12 },
      { t: 50, v: 0 },
    ]);
    expect(v.allocated.at(-1)).toEqual({ t: 50, v: 0 });
    expect(h.scheduler.views('nope', 60)).toBeUndefined();
    // Its whole pre-allocation is given back.
    expect(h.scheduler.clusters[0]!.preallocatedUnused).toBe(0);
  });
});

describe('adopting an evolving job after a restart', () => {
  it('holds its whole pre-allocation again and serves its updates', () => {
    const h = harness(grid({ a: 16 }));
    expect(
      h.scheduler.adopt(evolving('e', 2, 12, 2), { cluster: 'a', processors: 5, submitTime: 0, startTime: 10 }, 20).ok,
    ).toBe(true);
    // 5 in use, 12 - 5 = 7 pre-allocated unused, 4 idle.
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 5, preallocatedUnused: 7, idle: 4 });
    h.scheduler.receive(update(9), 21);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
  });
});
