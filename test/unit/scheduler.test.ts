// The placement queue, the claimer, the information service and the approaches, played against fake ports.
import { describe, expect, it } from 'vitest';
import { grid, harness, malleable, rigid } from '../support/harness.js';

describe('placement queue', () => {
  it('keeps jobs that do not fit in order and places one behind them that does', () => {
    const h = harness(grid({ a: 10 }));
    h.status('a', 6); // 4 processors left for Concertina
    h.submit(rigid('big1', 8));
    h.submit(rigid('small', 3));
    h.submit(rigid('big2', 6));
    h.pass();
    expect(h.scheduler.queue.list().map((j) => j.id)).toEqual(['big1', 'big2']);
    expect(h.scheduler.job('small')!.state).toBe('claiming');
    expect(h.scheduler.job('big1')!.tries).toBe(1);
    expect(h.scheduler.job('big1')!.lastFailure).toMatch(/no cluster has 8 processors available \(most: 4\)/);
  });

  it('gives a new job a try of its own without rescanning the queue; a poll or freed processors rescan it', () => {
    const h = harness(grid({ a: 10 }));
    h.status('a', 6); // 4 left
    h.submit(rigid('big', 8));
    h.scheduler.advance(0);
    expect(h.scheduler.job('big')!.tries).toBe(1); // its own try on arrival
    h.at(1).submit(rigid('small', 2));
    h.scheduler.advance(1);
    expect(h.scheduler.job('small')!.state).toBe('claiming');
    expect(h.scheduler.job('big')!.tries).toBe(1); // nothing came free: not tried again
    h.at(2).status('a', 6); // a poll scans the queue
    expect(h.scheduler.job('big')!.tries).toBe(2);
  });

  it('words a job that no cluster has room for once earlier jobs of the scan took it as its placement policy does', () => {
    const h = harness(grid({ a: 10, b: 10 }));
    h.status('a', 10);
    h.status('b', 10);
    h.submit(rigid('z', 4));
    h.submit(rigid('r', 7));
    h.submit(malleable('m', 7, 9));
    h.pass(); // nothing free: tried and kept
    h.at(60).status('a', 0); // a poll: 10 free on a when the scan begins; z takes 4 of them
    expect(h.scheduler.job('z')!.state).toBe('claiming');
    expect(h.scheduler.job('r')!.tries).toBe(2); // the pass, the poll
    expect(h.scheduler.job('r')!.lastFailure).toBe(
      'no cluster has 7 processors available for component 0 (most available: 6 on a)',
    );
    expect(h.scheduler.job('m')!.lastFailure).toBe(
      'no cluster has the minimum of 7 processors available for component 0 (most available: 6 on a)',
    );
    expect(
      h
        .ofType('placement.failed')
        .filter((e) => e.jobId === 'r')
        .at(-1)!.reason,
    ).toBe(h.scheduler.job('r')!.lastFailure);
  });

  it('a job tried again in the same poll round keeps the reason of the try that counted', () => {
    const h = harness(grid({ a: 10, b: 10 }));
    h.status('a', 0);
    h.status('b', 10);
    h.submit(rigid('y', 8));
    h.pass();
    h.startAll(); // y runs on a: 2 free
    h.submit(rigid('z', 4));
    h.submit(rigid('r', 7));
    h.pass();
    h.at(60).status('a', 0); // a poll: r's try counts
    const job = h.scheduler.job('r')!;
    const tries = job.tries;
    expect(job.lastFailure).toBe('no cluster has 7 processors available (most: 2)');
    h.at(61).finish('y'); // 10 free on a in the same round: z takes 4, r is tried again and still does not fit
    expect(h.scheduler.job('z')!.state).toBe('claiming');
    expect(job.tries).toBe(tries);
    expect(job.lastFailure).toBe('no cluster has 7 processors available (most: 2)');
  });

  it('places a job tried already in the round once processors freed in that round make room for it', () => {
    const h = harness(grid({ a: 10, b: 10 }));
    h.status('a', 0);
    h.status('b', 10);
    h.submit(rigid('x', 3));
    h.submit(rigid('y', 5));
    h.pass();
    h.startAll(); // x and y run on a: 2 free
    h.submit(rigid('z', 4));
    h.submit(rigid('r', 7));
    h.pass();
    h.at(60).status('a', 0); // a poll: z's and r's tries count
    const r = h.scheduler.job('r')!;
    const tries = r.tries;
    h.at(61).finish('x'); // 5 free: z takes 4, r does not fit
    expect(h.scheduler.job('z')!.state).toBe('claiming');
    expect(r.state).toBe('queued');
    h.at(62).finish('y'); // 1 + 5 = 6 free: still short of 7
    expect(r.state).toBe('queued');
    h.at(63).finish('z'); // z never started: its processors come back, 10 free
    expect(r.state).toBe('claiming');
    expect(r.tries).toBe(tries);
  });

  it('fails a job with "placement tries exhausted" past the threshold', () => {
    const h = harness(grid({ a: 10 }), { triesThreshold: 3 });
    h.status('a', 6);
    h.submit(rigid('big', 8));
    h.pass(); // its first try, at arrival
    h.at(60).status('a', 6); // a try per poll
    expect(h.scheduler.job('big')!.state).toBe('queued');
    h.at(120).status('a', 6);
    const job = h.scheduler.job('big')!;
    expect(job.state).toBe('failed');
    expect(job.transitions.at(-1)!.reason).toMatch(/^placement tries exhausted \(3\)/);
    expect(h.ofType('job.ended')[0]).toMatchObject({ jobId: 'big', state: 'failed' });
    expect(h.scheduler.queue.length).toBe(0);
  });

  it('keeps the job behind one that exhausts its tries in the same scan', () => {
    const h = harness(grid({ a: 10 }), { triesThreshold: 1 });
    h.status('a', 6);
    h.submit(rigid('first', 8));
    h.submit(rigid('second', 9));
    h.at(1).submit(rigid('third', 5));
    h.pass();
    // first and second exhaust their single try; third, submitted later, is still tried in order.
    expect(h.ofType('job.ended').map((e) => e.jobId)).toEqual(['first', 'second', 'third']);
    h.submit(rigid('fourth', 2));
    h.pass();
    expect(h.scheduler.job('fourth')!.state).toBe('claiming');
  });

  it('does not lose a queued job when the job before it fails during the scan', () => {
    const h = harness(grid({ a: 10 }), { triesThreshold: 3 });
    h.status('a', 6);
    h.submit(rigid('old', 8));
    h.pass(); // old: 1 try
    h.at(60).status('a', 6); // old: 2 tries (one per poll)
    h.at(61).submit(rigid('young', 9));
    h.pass(); // young: 1 try
    h.at(120).status('a', 6); // old exhausts its 3rd try; young (2nd try) must stay queued
    expect(h.scheduler.job('old')!.state).toBe('failed');
    expect(h.scheduler.queue.list().map((j) => j.id)).toEqual(['young']);
  });

  it('records every transition with its time and reason', () => {
    const h = harness(grid({ a: 10 }));
    h.at(5).submit(rigid('r', 2));
    h.pass();
    h.at(7).startAll();
    h.at(9).finish('r');
    expect(h.scheduler.job('r')!.transitions.map((t) => [t.state, t.time])).toEqual([
      ['submitted', 5],
      ['queued', 5],
      ['claiming', 5],
      ['running', 7],
      ['completed', 9],
    ]);
  });

  it('names every cluster of a co-allocated job in the reasons of its placement and its start', () => {
    const h = harness(grid({ a: 10, b: 10 }));
    h.submit({
      id: 'co',
      kind: 'rigid',
      components: [
        { processors: 3, cluster: 'b', program: 'app' },
        { processors: 2, cluster: 'a', program: 'app' },
      ],
    });
    h.pass();
    h.at(4).startAll();
    expect(
      h.scheduler
        .job('co')!
        .transitions.slice(2)
        .map((t) => [t.state, t.reason]),
    ).toEqual([
      ['claiming', 'placed by wf: 3 on b, 2 on a'],
      ['running', 'started on b, a'],
    ]);
  });

  it('frees the processors of a cancelled job and tells its manager', () => {
    const h = harness(grid({ a: 10 }));
    h.submit(rigid('r', 6));
    h.pass();
    h.startAll();
    expect(h.scheduler.cancel('r', 1).ok).toBe(true);
    expect(h.manager('a').cancelled).toEqual(['r']);
    expect(h.scheduler.snapshot()[0]!.nonPreemptible).toBe(0);
    expect(h.scheduler.cancel('r', 2)).toEqual({
      ok: false,
      errors: [{ path: 'jobId', message: 'job r has already cancelled' }],
    });
  });
});

