// What a run measured: per job (wait, execution and response times, time-averaged and maximum size, grows and
// shrinks), per cluster and for the grid (utilization over time, Concertina's and background), and the
// malleability manager's activity over time. Built from the scheduler's event stream and the clusters' usage.
import type { SchedulerEvent, SchedulerEventType } from '../events.js';
import { StepFunction, StepRecorder } from '../time/step-function.js';
import { FinishedJobs } from './finished-jobs.js';

export interface JobMetrics {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly state: string;
  readonly reason: string;
  readonly cluster: string;
  readonly submit: number;
  readonly start: number;
  readonly end: number;
  readonly wait_s: number;
  readonly execution_s: number;
  readonly response_s: number;
  readonly avg_size: number;
  readonly max_size: number;
  readonly grows: number;
  readonly shrinks: number;
  readonly tries: number;
  /** The job's walltime; NaN when it has none. */
  readonly walltime_s: number;
  /** It started while a job submitted before it was still waiting. */
  readonly backfilled: boolean;
}

/**
 * Bounded slowdown's threshold: a job shorter than this counts as running this long, so that very short jobs do not
 * dominate the mean (Feitelson et al.'s usual 10 s).
 */
export const BOUNDED_SLOWDOWN_TAU_S = 10;

/** max(1, (wait + run) / max(run, τ)): a job's response time relative to its run time, bounded for short jobs. */
export function boundedSlowdown(waitS: number, runS: number, tauS = BOUNDED_SLOWDOWN_TAU_S): number {
  return Math.max(1, (waitS + runS) / Math.max(runS, tauS));
}

export interface RunSummary {
  jobs: number;
  completed: number;
  failed: number;
  cancelled: number;
  makespan_s: number;
  /** Busy processors (Concertina's and background) over all processors, time-averaged over the run. */
  utilization: number;
  concertina_utilization: number;
  background_utilization: number;
  mean_wait_s: number;
  mean_response_s: number;
  mean_execution_s: number;
  /** Mean of boundedSlowdown(wait, execution) over completed jobs (τ = 10 s). */
  mean_bounded_slowdown: number;
  /** Longest wait of a completed job. */
  max_wait_s: number;
  /** Jobs that started while a job submitted before them was still waiting. */
  backfilled: number;
  /**
   * Means over every ended job, failed and cancelled ones too: a job's wait runs to its start, or to its end when it
   * never started; its execution is what it ran (0 if it never started). Trace simulators report these.
   */
  mean_wait_all_s: number;
  mean_bounded_slowdown_all: number;
  /** Why jobs failed, most frequent first; numbers in a reason read N, so that reasons group. */
  failure_reasons: Array<{ reason: string; jobs: number }>;
  mean_avg_size: number;
  mean_max_size: number;
  grow_ops: number;
  shrink_ops: number;
  voluntary_releases: number;
  /** Only when the run had interactive jobs: their tasks' deadline misses, and their re-placements after overruns. */
  interactive_deadline_misses?: number;
  interactive_replacements?: number;
  events: number;
}

export interface ClusterUsage {
  readonly name: string;
  readonly processors: number;
  readonly concertina: StepFunction;
  readonly background: StepFunction;
}

/** Width of the malleability-activity buckets (the KOALA experiment's and `simulate --out`'s activity.csv). */
export const ACTIVITY_BUCKET_S = 600;

export interface ActivityBucket {
  readonly t: number;
  readonly grows: number;
  readonly shrinks: number;
}

/** A job not yet ended, as the collector follows it. */
interface Tracking {
  id: string;
  name: string;
  kind: string;
  submit: number;
  start: number;
  cluster: string;
  size: number;
  since: number;
  area: number;
  max: number;
  grows: number;
  shrinks: number;
  walltime: number;
  backfilled: boolean;
}

export class MetricsCollector {
  /** The event types the collector reads; it may subscribe to these only. */
  static readonly EVENT_TYPES: readonly SchedulerEventType[] = [
    'job.submitted',
    'job.started',
    'job.grown',
    'job.shrunk',
    'job.evolved',
    'job.ended',
    'interactive.missed',
    'interactive.replaced',
  ];

  private readonly tracked = new Map<string, Tracking>();
  /** Ended jobs as compact rows; their Tracking objects are let go. */
  private readonly finished = new FinishedJobs();
  private readonly concertina: StepRecorder[];
  private readonly background: StepRecorder[];
  private readonly growTimes: number[] = [];
  /** Interactive jobs submitted, their deadline misses and re-placements (interactive.* events). */
  private readonly interactive = { jobs: 0, misses: 0, replacements: 0 };
  private readonly shrinkTimes: number[] = [];
  private voluntary = 0;
  private firstSubmit = Number.POSITIVE_INFINITY;
  private lastEnd = 0;

