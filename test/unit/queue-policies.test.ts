// Queue policies on hand-computed single-cluster schedules: FCFS blocks behind its head; EASY backfills a job that
// ends before the head's reservation or uses only the processors it leaves free, and refuses one that would delay it.
import { describe, expect, it, vi } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import { fcfs } from '../../core/queue/fcfs.js';
import { NO_ROOM, roomOf, type Admission, type QueuePolicy } from '../../core/queue/policy.js';
import { queuePolicy, queuePolicies } from '../../core/queue/registry.js';
import { QUEUE_POLICIES } from '../../core/queue/policy.js';
import { SimWorld } from '../../core/sim/world.js';

const rigid = (
  id: string,
  processors: number,
  runtime: number,
  walltime: number | undefined,
  submitTime: number,
): JobSpecInput => ({
  id,
  kind: 'rigid',
  submitTime,
  app: { model: 'fixed', runtime },
  components: [{ processors, program: 'x' }],
  ...(walltime === undefined ? {} : { walltime }),
});

function starts(processors: number, jobs: JobSpecInput[], queue: string): Record<string, number> {
  const world = new SimWorld({
    grid: gridSpecSchema.parse({ clusters: [{ name: 'a', processors }] }),
    jobs: jobs.map((j) => jobSpecSchema.parse(j)),
    seed: 1,
    background: false,
    scheduler: { queue: queue as 'koala' },
  });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e), ['job.started', 'job.ended']);
  world.run();
  expect(events.filter((e) => e.type === 'job.ended').map((e) => (e as { state: string }).state)).toEqual(
    jobs.map(() => 'completed'),
  );
  return Object.fromEntries(
    events.filter((e) => e.type === 'job.started').map((e) => [(e as { jobId: string }).jobId, e.t]),
  );
}

