// Interactive periodic jobs in live mode on this machine (a `local` cluster with interactive worker nodes, no daemons
// needed): the periodic demo application (assets/apps/periodic-demo.mjs) gets its tasks through the application
// protocol, forks them as processes every period, and reports each task's execution time (its own processor time),
// its response time (from the fork) and misses; an instance
// longer than the cost bound C re-places the job, whose new tasks the application takes at its next fork. Every
// wait is on a condition (the applications' files, the scheduler's events), so a loaded machine only makes it slower.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FromAppMessage } from '../../runners/protocol/messages.js';
import { waitFor } from './harness/common.js';
import { liveRun } from './harness/live-run.js';
import { localCluster } from './harness/local-cluster.js';

const run = liveRun('live-interactive', (dir) => ({
  // 8 worker nodes; Cms 0, Cps 10 ms per data unit.
  clusters: [
    localCluster(path.join(dir, 'work'), { slots: 2, interactive: { nodes: 8, cmsMsPerUnit: 0, cpsMsPerUnit: 10 } }),
  ],
  idleWatchIntervalMs: 500,
  log: () => {},
}));
const { of, toApp, fromApp } = run;
const iterations = (jobId: string) =>
  fromApp(jobId).filter((m): m is Extract<FromAppMessage, { type: 'iteration' }> => m.type === 'iteration');

describe('interactive periodic jobs on a local cluster', () => {
  it('admits the job, runs its tasks each period, reports their times and misses, and re-places it after an overrun', async () => {
    const staged = run.world.assetsDir!('here')!;
    // σ = 400 units within D = T = 3000 ms: n_min = ⌈400·10 / 3000⌉ = 2 tasks of C = 4000 / 2 = 2000 ms. The demo runs
    // 3 iterations, each task computing 0.1·C = 200 ms, except the 2nd at 1.5·C = 3000 ms: an overrun.
    const submitted = run.world.act((s, now) =>
      s.submit(
        {
          id: 'p',
          kind: 'interactive',
          components: [
            {
              program: process.execPath,
              args: [path.join(staged, 'apps', 'periodic-demo.mjs'), '3', '0.1', '2', '1.5'],
            },
          ],
          interactive: { periodMs: 3000, dataUnits: 400, deadlineMs: 3000 },
        },
        now,
      ),
    );
    expect(submitted.ok).toBe(true);
    expect(of('interactive.admitted', 'p')).toMatchObject([{ cluster: 'here', costMs: 2000, minNodes: 2 }]);
    // A job the partition cannot meet is refused at once, at its field.
    const refused = run.world.act((s, now) =>
      s.submit(
        {
          kind: 'interactive',
          components: [{ program: '/bin/true' }],
          interactive: { periodMs: 1000, dataUnits: 1000, deadlineMs: 1000 },
        },
        now,
      ),
    );
    expect(refused.ok ? [] : refused.errors).toEqual([
      { path: 'interactive.deadlineMs', message: 'refused: the deadline needs 10 nodes, the cluster has 8' },
    ]);

    // Its tasks reach the application once its driver runs.
    await waitFor('the tasks message', () => toApp('p').some((m) => m.type === 'tasks'), 30_000, 100);
    expect(toApp('p').find((m) => m.type === 'tasks')).toMatchObject({
      generation: 1,
      costMs: 2000,
      periodMs: 3000,
      deadlineMs: 3000,
      dataUnits: 400,
      fractions: [0.5, 0.5],
    });

    // The overrun (whichever instance it was: a loaded machine may make another one longer than C too) re-places the
    // job, and the application runs the new placement's tasks.
    await waitFor('a re-placement', () => of('interactive.replaced', 'p').length > 0, 60_000, 100);
    const [replaced] = of('interactive.replaced', 'p');
    expect(replaced!.executedMs).toBeGreaterThan(2000);
    expect(replaced!.generation).toBe(2);
    await waitFor('the job to end', () => of('job.ended', 'p').length > 0, 90_000, 100);
    const reports = iterations('p');
    // Every fork reported each of its tasks: 2 of the first placement's, then the new placement's.
    expect(reports.filter((r) => r.generation === 1).length).toBeGreaterThanOrEqual(2);
    expect(reports.length).toBeGreaterThanOrEqual(2 + 2 * 2);
    for (const r of reports) expect(r.executedMs).toBeGreaterThan(0);
    // Both times are reported: the response (from the fork) holds the execution and the process's start.
    for (const r of reports) expect(r.responseMs).toBeGreaterThanOrEqual(r.executedMs);
    expect(
      toApp('p')
        .filter((m) => m.type === 'tasks')
        .map((m) => (m as { generation: number }).generation),
    ).toEqual(of('interactive.replaced', 'p').length === 1 ? [1, 2] : expect.arrayContaining([1, 2]));
    // Misses the scheduler counted are those the application reported.
    const missed = reports.filter((r) => r.missed);
    expect(of('interactive.missed', 'p').map((e) => [e.executedMs, e.responseMs])).toEqual(
      missed.map((r) => [r.executedMs, r.responseMs]),
    );
    expect(missed.every((r) => r.responseMs! > 3000)).toBe(true);
    // The heavy iteration's tasks ran 3000 ms of their own: past D once the fork's overhead is counted.
    expect(missed.length).toBeGreaterThanOrEqual(1);
    const ended = of('job.ended', 'p')[0]!;
    // Three iterations done, the application ends by itself (unless a loaded machine made overruns leave no placement).
    if (ended.state === 'completed')
      expect(fromApp('p').find((m) => m.type === 'done')).toMatchObject({
        ok: true,
        note: expect.stringMatching(/^3 iterations, \d+ task instances past their deadline$/),
      });
    else expect(ended).toMatchObject({ state: 'failed', reason: expect.stringContaining('could not be placed again') });
    expect(run.world.scheduler.interactiveSample('here')).toMatchObject({
      jobs: 0,
      admitted: 1,
      misses: missed.length,
    });
  }, 180_000);

  it("compares a task's own processing time with C: starting its process is not an overrun", async () => {
    const staged = run.world.assetsDir!('here')!;
    // σ = 1 unit within D = T = 1000 ms: 1 task of C = 10 ms, computing 0.5·C = 5 ms of processor time per iteration;
    // starting a Node process for it takes longer than C, so a time measured from the fork would overrun every time.
    const submitted = run.world.act((s, now) =>
      s.submit(
        {
          id: 'q',
          kind: 'interactive',
          components: [
            { program: process.execPath, args: [path.join(staged, 'apps', 'periodic-demo.mjs'), '3', '0.5'] },
          ],
          interactive: { periodMs: 1000, dataUnits: 1, deadlineMs: 1000 },
        },
        now,
      ),
    );
    expect(submitted.ok).toBe(true);
    expect(of('interactive.admitted', 'q')).toMatchObject([{ costMs: 10, minNodes: 1 }]);
    await waitFor('the job to end', () => of('job.ended', 'q').length > 0, 90_000, 100);
    expect(of('job.ended', 'q')).toMatchObject([{ state: 'completed' }]);
    const reports = iterations('q');
    expect(reports).toHaveLength(3);
    for (const r of reports) {
      expect(r.executedMs).toBeLessThanOrEqual(10);
      // The process's start is in the response time, against D.
      expect(r.responseMs).toBeGreaterThan(r.executedMs);
    }
    expect(of('interactive.replaced', 'q')).toEqual([]);
  }, 120_000);
});
