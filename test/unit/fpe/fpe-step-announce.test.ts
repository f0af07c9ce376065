// A profiled (FPE) job's step that needs processors malleable jobs took as extras (core/scheduler/fpe-jobs.ts):
// the mandatory shrinks are announced ahead with the step's boundary as deadline, as for an evolving job's announced
// update, so that with applications that take time to adapt the step still starts on time.
import { describe, expect, it } from 'vitest';
import { simWorld } from '../../support/sim-world.js';
import { gridOf, malleableJob, profiledJob } from '../../support/workload-specs.js';

// 10 processors. e holds 2 for 100 s, then needs 8 for 100 s. m (1..10, submitted at 1) grows into the 8 free
// processors. Its application takes 20 s to adapt to a new size: shrunk only at 100, it would let them go at 120 and
// e's second step would start 20 s late (expanded, its 2 processors idle meanwhile). Announced ahead, m keeps them
// until 100 and lets them go there: the step starts at 100.
function run(adaptS: number, refuseAhead = false) {
  const { world, events, of } = simWorld(
    gridOf([10]),
    [
      profiledJob('e', 0, [
        { duration_s: 100, processors: 2 },
        { duration_s: 100, processors: 8 },
      ]),
      malleableJob('m', 1, { min: 1, max: 10, runtime: 8000, walltime: 20_000, serial: 1 }),
    ],
    { pollIntervalS: 60, adaptS, scheduler: { fpeVariant: '2X' } },
  );
  if (refuseAhead) {
    // An application that gives nothing back ahead of a deadline (a live one may), only when it must at once.
    const apps = world.applications;
    const answer = apps.requestShrink.bind(apps);
    apps.requestShrink = (offerId, jobId, processors, mandatory, deadline) =>
      answer(offerId, jobId, deadline === undefined ? processors : 0, mandatory);
  }
  let over = false;
  // Stopped should it ask without end at one instant (what it did once applications refused).
  const ended = world.runUntil(Number.POSITIVE_INFINITY, () => {
    const s = world.scheduler.clusters[0]!;
    if (s.nonPreemptible + s.preemptible > s.cluster.threshold) over = true;
    return events.length > 10_000;
  });
  expect(ended).toBe(true);
  return { world, of, over };
}

describe("a profiled job's step that needs malleable extras back", () => {
  for (const adaptS of [10, 30]) {
    it(`starts at its boundary with applications that adapt in ${adaptS} s: the shrinks were asked ahead`, () => {
      const r = run(adaptS);
      expect(r.of('fpe.step', 'e').map((x) => [x.t, x.step, x.processors, x.expandedS])).toEqual([
        [0, 1, 2, 0],
        [100, 2, 8, 0],
      ]);
      const m = r.world.scheduler.job('m')!;
      // m grew into the free processors before the boundary, and was asked for them back before it too.
      expect(Math.max(...m.sizeHistory.filter((x) => x.t < 100).map((x) => x.v))).toBe(8);
      const asked = r.of('shrink.requested', 'm');
      expect(asked.length).toBeGreaterThan(0);
      expect(asked[0]!.t).toBeLessThanOrEqual(100 - adaptS);
      expect(asked[0]!.mandatory).toBe(true);
      // It worked on them until the boundary, and had let them go by then.
      expect(m.sizeHistory.filter((x) => x.t < 100).at(-1)!.v).toBe(8);
      expect(m.sizeHistory.find((x) => x.t === 100)?.v).toBe(2);
      expect(r.of('job.ended', 'e')[0]!.t).toBe(200);
      expect(r.over).toBe(false);
    });
  }

  it('asks once ahead when the applications refuse, and gets them at the boundary instead', () => {
    const r = run(10, true);
    const asked = r.of('shrink.requested', 'm');
    expect(asked.map((x) => x.t)).toEqual([60, 100]);
    expect(r.of('shrink.answered', 'm').map((x) => x.accepted)).toEqual([0, 6]);
    expect(r.of('fpe.step', 'e').map((x) => [x.t, x.step, x.expandedS])).toEqual([
      [0, 1, 0],
      [110, 2, 10],
    ]);
    expect(r.over).toBe(false);
  });
});