  constructor(
    private readonly clusters: ReadonlyArray<{ name: string; processors: number }>,
    /** A submitted job's walltime, if it has one. */
    private readonly walltimeOf: (jobId: string) => number | undefined = () => undefined,
    /** Whether a job that started was backfilled (asked at its start). */
    private readonly backfilledOf: (jobId: string) => boolean = () => false,
  ) {
    this.concertina = clusters.map(() => new StepRecorder(0));
    this.background = clusters.map(() => new StepRecorder(0));
  }

  /** Feed with the clusters' usage changes (processors in use). */
  usage(t: number, clusterIndex: number, concertina: number, background: number): void {
    this.concertina[clusterIndex]!.set(t, concertina);
    this.background[clusterIndex]!.set(t, background);
  }

  /** Feed with the scheduler's events. */
  event(e: SchedulerEvent): void {
    switch (e.type) {
      case 'interactive.missed':
        this.interactive.misses++;
        return;
      case 'interactive.replaced':
        this.interactive.replacements++;
        return;
      case 'job.submitted':
        if (e.kind === 'interactive') this.interactive.jobs++;
        this.firstSubmit = Math.min(this.firstSubmit, e.t);
        this.tracked.set(e.jobId, {
          id: e.jobId,
          name: e.name,
          kind: e.kind,
          submit: e.t,
          start: Number.NaN,
          cluster: '',
          size: 0,
          since: e.t,
          area: 0,
          max: 0,
          grows: 0,
          shrinks: 0,
          walltime: this.walltimeOf(e.jobId) ?? Number.NaN,
          backfilled: false,
        });
        return;
      case 'job.started': {
        const j = this.tracked.get(e.jobId);
        if (!j) return;
        j.start = e.t;
        j.cluster = e.cluster;
        j.backfilled = this.backfilledOf(e.jobId);
        this.resize(j, e.t, e.size);
        return;
      }
      case 'job.grown': {
        const j = this.tracked.get(e.jobId);
        if (!j) return;
        j.grows++;
        this.growTimes.push(e.t);
        this.resize(j, e.t, e.size);
        return;
      }
      case 'job.shrunk': {
        const j = this.tracked.get(e.jobId);
        if (!j) return;
        j.shrinks++;
        if (e.voluntary) this.voluntary++;
        else this.shrinkTimes.push(e.t);
        this.resize(j, e.t, e.size);
        return;
      }
      case 'job.evolved': {
        // An evolving job's own updates change its size; they are not the malleability manager's grows or shrinks.
        const j = this.tracked.get(e.jobId);
        if (j) this.resize(j, e.t, e.size);
        return;
      }
      case 'job.ended': {
        const j = this.tracked.get(e.jobId);
        if (!j) return;
        this.resize(j, e.t, 0);
        const ran = Number.isFinite(j.start);
        const execution = ran ? e.t - j.start : 0;
        this.lastEnd = Math.max(this.lastEnd, e.t);
        this.tracked.delete(e.jobId);
        this.finished.add({
          id: j.id,
          name: j.name,
          kind: j.kind,
          state: e.state,
          reason: e.reason,
          cluster: j.cluster,
          submit: j.submit,
          start: ran ? j.start : Number.NaN,
          end: e.t,
          avgSize: execution > 0 ? j.area / execution : j.max,
          maxSize: j.max,
          grows: j.grows,
          shrinks: j.shrinks,
          tries: e.tries,
          walltime: j.walltime,
          backfilled: j.backfilled,
        });
        return;
      }
      default:
        return;
    }
  }

  private resize(j: Tracking, t: number, size: number): void {
    if (j.size > 0) j.area += j.size * (t - j.since);
    j.since = t;
    j.size = size;
    if (size > j.max) j.max = size;
  }

  jobs(): JobMetrics[] {
    return [...this.jobRows()];
  }

  /** The ended jobs' metrics in the order they ended, each made as it is read (none kept). */
  *jobRows(): Generator<JobMetrics> {
    const f = this.finished;
    for (let i = 0; i < f.length; i++) {
      const start = f.start(i);
      const end = f.end(i);
      const ran = Number.isFinite(start);
      yield {
        id: f.id(i),
        name: f.name(i),
        kind: f.kind(i),
        state: f.state(i),
        reason: f.reason(i),
        cluster: f.cluster(i),
        submit: f.submit(i),
        start,
        end,
        wait_s: ran ? start - f.submit(i) : Number.NaN,
        execution_s: ran ? end - start : 0,
        response_s: end - f.submit(i),
        avg_size: f.avgSize(i),
        max_size: f.maxSize(i),
        grows: f.growCount(i),
        shrinks: f.shrinkCount(i),
        tries: f.tryCount(i),
        walltime_s: f.walltime(i),
        backfilled: f.wasBackfilled(i),
      };
    }
  }

  clusterUsage(): ClusterUsage[] {
    return this.clusters.map((c, i) => ({
      name: c.name,
      processors: c.processors,
      concertina: this.concertina[i]!.toStepFunction(),
      background: this.background[i]!.toStepFunction(),
    }));
  }

