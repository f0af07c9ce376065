// Polls that would change nothing are skipped by the simulated world (world.ts, idlePoll): a trace's long quiet
// stretches cost no engine action per poll, and every poll that could act on a job still reaches the scheduler.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';

const grid = gridSpecSchema.parse({ clusters: [{ name: 'a', processors: 8 }] });

function run(
  jobs: JobSpecInput[],
  queue: 'koala' | 'fcfs' | 'easy' | 'cbf' = 'koala',
  onInstant?: () => void,
  triesThreshold?: number,
) {
  const world = new SimWorld({
    grid,
    jobs: jobs.map((j) => jobSpecSchema.parse(j)),
    seed: 1,
    scheduler: { queue, ...(triesThreshold === undefined ? {} : { triesThreshold }) },
  });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e));
  let polls = 0;
  const poll = world.scheduler.poll.bind(world.scheduler);
  world.scheduler.poll = (now) => {
    polls++;
    poll(now);
  };
  world.run(onInstant);
  const at = (type: string, jobId: string) =>
    events.find((e) => e.type === type && 'jobId' in e && e.jobId === jobId)?.t;
  return { world, polls, at };
}

const rigid = (id: string, submitTime: number, processors: number, runtime: number): JobSpecInput => ({
  id,
  kind: 'rigid',
  submitTime,
  app: { model: 'fixed', runtime },
  components: [{ processors, program: 'p' }],
});

describe('idle polls', () => {
  it('leaps over the polls of a quiet stretch: two jobs a million seconds apart take a handful of engine actions', () => {
    const r = run([rigid('a', 0, 4, 100), rigid('b', 1_000_000, 4, 100)]);
    // One poll every 60 s would be 16,667 polls, each an engine action and a scheduler pass.
    expect(r.world.engine.processed).toBeLessThan(50);
    expect(r.polls).toBeLessThan(5);
    expect(r.at('job.started', 'a')).toBe(0);
    expect(r.at('job.started', 'b')).toBe(1_000_000);
    expect(r.at('job.ended', 'b')).toBe(1_000_100);
  });

  it('skips them one by one when a callback runs between instants, with the same schedule', () => {
    const jobs = [rigid('a', 0, 4, 100), rigid('b', 1_000_000, 4, 100)];
    const leapt = run(jobs);
    const stepped = run(jobs, 'koala', () => undefined);
    expect(stepped.polls).toBe(leapt.polls);
    expect(stepped.world.engine.processed).toBeGreaterThan(16_000);
    expect(stepped.at('job.started', 'b')).toBe(leapt.at('job.started', 'b'));
  });

  it('keeps every poll while a job waits: each counts a try of the placement queue', () => {
    // b (8) waits for a (4, 1000 s): under koala it is tried at each poll meanwhile.
    const r = run([rigid('a', 0, 4, 1000), rigid('b', 10, 8, 100)]);
    expect(r.polls).toBeGreaterThanOrEqual(Math.floor(1000 / 60));
    expect(r.at('job.started', 'b')).toBe(1000);
  });

  it('keeps every poll while a malleable job runs: a poll offers it the idle processors', () => {
    // m arrives after the first poll and starts at its initial 2 of 8 idle processors; the next poll (60) grows it.
    const r = run([
      {
        id: 'm',
        kind: 'malleable',
        submitTime: 30,
        app: { model: 'gadget2' },
        components: [{ min: 2, max: 8, initial: 2, program: 'm' }],
      },
    ]);
    expect(r.at('job.started', 'm')).toBe(30);
    expect(r.at('job.grown', 'm')).toBe(60);
  });

  for (const queue of ['koala', 'fcfs', 'easy', 'cbf'] as const) {
    it(`${queue}, no tries limit: a job waiting through a quiet stretch costs a poll, not one a minute, and starts as before`, () => {
      // b (8) waits 100,000 s for a (4), and d (8), arriving halfway, waits behind b.
      const jobs = [
        { ...rigid('a', 0, 4, 100_000), walltime: 100_000 },
        { ...rigid('b', 10, 8, 100), walltime: 100 },
        { ...rigid('d', 50_000, 8, 10), walltime: 10 },
      ];
      const r = run(jobs, queue, undefined, Number.POSITIVE_INFINITY);
      // One poll every 60 s would be 1,667 of them; a poll after each change, and one that finds nothing to do.
      expect(r.polls).toBeLessThan(20);
      expect(r.at('job.started', 'b')).toBe(100_000);
      expect(r.at('job.started', 'd')).toBe(100_100);
      // A callback between instants: the polls are skipped one by one, not leapt over, with the same schedule.
      const stepped = run(jobs, queue, () => undefined, Number.POSITIVE_INFINITY);
      expect(stepped.polls).toBe(r.polls);
      expect(stepped.at('job.started', 'd')).toBe(100_100);
    });
  }
});
