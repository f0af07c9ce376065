// Interactive jobs' applications in the simulated world (core/sim/interactive/periodic-apps.ts): their iterations run
// on the cluster's EDF worker nodes and are reported as live applications report them, so misses and re-placements
// are events in simulation too; the nodes are simulated only as far as the clock has moved, in slices.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import { gridSpecSchema, type GridSpecInput } from '../../../core/model/schemas.js';
import type { ApplicationMessage, InteractiveTasks } from '../../../core/ports.js';
import { EventEngine } from '../../../core/sim/engine.js';
import { DEFAULT_PERIODIC_BEHAVIOUR, PeriodicApps } from '../../../core/sim/interactive/periodic-apps.js';
import { SimWorld } from '../../../core/sim/world.js';

type Of<T extends SchedulerEvent['type']> = Extract<SchedulerEvent, { type: T }>;

// Cms = 0, Cps = 1 ms per unit: σ = 300 units within D = 100 ms needs n_min = 3 nodes of C = 100 ms each.
const GRID: GridSpecInput = {
  clusters: [{ name: 'rt', processors: 8, interactive: { nodes: 8, cmsMsPerUnit: 0, cpsMsPerUnit: 1 } }],
};
const periodic = { periodMs: 1000, dataUnits: 300, deadlineMs: 100 };

function world() {
  const w = new SimWorld({ grid: gridSpecSchema.parse(GRID), jobs: [], seed: 1, background: false, endless: true });
  const events: SchedulerEvent[] = [];
  w.scheduler.on((e) => events.push(e));
  const of = <T extends SchedulerEvent['type']>(type: T) => events.filter((e): e is Of<T> => e.type === type);
  const iterations: Array<Extract<ApplicationMessage, { type: 'iteration' }>> = [];
  const receive = w.scheduler.receive.bind(w.scheduler);
  w.scheduler.receive = (message, now) => {
    if (message.type === 'iteration') iterations.push(message);
    return receive(message, now);
  };
  return { w, of, iterations };
}