describe('information service', () => {
  it('polls every cluster and sees the background load of users who bypass Concertina', () => {
    const h = harness(grid({ a: 10, b: 10 }));
    h.scheduler.poll(0);
    expect(h.managers.map((m) => m.polls)).toEqual([1, 1]);
    h.status('a', 7);
    h.submit(rigid('r', 4));
    h.pass();
    expect(h.scheduler.job('r')!.components).toEqual([{ cluster: 'b', processors: 4 }]); // a has only 3 left
    expect(h.scheduler.snapshot()[0]).toMatchObject({ background: 7, idle: 3 });
  });

  it('places nothing on an unreachable cluster', () => {
    const h = harness(grid({ a: 10 }));
    h.scheduler.receive(
      { type: 'status', cluster: 'a', status: { processors: 10, background: 0, reachable: false } },
      0,
    );
    h.submit(rigid('r', 1));
    h.pass();
    expect(h.scheduler.job('r')!.state).toBe('queued');
  });
});

describe('processor claimer', () => {
  // File "data" of 1000 MB on b only; a <- b at 100 MB/s and 0 latency: 10 s of staging to a.
  const files = {
    files: [{ name: 'data', sizeMB: 1000, replicas: ['b'] }],
    network: { defaultBandwidthMBps: 100, defaultLatencyS: 0, links: [] },
  };
  const staged = (reservations: boolean) =>
    harness(grid({ a: { processors: 10, supportsReservations: reservations }, b: 4 }, files), { claimMarginS: 4 });
  const job = rigid('r', 6, { cluster: 'a' });
  job.components[0]!.inputFiles = ['data'];

  it('claims at placement and starts after staging when the manager supports reservations', () => {
    const h = staged(true);
    h.submit(job);
    h.pass();
    expect(h.ofType('job.claimed')[0]!.t).toBe(0);
    expect(h.manager('a').submitted).toHaveLength(0);
    h.at(10).scheduler.advance(10);
    expect(h.manager('a').submitted[0]).toMatchObject({ jobId: 'r', processors: 6, tag: 'concertina:r' });
  });

  it('claims shortly before the estimated start otherwise', () => {
    const h = staged(false);
    h.submit(job);
    h.pass();
    expect(h.scheduler.nextWakeup()).toBe(6); // start 10 - margin 4
    expect(h.ofType('job.claimed')).toHaveLength(0);
    h.at(6).scheduler.advance(6);
    expect(h.ofType('job.claimed')[0]!.t).toBe(6);
    h.at(10).scheduler.advance(10);
    expect(h.manager('a').submitted).toHaveLength(1);
  });

  it('sends the job back to the queue when its processors were taken before the claim', () => {
    const h = staged(false);
    h.submit(job);
    h.pass();
    h.at(3).status('a', 8); // local users took 8 of 10
    h.at(6).scheduler.advance(6);
    expect(h.ofType('claim.failed')[0]).toMatchObject({
      jobId: 'r',
      reason: 'processors on a were taken before the claim',
    });
    const r = h.scheduler.job('r')!;
    expect(r.state).toBe('queued');
    expect(r.tries).toBe(2); // the failed claim, then the pass right after it (8 of 10 still taken)
    expect(h.scheduler.snapshot()[0]!.nonPreemptible).toBe(0);
  });
});

