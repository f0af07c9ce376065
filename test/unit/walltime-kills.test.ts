// The simulated clusters' walltime deadlines (core/sim/walltime-kills.ts): one engine action at the earliest, none
// left behind by a job that ended first, and deadlines of one instant in the order they were set.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusterSchema } from '../../core/model/schemas.js';
import type { ManagerMessage } from '../../core/ports.js';
import { EventEngine } from '../../core/sim/engine.js';
import { SimulatedCluster } from '../../core/sim/simulated-cluster.js';
import { WalltimeKills, type Deadline } from '../../core/sim/walltime-kills.js';

function setUp() {
  const engine = new EventEngine();
  const kills = new WalltimeKills(engine);
  const due: Array<[number, string]> = [];
  const owner = { walltimeDue: (d: Deadline) => due.push([engine.now, d.jobId]) };
  const run = () => {
    while (engine.step());
  };
  return { engine, kills, due, owner, run };
}

describe('WalltimeKills', () => {
  it('tells each owner at its deadline, those of one instant in the order they were set', () => {
    const { kills, due, owner, run } = setUp();
    kills.set(owner, 'c', 30);
    kills.set(owner, 'a', 10);
    kills.set(owner, 'b', 30);
    kills.set(owner, 'd', 20);
    run();
    expect(due).toEqual([
      [10, 'a'],
      [20, 'd'],
      [30, 'c'],
      [30, 'b'],
    ]);
  });

  it('never tells of a cancelled deadline, and keeps the others in order', () => {
    const { kills, due, owner, run } = setUp();
    const deadlines = [5, 40, 15, 25, 35, 10].map((t, i) => kills.set(owner, `j${i}`, t));
    kills.cancel(deadlines[0]!);
    kills.cancel(deadlines[3]!);
    kills.cancel(deadlines[3]!);
    run();
    expect(due).toEqual([
      [10, 'j5'],
      [15, 'j2'],
      [35, 'j4'],
      [40, 'j1'],
    ]);
  });

  it('leaves the engine one action, not one per job, when jobs end before their walltimes', () => {
    const { engine, kills, due, owner, run } = setUp();
    // 1,000 jobs with walltimes of 1,000..1,999 s, all ended at once: their deadlines leave with them.
    const deadlines = Array.from({ length: 1000 }, (_, i) => kills.set(owner, `j${i}`, 1000 + i));
    expect(engine.pending).toBe(1);
    for (const d of deadlines) kills.cancel(d);
    kills.set(owner, 'late', 5000);
    expect(engine.pending).toBeLessThanOrEqual(2);
    run();
    expect(due).toEqual([[5000, 'late']]);
    expect(engine.processed).toBeLessThanOrEqual(2);
  });

  it('a simulated cluster whose jobs end before their walltimes leaves nothing in the engine; one past it is killed', () => {
    const engine = new EventEngine();
    const messages: ManagerMessage[] = [];
    const c = new SimulatedCluster(
      clusterSchema.parse({ name: 'a', processors: 200 }),
      0,
      engine,
      (m) => messages.push(m),
      { started: () => undefined, usage() {} },
    );
    const submit = (jobId: string, walltimeS: number) =>
      c.submit({ jobId, component: 0, processors: 1, program: 'p', args: [], tag: 't', walltimeS });
    for (let i = 0; i < 100; i++) submit(`j${i}`, 3600 + i);
    for (let i = 0; i < 100; i++) c.end(`j${i}`, 'completed', 'application finished');
    // One action at most for the earliest deadline that was, not one per job until its walltime.
    expect(engine.pending).toBeLessThanOrEqual(1);
    submit('late', 50);
    while (messages.at(-1)?.type !== 'finished' && engine.step());
    expect(engine.now).toBe(50);
    expect(messages.at(-1)).toMatchObject({ type: 'finished', jobId: 'late', state: 'failed' });
    expect(c.allocatedTo('late')).toBe(0);
  });

  // The shortcut (SimulatedCluster.launched): no deadline for a job whose application is known to finish by it.
  describe('a local job whose application is sure to finish by its walltime', () => {
    interface Job {
      submit: number;
      processors: number;
      runtime: number;
      walltime: number;
    }

    /** Runs the jobs on a cluster of 4 whose applications end at start + runtime; what the cluster said, and when. */
    function replay(jobs: readonly Job[], toldEnds: boolean) {
      const engine = new EventEngine();
      const said: unknown[] = [];
      const byId = new Map(jobs.map((j, i) => [`j${i}`, j]));
      const c: SimulatedCluster = new SimulatedCluster(
        clusterSchema.parse({ name: 'a', processors: 4 }),
        0,
        engine,
        (m) => said.push([engine.now, m]),
        {
          started: (jobId) => {
            const end = engine.now + byId.get(jobId)!.runtime;
            engine.at(end, () => c.end(jobId, 'completed', 'application finished'));
            // The general path: the cluster is not told, and sets the deadline.
            return toldEnds ? end : undefined;
          },
          usage() {},
        },
      );
      jobs.forEach((j, i) =>
        engine.at(j.submit, () =>
          c.submit({
            jobId: `j${i}`,
            component: 0,
            processors: j.processors,
            program: 'p',
            args: [],
            tag: 't',
            walltimeS: j.walltime,
          }),
        ),
      );
      while (engine.step());
      return { said, actions: engine.processed };
    }

    it('is started, ended and killed as with its deadline set (small whole times, so that ends meet deadlines)', () => {
      const job = fc.record({
        submit: fc.integer({ min: 0, max: 40 }),
        processors: fc.integer({ min: 1, max: 4 }),
        runtime: fc.integer({ min: 1, max: 12 }),
        walltime: fc.integer({ min: 1, max: 12 }),
      });
      fc.assert(
        fc.property(fc.array(job, { maxLength: 25 }), (jobs) => {
          const general = replay(jobs, false);
          const shortcut = replay(jobs, true);
          expect(shortcut.said).toEqual(general.said);
          expect(shortcut.actions).toBeLessThanOrEqual(general.actions);
        }),
        { numRuns: 300 },
      );
    });

    it('gets no deadline: its end is the only action left for it', () => {
      const jobs = [{ submit: 0, processors: 1, runtime: 10, walltime: 10 }];
      // The application's end; the deadline's action besides it before the shortcut.
      expect(replay(jobs, true).actions).toBe(2);
      expect(replay(jobs, false).actions).toBe(3);
    });
  });
});