  /** Grow and shrink operations per bucket of `bucketS` seconds from the first submission. */
  activity(bucketS: number): ActivityBucket[] {
    const start = Number.isFinite(this.firstSubmit) ? this.firstSubmit : 0;
    const n = Math.max(1, Math.ceil((this.lastEnd - start) / bucketS));
    const buckets = Array.from({ length: n }, (_, i) => ({ t: start + i * bucketS, grows: 0, shrinks: 0 }));
    const at = (t: number) => buckets[Math.min(n - 1, Math.max(0, Math.floor((t - start) / bucketS)))]!;
    for (const t of this.growTimes) at(t).grows++;
    for (const t of this.shrinkTimes) at(t).shrinks++;
    return buckets;
  }

  /** `events`: how many events the scheduler decided (the collector reads only some of them). */
  summary(events: number): RunSummary {
    // One pass over the rows, no object per job; sums run in the rows' order, as the means always have.
    const f = this.finished;
    let completed = 0;
    let failed = 0;
    let cancelled = 0;
    let backfilled = 0;
    let wait = 0;
    let response = 0;
    let execution = 0;
    let slowdown = 0;
    let maxWait = 0;
    let avgSize = 0;
    let maxSize = 0;
    let waitAll = 0;
    let slowdownAll = 0;
    const failures = new Map<string, number>();
    for (let i = 0; i < f.length; i++) {
      const submit = f.submit(i);
      const start = f.start(i);
      const end = f.end(i);
      const ran = Number.isFinite(start);
      const execution_s = ran ? end - start : 0;
      const state = f.state(i);
      if (f.wasBackfilled(i)) backfilled++;
      const waitUntilStartOrEnd = (ran ? start : end) - submit;
      waitAll += waitUntilStartOrEnd;
      slowdownAll += boundedSlowdown(waitUntilStartOrEnd, execution_s);
      if (state === 'completed') {
        const wait_s = ran ? start - submit : Number.NaN;
        completed++;
        wait += wait_s;
        response += end - submit;
        execution += execution_s;
        slowdown += boundedSlowdown(wait_s, execution_s);
        maxWait = Math.max(maxWait, wait_s);
        avgSize += f.avgSize(i);
        maxSize += f.maxSize(i);
      } else if (state === 'failed') {
        failed++;
        countFailure(failures, f.reason(i));
      } else if (state === 'cancelled') {
        cancelled++;
      }
    }
    const mean = (sum: number) => (completed ? sum / completed : 0);
    const meanAll = (sum: number) => (f.length ? sum / f.length : 0);
    const start = Number.isFinite(this.firstSubmit) ? this.firstSubmit : 0;
    const end = Math.max(this.lastEnd, start);
    const span = end - start;
    let capacity = 0;
    let concertinaArea = 0;
    let backgroundArea = 0;
    // From the recorders, not clusterUsage()'s snapshots, which copied the whole utilisation history at the run's
    // memory peak (issue 17).
    this.clusters.forEach((c, i) => {
      capacity += c.processors * span;
      if (span > 0) {
        concertinaArea += this.concertina[i]!.integral(start, end);
        backgroundArea += this.background[i]!.integral(start, end);
      }
    });
    const ratio = (x: number) => (capacity > 0 ? x / capacity : 0);
    return {
      jobs: f.length + this.tracked.size,
      completed,
      failed,
      cancelled,
      makespan_s: span,
      utilization: ratio(concertinaArea + backgroundArea),
      concertina_utilization: ratio(concertinaArea),
      background_utilization: ratio(backgroundArea),
      mean_wait_s: mean(wait),
      mean_response_s: mean(response),
      mean_execution_s: mean(execution),
      mean_bounded_slowdown: mean(slowdown),
      max_wait_s: maxWait,
      backfilled,
      mean_wait_all_s: meanAll(waitAll),
      mean_bounded_slowdown_all: meanAll(slowdownAll),
      failure_reasons: sortedFailures(failures),
      mean_avg_size: mean(avgSize),
      mean_max_size: mean(maxSize),
      grow_ops: this.growTimes.length,
      shrink_ops: this.shrinkTimes.length,
      voluntary_releases: this.voluntary,
      ...(this.interactive.jobs > 0 && {
        interactive_deadline_misses: this.interactive.misses,
        interactive_replacements: this.interactive.replacements,
      }),
      events,
    };
  }
}

/** Numbers in a reason read N, so that reasons group. */
function countFailure(counts: Map<string, number>, reason: string): void {
  const grouped = reason.replace(/\d+(?:\.\d+)?/g, 'N');
  counts.set(grouped, (counts.get(grouped) ?? 0) + 1);
}

/** Most frequent first, then by reason. */
function sortedFailures(counts: Map<string, number>): Array<{ reason: string; jobs: number }> {
  return [...counts]
    .map(([reason, n]) => ({ reason, jobs: n }))
    .sort((a, b) => b.jobs - a.jobs || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
}