describe('PRA and PWA', () => {
  it('PRA grows running jobs before placing waiting ones, and never shrinks', () => {
    const h = harness(grid({ a: 10 }), { approach: 'pra' });
    h.submit(malleable('m', 2, 10));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('r', 4));
    h.freed('a', 0); // processors freed: growth due, the 8 free go to m first
    expect(h.apps.growOffers[0]).toMatchObject({ jobId: 'm', processors: 8 });
    h.answerGrow(h.apps.growOffers[0]!, 8);
    h.scheduler.advance(1);
    expect(h.scheduler.job('r')!.state).toBe('queued');
    expect(h.apps.shrinkRequests).toHaveLength(0);
  });

  it("with the paper's trigger, grows running jobs only when processors come free: a job ends, or local users give some back", () => {
    const h = harness(grid({ a: 10 }), { growthAtPoll: 'freed' });
    h.submit(malleable('m', 2, 10));
    h.pass();
    h.startAll();
    h.at(1).status('a', 0); // a poll that sees nothing freed
    expect(h.apps.growOffers).toHaveLength(0);
    h.at(2).submit(rigid('r', 3));
    h.pass();
    h.startAll();
    h.at(3).finish('r'); // 3 freed: growth with all 8 free
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'm', processors: 8 }]);
  });

  it('PWA shrinks running jobs (mandatory) to place a waiting job', () => {
    const h = harness(grid({ a: 10 }), { approach: 'pwa' });
    h.submit(malleable('m', 2, 10, { initial: 10 }));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('r', 4));
    h.pass();
    expect(h.apps.shrinkRequests).toEqual([{ offerId: 1, jobId: 'm', processors: 4, mandatory: true }]);
    expect(h.ofType('placement.failed')[0]!.reason).toBe('waiting for mandatory shrinks to release 4 on a');
    h.answerShrink(h.apps.shrinkRequests[0]!, 4);
    h.scheduler.advance(1);
    expect(h.scheduler.job('r')!.state).toBe('claiming');
  });

  it('PWA grows running jobs when no waiting job can be placed even by shrinking', () => {
    const h = harness(grid({ a: 10 }), { approach: 'pwa' });
    h.submit(malleable('m', 6, 8, { initial: 6 }));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('r', 6)); // 4 idle + 0 shrinkable (m at its min 6) < 6
    h.freed('a', 0);
    expect(h.apps.shrinkRequests).toHaveLength(0);
    expect(h.apps.growOffers[0]).toMatchObject({ jobId: 'm', processors: 2 }); // 4 idle, cut to its room (8 - 6)
  });

  it('PWA keeps the released processors for the job they were released for', () => {
    const h = harness(grid({ a: 10 }), { approach: 'pwa' });
    h.submit(malleable('m', 2, 10, { initial: 10 }));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('r', 4));
    h.pass();
    h.answerShrink(h.apps.shrinkRequests[0]!, 4, false);
    h.submit(malleable('late', 2, 4)); // arrives while r waits for the release
    h.scheduler.receive({ type: 'released', jobId: 'm', processors: 4, offerId: 1 }, 1);
    h.scheduler.advance(1);
    expect(h.scheduler.job('r')!.state).toBe('claiming');
    expect(h.scheduler.job('late')!.state).toBe('queued');
  });
});

