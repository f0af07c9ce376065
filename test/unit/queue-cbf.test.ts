// Conservative backfilling, reservation depth and priorities on hand-computed schedules: CBF never delays any
// reservation (EASY protects the head only); compression moves reservations earlier when a job ends before its
// walltime; a reservation goes to the cluster where the job starts earliest (the first at a tie); depth 1 is EASY;
// size and expansion-factor priorities reorder the queue; `backfilled` marks a job started ahead of an earlier one.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import type { QueuePolicyName } from '../../core/queue/policy.js';
import type { QueuePriorityName } from '../../core/queue/priority.js';
import { SimWorld } from '../../core/sim/world.js';

const rigid = (
  id: string,
  processors: number,
  runtime: number,
  walltime: number | undefined,
  submitTime: number,
  cluster?: string,
): JobSpecInput => ({
  id,
  kind: 'rigid',
  submitTime,
  app: { model: 'fixed', runtime },
  components: [{ processors, program: 'x', ...(cluster === undefined ? {} : { cluster }) }],
  ...(walltime === undefined ? {} : { walltime }),
});

interface Options {
  queue: QueuePolicyName;
  reservationDepth?: number;
  priority?: QueuePriorityName;
  clusters?: number[];
  /** The planned starts of these jobs as they stood at the last step before `before`. */
  probe?: { before: number; ids: string[] };
}

type Planned = Record<string, { cluster: number; start: number } | undefined>;

function run(
  processors: number,
  jobs: JobSpecInput[],
  o: Options,
): { starts: Record<string, number>; world: SimWorld; planned: Planned } {
  const clusters = (o.clusters ?? [processors]).map((p, i) => ({ name: String.fromCharCode(97 + i), processors: p }));
  const world = new SimWorld({
    grid: gridSpecSchema.parse({ clusters }),
    jobs: jobs.map((j) => jobSpecSchema.parse(j)),
    seed: 1,
    background: false,
    scheduler: { queue: o.queue, reservationDepth: o.reservationDepth, priority: o.priority ?? 'submit' },
  });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e), ['job.started', 'job.ended']);
  const planned: Planned = {};
  world.run(() => {
    if (o.probe && world.engine.now < o.probe.before)
      for (const id of o.probe.ids) planned[id] = world.scheduler.job(id)?.plannedStart;
  });
  expect(events.filter((e) => e.type === 'job.ended').map((e) => (e as { state: string }).state)).toEqual(
    jobs.map(() => 'completed'),
  );
  const starts = Object.fromEntries(
    events.filter((e) => e.type === 'job.started').map((e) => [(e as { jobId: string }).jobId, e.t]),
  );
  return { starts, world, planned };
}

describe('CBF against EASY on 4 processors', () => {
  // a holds 2 of 4 until 100. b (3) is reserved at 100-110 and leaves 1 spare; c (all 4) comes next, 110-120 under
  // CBF. d (1 processor, 200 s) fits now beside a and b's reservation (EASY starts it: c then waits for d, 203), but
  // it would overlap c's reservation: CBF starts it after c, at 120.
  const jobs = [
    rigid('a', 2, 100, 100, 0),
    rigid('b', 3, 10, 10, 1),
    rigid('c', 4, 10, 10, 2),
    rigid('d', 1, 200, 200, 3),
  ];

  it('CBF delays no reservation; EASY protects only the head', () => {
    expect(run(4, jobs, { queue: 'cbf' }).starts).toEqual({ a: 0, b: 100, c: 110, d: 120 });
    expect(run(4, jobs, { queue: 'easy' }).starts).toEqual({ a: 0, d: 3, b: 100, c: 203 });
  });

  it('every waiting job has a planned start under CBF (b at 100, c at 110, d at 120); EASY plans the head only', () => {
    const probe = { before: 50, ids: ['b', 'c', 'd'] };
    expect(run(4, jobs, { queue: 'cbf', probe }).planned).toEqual({
      b: { cluster: 0, start: 100 },
      c: { cluster: 0, start: 110 },
      d: { cluster: 0, start: 120 },
    });
    expect(run(4, jobs, { queue: 'easy', probe }).planned).toEqual({
      b: { cluster: 0, start: 100 },
      c: undefined,
      d: undefined,
    });
  });

  it('reservation depth: 1 makes CBF behave as EASY, 2 makes EASY behave as CBF here; 0 reserves nothing', () => {
    expect(run(4, jobs, { queue: 'cbf', reservationDepth: 1 }).starts).toEqual({ a: 0, d: 3, b: 100, c: 203 });
    expect(run(4, jobs, { queue: 'easy', reservationDepth: 2 }).starts).toEqual({ a: 0, b: 100, c: 110, d: 120 });
    // No reservation: b waits for processors; d starts at once; c, needing all 4, waits for d.
    expect(run(4, jobs, { queue: 'cbf', reservationDepth: 0 }).starts).toEqual({ a: 0, d: 3, b: 100, c: 203 });
  });

  it('backfilled marks the jobs started while an earlier one waited: d under EASY, none under CBF', () => {
    const easy = run(4, jobs, { queue: 'easy' }).world;
    expect(['a', 'b', 'c', 'd'].map((id) => easy.scheduler.job(id)!.backfilled)).toEqual([false, false, false, true]);
    const cbf = run(4, jobs, { queue: 'cbf' }).world;
    expect(['a', 'b', 'c', 'd'].map((id) => cbf.scheduler.job(id)!.backfilled)).toEqual([false, false, false, false]);
    expect(easy.metrics.summary(0).backfilled).toBe(1);
  });
});

