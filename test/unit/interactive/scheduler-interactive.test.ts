// Interactive periodic jobs as a job kind of the multicluster scheduler: the job JSON and its field errors, the
// cluster's interactive partition, admission (or refusal, at the field) on submission, the driver placed on the
// partition's cluster, reports of iterations (misses, overruns and re-placement) and the nodes freed at the end.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import { buildGrid } from '../../../core/model/grid.js';
import { parseJob } from '../../../core/model/job.js';
import { parseWith } from '../../../core/model/result.js';
import { gridSpecSchema, jobSpecSchema, type GridSpecInput } from '../../../core/model/schemas.js';
import type { ApplicationPort, InteractiveTasks } from '../../../core/ports.js';
import { SimWorld } from '../../../core/sim/world.js';
import { harness } from '../../support/harness.js';

type Of<T extends SchedulerEvent['type']> = Extract<SchedulerEvent, { type: T }>;

// Cms = 0, Cps = 1 ms per unit: σ = 300 units within D = 100 ms needs n_min = ⌈300·1 / 100⌉ = 3 nodes of C = 300 / 3 =
// 100 ms each. Two such tasks (C 100, D 100, T 200) cannot share a node: the demand at t = 100 would be 200 > 100.
const GRID: GridSpecInput = {
  clusters: [
    { name: 'batch', processors: 16 },
    { name: 'rt', processors: 8, interactive: { nodes: 4, cmsMsPerUnit: 0, cpsMsPerUnit: 1 } },
  ],
};
const periodic = { periodMs: 200, dataUnits: 300, deadlineMs: 100 };
const job = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'interactive',
  components: [{ program: 'periodic' }],
  interactive: periodic,
  ...extra,
});

function world(nodes = 4) {
  const grid = gridSpecSchema.parse(GRID);
  grid.clusters[1]!.interactive!.nodes = nodes;
  const w = new SimWorld({ grid, jobs: [], seed: 1, background: false, endless: true });
  const events: SchedulerEvent[] = [];
  w.scheduler.on((e) => events.push(e));
  const of = <T extends SchedulerEvent['type']>(type: T) => events.filter((e): e is Of<T> => e.type === type);
  /** An application's report, delivered at virtual time `t` as the simulator delivers messages. */
  const report = (
    t: number,
    message: Omit<Extract<Parameters<SimWorld['scheduler']['receive']>[0], { type: 'iteration' }>, 'type'>,
  ) => {
    w.engine.at(t, () => w.scheduler.receive({ type: 'iteration', ...message }, w.engine.now));
    w.runUntil(t);
  };
  return { w, events, of, report };
}

const paths = (input: unknown) => {
  const r = parseWith(jobSpecSchema, input);
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
};

describe('the interactive job spec', () => {
  it('takes (A, T, σ, D) and defaults A to 0', () => {
    const r = parseWith(jobSpecSchema, job('j'));
    expect(r.ok && r.value.interactive).toEqual({ arrivalMs: 0, ...periodic });
  });

  it('names the field of each mistake', () => {
    expect(paths({ kind: 'interactive', components: [{ program: 'p' }] })).toEqual([
      'interactive: is required for an interactive job',
    ]);
    expect(paths(job('j', { interactive: { periodMs: 100, dataUnits: 1, deadlineMs: 150 } }))).toEqual([
      'interactive.deadlineMs: must not exceed the period (D ≤ T)',
    ]);
    expect(paths(job('j', { interactive: { periodMs: 1.5, dataUnits: 0, deadlineMs: 1 } }))).toEqual([
      'interactive.periodMs: must be a whole number of milliseconds',
      'interactive.dataUnits: must be greater than 0',
    ]);
    expect(paths({ ...job('j'), components: [{ program: 'p', processors: 4 }] })).toEqual([
      'components[0].processors: is not for an interactive job: its worker nodes follow from its period, data size and deadline',
    ]);
    expect(paths({ kind: 'rigid', components: [{ program: 'p', processors: 1 }], interactive: periodic })).toEqual([
      'interactive: is only for interactive jobs',
    ]);
  });

  it('is checked against the grid: a cluster without interactive worker nodes, or a grid with none', () => {
    const grid = buildGrid(gridSpecSchema.parse(GRID));
    const pinned = parseJob({ ...job('j'), components: [{ program: 'p', cluster: 'batch' }] }, grid);
    expect(pinned.ok ? [] : pinned.errors).toEqual([
      { path: 'components[0].cluster', message: 'cluster batch has no interactive worker nodes (rt have)' },
    ]);
    const none = parseJob(job('j'), buildGrid(gridSpecSchema.parse({ clusters: [{ name: 'a', processors: 4 }] })));
    expect(none.ok ? [] : none.errors).toEqual([
      { path: 'kind', message: 'no cluster of this grid has interactive worker nodes' },
    ]);
  });

  it('the partition of a cluster: its cost model checked at the field, placement and sharing defaulted', () => {
    const r = gridSpecSchema.safeParse({
      clusters: [{ name: 'a', processors: 4, interactive: { nodes: 2, cmsMsPerUnit: -1, cpsMsPerUnit: 0 } }],
    });
    expect(r.success ? [] : r.error.issues.map((i) => i.path.join('.'))).toEqual([
      'clusters.0.interactive.cmsMsPerUnit',
      'clusters.0.interactive.cpsMsPerUnit',
    ]);
    expect(gridSpecSchema.parse(GRID).clusters[1]!.interactive).toEqual({
      nodes: 4,
      cmsMsPerUnit: 0,
      cpsMsPerUnit: 1,
      placement: 'best-fit',
      sharing: 'interleaved',
    });
  });
});

