// The scheduler's LocalManager for one cluster of a live run: the cluster's BatchLocalManager with the malleable
// runner's glue around it (paper V-A). A malleable, evolving or interactive job's program is wrapped so that it
// learns its size from its environment, and it is told its new size once a shrink's local jobs are cancelled. A
// cluster not joined yet answers for itself: submissions fail, cancels are done, and its status is unreachable.
import type { InboundMessage, LocalJobRequest, LocalManager } from '../../core/ports.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';
import { expandAssets } from './assets-placeholder.js';
import { resizable, type ClusterRuntime } from './cluster-runtime.js';

export interface LiveClusterContext {
  /** The cluster's runtime once it has joined the run (reached at start, or later). */
  readonly joined: (cluster: string) => ClusterRuntime | undefined;
  /** `forUnjoined`: the world's own answer for a cluster not joined. */
  readonly deliver: (message: InboundMessage, forUnjoined: boolean) => void;
  /** The scheduler's job (undefined before the scheduler is built). */
  readonly job: (jobId: string) => ReturnType<Scheduler['job']>;
  readonly running: () => boolean;
  readonly jobDir: (runtime: ClusterRuntime, jobId: string) => string;
}

/** The app wrapper: exports the protocol's variables, then runs the program with its arguments (all quoted words). */
const APP_WRAPPER =
  'CONCERTINA_JOB_DIR=$1 CONCERTINA_SIZE=$2 CONCERTINA_MIN=$3 CONCERTINA_MAX=$4 CONCERTINA_ASSETS=$5; export CONCERTINA_JOB_DIR CONCERTINA_SIZE CONCERTINA_MIN CONCERTINA_MAX CONCERTINA_ASSETS; shift 5; exec "$@"';

/** A status saying the cluster cannot be reached (its processors count for nothing). */
export function unreachableStatus(cluster: string): InboundMessage {
  return { type: 'status', cluster, status: { processors: 0, background: 0, reachable: false } };
}

export class LiveCluster implements LocalManager {
  readonly supportsReservations = false;

  constructor(
    private readonly context: LiveClusterContext,
    readonly cluster: string,
  ) {}

  /** Undefined until the cluster has joined the run (the scheduler sees it unreachable and places nothing there). */
  private get runtime(): ClusterRuntime | undefined {
    return this.context.joined(this.cluster);
  }

  submit(request: LocalJobRequest): void {
    const runtime = this.runtime;
    // `{assets}` names where this cluster's copy of the SDK and demo applications is.
    if (runtime) runtime.manager.submit(this.wrapApplication(runtime, expandAssets(request, runtime.assetsDir)));
    else
      this.context.deliver(
        {
          type: 'finished',
          cluster: this.cluster,
          jobId: request.jobId,
          state: 'failed',
          reason: `${this.cluster} is not reachable`,
        },
        true,
      );
  }

  grow(jobId: string, processors: number): void {
    this.runtime?.manager.grow(jobId, processors);
  }

  cancelGrow(jobId: string): void {
    this.runtime?.manager.cancelGrow(jobId);
  }

  shrink(jobId: string, processors: number): void {
    const runtime = this.runtime;
    if (!runtime) return;
    runtime.manager.shrink(jobId, processors);
    this.afterShrink(runtime, jobId);
  }

  cancel(jobId: string): void {
    const runtime = this.runtime;
    if (runtime) runtime.manager.cancel(jobId);
    else
      this.context.deliver(
        {
          type: 'finished',
          cluster: this.cluster,
          jobId,
          state: 'cancelled',
          reason: `cancelled while ${this.cluster} is not reachable`,
        },
        true,
      );
  }

  poll(): void {
    const runtime = this.runtime;
    if (runtime) runtime.manager.poll();
    else this.context.deliver(unreachableStatus(this.cluster), true);
  }

  /**
   * The local job request for the program of a malleable, evolving or interactive job: wrapped so that it finds the
   * protocol's variables (an interactive job's driver, one processor, learns its tasks and reports its iterations).
   */
  private wrapApplication(runtime: ClusterRuntime, request: LocalJobRequest): LocalJobRequest {
    const job = this.context.job(request.jobId);
    if (!job || !(resizable(job) || job.kind === 'interactive')) return request;
    const jobDir = this.context.jobDir(runtime, request.jobId);
    runtime.apps.attach(request.jobId, { channel: runtime.channel, jobDir });
    return {
      ...request,
      program: '/bin/sh',
      args: [
        '-c',
        APP_WRAPPER,
        'concertina-app',
        jobDir,
        String(request.processors),
        String(job.min),
        String(job.max),
        runtime.assetsDir,
        request.program,
        ...request.args,
      ],
    };
  }

  /** Released local jobs are cancelled: the application is told how many processors Concertina now holds. */
  private afterShrink(runtime: ClusterRuntime, jobId: string): void {
    void runtime.manager.cancelsSent().then(() => {
      const job = this.context.job(jobId);
      if (job && !job.ended && this.context.running()) runtime.apps.resized(jobId, job.size);
    });
  }
}