describe('CBF compression', () => {
  it('a job ending before its walltime moves every reservation earlier, in order, never later', () => {
    // a asks 100 s of all 4 but runs 30: b (4, 10 s) is reserved at 100, c (2, 10 s) at 110, d (2, 50 s) at 110
    // beside c. At 30 a ends: b starts at 30, c and d at 40.
    const jobs = [
      rigid('a', 4, 30, 100, 0),
      rigid('b', 4, 10, 10, 1),
      rigid('c', 2, 10, 10, 2),
      rigid('d', 2, 50, 50, 3),
    ];
    const { starts, planned } = run(4, jobs, { queue: 'cbf', probe: { before: 30, ids: ['b', 'c', 'd'] } });
    expect(Object.values(planned).map((p) => p?.start)).toEqual([100, 110, 110]);
    expect(starts).toEqual({ a: 0, b: 30, c: 40, d: 40 });
  });

  it('a hole opened by compression goes to the first job in order that fits it, the others keep their slots', () => {
    // 4 processors. a (4, asks 100, runs 20). b (2, 50 s) and c (2, 100 s) are reserved at 100; d (4, 10 s) at 200
    // (after c). When a ends at 20, b and c move to 20, d to 120 (after c's new end).
    const jobs = [
      rigid('a', 4, 20, 100, 0),
      rigid('b', 2, 50, 50, 1),
      rigid('c', 2, 100, 100, 2),
      rigid('d', 4, 10, 10, 3),
    ];
    expect(run(4, jobs, { queue: 'cbf' }).starts).toEqual({ a: 0, b: 20, c: 20, d: 120 });
  });
});

describe('CBF compresses at every job end, early or not', () => {
  it('a hole a move opened late in a pass is offered at the next end to the job taken before the move', () => {
    // 1 processor. a runs 140-312 (asks 173: planned to 313). x (3 s) and y (asks 2 s) arrive at 311, reserved at
    // 313 and 316. a ends early at 312: by expansion factor y is taken first but cannot move (x still holds 313-316);
    // x moves to 312. x ends at 315, at its walltime: compression again, and y starts then rather than at 316.
    const jobs = [rigid('a', 1, 172, 173, 140), rigid('x', 1, 3, 3, 311), rigid('y', 1, 1, 2, 311)];
    expect(run(1, jobs, { queue: 'cbf', priority: 'wait' }).starts).toEqual({ a: 140, x: 312, y: 315 });
  });
});

