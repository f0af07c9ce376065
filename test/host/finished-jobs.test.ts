// Ended jobs rebuilt from the store (electron/host/finished-jobs.ts): a resumed live run has no records of its
// earlier sessions' ended jobs, only their events; the Queue must list them as it did before the restart. Checked
// against the scheduler's own records over a simulated run of every kind of job (placement tries and failures,
// grows, shrinks, evolving updates), and the list's order when two schedulers numbered the jobs.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { SimWorld } from '../../core/sim/world.js';
import { EndedSummaries, FinishedJobs, jobSummary, listJobs } from '../../electron/host/finished-jobs.js';

describe('ended jobs rebuilt from their events', () => {
  it('summarizes every ended job as the scheduler did, of every kind and end', () => {
    // W_mr (rigid and malleable) and W_m's evolving jobs, on DAS-3 with its background load, few tries: some fail
    // placement.
    const evolving = workloadPreset('wme', 3, 120)!
      .filter((j) => j.kind === 'evolving')
      .map((j) => ({ ...j, id: `e-${j.id}`, submitTime: j.submitTime! + 60 }));
    const jobs = [...workloadPreset('wmr', 3, 120)!, ...evolving].sort((a, b) => a.submitTime! - b.submitTime!);
    const world = new SimWorld({ grid: gridSpecSchema.parse(gridPreset('das3')), jobs, seed: 3, metrics: false });
    world.scheduler.queue.triesThreshold = 3;
    const events: SchedulerEvent[] = [];
    world.scheduler.on((e) => events.push(e));
    world.runUntil(86_400);
    const rebuilt = new EndedSummaries((id) => world.scheduler.job(id)!.spec.placement);
    for (const e of events) rebuilt.add(e);

    const ended = [...world.scheduler.jobs()].filter((j) => j.ended);
    expect(ended.length).toBeGreaterThan(100);
    // Every kind of end and history is exercised.
    expect(new Set(ended.map((j) => j.state))).toEqual(new Set(['completed', 'failed']));
    expect(ended.some((j) => j.tries > 0 && j.state === 'completed')).toBe(true);
    expect(new Set(ended.map((j) => j.kind))).toEqual(new Set(['rigid', 'malleable', 'evolving']));
    expect(events.some((e) => e.type === 'job.shrunk') && events.some((e) => e.type === 'job.evolved')).toBe(true);
    const byId = new Map(rebuilt.ended.map((r) => [r.summary.id, r]));
    expect(byId.size).toBe(ended.length);
    for (const job of ended) expect(byId.get(job.id)!.summary, job.id).toEqual(jobSummary(job));
    // Oldest ended first; `order` is the submission order.
    const endOrder = events.filter((e) => e.type === 'job.ended').map((e) => (e as { jobId: string }).jobId);
    expect(rebuilt.ended.map((r) => r.summary.id)).toEqual(endOrder);
    for (const r of rebuilt.ended) expect(r.order).toBe(world.scheduler.job(r.summary.id)!.seq);
  });

  it("lists jobs of an earlier session (another scheduler's numbers) and this one's in submission order", () => {
    const world = new SimWorld({
      grid: gridSpecSchema.parse(gridPreset('das3')),
      jobs: workloadPreset('wm', 1, 6)!,
      seed: 1,
      metrics: false,
    });
    world.runUntil(1);
    const held = [...world.scheduler.jobs()];
    expect(held.map((j) => j.seq)).toEqual([0]);
    // Two jobs of an earlier session: one submitted before the held job, one after (numbered 0 and 1 there).
    const summary = (id: string, submitted: number) => ({
      id,
      name: id,
      kind: 'rigid',
      state: 'completed',
      tries: 0,
      lastFailure: '',
      size: 1,
      min: 1,
      max: 1,
      placement: 'wf',
      clusters: ['x'],
      submitted,
    });
    const finished = new FinishedJobs();
    finished.restore(-2, summary('early', -10));
    finished.restore(-1, summary('late', 0.5));
    const { jobs, total } = listJobs(held, [...finished.values()], 10);
    expect(total).toBe(3);
    expect(jobs.map((j) => j.id)).toEqual(['early', held[0]!.id, 'late']);
    expect(finished.has('early') && finished.get('late')?.state).toBe('completed');
  });
});

describe('a failed job that never failed a placement', () => {
  it('says why it ended as its last failure, from its record and from its events alike', () => {
    const world = new SimWorld({
      grid: gridSpecSchema.parse(gridPreset('das3')),
      jobs: workloadPreset('wm', 1, 6)!,
      seed: 1,
      metrics: false,
    });
    const events: SchedulerEvent[] = [];
    world.scheduler.on((e) => events.push(e));
    world.runUntil(1);
    const [job] = [...world.scheduler.jobs()];
    expect(world.scheduler.cancel(job!.id, 1, 'missed 3 deadlines', 'failed').ok).toBe(true);
    expect(jobSummary(job!).lastFailure).toBe('missed 3 deadlines');
    const rebuilt = new EndedSummaries(() => 'wf');
    for (const e of events) rebuilt.add(e);
    expect(rebuilt.ended[0]!.summary.lastFailure).toBe('missed 3 deadlines');
  });
});

describe('a waiting profiled job in the Queue', () => {
  it('shows its fit as its planned start, as a reserved job shows its reservation', () => {
    const world = new SimWorld({
      grid: gridSpecSchema.parse({ clusters: [{ name: 'd', processors: 16 }] }),
      jobs: [],
      seed: 1,
      background: false,
      scheduler: { queue: 'easy' },
    });
    world.runUntil(1);
    const submit = (spec: unknown) => expect(world.submit(spec).ok).toBe(true);
    submit({
      id: 'big',
      kind: 'rigid',
      walltime: 1200,
      app: { model: 'fixed', runtime: 1200 },
      components: [{ processors: 16, program: 'x' }],
    });
    world.runUntil(2);
    expect(world.scheduler.job('big')!.state).toBe('running');
    submit({
      id: 'p',
      kind: 'evolving',
      profile: { steps: [{ duration_s: 600, processors: 8 }] },
      components: [{ program: 'x' }],
    });
    world.runUntil(3);
    const held = [...world.scheduler.jobs()];
    const { jobs } = listJobs(
      held,
      [],
      10,
      () => 'd',
      (j) => world.scheduler.plannedStart(j.id),
    );
    expect(jobs.find((j) => j.id === 'p')).toMatchObject({
      state: 'queued',
      plannedStart: { cluster: 'd', start: world.scheduler.job('big')!.startTime + 1200 },
    });
    // Running, it is planned no more.
    expect(jobs.find((j) => j.id === 'big')!.plannedStart).toBeUndefined();
  });
});