describe('simulated interactive applications', () => {
  it('report every task instance: on time at load 0.5 (50 of C = 100 ms), no miss, the job ends after its iterations', () => {
    const { w, of, iterations } = world();
    const r = w.submit({
      id: 'a',
      kind: 'interactive',
      components: [{ program: 'periodic' }],
      interactive: periodic,
      app: { model: 'periodic', iterations: 4 },
    });
    expect(r.ok).toBe(true);
    w.runUntil(30);
    expect(iterations).toHaveLength(4 * 3);
    expect(iterations.every((m) => m.executedMs === 50 && !m.missed && m.generation === 1)).toBe(true);
    expect(of('interactive.missed')).toEqual([]);
    expect(of('job.ended')).toMatchObject([{ jobId: 'a', state: 'completed' }]);
    expect(w.scheduler.interactiveSample('rt')).toMatchObject({ jobs: 0, misses: 0, replacements: 0 });
    // The run's summary counts them, as it does only for a run with interactive jobs.
    expect(w.metrics.summary(0)).toMatchObject({ interactive_deadline_misses: 0, interactive_replacements: 0 });
    const none = new SimWorld({ grid: gridSpecSchema.parse(GRID), jobs: [], seed: 1, background: false });
    none.run();
    expect(Object.keys(none.metrics.summary(0)).filter((k) => k.startsWith('interactive'))).toEqual([]);
  });

  it('an injected overrun is a miss and re-places the job; its next iterations run on the new placement', () => {
    const { w, of, iterations } = world();
    // Every third iteration each task computes 1.2 × C = 120 ms: past C (an overrun) and past D = 100 ms (a miss).
    expect(
      w.submit({
        id: 'a',
        kind: 'interactive',
        components: [{ program: 'periodic' }],
        interactive: periodic,
        app: { model: 'periodic', iterations: 5, overrunEvery: 3, overrunFactor: 1.2 },
      }).ok,
    ).toBe(true);
    w.runUntil(30);
    // The three tasks of the third iteration missed, each measured at 120 ms.
    expect(of('interactive.missed')).toMatchObject([
      { jobId: 'a', cluster: 'rt', task: 0, executedMs: 120, deadlineMs: 100, misses: 1 },
      { jobId: 'a', cluster: 'rt', task: 1, executedMs: 120, deadlineMs: 100, misses: 2 },
      { jobId: 'a', cluster: 'rt', task: 2, executedMs: 120, deadlineMs: 100, misses: 3 },
    ]);
    // The first overrun report re-places it: σ = 300·1.2·1.25 = 450 units, 5 nodes of C = 90 ms; the other two
    // reports are of the old placement.
    expect(of('interactive.replaced')).toMatchObject([{ jobId: 'a', costMs: 90, executedMs: 120, generation: 2 }]);
    // Iterations 4 and 5 ran on the five new tasks, each computing 0.5 × 90 = 45 ms.
    const second = iterations.filter((m) => m.generation === 2);
    expect(second).toHaveLength(2 * 5);
    expect(second.every((m) => m.executedMs === 45 && !m.missed)).toBe(true);
    expect(of('job.ended')).toMatchObject([{ jobId: 'a', state: 'completed' }]);
    expect(w.scheduler.interactiveSample('rt')).toMatchObject({ admitted: 1, misses: 3, replacements: 1 });
    expect(w.metrics.summary(0)).toMatchObject({ interactive_deadline_misses: 3, interactive_replacements: 1 });
  });

  it('two jobs share the nodes under EDF: a job whose overruns find no placement left ends failed', () => {
    const { w, of } = world();
    // 2 × C each third iteration: σ = 300·2·1.25 = 750 units need 8 nodes of C = 94 ms; the partition's other job
    // holds 3 of the 8 (its tasks leave no room beside them), so no placement is left.
    const job = (id: string, app: Record<string, unknown>) => ({
      id,
      kind: 'interactive',
      components: [{ program: 'periodic' }],
      interactive: periodic,
      app: { model: 'periodic', ...app },
    });
    expect(w.submit(job('steady', { load: 1 })).ok).toBe(true);
    expect(w.submit(job('heavy', { overrunEvery: 3 })).ok).toBe(true);
    w.runUntil(30);
    expect(of('job.ended')).toMatchObject([
      {
        jobId: 'heavy',
        state: 'failed',
        reason: expect.stringContaining(
          'ran 200 ms, longer than its cost bound 100 ms, and the job could not be placed',
        ),
      },
    ]);
    expect(of('interactive.missed').every((e) => e.jobId === 'heavy')).toBe(true);
  });
});

describe('the simulated nodes keep up with the clock only', () => {
  it('run in slices: a 10 ms period for 100 s takes about one engine action per second, and nothing past now', () => {
    const engine = new EventEngine();
    const delivered: ApplicationMessage[] = [];
    let actions = 0;
    const apps = new PeriodicApps({
      now: () => engine.now,
      at: (t, action) => {
        actions++;
        engine.at(t, action);
      },
      deliver: (m) => delivered.push(m),
      finished: () => {},
    });
    const tasks: InteractiveTasks = {
      generation: 1,
      nodes: [0, 1],
      costMs: 4,
      periodMs: 10,
      deadlineMs: 10,
      dataUnits: 1,
      fractions: [0.5, 0.5],
    };
    apps.start('j', 'c', 0, DEFAULT_PERIODIC_BEHAVIOUR, 100);
    apps.tasks('j', tasks);
    while (engine.nextTime() <= 5) engine.step();
    // Forks at 0, 10, ..., 5000 ms: the reports of what finished by the last slice (5 s), two tasks each.
    expect(delivered).toHaveLength(2 * 500);
    while (engine.step());
    expect(delivered).toHaveLength(2 * 10_000);
    expect(delivered.every((m) => m.type === 'iteration' && !m.missed && m.executedMs === 2)).toBe(true);
    // One slice action a second (and the lifetime's end), not one per fork.
    expect(actions).toBeLessThanOrEqual(102);
  });
});