/** Every admission `policy`'s passes answer while `run` runs. */
function admissionsDuring(policy: QueuePolicy, run: () => void): Admission[] {
  const admissions: Admission[] = [];
  const begin = policy.begin.bind(policy);
  const spy = vi.spyOn(policy, 'begin').mockImplementation((view) => {
    const pass = begin(view)!;
    const admit = pass.admit.bind(pass);
    pass.admit = (job) => {
      const admission = admit(job);
      admissions.push(admission);
      return admission;
    };
    return pass;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return admissions;
}

describe('queue policy registry', () => {
  it('has one policy per name, each under its own name; an unknown name has none', () => {
    expect(Object.keys(queuePolicies)).toEqual([...QUEUE_POLICIES]);
    for (const name of QUEUE_POLICIES) expect(queuePolicy(name)!.name).toBe(name);
    expect(queuePolicy('toString')).toBeUndefined();
    expect(
      () =>
        new SimWorld({
          grid: gridSpecSchema.parse({ clusters: [{ name: 'a', processors: 4 }] }),
          jobs: [],
          seed: 1,
          scheduler: { queue: 'lifo' as 'koala' },
        }),
    ).toThrow(/queue: unknown "lifo"/);
  });
});

describe('FCFS and EASY on 4 processors', () => {
  // a holds 2 of 4 until 100; b (all 4, head at 1) waits for it; c (2, submitted at 2) fits now.
  const a = rigid('a', 2, 100, 100, 0);
  const b = rigid('b', 4, 10, 10, 1);

  it('a short job behind the head: FCFS blocks it (c after b: 110); EASY backfills it (ends at 12, before b reserved at 100)', () => {
    const c = rigid('c', 2, 10, 10, 2);
    expect(starts(4, [a, b, c], 'fcfs')).toEqual({ a: 0, b: 100, c: 110 });
    expect(starts(4, [a, b, c], 'easy')).toEqual({ a: 0, c: 2, b: 100 });
  });

  it('every FCFS admission has one shape and its room one class, admitted or not (others deoptimized the pass in a replay)', () => {
    const admissions = admissionsDuring(fcfs, () =>
      expect(starts(4, [a, b, rigid('c', 2, 10, 10, 2)], 'fcfs')).toEqual({ a: 0, b: 100, c: 110 }),
    );
    // Admitted (a, b once a ended) and blocked at the head (b); the scan stops there, so c is not asked behind it.
    expect(admissions.some((x) => x.reason === undefined)).toBe(true);
    expect(admissions.some((x) => x.reason?.startsWith('at the head') === true)).toBe(true);
    for (const x of admissions) expect(Object.keys(x)).toEqual(['room', 'reason']);
    expect(new Set(admissions.map((x) => Object.getPrototypeOf(x.room))).size).toBe(1);
  });

  // Besides admitted and reserved: EASY's answer behind the head, CBF's promise kept as it was (no new reason).
  const third: Record<string, (x: Admission) => boolean> = {
    easy: (x) => x.reserved === undefined && x.reason?.startsWith('waiting: cannot start now') === true,
    cbf: (x) => x.reserved !== undefined && x.reason === undefined,
  };
  it.each(['easy', 'cbf'])(
    'every %s admission has one shape, each field set or undefined (others deoptimized the pass in a replay)',
    (name) => {
      const policy = queuePolicy(name)!;
      // c backfills before b's reservation at 100; d would fit now but run past it.
      const jobs = [a, b, rigid('c', 2, 10, 10, 2), rigid('d', 2, 200, 200, 3)];
      const admissions = admissionsDuring(policy, () =>
        expect(starts(4, jobs, name)).toEqual({ a: 0, c: 2, b: 100, d: 110 }),
      );
      expect(admissions.some((x) => x.reserved !== undefined)).toBe(true);
      expect(admissions.some((x) => x.reason === undefined && x.reserved === undefined)).toBe(true);
      expect(admissions.some(third[name]!)).toBe(true);
      for (const x of admissions) expect(Object.keys(x)).toEqual(['room', 'reason', 'reserved']);
    },
  );

  it('NO_ROOM has no room on any cluster, and is of the class of the rooms roomOf measures', () => {
    expect(NO_ROOM.most).toBe(-1);
    for (let c = 0; c < 4; c++) expect(NO_ROOM.on(c)).toBe(0);
    expect(Object.getPrototypeOf(NO_ROOM)).toBe(Object.getPrototypeOf(roomOf([0, 3])));
  });

  it("a long job behind the head: EASY refuses it (it would end at 202, past b's reservation at 100, no processor to spare); KOALA starts it and b waits", () => {
    const c = rigid('c', 2, 200, 200, 2);
    expect(starts(4, [a, b, c], 'easy')).toEqual({ a: 0, b: 100, c: 110 });
    expect(starts(4, [a, b, c], 'koala')).toEqual({ a: 0, c: 2, b: 202 });
  });

  it('a job that ends exactly at the reservation is backfilled (spans are half-open)', () => {
    const c = rigid('c', 2, 98, 98, 2);
    expect(starts(4, [a, b, c], 'easy')).toEqual({ a: 0, c: 2, b: 100 });
  });

  it('the reservation reads the walltime, not the run time: a job that fits before the walltime-based reservation is backfilled', () => {
    // a really runs 30 s but asked for 100: b is reserved at 100; c (60 s) fits before it, though b could have
    // started at 30 had a's run time been known. b starts when both have ended (a at 30, c at 62).
    const early = rigid('a', 2, 30, 100, 0);
    const c = rigid('c', 2, 60, 60, 2);
    expect(starts(4, [early, b, c], 'easy')).toEqual({ a: 0, c: 2, b: 62 });
  });
});

describe('EASY uses the processors the reservation leaves free', () => {
  // 6 processors: a holds 4 until 100; b (4, head) is reserved at 100 and leaves 2 free from then on.
  const a = rigid('a', 4, 100, 100, 0);
  const b = rigid('b', 4, 10, 10, 1);

  it("a long job of 2 runs past the reservation on the 2 extra processors; a long job of 3 would take one of b's", () => {
    expect(starts(6, [a, b, rigid('c', 2, 500, 500, 2)], 'easy')).toEqual({ a: 0, c: 2, b: 100 });
    // A job of 3 does not fit in the 2 free now; from 100 b leaves only 2 of 6: it starts at b's end.
    expect(starts(6, [a, b, rigid('c', 3, 500, 500, 2)], 'easy')).toEqual({ a: 0, b: 100, c: 110 });
  });

  it('a job without a walltime holds its processors with no end: it backfills only into the extra processors', () => {
    expect(starts(6, [a, b, rigid('c', 2, 500, undefined, 2)], 'easy')).toEqual({ a: 0, c: 2, b: 100 });
    // With b taking all 6 there are no extra processors: c, 5 s long but without a walltime, waits for b.
    expect(starts(6, [a, rigid('b', 6, 10, 10, 1), rigid('c', 2, 5, undefined, 2)], 'easy')).toEqual({
      a: 0,
      b: 100,
      c: 110,
    });
  });

  it('a head waiting for a running job without a walltime gets no reservation and blocks nobody', () => {
    // a has no walltime: the plan cannot say when b (all 4) starts; c fits now and starts; b starts at a's end.
    const jobs = [rigid('a', 2, 100, undefined, 0), rigid('b', 4, 10, 10, 1), rigid('c', 2, 50, 50, 2)];
    expect(starts(4, jobs, 'easy')).toEqual({ a: 0, c: 2, b: 100 });
    expect(starts(4, jobs, 'fcfs')).toEqual({ a: 0, b: 100, c: 110 });
  });
});
