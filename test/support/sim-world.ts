// A simulated world of hand-written jobs for the unit and property tests: no background load unless asked, seed 1
// unless given, and every event of its scheduler recorded from the start.
import type { SchedulerEvent } from '../../core/events.js';
import { jobSpecSchema, type GridSpec, type JobSpecInput } from '../../core/model/schemas.js';
import { SimWorld, type SimulationConfig } from '../../core/sim/world.js';
import { eventsOf } from './scheduler-events.js';

export type SimWorldOptions = Partial<Omit<SimulationConfig, 'grid' | 'jobs'>>;

/** A world over `grid` with `jobs` (parsed here: a bad spec fails the test), not run yet, and its events. */
export function simWorld(grid: GridSpec, jobs: readonly JobSpecInput[], options: SimWorldOptions = {}) {
  const world = new SimWorld({
    grid,
    jobs: jobs.map((j) => jobSpecSchema.parse(j)),
    seed: 1,
    background: false,
    ...options,
  });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e));
  const of = <T extends SchedulerEvent['type']>(type: T, jobId?: string) => eventsOf(events, type, jobId);
  return { world, events, of };
}