describe('interactive jobs in the scheduler', () => {
  it('admits a job on submission: RT-DLT k = 3, C = 100 ms on three worker nodes; its driver runs on that cluster', () => {
    const { w, of } = world();
    const r = w.submit(job('a'));
    expect(r.ok).toBe(true);
    w.runUntil(1);
    const [admitted] = of('interactive.admitted');
    expect(admitted).toMatchObject({
      jobId: 'a',
      cluster: 'rt',
      costMs: 100,
      minNodes: 3,
      periodMs: 200,
      deadlineMs: 100,
    });
    expect(new Set(admitted!.nodes).size).toBe(3);
    expect(of('job.started')).toMatchObject([{ jobId: 'a', cluster: 'rt', size: 1 }]);
    const sample = w.scheduler.interactiveSample('rt')!;
    expect(sample.jobs).toBe(1);
    expect(sample.nodes.map((n) => n.utilization).sort()).toEqual([0, 0.5, 0.5, 0.5]);
    expect(sample.nodes.filter((n) => n.tasks === 1).map((n) => n.slackMs)).toEqual([0, 0, 0]);
    expect(w.scheduler.interactiveSample('batch')).toBeUndefined();
  });

  it('refuses at the field: a deadline no node count meets, or no placement left; a job ended frees its nodes', () => {
    const { w, of } = world();
    // σ·Cms ≥ D: 10 units at 20 ms each take 200 ms to send, more than D = 100 ms.
    const slow = new SimWorld({
      grid: gridSpecSchema.parse({
        clusters: [{ name: 'rt', processors: 2, interactive: { nodes: 2, cmsMsPerUnit: 20, cpsMsPerUnit: 1 } }],
      }),
      jobs: [],
      seed: 1,
      background: false,
      endless: true,
    });
    const tooShort = slow.submit(job('x', { interactive: { periodMs: 200, dataUnits: 10, deadlineMs: 100 } }));
    expect(tooShort.ok ? [] : tooShort.errors).toEqual([
      {
        path: 'interactive.deadlineMs',
        message: 'refused: transmitting 10 units takes 200 ms, not less than the deadline 100 ms',
      },
    ]);
    const tooMany = w.submit(job('y', { interactive: { periodMs: 200, dataUnits: 1000, deadlineMs: 100 } }));
    expect(tooMany.ok ? [] : tooMany.errors).toEqual([
      { path: 'interactive.deadlineMs', message: 'refused: the deadline needs 10 nodes, the cluster has 4' },
    ]);

    expect(w.submit(job('a')).ok).toBe(true);
    const second = w.submit(job('b'));
    expect(second.ok).toBe(false);
    expect(second.ok ? undefined : second.errors[0]).toMatchObject({
      path: 'interactive',
      message: expect.stringMatching(/^refused: task 2 of 3 .* fits on no node/),
    });
    // Refused: no job, no event.
    expect(w.scheduler.job('b')).toBeUndefined();
    expect(of('job.submitted').map((e) => e.jobId)).toEqual(['a']);
    w.runUntil(1);
    expect(w.scheduler.cancel('a', 1).ok).toBe(true);
    expect(w.scheduler.interactiveSample('rt')!.jobs).toBe(0);
    // Its tasks' last instances may still run until their deadline (D = 100 ms): counted until then.
    expect(w.submit(job('b')).ok).toBe(false);
    w.runUntil(1.1);
    expect(w.scheduler.interactiveSample('rt')!.nodes.every((n) => n.utilization === 0)).toBe(true);
    expect(w.submit(job('b')).ok).toBe(true);
  });

  it('keeps a departed D < T task counted until the node has certainly been idle, not only D after it left', () => {
    // One worker node, Cms = 0, Cps = 1 ms per unit: σ = 5 units on one node take C = 5 ms. A = (C 5, D 10, T 10) stays,
    // b = (5, 5, 100) leaves at 1 s, both released then (the worst case). A newcomer c = (5, 5, 100) passes the demand
    // test with A alone, yet EDF misses at 10 ms if it comes at 5 ms (node.test.ts). The busy period of {A, b} is
    // L = ⌈10/10⌉·5 + ⌈10/100⌉·5 = 10 ms: b counts until 1.010 s.
    const w = new SimWorld({
      grid: gridSpecSchema.parse({
        clusters: [{ name: 'rt', processors: 4, interactive: { nodes: 1, cmsMsPerUnit: 0, cpsMsPerUnit: 1 } }],
      }),
      jobs: [],
      seed: 1,
      background: false,
      endless: true,
    });
    const short = { periodMs: 100, dataUnits: 5, deadlineMs: 5 };
    expect(w.submit(job('a', { interactive: { periodMs: 10, dataUnits: 5, deadlineMs: 10 } })).ok).toBe(true);
    expect(w.submit(job('b', { interactive: short })).ok).toBe(true);
    w.runUntil(1);
    expect(w.scheduler.cancel('b', 1).ok).toBe(true);
    w.runUntil(1.005);
    expect(w.submit(job('c', { interactive: short })).ok).toBe(false);
    w.runUntil(1.0099);
    expect(w.submit(job('c', { interactive: short })).ok).toBe(false);
    w.runUntil(1.01);
    expect(w.scheduler.interactiveSample('rt')!.nodes[0]).toMatchObject({ tasks: 1, utilization: 0.5 });
    expect(w.submit(job('c', { interactive: short })).ok).toBe(true);
  });

  it('counts a miss reported by the application, and re-places the job after an overrun (or ends it when none is left)', () => {
    const { w, of, report } = world(8);
    expect(w.submit(job('a')).ok).toBe(true);
    report(2, { jobId: 'a', task: 0, executedMs: 90, missed: true });
    expect(of('interactive.missed')).toMatchObject([
      { jobId: 'a', cluster: 'rt', task: 0, executedMs: 90, deadlineMs: 100, misses: 1 },
    ]);
    expect(of('interactive.replaced')).toEqual([]);
    // 120 ms > C = 100 ms: σ becomes 300·(120/100)·1.25 = 450 units, n_min = ⌈450 / 100⌉ = 5 nodes of C = 90 ms, on
    // the five nodes its old tasks (ghosts until their deadline) leave free.
    report(3, { jobId: 'a', task: 1, executedMs: 120, missed: false });
    const [replaced] = of('interactive.replaced');
    expect(replaced).toMatchObject({ jobId: 'a', cluster: 'rt', costMs: 90, executedMs: 120, generation: 2 });
    expect(new Set(replaced!.nodes).size).toBe(5);
    expect(new Set([...replaced!.nodes, ...of('interactive.admitted')[0]!.nodes]).size).toBe(8);
    // A late report of the old placement is no overrun of the new one.
    report(4, { jobId: 'a', task: 1, executedMs: 95, missed: false, generation: 1 });
    expect(of('interactive.replaced')).toHaveLength(1);
    // 200 ms > 90 ms: σ = 450·(200/90)·1.25 = 1250 units need 13 nodes, the partition has 8: the job ends, failed.
    report(5, { jobId: 'a', task: 4, executedMs: 200, missed: true });
    expect(of('interactive.missed').map((e) => e.misses)).toEqual([1, 2]);
    expect(of('job.ended')).toMatchObject([
      {
        jobId: 'a',
        state: 'failed',
        reason: expect.stringContaining('task 4 ran 200 ms, longer than its cost bound 90 ms'),
      },
    ]);
    expect(w.scheduler.interactiveSample('rt')).toMatchObject({ jobs: 0, admitted: 1, misses: 2, replacements: 1 });
    expect(w.scheduler.job('a')!.state).toBe('failed');
  });
});