describe('event subscriptions', () => {
  it('delivers only the types a listener asked for, and counts every event decided', () => {
    const h = harness(grid({ a: 4 }));
    const ended: string[] = [];
    h.scheduler.on((e) => ended.push(e.type), ['job.ended']);
    h.status('a', 2);
    h.submit(rigid('big', 4));
    h.scheduler.advance(0); // big cannot fit: a failed try on arrival
    h.status('a', 2); // and another on the next poll
    h.scheduler.cancel('big', 1);
    expect(ended).toEqual(['job.ended']);
    expect(h.events.filter((e) => e.type === 'placement.failed')).toHaveLength(2);
    expect(h.scheduler.eventCount).toBe(h.events.length);
  });
});

describe('forget', () => {
  it('lets an ended job go, keeps one that is not ended, and afterwards finds no job of that id', () => {
    const h = harness(grid({ a: 10 }), { triesThreshold: 1 });
    h.status('a', 6);
    h.submit(rigid('big', 8)); // fails at its only try
    h.submit(rigid('waiting', 3)); // placed: claiming, not ended
    h.pass();
    expect(h.scheduler.job('big')!.state).toBe('failed');
    expect(h.scheduler.forget('waiting')).toBeUndefined();
    expect(h.scheduler.job('waiting')).toBeDefined();
    expect(h.scheduler.forget('big')!.id).toBe('big');
    expect(h.scheduler.job('big')).toBeUndefined();
    expect([...h.scheduler.jobs()].map((j) => j.id)).not.toContain('big');
    expect(h.scheduler.cancel('big', 1).ok).toBe(false);
    expect(h.scheduler.forget('big')).toBeUndefined();
  });
});
