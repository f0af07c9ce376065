// The driver's pass over a cluster: an iteration runs only when what it reads changed since the last one there (the
// dependencies are then recomputed, never otherwise), and what it records of each job's expansions.
import { describe, expect, it } from 'vitest';
import { DbesScheduling } from '../../../core/dbes/driver.js';
import { dbesIteration } from '../../../core/dbes/iteration.js';
import type { DbesCluster, DbesOutcome } from '../../../core/dbes/model.js';
import type { IterationHost } from '../../../core/malleability/iteration.js';
import type { PolicyProcedure } from '../../../core/malleability/policy.js';
import type { ProfiledHold } from '../../../core/queue/planned-pass.js';
import type { JobRecord } from '../../../core/scheduler/job-record.js';
import { grid, harness, malleable, rigid } from '../../support/harness.js';

/**
 * A scheduler under dbes whose jobs and clusters a driver of our own reads, with the profiled steps ahead in `holds`;
 * its procedures are run to the end.
 */
function setup(clusters: Parameters<typeof grid>[0] = { a: 4 }) {
  const h = harness(grid(clusters), { policy: 'dbes' });
  const calls: DbesCluster[] = [];
  const ran: Array<PolicyProcedure<JobRecord>> = [];
  const holds: ProfiledHold[] = [];
  const host: IterationHost = {
    grid: h.scheduler.grid,
    clusters: h.scheduler.clusters,
    placedJobs: () => [...h.scheduler.jobs()].filter((j) => j.components.length > 0 && !j.ended),
    waitingJobs: () => [...h.scheduler.jobs()].filter((j) => j.state === 'queued'),
    reservationDepth: () => 5,
    fairness: () => undefined,
    runtimeAt: () => undefined,
    profiledHolds: () => holds,
    busy: () => false,
    run: (_state, procedure) => void ran.push(procedure),
    place: () => {},
    failedTry: () => 'kept',
    grantEvolving: () => {},
    refuseEvolving: () => {},
  };
  const driver = new DbesScheduling(host, (state): DbesOutcome => {
    calls.push(state);
    return dbesIteration(state);
  });
  return { h, driver, calls, ran, holds };
}

