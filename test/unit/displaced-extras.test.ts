// Malleable extras never take processors a waiting job was reserved (cbf's promises, easy's head): an evolving job's
// grow shrinks the extras it displaces from its pre-allocation rather than moving them onto those processors
// (evolving.ts), cbf's plans keep the promise while they fill the pre-allocation (planned-pass.ts), growth and an
// operator's grow take no free processor a reservation needs later (growth.ts, operator-resize.ts), nor fill a
// pre-allocation with extras that would outlast it onto reserved processors, and a pending grow offer is held in the
// plans (planned-pass.ts).
import { describe, expect, it } from 'vitest';
import { sharedPreallocationHolds } from '../../core/plan/holding.js';
import type { QueuePolicyName } from '../../core/queue/policy.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import type { SimWorld } from '../../core/sim/world.js';
import { simWorld } from '../support/sim-world.js';
import { gridOf, malleableJob, rigidJob } from '../support/workload-specs.js';

/** An evolving job of one long phase: its sizes come from the updates the test sends in its name. */
function evolvingJob(id: string, size: { initial: number; max: number }): JobSpecInput {
  return {
    id,
    submitTime: 0,
    kind: 'evolving',
    walltime: 4000,
    app: { model: 'evolving', phases: 1, phaseS: 1000 },
    components: [{ min: 1, max: size.max, initial: size.initial, program: 'e' }],
  };
}

interface Run {
  of: ReturnType<typeof simWorld>['of'];
  /** Each waiting job's reservations, in the order they were made: [time seen, planned start]. */
  planned: Map<string, Array<[number, number]>>;
  started: (id: string) => number | undefined;
  resized: Array<ReturnType<SimWorld['scheduler']['resize']>>;
}

/**
 * Runs one cluster of `processors` under `queue`, the evolving job `e` asking for `updates` ([time, size]), and the
 * operator growing jobs by `resizes` ([time, job, delta]; their answers in `Run.resized`).
 */
function run(
  queue: QueuePolicyName,
  processors: number,
  jobs: JobSpecInput[],
  updates: Array<[number, number]>,
  resizes: Array<[number, string, number]> = [],
): Run {
  const { world, of } = simWorld(gridOf([processors]), jobs, {
    seed: 0,
    scheduler: { policy: 'fpsma', queue },
  });
  // Sent as its application would send them (an update message), at their times.
  for (const [t, size] of updates)
    world.engine.at(t, () => world.scheduler.receive({ type: 'update', jobId: 'e', processors: size }, t));
  const resized: Run['resized'] = [];
  for (const [t, id, delta] of resizes) world.engine.at(t, () => resized.push(world.scheduler.resize(id, delta, t)));
  const planned = new Map<string, Array<[number, number]>>();
  world.run(() => {
    for (const job of world.scheduler.jobs()) {
      const p = job.plannedStart;
      if (job.state !== 'queued' || p === undefined) continue;
      const seen = planned.get(job.id) ?? [];
      if (seen.at(-1)?.[1] !== p.start) seen.push([world.engine.now, p.start]);
      planned.set(job.id, seen);
    }
  });
  const started = (id: string) => of('job.started', id)[0]?.t;
  return { of, planned, started, resized };
}

// 12 processors: r (5) until 100, r2 (2) until 15, e (pre-allocation 4, using all 4), m (malleable, 1..4) at 1.
// w (7) arrives at 5 and is reserved at 100: r2's 2 and r's 5. At 10 e shrinks to 1 and m grows into the 3 it left;
// at 20 e grows back to 4, displacing m's 3 extras while 2 processors (r2's) are free: w needs them at 100.
const displacing = (): JobSpecInput[] => [
  rigidJob('r', 0, 5, 100),
  rigidJob('r2', 0, 2, 15),
  evolvingJob('e', { initial: 4, max: 4 }),
  malleableJob('m', 0, { min: 1, max: 4, runtime: 1500, walltime: 2000 }),
  rigidJob('w', 5, 7, 100),
];
const shrinkUpdates: Array<[number, number]> = [
  [10, 1],
  [20, 4],
];

// 12 processors: r (5) until 100, r2 (6) until 15, m (1..3) at 1. w (10) is reserved at 100 on arrival (r2's 6 and r's 5
// leave 11); at 15 m may grow by 1 only (the 11th).
const growingBesideReservation = (): JobSpecInput[] => [
  rigidJob('r', 0, 5, 100),
  rigidJob('r2', 0, 6, 15),
  malleableJob('m', 0, { min: 1, max: 3, runtime: 1500, walltime: 2000 }),
  rigidJob('w', 5, 10, 100),
];

