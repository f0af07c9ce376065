// An operator's resize of a running malleable job (console or API): checked against the job and its cluster, then
// run by the malleability manager like a policy's operation, alone on its cluster.
import { fail, ok, type Result } from '../model/result.js';
import type { ClusterState } from './cluster-state.js';
import type { ReservedRoom } from './growth.js';
import type { JobRecord } from './job-record.js';

/** What an operator's resize set going: processors offered to the job, or asked back from it. */
export interface OperatorResize {
  readonly jobId: string;
  readonly cluster: string;
  readonly processors: number;
  readonly direction: 'grow' | 'shrink';
}

/** What an operator's resize needs of the malleability manager. */
export interface OperatorOperations {
  busy(cluster: ClusterState): boolean;
  operatorGrow(cluster: ClusterState, job: JobRecord, processors: number, now: number): void;
  operatorShrink(cluster: ClusterState, job: JobRecord, processors: number, now: number): void;
}

/**
 * `delta` > 0 offers the job up to that many more processors, voluntarily and only from what the capacity model has
 * free for growth there (threshold, background load and waiting jobs' shares and reservations respected): the offer
 * is cut to what is free. `delta` < 0 makes it give back that many, mandatorily. The job's cap follows (an operator's
 * shrink sticks).
 */
export function resizeByOperator(
  job: JobRecord,
  delta: number,
  clusters: readonly ClusterState[],
  operations: OperatorOperations,
  now: number,
  reservedRoom?: ReservedRoom,
): Result<OperatorResize> {
  const jobId = job.id;
  if (!job.malleable) return fail([{ path: 'jobId', message: `job ${jobId} is not malleable (it is ${job.kind})` }]);
  if (job.state !== 'running')
    return fail([{ path: 'jobId', message: `job ${jobId} is not running (it is ${job.state})` }]);
  if (!Number.isInteger(delta) || delta === 0)
    return fail([{ path: 'delta', message: 'must be a whole number other than 0' }]);
  const state = clusters[job.clusterIndex]!;
  const cluster = state.cluster.name;
  if (operations.busy(state)) {
    return fail([
      {
        path: 'jobId',
        message: `cluster ${cluster} is busy with another grow or shrink operation; try again when it ends`,
      },
    ]);
  }
  if (delta > 0) {
    const room = job.max - job.held;
    if (delta > room)
      return fail([
        {
          path: 'delta',
          message: `would take job ${jobId} beyond its maximum (${job.held} of max ${job.max}: grow by ${room} at most)`,
        },
      ]);
    // Decision: an operator's grow is a voluntary offer like a policy's: it takes no processor a waiting job's
    // reservation needs (cbf's promises, easy's head), so a promise outranks it; only its shrink is mandatory.
    const reservations = reservedRoom?.(state, now);
    const free = state.availableForGrowth(reservations?.free, reservations?.all);
    if (free === 0) {
      const reserved = state.availableForGrowth();
      const why = reserved > 0 ? `: the ${reserved} free for growth are reserved for waiting jobs` : '';
      return fail([{ path: 'delta', message: `no processors are free for growth on ${cluster}${why}` }]);
    }
    const processors = Math.min(delta, free);
    job.cap = job.max;
    operations.operatorGrow(state, job, processors, now);
    return ok({ jobId, cluster, processors, direction: 'grow' });
  }
  const processors = -delta;
  if (processors > job.shrinkable) {
    return fail([
      {
        path: 'delta',
        message: `would take job ${jobId} below its minimum (${job.size - job.releasing} of min ${job.min}: shrink by ${job.shrinkable} at most)`,
      },
    ]);
  }
  job.cap = job.held - job.releasing - processors;
  operations.operatorShrink(state, job, processors, now);
  return ok({ jobId, cluster, processors, direction: 'shrink' });
}
