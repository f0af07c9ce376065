// A test file's live run on this machine: its own folder, a world made and started before the tests, every scheduler
// event it emits kept in order, the application protocol's files of its jobs, and the run ended after the tests.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { SchedulerEvent } from '../../../core/events.js';
import { createLiveWorld, type LiveWorldOptions } from '../../../runners/live/live-world.js';
import type { LiveWorld } from '../../../runners/live/types.js';
import { eventsOf } from '../../support/scheduler-events.js';
import { jobFiles } from './job-files.js';
import { endLiveRun } from './local-cluster.js';

export interface LiveRun {
  /** The run's folder (its clusters work under `dir`/work). */
  readonly dir: string;
  readonly world: LiveWorld;
  /** Every event of every world of the run, a restart's included. */
  readonly events: SchedulerEvent[];
  of<T extends SchedulerEvent['type']>(type: T, jobId: string): Array<Extract<SchedulerEvent, { type: T }>>;
  toApp: ReturnType<typeof jobFiles>['toApp'];
  fromApp: ReturnType<typeof jobFiles>['fromApp'];
  /** A new world from `options`, its events kept with the others', started (a restart, once `world` is stopped). */
  start(options: LiveWorldOptions): Promise<LiveWorld>;
}

/**
 * Registers the run's set-up and end in the enclosing suite: `options(dir)` makes the first world. The world and the
 * folder are read through the returned object, once the set-up has run.
 */
export function liveRun(name: string, options: (dir: string) => LiveWorldOptions): LiveRun {
  let dir: string | undefined;
  let world: LiveWorld | undefined;
  const events: SchedulerEvent[] = [];
  const files = jobFiles(
    () => path.join(run.dir, 'work'),
    () => run.world,
  );
  const run: LiveRun = {
    get dir() {
      if (dir === undefined) throw new Error('the live run is not set up yet');
      return dir;
    },
    get world() {
      if (world === undefined) throw new Error('the live run has no world yet');
      return world;
    },
    events,
    of: (type, jobId) => eventsOf(events, type, jobId),
    toApp: files.toApp,
    fromApp: files.fromApp,
    async start(next) {
      world = createLiveWorld(next);
      world.on((e) => events.push(e));
      await world.start();
      return world;
    },
  };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), `cnc-${name}-`));
    await run.start(options(dir));
  }, 30_000);
  afterAll(() => endLiveRun(world, dir));
  return run;
}