describe('CBF over clusters', () => {
  it('a reservation goes where the job starts earliest; at a tie, to the first cluster', () => {
    // Clusters a and b of 4: x holds a until 100, y holds b until 50. z (4) is reserved on b at 50.
    const jobs = [rigid('x', 4, 100, 100, 0, 'a'), rigid('y', 4, 50, 50, 0, 'b'), rigid('z', 4, 10, 10, 1)];
    const { starts, world, planned } = run(4, jobs, {
      queue: 'cbf',
      clusters: [4, 4],
      probe: { before: 50, ids: ['z'] },
    });
    expect(planned.z).toEqual({ cluster: 1, start: 50 });
    expect(starts.z).toBe(50);
    expect(world.scheduler.job('z')!.components[0]!.cluster).toBe('b');
    // Both free at 100: the first cluster.
    const tie = [rigid('x', 4, 100, 100, 0, 'a'), rigid('y', 4, 100, 100, 0, 'b'), rigid('z', 4, 10, 10, 1)];
    const r = run(4, tie, { queue: 'cbf', clusters: [4, 4], probe: { before: 100, ids: ['z'] } });
    expect(r.planned.z).toEqual({ cluster: 0, start: 100 });
    expect(r.world.scheduler.job('z')!.components[0]!.cluster).toBe('a');
  });
});

describe('moldable jobs under the planning policies', () => {
  it('a moldable job starts as early as it can, with the most processors free over its walltime up to its max', () => {
    // 4 processors; a holds 2 until 100; m (2..4, 50 s) at 1 starts now with the 2 free.
    const m: JobSpecInput = {
      id: 'm',
      kind: 'moldable',
      submitTime: 1,
      walltime: 50,
      app: { model: 'fixed', runtime: 50 },
      components: [{ min: 2, max: 4, program: 'x' }],
    };
    const withA = run(4, [rigid('a', 2, 100, 100, 0), m], { queue: 'cbf' });
    expect(withA.starts).toEqual({ a: 0, m: 1 });
    expect(withA.world.scheduler.job('m')!.components[0]!.processors).toBe(2);
    // Alone, it takes all 4; behind a reservation of all 4 at 100 (b), it still fits before it with 2 of them.
    expect(run(4, [m], { queue: 'cbf' }).world.scheduler.job('m')!.components[0]!.processors).toBe(4);
    const behind = run(4, [rigid('a', 2, 100, 100, 0), rigid('b', 4, 10, 10, 0.5), m], { queue: 'cbf' });
    expect(behind.starts).toEqual({ a: 0, m: 1, b: 100 });
    expect(behind.world.scheduler.job('m')!.components[0]!.processors).toBe(2);
  });
});

describe('priorities', () => {
  it('size: the largest waiting job first (fcfs and easy); submit keeps the queue order', () => {
    // a holds all 4 until 100. b (1 proc, 10 s) at 1, c (4, 10 s) at 2. By size c goes first at 100, b after it.
    const jobs = [rigid('a', 4, 100, 100, 0), rigid('b', 1, 10, 10, 1), rigid('c', 4, 10, 10, 2)];
    for (const queue of ['fcfs', 'easy'] as const) {
      expect(run(4, jobs, { queue }).starts, queue).toEqual({ a: 0, b: 100, c: 110 });
      expect(run(4, jobs, { queue, priority: 'size' }).starts, queue).toEqual({ a: 0, c: 100, b: 110 });
    }
  });

  it('wait: the highest expansion factor first, so a short job that waited overtakes a long one', () => {
    // a holds all 4 until 100. c (4, 1000 s) at 1, b (4, 10 s) at 2. At 100: b's factor (98 + 10) / 10 = 10.8,
    // c's (99 + 1000) / 1000 = 1.099: b goes first.
    const jobs = [rigid('a', 4, 100, 100, 0), rigid('c', 4, 1000, 1000, 1), rigid('b', 4, 10, 10, 2)];
    expect(run(4, jobs, { queue: 'fcfs' }).starts).toEqual({ a: 0, c: 100, b: 1100 });
    expect(run(4, jobs, { queue: 'fcfs', priority: 'wait' }).starts).toEqual({ a: 0, b: 100, c: 110 });
  });

  it('under CBF a promise is kept whatever the priority: a larger job arriving later is reserved after it', () => {
    const jobs = [rigid('a', 4, 100, 100, 0), rigid('b', 1, 10, 10, 1), rigid('c', 4, 10, 10, 2)];
    expect(run(4, jobs, { queue: 'cbf', priority: 'size' }).starts).toEqual({ a: 0, b: 100, c: 110 });
  });
});
