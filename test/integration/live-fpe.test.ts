// Fully-predictably evolving jobs in live mode on this machine (a `local` cluster, no daemons needed): the FPE demo
// application (assets/apps/fpe-demo.mjs) is submitted with its evolution profile; Concertina fits it by the run's
// variant, starts it, and gives it each step's processors at the step's time (`resources`), releasing at step
// boundaries; the application announces each larger next step by `update` (the NEXT chain), which is checked against
// the profile. Every wait is on a condition (the application's files, the scheduler's events).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LiveWorldOptions } from '../../runners/live/live-world.js';
import { waitFor } from './harness/common.js';
import { profiledJob } from '../support/workload-specs.js';
import { liveRun } from './harness/live-run.js';
import { localCluster } from './harness/local-cluster.js';

/** A live world on one local cluster of 4 slots under `dir`; `restore`: an earlier world's persisted state. */
function localWorld(dir: string, restore?: unknown): LiveWorldOptions {
  return {
    clusters: [localCluster(path.join(dir, 'work'))],
    idleWatchIntervalMs: 500,
    log: () => {},
    ...(restore !== undefined && { restore }),
  };
}

const run = liveRun('live-fpe', (dir) => localWorld(dir));
const { of, toApp, fromApp } = run;

/**
 * Submits the FPE demo application (its arguments say its profile's steps again) as job `id`, its process started
 * by the words of `launcher` when given.
 */
function submitDemo(id: string, steps: Array<{ duration_s: number; processors: number }>, launcher: string[] = []) {
  const demo = path.join(run.world.assetsDir!('here')!, 'apps', 'fpe-demo.mjs');
  const profile = steps.map((s) => `${s.duration_s}:${s.processors}`).join(',');
  const [program, ...args] = [...launcher, process.execPath, demo, profile];
  return run.world.act((s, now) => s.submit(profiledJob(id, 0, steps, { program: program!, args }), now));
}