describe('interactive jobs adopted after a restart (live mode)', () => {
  it('are admitted again on their cluster in order, a running one told its tasks; one that no longer fits fails', () => {
    const g = buildGrid(gridSpecSchema.parse(GRID));
    const h = harness(g);
    const told: Array<[string, InteractiveTasks]> = [];
    (h.apps as ApplicationPort).interactiveTasks = (jobId, tasks) => told.push([jobId, tasks]);
    expect(h.scheduler.adopt(job('a'), { cluster: 'rt', processors: 1, submitTime: -10, startTime: -9 }, 0).ok).toBe(
      true,
    );
    expect(h.scheduler.adopt(job('b'), { cluster: 'rt', processors: 1, submitTime: -5 }, 0).ok).toBe(true);
    expect(h.events.map((e) => `${e.type} ${'jobId' in e ? e.jobId : ''}`)).toEqual([
      'job.adopted a',
      'interactive.admitted a',
      'job.adopted b',
      'job.ended b',
    ]);
    expect(h.events[3]).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^adopted after a restart, but its tasks fit no more: refused: task 2 of 3/),
    });
    expect(h.scheduler.interactiveSample('rt')).toMatchObject({ jobs: 1 });
    // The running one learns its tasks at the next instant (its runner attaches its application first).
    expect(told).toEqual([]);
    h.scheduler.advance(0);
    expect(told).toEqual([
      [
        'a',
        {
          generation: 1,
          nodes: expect.any(Array),
          costMs: 100,
          periodMs: 200,
          deadlineMs: 100,
          dataUnits: 300,
          fractions: [1 / 3, 1 / 3, 1 / 3],
        },
      ],
    ]);
  });
});