describe('displaced malleable extras and reserved processors', () => {
  it('cbf: the extras an evolving grow displaces are shrunk, not moved onto processors promised to a waiting job', () => {
    const { of, planned, started } = run('cbf', 12, displacing(), shrinkUpdates);
    const grown = of('job.grown', 'm').find((e) => e.t === 10);
    expect(grown, 'm filled the pre-allocation e left').toMatchObject({ processors: 3, size: 4 });
    expect(planned.get('w')![0], 'w promised at 100 on arrival').toEqual([5, 100]);
    // Old code: the promise dropped at 10 (the plan held the shared processors aside first), m's extras moved onto
    // r2's freed processors at 20, and w waited for m's end (402.5).
    expect(planned.get('w'), 'the promise is kept').toEqual([[5, 100]]);
    const shrunk = of('job.shrunk', 'm').find((e) => e.t === 20);
    expect(shrunk, 'all 3 displaced extras shrunk').toMatchObject({ processors: 3, size: 1, voluntary: false });
    expect(started('w')).toBe(100);
  });

  it("easy: a displaced extra never lands on the head's reservation as it stands when the evolving job grows", () => {
    const { planned, started } = run('easy', 12, displacing(), shrinkUpdates);
    // Easy plans its head afresh at every pass: what counts is the reservation w held when e grew at 20.
    const before = planned.get('w')!.filter(([t]) => t < 20);
    expect(before.length).toBeGreaterThan(0);
    expect(started('w')).toBeLessThanOrEqual(before.at(-1)![1]);
  });

  for (const queue of ['cbf', 'easy'] as const) {
    it(`${queue}: growth takes no free processor a reservation needs later`, () => {
      // The jobs of growingBesideReservation. Old code: m grew by 2 and w waited for its end.
      const { of, planned, started } = run(queue, 12, growingBesideReservation(), []);
      expect(planned.get('w')![0]).toEqual([5, 100]);
      const grown = of('job.grown', 'm').filter((e) => e.t < 100);
      expect(grown.map((e) => e.processors)).toEqual([1]);
      expect(started('w')).toBe(100);
    });
  }
});

describe('extras filling a pre-allocation and reserved processors', () => {
  it('cbf: growth into an unfilled pre-allocation leaves what a reservation after its end needs', () => {
    // 18 processors: m (9..17) and e (pre-allocation 9) from 0; w (5) at 5, reserved at e's walltime end (4000, before
    // m's). At 10 e shrinks to 1: m may fill 4 of its 8 unused processors, the 4 w leaves free after 4000 (the
    // extras stay where the pre-allocation ends). Old code: m took all 8 and, e ended, w waited for m's end.
    const { of, planned, started } = run(
      'cbf',
      18,
      [
        malleableJob('m', 0, { min: 9, max: 17, runtime: 6000, walltime: 8000 }),
        evolvingJob('e', { initial: 9, max: 9 }),
        rigidJob('w', 5, 5, 100),
      ],
      [[10, 1]],
    );
    expect(planned.get('w')![0]).toEqual([5, 4000]);
    const grown = of('job.grown', 'm').filter((e) => e.t < 100);
    expect(grown.map((e) => e.processors)).toEqual([4]);
    expect(started('w')).toBeLessThanOrEqual(4000);
  });
});

describe('grow offers and reserved processors', () => {
  it('cbf: a pending grow offer is held in the plans, so that it drops no promise', () => {
    // 8 processors: j0 (1) until 11, m (1..2, walltime 48), j2 (8) promised at 48 (m's walltime); j3 (1, 39 s) and
    // j4 (1, 10 s) at 10: j4 backfills until 20. At 11 m is offered j0's processor. Old code: while the offer was
    // pending the plan's capacity was 7, j2's promise was dropped (planned at 59), j3 backfilled until 50, j2 started
    // at 50.
    const { of, planned, started } = run(
      'cbf',
      8,
      [
        rigidJob('j0', 0, 1, 11),
        malleableJob('m', 0, { min: 1, max: 2, runtime: 12, walltime: 48 }),
        rigidJob('j2', 0, 8, 10),
        rigidJob('j3', 10, 1, 39),
        rigidJob('j4', 10, 1, 10),
      ],
      [],
    );
    expect(of('grow.offered')[0]).toMatchObject({ jobId: 'm', processors: 1, t: 11 });
    expect(planned.get('j2')![0]).toEqual([0, 48]);
    for (const [, start] of planned.get('j2')!) expect(start).toBeLessThanOrEqual(48);
    expect(started('j2')).toBeLessThanOrEqual(48);
  });

  it("cbf: an operator's grow takes no free processor a reservation needs, and says so", () => {
    // As growth's case above: at 15 m grows by 1 (the 11th processor); at 20 the 5 free are all w's from 100.
    // Old code: the operator's offer took one of them and w waited for m's end.
    const { of, started, resized } = run('cbf', 12, growingBesideReservation(), [], [[20, 'm', 1]]);
    expect(resized).toEqual([
      {
        ok: false,
        errors: [
          {
            path: 'delta',
            message: 'no processors are free for growth on c0: the 5 free for growth are reserved for waiting jobs',
          },
        ],
      },
    ]);
    expect(of('grow.offered').filter((e) => e.t >= 20 && e.t < 100)).toEqual([]);
    expect(started('w')).toBe(100);
  });
});

describe('sharedPreallocationHolds', () => {
  it('with reservations in (free falling later), sets aside only what stays free from each time on', () => {
    // Free 2 now, 0 from 100 (a promise), 5 from 200; 3 shared processors: none is free for good before 200.
    // (Read from what is free at each time, as when free only rose, it set 2 aside from 0: free -2 at 100.)
    const free = {
      times: [100, 200],
      values: [0, 5],
      valueAt: (t: number) => (t < 100 ? 2 : t < 200 ? 0 : 5),
    };
    const sharing = { unused: 3, extras: 3, byJob: [] };
    expect(sharedPreallocationHolds(sharing, free, 0)).toEqual([
      { id: 'shared pre-allocation 1', n: 3, start: 200, duration: Infinity },
    ]);
  });

  it('on free processors that only rise, sets aside as many as are free at each time', () => {
    const free = { times: [50, 100], values: [1, 4], valueAt: (t: number) => (t < 50 ? 0 : t < 100 ? 1 : 4) };
    expect(sharedPreallocationHolds({ unused: 2, extras: 3, byJob: [] }, free, 0)).toEqual([
      { id: 'shared pre-allocation 1', n: 1, start: 50, duration: Infinity },
      { id: 'shared pre-allocation 2', n: 1, start: 100, duration: Infinity },
    ]);
  });
});
