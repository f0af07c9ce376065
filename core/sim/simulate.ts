// One simulation run, start to end: the entry point of `concertina simulate`, the experiments and the benchmarks.
import type { SchedulerEvent } from '../events.js';
import type { ClusterUsage, JobMetrics, RunSummary, ActivityBucket } from './metrics.js';
import { SimWorld, type RefusedJob, type SimulationConfig } from './world.js';

export interface SimulationHooks {
  /** Every scheduler event, in order. */
  onEvent?(event: SchedulerEvent): void;
  /** Called now and then with the jobs ended so far and the total. */
  onProgress?(ended: number, total: number, virtualTime: number): void;
}

export interface SimulationOutcome {
  readonly summary: RunSummary;
  readonly jobs: JobMetrics[];
  /** The same jobs one at a time, none kept: for a long run's export. */
  jobRows(): Iterable<JobMetrics>;
  readonly clusters: ClusterUsage[];
  activity(bucketS: number): ActivityBucket[];
  readonly refused: RefusedJob[];
  /** Virtual time at which the run ended. */
  readonly endTime: number;
  /** Engine actions processed. */
  readonly steps: number;
}

export function simulate(config: SimulationConfig, hooks: SimulationHooks = {}): SimulationOutcome {
  // Nothing reads a finished job's record after the run: only its metrics.
  const world = new SimWorld({ forgetEnded: true, ...config });
  if (hooks.onEvent) world.scheduler.on(hooks.onEvent);
  const total = world.totalJobs;
  let ended = 0;
  let reported = -1;
  const step = Math.max(1, Math.floor(total / 200));
  if (hooks.onProgress) {
    world.scheduler.on(
      (e) => {
        ended++;
        if (ended - reported >= step || ended === total) {
          reported = ended;
          hooks.onProgress!(ended, total, e.t);
        }
      },
      ['job.ended'],
    );
  }
  world.run();
  // The per-job and per-cluster figures are built when first read: a summary alone (`simulate --json`) needs neither,
  // and on a long trace the jobs' rows are a large share of the run's memory.
  let jobs: JobMetrics[] | undefined;
  let clusters: ClusterUsage[] | undefined;
  return {
    summary: world.metrics.summary(world.scheduler.eventCount),
    get jobs() {
      return (jobs ??= world.metrics.jobs());
    },
    jobRows: () => world.metrics.jobRows(),
    get clusters() {
      return (clusters ??= world.metrics.clusterUsage());
    },
    activity: (bucketS) => world.metrics.activity(bucketS),
    refused: world.refused,
    endTime: world.engine.now,
    steps: world.engine.processed,
  };
}

export type { SimulationConfig } from './world.js';
