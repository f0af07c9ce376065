// Fully-predictably evolving jobs online (core/scheduler/fpe-jobs.ts), in the simulator, on hand-computed cases: a
// job submitted with its steps is fitted on the plan by the run's FPE variant, started when its scheduled EP says,
// takes and gives back processors at its step boundaries, and waits (expanded) for a step whose processors are busy.
import { describe, expect, it } from 'vitest';
import { parseJob } from '../../../core/model/job.js';
import { buildGrid } from '../../../core/model/grid.js';
import { jobSpecSchema, type JobSpecInput } from '../../../core/model/schemas.js';
import { gridOf, malleableJob, profiledJob, rigidJob } from '../../support/workload-specs.js';
import type { FpeVariantName } from '../../../core/fpe/registry.js';
import { jobSummary } from '../../../electron/host/finished-jobs.js';
import type { SchedulerOptions } from '../../../core/scheduler/scheduler.js';
import { grid, harness } from '../../support/harness.js';
import { simWorld } from '../../support/sim-world.js';

/** A profiled job of `[duration_s, processors]` steps. */
const profiled = (id: string, steps: Array<[number, number]>, submitTime = 0) =>
  profiledJob(
    id,
    submitTime,
    steps.map(([duration_s, processors]) => ({ duration_s, processors })),
  );

function run(
  jobs: JobSpecInput[],
  fpeVariant: FpeVariantName = '2X+c',
  processors = 10,
  scheduler: Partial<SchedulerOptions> = {},
) {
  const r = simWorld(gridOf([processors]), jobs, { pollIntervalS: 60, scheduler: { fpeVariant, ...scheduler } });
  let over = false;
  r.world.run(() => {
    const s = r.world.scheduler.clusters[0]!;
    if (s.concertina > s.cluster.processors) over = true;
  });
  return { ...r, over };
}

describe('a profiled evolving job (spec)', () => {
  it('takes its sizes from its steps and names the step that is too large for every cluster', () => {
    const grid = buildGrid(gridOf([10]));
    const r = parseJob(
      profiled('x', [
        [60, 2],
        [60, 12],
        [60, 4],
      ]),
      grid,
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors).toEqual([
        { path: 'profile.steps[1].processors', message: 'is larger than every cluster (12 > 10)' },
      ]);
  });

  it('refuses bad steps at their field, sizes beside a profile, and a profile on another kind', () => {
    const bad = jobSpecSchema.safeParse(
      profiled('x', [
        [60, 2],
        [0, 3],
        [60, 1.5],
      ]),
    );
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toContain('profile.steps.1.duration_s');
    expect(paths).toContain('profile.steps.2.processors');
    const sized = jobSpecSchema.safeParse({ ...profiled('x', [[60, 2]]), components: [{ program: 'p', max: 4 }] });
    expect(sized.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['components.0.max', 'is not for an evolving job with a profile: its sizes follow from profile.steps'],
    ]);
    const rigid = jobSpecSchema.safeParse({
      ...profiled('x', [[60, 2]]),
      kind: 'rigid',
      components: [{ program: 'p', processors: 2 }],
    });
    expect(rigid.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['profile', 'is only for evolving jobs'],
    ]);
    const empty = jobSpecSchema.safeParse({ ...profiled('x', []) });
    expect(empty.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['profile.steps', 'must hold at least one step'],
    ]);
  });
});

