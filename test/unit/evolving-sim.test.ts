// A simulated run with an evolving application and malleable ones, end to end: the evolving job's working set drives
// its updates, malleable GADGET-2 jobs fill its unused pre-allocation and are shrunk when it grows.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import { Random } from '../../core/random.js';
import { workingSetProfile } from '../../core/sim/apps/evolving.js';
import { SimWorld } from '../../core/sim/world.js';

type Of<T extends SchedulerEvent['type']> = Extract<SchedulerEvent, { type: T }>;

function run(announceS: number, seed = 7) {
  const jobs: JobSpecInput[] = [
    {
      id: 'amr',
      kind: 'evolving',
      app: { model: 'evolving', phases: 8, phaseS: 120, announceS },
      components: [{ min: 4, max: 24, initial: 4, program: 'amr' }],
    },
    {
      id: 'g1',
      kind: 'malleable',
      submitTime: 10,
      app: { model: 'gadget2' },
      components: [{ min: 2, max: 32, initial: 16, program: 'gadget2' }],
    },
    {
      id: 'g2',
      kind: 'malleable',
      submitTime: 20,
      app: { model: 'gadget2' },
      components: [{ min: 2, max: 32, initial: 16, program: 'gadget2' }],
    },
  ];
  const world = new SimWorld({
    grid: gridSpecSchema.parse({ clusters: [{ name: 'a', processors: 32 }] }),
    jobs: jobs.map((j) => jobSpecSchema.parse(j)),
    seed,
    pollIntervalS: 30,
    background: false,
    scheduler: { policy: 'equipartition' },
  });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e));
  let fullWhileRunning = false;
  world.run(() => {
    const s = world.scheduler.clusters[0]!;
    if (s.preallocatedUnused > 0 && s.preemptible > 28 - s.nonPreemptible) fullWhileRunning = true;
  });
  const of = <T extends SchedulerEvent['type']>(type: T) => events.filter((e): e is Of<T> => e.type === type);
  return { world, events, of, fullWhileRunning };
}

describe('an evolving application among malleable ones (simulated)', () => {
  it('its updates are served, malleable jobs fill its unused pre-allocation, and every job completes', () => {
    const r = run(0);
    expect(r.of('evolve.refused')).toEqual([]);
    expect(r.of('evolve.requested').length).toBeGreaterThan(0);
    expect(r.of('job.evolved').length).toBeGreaterThan(0);
    for (const e of r.of('job.evolved')) {
      expect(e.size).toBeGreaterThanOrEqual(4);
      expect(e.size).toBeLessThanOrEqual(24);
    }
    // Malleable extras sat inside the pre-allocation at some instant.
    expect(r.fullWhileRunning).toBe(true);
    expect(
      r
        .of('job.ended')
        .map((e) => [e.jobId, e.state])
        .sort(),
    ).toEqual([
      ['amr', 'completed'],
      ['g1', 'completed'],
      ['g2', 'completed'],
    ]);
  });

  it('a spontaneous grow shrinks malleable extras mandatorily, at once', () => {
    const r = run(0);
    const grows = r.of('evolve.requested').filter((e) => e.announceS === 0);
    const forced = r.of('shrink.requested').filter((s) => s.mandatory && grows.some((g) => g.t === s.t));
    expect(forced.length).toBeGreaterThan(0);
    expect(r.world.applications.refusedUpdates.size).toBe(0);
  });

  it('an announced grow has malleable jobs release by its time, not before', () => {
    const r = run(60);
    const announced = r.of('evolve.requested').filter((e) => e.announceS > 0);
    expect(announced.length).toBeGreaterThan(0);
    const forced = r.of('shrink.requested').filter((s) => s.mandatory && announced.some((a) => a.t === s.t));
    expect(forced.length).toBeGreaterThan(0);
    // The malleable job keeps working with the processors until the update's time.
    for (const s of forced) {
      const a = announced.find((x) => x.t === s.t)!;
      const shrunk = r.of('job.shrunk').find((x) => x.jobId === s.jobId && x.t >= s.t)!;
      expect(shrunk.t).toBe(a.t + a.announceS);
    }
  });

  it('is deterministic for a seed, and the working-set profile stays within min..max', () => {
    const a = run(60, 3).events.map((e) => JSON.stringify(e));
    const b = run(60, 3).events.map((e) => JSON.stringify(e));
    expect(b).toEqual(a);
    const profile = workingSetProfile(new Random(5), 4, 24, 4, 50);
    expect(profile[0]).toBe(4);
    expect(Math.min(...profile)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...profile)).toBeLessThanOrEqual(24);
    expect(new Set(profile).size).toBeGreaterThan(3);
  });
});

describe('assets/workloads/sample-evolving.json', () => {
  it('validates against das3 and runs to completion with its updates served', async () => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const { fileURLToPath } = await import('node:url');
    const { buildGrid } = await import('../../core/model/grid.js');
    const { GRID_PRESETS } = await import('../../core/sim/grids.js');
    const { parseJobsJson } = await import('../../core/sim/workloads/json.js');
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    const text = readFileSync(path.join(root, 'assets', 'workloads', 'sample-evolving.json'), 'utf8');
    const grid = gridSpecSchema.parse(GRID_PRESETS.das3);
    const parsed = parseJobsJson(text, 'sample-evolving.json', buildGrid(grid));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    expect(parsed.value.filter((j) => j.kind === 'evolving')).toHaveLength(2);
    const world = new SimWorld({ grid, jobs: parsed.value, seed: 1 });
    const events: SchedulerEvent[] = [];
    world.scheduler.on((e) => events.push(e));
    world.run();
    expect(events.filter((e) => e.type === 'evolve.refused')).toEqual([]);
    expect(events.filter((e) => e.type === 'job.evolved').length).toBeGreaterThan(5);
    const ended = events.filter((e): e is Of<'job.ended'> => e.type === 'job.ended');
    expect(ended.map((e) => e.state)).toEqual(parsed.value.map(() => 'completed'));
  });
});
