// Scheduler.adopt: a restarted console takes over the jobs an earlier run launched, counting them as they stand on
// their clusters, submitting nothing again, and recording the ones that ended meanwhile.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grid, harness, malleable, rigid } from '../support/harness.js';

const errorsOf = (r: { ok: boolean; errors?: Array<{ path: string; message: string }> }) => (r.ok ? [] : r.errors!);

describe('Scheduler.adopt', () => {
  it('counts a running malleable job in the capacity model without submitting it, and manages it from then on', () => {
    const h = harness(grid({ a: 16, b: 8 }), { policy: 'fpsma', approach: 'pra' });
    const r = h.scheduler.adopt(
      malleable('m1', 2, 10),
      { cluster: 'a', processors: 5, submitTime: -40, startTime: -30 },
      0,
    );
    expect(r.ok).toBe(true);
    const job = h.scheduler.job('m1')!;
    expect(job).toMatchObject({ state: 'running', size: 5, startTime: -30, launched: true });
    expect(job.transitions[0]).toMatchObject({ state: 'submitted', time: -40 });
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 2, preemptible: 3, idle: 11 });
    expect(h.scheduler.unfinishedJobs).toBe(1);
    expect(h.managers.flatMap((m) => m.submitted)).toEqual([]);
    // One event, not the earlier run's submitted, placed and started again (the host has those already).
    expect(h.events.map((e) => e.type)).toEqual(['job.adopted']);
    expect(h.events[0]).toEqual({ type: 'job.adopted', jobId: 'm1', cluster: 'a', size: 5, state: 'running', t: 0 });
    // It grows when processors free up on its cluster, like any running malleable job.
    h.freed('a', 0);
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'm1', processors: 5 }]); // all that is free (16 - 5), cut to its room (10 - 5)
    // And a cancel reaches its local manager (it was launched).
    expect(h.scheduler.cancel('m1', 1).ok).toBe(true);
    expect(h.manager('a').cancelled).toEqual(['m1']);
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 0, preemptible: 0 });
  });

  it("keeps an operator's cap across the restart: the policies grow the job no further than it", () => {
    const h = harness(grid({ a: 16 }), { policy: 'fpsma', approach: 'pra' });
    expect(
      h.scheduler.adopt(
        malleable('g', 2, 8),
        { cluster: 'a', processors: 5, submitTime: -40, startTime: -30, cap: 5 },
        0,
      ).ok,
    ).toBe(true);
    expect(
      h.scheduler.adopt(
        malleable('h', 2, 8),
        { cluster: 'a', processors: 2, submitTime: -20, startTime: -10, cap: 99 },
        0,
      ).ok,
    ).toBe(true);
    expect(h.scheduler.job('g')!.cap).toBe(5);
    expect(h.scheduler.job('h')!.cap).toBe(8); // brought inside min..max
    h.at(1).freed('a', 0); // 9 free: g is at its cap, so only h is offered (up to its max)
    expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'h', processors: 6 }]);
    // An operator's grow lifts the cap again.
    h.answerGrow(h.apps.growOffers[0]!, 6);
    h.growAll();
    expect(h.scheduler.resize('g', 1, h.now).ok).toBe(true);
    expect(h.scheduler.job('g')!.cap).toBe(8);
  });

  it('holds a launched job that has not started yet until its manager answers started', () => {
    const h = harness(grid({ a: 16 }));
    expect(h.scheduler.adopt(rigid('r1', 6), { cluster: 'a', processors: 6, submitTime: 0 }, 5).ok).toBe(true);
    expect(h.scheduler.job('r1')!.state).toBe('claiming');
    expect(h.events).toEqual([{ type: 'job.adopted', jobId: 'r1', cluster: 'a', size: 6, state: 'claiming', t: 5 }]);
    expect(h.scheduler.snapshot()[0]!.nonPreemptible).toBe(6);
    h.at(7);
    h.scheduler.receive({ type: 'started', cluster: 'a', jobId: 'r1', component: 0, processors: 6 }, 7);
    expect(h.scheduler.job('r1')).toMatchObject({ state: 'running', startTime: 7, size: 6 });
    // Its real start, seen by this run, is news: started once.
    expect(h.ofType('job.started')).toEqual([expect.objectContaining({ jobId: 'r1', cluster: 'a', size: 6, t: 7 })]);
    expect(h.scheduler.snapshot()[0]!.nonPreemptible).toBe(6);
    h.finish('r1');
    expect(h.scheduler.snapshot()[0]!.nonPreemptible).toBe(0);
  });

  it('records a job that ended meanwhile with its end state, holding nothing', () => {
    const h = harness(grid({ a: 16 }));
    const r = h.scheduler.adopt(
      malleable('gone', 1, 4),
      { cluster: 'a', processors: 0, submitTime: 0, ended: { state: 'completed', reason: 'exit status 0' } },
      9,
    );
    expect(r.ok).toBe(true);
    expect(h.scheduler.job('gone')!.state).toBe('completed');
    expect(h.events).toEqual([
      expect.objectContaining({ type: 'job.ended', jobId: 'gone', state: 'completed', reason: 'exit status 0', t: 9 }),
    ]);
    expect(h.scheduler.unfinishedJobs).toBe(0);
    expect(h.scheduler.snapshot()[0]).toMatchObject({ nonPreemptible: 0, preemptible: 0, idle: 16 });
  });

  it('refuses sizes outside min..max, unknown clusters, missing or duplicate ids, naming the field', () => {
    const h = harness(grid({ a: 16 }));
    expect(
      errorsOf(
        h.scheduler.adopt(malleable('m', 2, 4), { cluster: 'a', processors: 5, submitTime: 0, startTime: 0 }, 0),
      ),
    ).toEqual([{ path: 'processors', message: 'must be a whole number within 2..4 (got 5)' }]);
    expect(
      errorsOf(h.scheduler.adopt(rigid('r', 3), { cluster: 'a', processors: 2, submitTime: 0, startTime: 0 }, 0))[0]!
        .path,
    ).toBe('processors');
    expect(
      errorsOf(h.scheduler.adopt(rigid('r', 3), { cluster: 'zz', processors: 3, submitTime: 0, startTime: 0 }, 0)),
    ).toEqual([{ path: 'cluster', message: 'names no cluster ("zz")' }]);
    const { id: _omit, ...noId } = rigid('x', 3);
    expect(errorsOf(h.scheduler.adopt(noId, { cluster: 'a', processors: 3, submitTime: 0 }, 0))[0]).toEqual({
      path: 'id',
      message: 'is required to adopt a job',
    });
    expect(h.scheduler.adopt(rigid('r', 3), { cluster: 'a', processors: 3, submitTime: 0, startTime: 0 }, 0).ok).toBe(
      true,
    );
    expect(
      errorsOf(h.scheduler.adopt(rigid('r', 3), { cluster: 'a', processors: 3, submitTime: 0, startTime: 0 }, 0))[0]!
        .path,
    ).toBe('id');
    expect(h.scheduler.unfinishedJobs).toBe(1);
  });

  it('keeps the capacity model consistent: Concertina holds exactly what the adopted running jobs hold', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            min: fc.integer({ min: 1, max: 4 }),
            extra: fc.integer({ min: 0, max: 4 }),
            size: fc.nat(8),
            malleable: fc.boolean(),
          }),
          { maxLength: 8 },
        ),
        (jobs) => {
          const h = harness(grid({ a: 1000 }));
          let held = 0;
          let preemptible = 0;
          jobs.forEach((j, i) => {
            const max = j.min + j.extra;
            const n = j.min + (j.size % (j.extra + 1));
            const spec = j.malleable ? malleable(`j${i}`, j.min, max) : rigid(`j${i}`, n);
            expect(h.scheduler.adopt(spec, { cluster: 'a', processors: n, submitTime: 0, startTime: 0 }, 0).ok).toBe(
              true,
            );
            held += n;
            if (j.malleable) preemptible += n - j.min;
          });
          const s = h.scheduler.snapshot()[0]!;
          expect(s.nonPreemptible + s.preemptible).toBe(held);
          expect(s.preemptible).toBe(preemptible);
          expect(h.managers[0]!.submitted).toEqual([]);
          // Exactly one adoption event per job, and none of a submission, placement or start.
          expect(h.events.map((e) => [e.type, (e as { jobId?: string }).jobId])).toEqual(
            jobs.map((_, i) => ['job.adopted', `j${i}`]),
          );
        },
      ),
    );
  });
});

describe('Scheduler.skipJobNumbers', () => {
  it("makes generated ids go on after an earlier run's, so none collides with an adopted job", () => {
    const h = harness(grid({ a: 16 }));
    expect(
      h.scheduler.adopt(rigid('job-3', 2), { cluster: 'a', processors: 2, submitTime: 0, startTime: 0 }, 0).ok,
    ).toBe(true);
    h.scheduler.skipJobNumbers(3);
    const { id: _omit, ...spec } = rigid('x', 1);
    const r = h.scheduler.submit(spec, 1);
    expect(r.ok && r.value.id).toBe('job-4');
    expect(h.scheduler.jobNumber).toBe(4);
    h.scheduler.skipJobNumbers(2); // never backwards
    expect(h.scheduler.jobNumber).toBe(4);
  });
});