describe('a profiled evolving job (simulated)', () => {
  it('alone: starts at once, runs each step for its duration with its processors, releases at step boundaries', () => {
    const r = run([
      profiled('e', [
        [100, 2],
        [50, 6],
        [80, 3],
      ]),
    ]);
    expect(r.of('fpe.scheduled', 'e').map((e) => [e.start, e.steps])).toEqual([
      [
        0,
        [
          { durationS: 100, processors: 2 },
          { durationS: 50, processors: 6 },
          { durationS: 80, processors: 3 },
        ],
      ],
    ]);
    expect(r.of('fpe.step', 'e').map((e) => [e.t, e.step, e.processors, e.expandedS])).toEqual([
      [0, 1, 2, 0],
      [100, 2, 6, 0],
      [150, 3, 3, 0],
    ]);
    const ended = r.of('job.ended', 'e')[0]!;
    expect([ended.t, ended.state]).toEqual([230, 'completed']);
    expect(r.world.scheduler.job('e')!.sizeHistory.map((s) => [s.t, s.v])).toEqual([
      [0, 2],
      [100, 6],
      [150, 3],
      [230, 0],
    ]);
    expect(r.world.applications.refusedUpdates.size).toBe(0);
    expect(r.over).toBe(false);
    // The Queue lists its step sizes; its bounds are its smallest and largest step.
    expect(jobSummary(r.world.scheduler.job('e')!)).toMatchObject({
      kind: 'evolving',
      min: 2,
      max: 6,
      steps: [2, 6, 3],
    });
  });

  // A rigid job holds 6 of 10 processors until 250 (its walltime). The profiled job, submitted at 1, asks 2 for 100 s,
  // 4 for 100 s, then 8 for 100 s: its third step fits only from 250 on. With 2X its second step (101..201) is
  // expanded to last until 250 (149 s, within twice its 100 s); the paper's base fit never expands a first step.
  // With noX nothing is expanded: the whole job is delayed to start at 50 (50..150, 150..250, 250..350). Rigid holds
  // its peak 8 for 300 s, from 250.
  const blocker = rigidJob('r', 0, 6, 250);
  const waiting = profiled(
    'e',
    [
      [100, 2],
      [100, 4],
      [100, 8],
    ],
    1,
  );
  const scheduled = (r: ReturnType<typeof run>) =>
    r.of('fpe.scheduled', 'e').map((e) => [e.start, e.steps.map((s) => [s.durationS, s.processors])]);

  it('2X expands a step to wait for the processors of the next one, idle meanwhile', () => {
    const r = run([blocker, waiting], '2X');
    expect(scheduled(r)).toEqual([
      [
        1,
        [
          [100, 2],
          [149, 4],
          [100, 8],
        ],
      ],
    ]);
    expect(r.of('fpe.step', 'e').map((e) => [e.t, e.step, e.processors, e.expandedS])).toEqual([
      [1, 1, 2, 0],
      [101, 2, 4, 0],
      [250, 3, 8, 49],
    ]);
    expect(r.of('job.ended', 'e')[0]!.t).toBe(350);
    expect(r.over).toBe(false);
  });

  it('noX delays its start instead', () => {
    const r = run([blocker, waiting], 'noX');
    expect(scheduled(r)).toEqual([
      [
        50,
        [
          [100, 2],
          [100, 4],
          [100, 8],
        ],
      ],
    ]);
    expect(r.of('fpe.step', 'e').map((e) => [e.t, e.step, e.expandedS, e.delayedS])).toEqual([
      [50, 1, 0, 49],
      [150, 2, 0, 0],
      [250, 3, 0, 0],
    ]);
    expect(r.of('job.ended', 'e')[0]!.t).toBe(350);
  });

  it('rigid holds its peak from a start where the peak fits', () => {
    const r = run([blocker, waiting], 'rigid');
    expect(scheduled(r)).toEqual([[250, [[300, 8]]]]);
    expect(r.of('fpe.step', 'e').map((e) => [e.t, e.step, e.processors])).toEqual([
      [250, 1, 8],
      [350, 2, 8],
      [450, 3, 8],
    ]);
    expect(r.of('job.ended', 'e')[0]!.t).toBe(550);
  });

  it('a step whose processors a later job took waits for them (expanded), then runs', () => {
    // The profiled job's second step (8) is planned at 100; a rigid job without walltime arriving at 50 takes 5 of
    // the 6 free then, until it ends at 250: the step waits until then.
    const late: JobSpecInput = {
      id: 'late',
      kind: 'rigid',
      submitTime: 50,
      app: { model: 'fixed', runtime: 200 },
      components: [{ processors: 5, program: 'rigid' }],
    };
    const r = run(
      [
        profiled('e', [
          [100, 4],
          [100, 8],
        ]),
        late,
      ],
      '2X',
    );
    expect(r.of('fpe.step', 'e').map((e) => [e.t, e.step, e.expandedS])).toEqual([
      [0, 1, 0],
      [250, 2, 150],
    ]);
    expect(r.of('job.ended', 'e')[0]!.t).toBe(350);
    expect(r.over).toBe(false);
  });

  it("checks the application's announcements against its profile: one that differs is refused with the reason", () => {
    const { world, of } = simWorld(gridOf([10]), [
      profiled('e', [
        [100, 2],
        [50, 6],
        [80, 3],
      ]),
    ]);
    // At 10 s it runs step 1 (2 processors); its next step has 6: an announcement of 6 is its own, one of 5 is not.
    world.engine.at(10, () =>
      world.scheduler.receive({ type: 'update', jobId: 'e', processors: 6, announceS: 90 }, world.engine.now),
    );
    world.engine.at(11, () => world.scheduler.receive({ type: 'update', jobId: 'e', processors: 5 }, world.engine.now));
    world.run();
    expect(of('evolve.refused').map((e) => [e.t, e.reason])).toEqual([
      [11, "asks for 5 processors, but its profile's step 2 has 6: a profiled job's steps are fixed at submission"],
    ]);
    expect(world.applications.refusedUpdates.get('e')).toHaveLength(1);
    // Its steps ran as scheduled all the same.
    expect(world.scheduler.job('e')!.sizeHistory.map((x) => [x.t, x.v])).toEqual([
      [0, 2],
      [100, 6],
      [150, 3],
      [230, 0],
    ]);
  });

  // The application's announcements are read whenever its messages are: on a loaded machine after its step began
  // (its process started late), or before its start is seen. Each names a step of its profile: none is refused.
  it("notes an announcement read late, after the step it announces began, or before the job's start is seen", () => {
    const h = harness(grid({ a: 10 }));
    h.submit(
      profiled('e', [
        [100, 2],
        [50, 6],
        [80, 3],
      ]),
    );
    h.scheduler.advance(0);
    // Placed, its start not seen yet: the application, already at its first step, announces its second.
    expect(h.manager('a').submitted).toMatchObject([{ jobId: 'e', processors: 2 }]);
    h.scheduler.receive({ type: 'update', jobId: 'e', processors: 6, announceS: 100 }, 0);
    h.startAll();
    h.at(100).scheduler.advance(100);
    h.growAll();
    expect(h.ofType('fpe.step').map((e) => [e.t, e.step, e.processors])).toEqual([
      [0, 1, 2],
      [100, 2, 6],
    ]);
    // Step 2 began at 100; its announcement is read at 101, and the next one's at 110 on time.
    h.at(101).scheduler.receive({ type: 'update', jobId: 'e', processors: 6, announceS: 100 }, 101);
    h.at(110).scheduler.receive({ type: 'update', jobId: 'e', processors: 3 }, 110);
    expect(h.ofType('evolve.refused')).toEqual([]);
    expect(h.apps.refusals).toEqual([]);
    // One no step has is refused still.
    h.at(111).scheduler.receive({ type: 'update', jobId: 'e', processors: 5 }, 111);
    expect(h.ofType('evolve.refused').map((e) => [e.t, e.reason])).toEqual([
      [111, "asks for 5 processors, but its profile's step 3 has 3: a profiled job's steps are fixed at submission"],
    ]);
  });

  // A rigid job holds 6 of 10 until 250. Rigid w (8 processors, walltime 100), submitted at 1, cannot start: the queue
  // policy promises it 250..350. The profiled job e (4 processors for 300 s), submitted at 2 after w, is fitted around
  // that promise: 4 are free until 250 only (248 s, too short), 2 during w, so e starts at 350 when w ends. Fitted on
  // the placed jobs alone it would start at 2 and hold 4 until 302, and w would start at 302 instead of its promised 250.
  it.each(['easy', 'cbf'] as const)(
    'a profiled job submitted after a waiting job is fitted around the start %s promised it, and keeps it',
    (queue) => {
      const r = run([blocker, rigidJob('w', 1, 8, 100), profiled('e', [[300, 4]], 2)], '2X+c', 10, { queue });
      expect(r.of('fpe.scheduled', 'e').map((e) => e.start)).toEqual([350]);
      expect(r.of('job.started', 'w').map((e) => e.t)).toEqual([250]);
      expect(r.of('fpe.step', 'e').map((e) => e.t)).toEqual([350]);
      expect(r.over).toBe(false);
    },
  );

  // The profiled job e holds 2 of 10 for 100 s, then needs 8. A malleable job m (1..10), submitted at 1, grows into the
  // 8 free processors. At 100 e's second step is 6 short: mandatory shrinks take m back to 2 (down from 8, its min
  // being 1), and the step starts then instead of waiting for m to end (its run is some 2,000 s long).
  it('a step whose processors a malleable job expanded into gets them back by mandatory shrinks', () => {
    const m = malleableJob('m', 1, { min: 1, max: 10, runtime: 8000, walltime: 20_000, serial: 1 });
    const r = run(
      [
        profiled('e', [
          [100, 2],
          [100, 8],
        ]),
        m,
      ],
      '2X',
    );
    const grown = r.world.scheduler.job('m')!.sizeHistory.filter((x) => x.t < 100);
    expect(Math.max(...grown.map((x) => x.v))).toBe(8);
    expect(r.of('fpe.step', 'e').map((e) => [e.t, e.step, e.processors, e.expandedS])).toEqual([
      [0, 1, 2, 0],
      [100, 2, 8, 0],
    ]);
    expect(r.world.scheduler.job('m')!.sizeHistory.find((x) => x.t === 100)?.v).toBe(2);
    expect(r.of('job.ended', 'e')[0]!.t).toBe(200);
    expect(r.over).toBe(false);
  });

  describe('under a planning queue policy, a later queue job is admitted around a waiting profiled job', () => {
    // 10 processors; a rigid job holds 6 until 100; the profiled job (submitted at 1) is fitted to start at 100 with
    // 8. A rigid job submitted at 2 would fit now (4 free), but over its walltime it overlaps that first step.
    const jobs = [
      rigidJob('r', 0, 6, 100),
      profiled('e', [[100, 8]], 1),
      rigidJob('late', 2, 4, 200),
      rigidJob('short', 2, 4, 50),
    ];

    for (const queue of ['easy', 'cbf'] as const) {
      it(`${queue}: holds it back until the step's end; a job that ends before the step backfills`, () => {
        const r = run(jobs, '2X', 10, { queue });
        expect(r.of('fpe.scheduled', 'e').map((e) => e.start)).toEqual([100]);
        expect(r.of('job.started', 'e').map((e) => e.t)).toEqual([100]);
        expect(r.of('job.started', 'short').map((e) => e.t)).toEqual([2]);
        expect(r.of('job.started', 'late').map((e) => e.t)).toEqual([200]);
        expect(r.over).toBe(false);
      });
    }

    it('cbf: a later job whose promise the profiled job is fitted again over is planned afresh, after it', () => {
      // b (6, planned to 300) ends at 20; d holds 4 to 100. x (8 for 200 s) is fitted at 300, q (4 for 150 s) promised
      // at 100. When b ends x is fitted at 100, over q's promise: q is planned again at 300, so w (2 for 400 s) may
      // backfill at 20 (with q's promise kept, the plan would be overbooked over [100, 250) and w would wait).
      const r = run(
        [
          { ...rigidJob('b', 0, 6, 300), app: { model: 'fixed', runtime: 20 } },
          rigidJob('d', 0, 4, 100),
          profiled('x', [[200, 8]], 1),
          rigidJob('q', 2, 4, 150),
          rigidJob('z', 3, 2, 80),
          rigidJob('w', 5, 2, 400),
        ],
        '2X',
        10,
        { queue: 'cbf' },
      );
      expect(r.of('fpe.scheduled', 'x').map((e) => [e.t, e.start])).toEqual([
        [1, 300],
        [20, 100],
      ]);
      const starts = Object.fromEntries(r.of('job.started').map((e) => [e.jobId, e.t]));
      expect(starts).toEqual({ b: 0, d: 0, z: 20, w: 20, x: 100, q: 300 });
      expect(r.over).toBe(false);
    });

    // A running profiled job's later steps are in the plans too: e holds 1 of 10 for 10 s, then needs 7. A rigid
    // job (4 processors, walltime 100) submitted at 1 fits now (9 free), but over its walltime it overlaps e's second
    // step (7 + 4 > 10): it waits for that step's end, and the step starts on time.
    for (const queue of ['easy', 'cbf'] as const) {
      it(`${queue}: a running profiled job's later steps hold back a job that would overlap them`, () => {
        const r = run(
          [
            profiled('e', [
              [10, 1],
              [10, 7],
            ]),
            rigidJob('late', 1, 4, 100),
          ],
          '2X',
          10,
          { queue },
        );
        expect(r.of('fpe.step', 'e').map((e) => [e.t, e.step, e.expandedS])).toEqual([
          [0, 1, 0],
          [10, 2, 0],
        ]);
        expect(r.of('job.started', 'late').map((e) => e.t)).toEqual([20]);
        expect(r.over).toBe(false);
      });
    }

    it('koala (no plan ahead): the later job starts into its step, which is fitted again after it', () => {
      const r = run(jobs, '2X', 10, { queue: 'koala' });
      expect(r.of('job.started', 'late').map((e) => e.t)).toEqual([2]);
      expect(r.of('job.started', 'e')[0]!.t).toBeGreaterThan(100);
    });
  });
});