describe('fully-predictably evolving jobs on a local cluster', () => {
  it('runs each step with its processors, announced through update and given through resources', async () => {
    const steps = [
      { duration_s: 2, processors: 1 },
      { duration_s: 2, processors: 3 },
      { duration_s: 1, processors: 2 },
    ];
    const submitted = submitDemo('f', steps);
    expect(submitted.ok).toBe(true);
    expect(of('fpe.scheduled', 'f')).toMatchObject([
      { cluster: 'here', variant: '2X+c', steps: [{ processors: 1 }, { processors: 3 }, { processors: 2 }] },
    ]);
    await waitFor('the job to end', () => of('job.ended', 'f').length > 0, 90_000, 100);
    expect(of('job.ended', 'f')[0]).toMatchObject({ state: 'completed' });
    expect(of('fpe.step', 'f').map((e) => [e.step, e.processors])).toEqual([
      [1, 1],
      [2, 3],
      [3, 2],
    ]);
    // The application announced its one larger next step (the NEXT chain), and nothing was refused.
    expect(fromApp('f').filter((m) => m.type === 'update')).toMatchObject([{ processors: 3, announceS: 2 }]);
    expect(of('evolve.refused', 'f')).toEqual([]);
    // Its step sizes reached it as resources, and it ran each step on them.
    expect(
      toApp('f')
        .filter((m) => m.type === 'resources')
        .map((m) => (m as { size: number }).size),
    ).toEqual(expect.arrayContaining([3, 2]));
    expect(fromApp('f').find((m) => m.type === 'done')).toMatchObject({ ok: true, note: 'steps on 1, 3, 2' });
    // Each step lasted at least its duration (expanded, never shortened).
    const starts = of('fpe.step', 'f').map((e) => e.t);
    const end = of('job.ended', 'f')[0]!.t;
    [...starts.slice(1), end].forEach((t, i) =>
      expect(t - starts[i]!).toBeGreaterThanOrEqual(steps[i]!.duration_s - 0.05),
    );
  }, 120_000);

  // On a loaded machine the application's process starts late: its announcement of its second step is read after
  // Concertina began that step. It is its own announcement all the same: refused, the application gave up the grow it
  // had asked for and waited for its processors forever.
  it('an application that starts after its first step ended announces its second late: noted, and it runs on', async () => {
    const submitted = submitDemo(
      'late',
      [
        { duration_s: 1, processors: 1 },
        { duration_s: 4, processors: 2 },
        { duration_s: 1, processors: 1 },
      ],
      // Its process waits 2 s before the application starts: longer than its first step, shorter than its second.
      ['/bin/sh', '-c', 'sleep 2; exec "$0" "$@"'],
    );
    expect(submitted.ok).toBe(true);
    await waitFor(
      'the job to end, or its announcement to be refused',
      () => of('job.ended', 'late').length > 0 || of('evolve.refused', 'late').length > 0,
      60_000,
      100,
    );
    expect(of('evolve.refused', 'late')).toEqual([]);
    expect(of('job.ended', 'late')[0]).toMatchObject({ state: 'completed' });
    // Its one announcement, of its second step: noted.
    expect(fromApp('late').filter((m) => m.type === 'update')).toMatchObject([{ processors: 2 }]);
    expect(of('fpe.step', 'late').map((e) => [e.step, e.processors])).toEqual([
      [1, 1],
      [2, 2],
      [3, 1],
    ]);
    expect(fromApp('late').find((m) => m.type === 'done')).toMatchObject({ ok: true, note: 'steps on 1, 2, 1' });
  }, 120_000);

  it('adopted after a restart in its second step, goes on with its profile from there', async () => {
    const steps = [
      { duration_s: 1, processors: 1 },
      { duration_s: 4, processors: 3 },
      { duration_s: 1, processors: 2 },
    ];
    const submitted = submitDemo('g', steps);
    expect(submitted.ok).toBe(true);
    await waitFor(
      'its second step on its 3 processors',
      () => of('fpe.step', 'g').length === 2 && run.world.scheduler.job('g')!.size === 3,
      30_000,
      50,
    );
    const state = JSON.parse(JSON.stringify(run.world.persistentState())) as { jobs: Array<{ spec: { id: string } }> };
    const second = of('fpe.step', 'g')[1]!;
    // Stored with its plan from this step on (nothing to expand on a free cluster: the requested steps).
    const planned = [
      { durationS: 4, processors: 3 },
      { durationS: 1, processors: 2 },
    ];
    expect(state.jobs.find((j) => j.spec.id === 'g')).toMatchObject({ step: { index: 1, start: second.t, planned } });
    await run.world.stop();

    const before = run.events.length;
    await run.start(localWorld(run.dir, state));
    expect(run.world.recovered()).toEqual([
      { jobId: 'g', cluster: 'here', outcome: 'adopted', detail: 'running with 3 processors' },
    ]);
    expect(run.world.scheduler.fpeSchedule('g')).toMatchObject({
      step: 1,
      stepStart: second.t,
      planned: planned.map((p) => ({ duration: p.durationS, nodes: p.processors })),
    });
    await waitFor('the job to end', () => of('job.ended', 'g').length > 0, 60_000, 100);
    expect(of('job.ended', 'g')[0]).toMatchObject({ state: 'completed' });
    // The restarted world took its third step at its time, not again its first ones.
    const after = run.events.slice(before).filter((e) => e.type === 'fpe.step' && e.jobId === 'g');
    expect(after.map((e) => (e as { step: number }).step)).toEqual([3]);
    expect(after[0]!.t - second.t).toBeGreaterThanOrEqual(steps[1]!.duration_s - 0.05);
    expect(of('evolve.refused', 'g')).toEqual([]);
    expect(fromApp('g').find((m) => m.type === 'done')).toMatchObject({ ok: true, note: 'steps on 1, 3, 2' });
  }, 120_000);
});
