// A profiled (FPE) job adopted after a restart (core/scheduler/adoption.ts) is handed back to the FPE jobs
// (core/scheduler/fpe-jobs.ts): it holds its current step only, and goes on with its profile from that step.
import { describe, expect, it } from 'vitest';
import { grid, harness } from '../../support/harness.js';
import { profiledJob, rigidJob } from '../../support/workload-specs.js';

// 2 processors for 100 s, 6 for 100 s, 3 for 100 s.
const profiled = profiledJob('e', 0, [
  { duration_s: 100, processors: 2 },
  { duration_s: 100, processors: 6 },
  { duration_s: 100, processors: 3 },
]);

describe('an adopted profiled job', () => {
  it.each([
    ['its stored step', { index: 1, start: -20 }],
    ['its run time at the requested lengths, without a stored step', undefined],
  ])('continues its profile from %s', (_, step) => {
    const h = harness(grid({ a: 16 }));
    // Started at -120: step 1 ran -120..-20, step 2 (6 processors) since -20, due to end at 80.
    const r = h.scheduler.adopt(
      profiled,
      { cluster: 'a', processors: 6, submitTime: -130, startTime: -120, ...(step && { step }) },
      0,
    );
    expect(r.ok).toBe(true);
    // It holds its step's 6, no pre-allocation of its peak.
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 6, idle: 10 });
    expect(h.scheduler.fpeSchedule('e')).toMatchObject({ step: 1, stepStart: -20 });
    // Its application's announcement of step 2, written before the restart and read after it, and of step 3 are its own.
    h.scheduler.receive({ type: 'update', jobId: 'e', processors: 6, announceS: 100 }, 1);
    h.scheduler.receive({ type: 'update', jobId: 'e', processors: 3, announceS: 30 }, 50);
    expect(h.ofType('evolve.refused')).toEqual([]);
    h.at(80).scheduler.advance(80);
    expect(h.manager('a').shrinks).toEqual([{ jobId: 'e', processors: 3 }]);
    expect(h.ofType('fpe.step').map((e) => [e.t, e.step, e.processors, e.expandedS])).toEqual([[80, 3, 3, 0]]);
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 3 });
    h.at(180).finish('e');
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 0 });
    expect(h.scheduler.fpeSchedule('e')).toBeUndefined();
  });

  // A rigid job r holds 6 of 10 with a walltime to 250. The profiled job f (2 for 100 s, 4 for 100 s, 8 for 100 s),
  // submitted at 1, is fitted by 2X with its second step expanded to wait for its third's 8: 101..250 (149 s). r ends
  // early, at 150; Concertina restarts at 120, in f's second step. Adopted with its plan, f keeps the expansion: its
  // third step at 250 as planned, as it would have without the restart (not at 201, the requested end).
  it('keeps the expansions its earlier run planned: a later step starts when its scheduled EP says', () => {
    const blocker = rigidJob('r', 0, 6, 250);
    const f = profiledJob('f', 1, [
      { duration_s: 100, processors: 2 },
      { duration_s: 100, processors: 4 },
      { duration_s: 100, processors: 8 },
    ]);
    const before = harness(grid({ a: 10 }), { fpeVariant: '2X' });
    before.submit(blocker);
    before.pass();
    before.startAll();
    before.at(1).submit(f);
    before.scheduler.advance(1);
    before.startAll();
    before.at(101).scheduler.advance(101);
    before.growAll();
    expect(before.ofType('fpe.step').map((e) => [e.t, e.step, e.processors])).toEqual([
      [1, 1, 2],
      [101, 2, 4],
    ]);
    const stored = before.at(120).scheduler.fpeSchedule('f')!;
    expect(stored).toMatchObject({
      step: 1,
      stepStart: 101,
      planned: [
        { duration: 149, nodes: 4 },
        { duration: 100, nodes: 8 },
      ],
    });

    const after = harness(grid({ a: 10 }), { fpeVariant: '2X' });
    after.at(120);
    expect(after.scheduler.adopt(blocker, { cluster: 'a', processors: 6, submitTime: 0, startTime: 0 }, 120).ok).toBe(
      true,
    );
    const step = {
      index: stored.step,
      start: stored.stepStart,
      planned: stored.planned.map((s) => ({ durationS: s.duration, processors: s.nodes })),
    };
    expect(after.scheduler.adopt(f, { cluster: 'a', processors: 4, submitTime: 1, startTime: 1, step }, 120).ok).toBe(
      true,
    );
    after.at(150).finish('r');
    after.at(201).scheduler.advance(201);
    expect(after.manager('a').grows).toEqual([]);
    after.at(250).scheduler.advance(250);
    expect(after.manager('a').grows).toEqual([{ jobId: 'f', processors: 4 }]);
    expect(after.ofType('fpe.step').map((e) => [e.t, e.step, e.processors, e.expandedS])).toEqual([[250, 3, 8, 49]]);
  });

  it('refuses a stored plan that does not match its profile, naming the field', () => {
    const h = harness(grid({ a: 16 }));
    const adopt = (planned: Array<{ durationS: number; processors: number }>) => {
      const r = h.scheduler.adopt(
        profiled,
        { cluster: 'a', processors: 6, submitTime: -130, startTime: -120, step: { index: 1, start: -20, planned } },
        0,
      );
      return r.ok ? [] : r.errors;
    };
    expect(adopt([{ durationS: 100, processors: 6 }])).toEqual([
      { path: 'step.planned', message: 'must hold its current step and the ones after it, 2 (got 1)' },
    ]);
    expect(
      adopt([
        { durationS: 90, processors: 6 },
        { durationS: 100, processors: 7 },
      ]),
    ).toEqual([
      { path: 'step.planned[0].durationS', message: 'must be at least its requested 100 s (got 90)' },
      { path: 'step.planned[1].processors', message: 'must be a whole number within 3..6 (got 7)' },
    ]);
  });

  it("adopted short of its step's processors (a grow the restart cut short): takes them, and the step begins again", () => {
    const h = harness(grid({ a: 16 }));
    // In step 2 since -20, but holding 2 of its 6.
    expect(
      h.scheduler.adopt(
        profiled,
        { cluster: 'a', processors: 2, submitTime: -130, startTime: -120, step: { index: 1, start: -20 } },
        0,
      ).ok,
    ).toBe(true);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
    expect(h.ofType('fpe.step').map((e) => [e.t, e.step, e.processors])).toEqual([[0, 2, 6]]);
    h.growAll();
    h.at(100).scheduler.advance(100);
    expect(h.ofType('fpe.step').map((e) => [e.t, e.step, e.processors])).toEqual([
      [0, 2, 6],
      [100, 3, 3],
    ]);
  });

  it("adopted while its step's grow is under way (its local jobs launched, not started): holds them, grows no more", () => {
    const h = harness(grid({ a: 16 }));
    // In step 2 since -20: 2 of its 6 run, the 4 others wait to start on the cluster.
    expect(
      h.scheduler.adopt(
        profiled,
        { cluster: 'a', processors: 2, growing: 4, submitTime: -130, startTime: -120, step: { index: 1, start: -20 } },
        0,
      ).ok,
    ).toBe(true);
    expect(h.manager('a').grows).toEqual([]);
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 6, idle: 10 });
    h.at(5).scheduler.receive({ type: 'grown', cluster: 'a', jobId: 'e', processors: 4 }, 5);
    expect(h.scheduler.job('e')).toMatchObject({ size: 6, pendingGrow: 0 });
    expect(h.apps.sizes.get('e')).toBe(6);
    h.at(80).scheduler.advance(80);
    expect(h.ofType('fpe.step').map((e) => [e.t, e.step, e.processors])).toEqual([[80, 3, 3]]);
    expect(h.manager('a').shrinks).toEqual([{ jobId: 'e', processors: 3 }]);
  });

  it('adopted before its local jobs started: runs its first step from their start', () => {
    const h = harness(grid({ a: 16 }));
    expect(h.scheduler.adopt(profiled, { cluster: 'a', processors: 2, submitTime: -10 }, 0).ok).toBe(true);
    expect(h.scheduler.job('e')!.state).toBe('claiming');
    // Placed, not waiting: the plan draws no reservation for it.
    expect(h.scheduler.planSnapshot(0).clusters[0]!.reservations).toEqual([]);
    h.at(5).scheduler.receive({ type: 'started', cluster: 'a', jobId: 'e', component: 0, processors: 2 }, 5);
    h.scheduler.advance(105);
    expect(h.ofType('fpe.step').map((e) => [e.t, e.step, e.processors])).toEqual([
      [5, 1, 2],
      [105, 2, 6],
    ]);
    expect(h.manager('a').grows).toEqual([{ jobId: 'e', processors: 4 }]);
  });

  it('refuses a stored step outside its profile, or on a job without one, naming the field', () => {
    const h = harness(grid({ a: 16 }));
    const bad = h.scheduler.adopt(
      profiled,
      { cluster: 'a', processors: 6, submitTime: 0, startTime: 0, step: { index: 3, start: 0 } },
      1,
    );
    expect(bad.ok ? [] : bad.errors).toEqual([
      { path: 'step.index', message: 'must be a step of its profile, 0..2 (got 3)' },
    ]);
    const rigid = h.scheduler.adopt(
      { id: 'r', kind: 'rigid', components: [{ processors: 2, program: 'p' }] },
      { cluster: 'a', processors: 2, submitTime: 0, startTime: 0, step: { index: 0, start: 0 } },
      1,
    );
    expect(rigid.ok ? [] : rigid.errors).toEqual([{ path: 'step', message: 'is only for a job with a profile' }]);
    const growing = (adopted: { growing: number; startTime?: number }) => {
      const r = h.scheduler.adopt(
        { ...profiled, id: 'g' },
        { cluster: 'a', processors: 2, submitTime: 0, ...adopted },
        1,
      );
      return r.ok ? [] : r.errors;
    };
    expect(growing({ growing: 5, startTime: 0 })).toEqual([
      { path: 'growing', message: 'must be a whole number within 0..4 (got 5)' },
    ]);
    expect(growing({ growing: 1 })).toEqual([
      { path: 'growing', message: 'is only for a running malleable or evolving job' },
    ]);
  });
});