describe('the DBES driver', () => {
  it('runs an iteration only when the cluster changed since the last one', () => {
    const { h, driver, calls } = setup();
    // A (1, until 3600) and B (1, until 1800) run; C (4) waits.
    h.submit(rigid('A', 1, { walltime: 3600 }));
    h.submit(rigid('B', 1, { walltime: 1800 }));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('C', 4, { walltime: 600 }));
    driver.pass(1);
    driver.pass(1);
    driver.pass(2);
    expect(calls.length).toBe(1);
    // Another waiting job: the state changed, the iteration runs again.
    h.submit(rigid('D', 1, { walltime: 600 }));
    driver.pass(3);
    expect(calls.length).toBe(2);
  });

  it('runs again when a profiled job’s steps ahead changed, and hands them to the iteration', () => {
    const { h, driver, calls, holds } = setup();
    // A (1, until 3600) runs; C (4) waits.
    h.submit(rigid('A', 1, { walltime: 3600 }));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('C', 4, { walltime: 600 }));
    driver.pass(1);
    // e's current step ends at 100; its next one (none) and the one after (2 for 300 s) follow: only the latter holds.
    holds.push({
      id: 'e',
      seq: 9,
      cluster: 0,
      start: 100,
      steps: [
        { duration: 50, nodes: 0 },
        { duration: 300, nodes: 2 },
      ],
    });
    driver.pass(2);
    expect(calls.length).toBe(2);
    expect(calls[1]!.profiledSteps).toEqual([{ id: 'e#step2', n: 2, start: 150, duration: 300 }]);
    driver.pass(3);
    expect(calls.length).toBe(2);
    // Its current step lasts longer: its steps ahead move, the iteration runs again.
    holds[0] = { ...holds[0]!, start: 160 };
    driver.pass(4);
    expect(calls.length).toBe(3);
    expect(calls[2]!.profiledSteps).toEqual([{ id: 'e#step2', n: 2, start: 210, duration: 300 }]);
  });

  it('chooses each waiting job’s cluster with the profiled steps ahead in its plans, job by job', () => {
    const { h, driver, calls, holds } = setup({ a: 10, b: 10 });
    // On a, E holds 2 until 100, then e's step takes 8 until 400; on b, X holds 6 until 300. R1 (6 for 50 s) ends
    // before the step: a has room at 1. R2 (6 for 200 s) would overlap it there (earliest 400): b frees 6 at 300.
    // By the running jobs alone, or by need alone (R1's choice), both would go to a.
    h.submit(rigid('E', 2, { walltime: 100, cluster: 'a' }));
    h.submit(rigid('X', 6, { walltime: 300, cluster: 'b' }));
    h.pass();
    h.startAll();
    holds.push({ id: 'e', seq: 9, cluster: 0, start: 100, steps: [{ duration: 300, nodes: 8 }] });
    h.at(1).submit(rigid('R1', 6, { walltime: 50 }));
    h.submit(rigid('R2', 6, { walltime: 200 }));
    driver.pass(1);
    expect(calls.map((c) => c.waiting.map((w) => w.id))).toEqual([['R1'], ['R2']]);
  });

  it('models processors above the minimum it did not give as for no job; a steal takes them back from its record', () => {
    const { h, driver, calls, ran } = setup();
    h.submit(malleable('A', 1, 4, { walltime: 3600 }));
    h.submit(malleable('B', 1, 4, { walltime: 1800 }));
    h.pass();
    h.startAll();
    // The scheduler's own dbes pass already expanded them (second step): its operation is answered in full.
    // (The operation offers B once A has answered.)
    for (let offer = h.apps.growOffers.shift(); offer !== undefined; offer = h.apps.growOffers.shift())
      h.answerGrow(offer, offer.processors);
    h.growAll();
    h.at(1).submit(rigid('C', 3, { walltime: 600 }));
    driver.pass(1);
    // A and B hold 2 each, for no job as far as this driver knows; C (3) waits for A's end: B's expansion is stolen.
    expect(calls[0]!.running.map((j) => [j.id, j.size, j.expansions])).toEqual([
      ['A', 2, [{ processors: 1, step: 2, forJob: undefined }]],
      ['B', 2, [{ processors: 1, step: 2, forJob: undefined }]],
    ]);
    // Play the steal's procedure: B agrees to give back 1.
    const steal = ran[0]!;
    expect(steal.next(0).value).toMatchObject({
      kind: 'requestShrink',
      processors: 1,
      why: { phase: 'steal', forJob: 'C', fromStep: 2 },
    });
    expect(steal.next(1).value).toMatchObject({ kind: 'awaitRelease' });
    expect(driver.expansionsOf('B')).toEqual([]);
    expect(driver.expansionsOf('A')).toEqual([{ processors: 1, step: 2, forJob: undefined }]);
  });

  it('carries out a steal’s expansion after the release, in the same operation', () => {
    const { h, driver, ran } = setup();
    h.submit(malleable('A', 1, 4, { walltime: 3600 }));
    h.submit(malleable('B', 1, 4, { walltime: 1800 }));
    h.pass();
    h.startAll();
    for (let offer = h.apps.growOffers.shift(); offer !== undefined; offer = h.apps.growOffers.shift())
      h.answerGrow(offer, offer.processors);
    h.growAll();
    h.at(1).submit(rigid('C', 3, { walltime: 600 }));
    driver.pass(1);
    expect(ran.length).toBe(1);
    const steal = ran[0]!;
    expect(steal.next(0).value).toMatchObject({
      kind: 'requestShrink',
      processors: 1,
      why: { phase: 'steal', forJob: 'C' },
    });
    expect(steal.next(1).value).toMatchObject({ kind: 'awaitRelease' });
    // Once B has released, the processor it gave back is set aside and offered to A, for C.
    expect(steal.next(0).value).toEqual({ kind: 'earmark', processors: 1 });
    expect(steal.next(1).value).toMatchObject({
      kind: 'offerGrow',
      job: { id: 'A' },
      processors: 1,
      why: { step: 1, forJob: 'C' },
    });
    expect(steal.next(1).done).toBe(true);
    expect(driver.expansionsOf('A')).toEqual([
      { processors: 1, step: 2, forJob: undefined },
      { processors: 1, step: 1, forJob: 'C' },
    ]);
  });
});

describe('a job dbes starts', () => {
  it('waits no more: its reservation note and planned start are cleared', () => {
    const h = harness(grid({ a: 4 }), { policy: 'dbes' });
    h.submit(rigid('A', 4, { walltime: 600 }));
    h.pass();
    h.startAll();
    h.at(1).submit(rigid('C', 4, { walltime: 600 }));
    h.pass();
    const c = h.scheduler.job('C')!;
    expect(c.lastFailure).toMatch(/^reserved to start at 600 after A/);
    expect(c.plannedStart).toEqual({ cluster: 0, start: 600 });
    h.at(600).finish('A');
    h.startAll();
    expect(c.state).toBe('running');
    expect(c.lastFailure).toBe('');
    expect(c.plannedStart).toBeUndefined();
  });
});
