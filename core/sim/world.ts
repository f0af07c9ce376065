// A simulated grid in virtual time: simulated clusters with background load and simulated applications behind the
// scheduler's ports, the very scheduler that runs live, an information-service poll, and the workload's arrivals.
import type { SchedulerEvent } from '../events.js';
import type { InboundMessage } from '../ports.js';
import { buildGrid } from '../model/grid.js';
import { componentRequest } from '../model/job.js';
import type { FieldError } from '../model/result.js';
import type { GridSpec, JobSpec } from '../model/schemas.js';
import { Random } from '../random.js';
import { malleabilityPolicy } from '../malleability/registry.js';
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler, type SchedulerOptions } from '../scheduler/scheduler.js';
import { SimulatedApplications } from './applications.js';
import { isJobSequence, sortedSpecs, type JobSequence } from './job-sequence.js';
import { EventEngine } from './engine.js';
import { MetricsCollector } from './metrics.js';
import { SimulatedCluster } from './simulated-cluster.js';
import { WalltimeKills } from './walltime-kills.js';
import type { JobStream, JobStreamSettings } from './workloads/stream.js';

export interface SimulationConfig {
  readonly grid: GridSpec;
  /** The workload: specs (sorted here by submit time), or a sequence in submit order that builds each as it arrives. */
  readonly jobs: readonly JobSpec[] | JobSequence;
  readonly seed: number;
  readonly scheduler?: Partial<SchedulerOptions>;
  /** Seconds between two polls of the information service (each also triggers job management). */
  readonly pollIntervalS?: number;
  /** Generate the clusters' background load. */
  readonly background?: boolean;
  /** Seconds between a local job getting its processors and running (batch submission and launch); default 0. */
  readonly launchDelayS?: number;
  /** Seconds a malleable application takes to adapt to a new size (grow or shrink); default 0. */
  readonly adaptS?: number;
  /** Keep the grid alive (polls, background load) after the workload's jobs have ended: a hosted, living grid. */
  readonly endless?: boolean;
  /** Record the run's metrics (per-job figures, utilization history). Off for an endless hosted grid, whose
   *  history would grow without bound; its console reads snapshots instead. Default on. */
  readonly metrics?: boolean;
  /** Stop at this virtual time even if jobs remain. */
  readonly maxTimeS?: number;
  /** Jobs that keep arriving once the workload's jobs are all submitted (an endless hosted grid's living default). */
  readonly stream?: JobStream;
  /** The stream's jobs arrive from the start, beside the workload's, instead of after its last submission. */
  readonly streamBesideWorkload?: boolean;
  /**
   * Let the scheduler forget each ended job once its instant is over (Scheduler.forget): a one-shot run whose
   * figures come from the metrics keeps no record of a finished job but its metrics row. Off by default: a hosted
   * grid forgets its jobs itself, once stored.
   */
  readonly forgetEnded?: boolean;
}

export interface RefusedJob {
  readonly jobId: string;
  readonly errors: FieldError[];
}

export const DEFAULT_POLL_INTERVAL_S = 60;

export class SimWorld {
  readonly engine = new EventEngine();
  readonly scheduler: Scheduler;
  readonly clusters: SimulatedCluster[];
  readonly applications: SimulatedApplications;
  readonly metrics: MetricsCollector;
  readonly refused: RefusedJob[] = [];
  private readonly jobs: JobSequence;
  private submitted = 0;
  private readonly startedComponents = new Map<string, number>();
  private wakeAt = Number.NaN;
  private readonly maxTime: number;
  private readonly endless: boolean;
  private readonly stream: JobStream | undefined;
  /** The stream's next arrival is scheduled (false while it is off, or the workload's own jobs still come). */
  private streamPending = false;
  private readonly streamBesideWorkload: boolean;
  /** Jobs ended at the current instant, forgotten at the next one (config.forgetEnded); undefined when kept. */
  private readonly endedNow: string[] | undefined;
  /**
   * Polls that would change nothing may be skipped (idlePoll): a one-shot run whose clusters' status never changes
   * (no background load) and whose work all comes from the engine. Off for good once work comes from outside.
   */
  private skipIdlePolls: boolean;
  /** A poll reached the scheduler (the first one always does: it records the clusters' status). */
  private polledOnce = false;
  /** Unfinished jobs that a poll may act on while they run (see canChangeWhileRunning), by id. */
  private readonly changeable = new Set<string>();
  /** Engine actions processed when the current instant began. */
  private instantStart = 0;
  /** Inside `run()` without a callback: no command comes between two instants, so idle polls may be leapt over. */
  private uninterrupted = false;
  /** Whether the poll of the current instant reached the scheduler, was skipped, or none came (undefined). */
  private pollNow: 'polled' | 'skipped' | undefined;
  /**
   * Nothing has happened since a poll that reached the scheduler found nothing to do: its instant held that poll
   * alone, its pass left no work at that instant, and every instant since held only a skipped poll (see idlePoll).
   */
  private quietSincePoll = false;
  /** A pass repeated at a later time from the same state decides the same (see idlePoll); fixed for the run. */
  private readonly passesRepeat: boolean;

  constructor(config: SimulationConfig) {
    const grid = buildGrid(config.grid);
    const random = new Random(config.seed);
    // Messages from the clusters and applications reach the scheduler after the call that caused them, in order,
    // through one inbox drained by a single engine action (a poll of 50 clusters is one action, not 50).
    // The array is kept between drains (truncating it would give its room back, to be taken again at the next message).
    const inbox: Array<InboundMessage | undefined> = [];
    let queued = 0;
    let draining = false;
    const drain = () => {
      for (let i = 0; i < queued; i++) {
        const message = inbox[i]!;
        inbox[i] = undefined;
        this.scheduler.receive(message, this.engine.now);
      }
      queued = 0;
      draining = false;
    };
    const deliver = (message: InboundMessage) => {
      inbox[queued++] = message;
      if (!draining) {
        draining = true;
        this.engine.soon(drain);
      }
    };
    this.metrics = new MetricsCollector(
      grid.clusters,
      (jobId) => this.scheduler.job(jobId)?.spec.walltime,
      (jobId) => this.scheduler.job(jobId)?.backfilled ?? false,
    );
    const recordMetrics = config.metrics !== false;
    const walltimes = new WalltimeKills(this.engine);
    this.clusters = grid.clusters.map(
      (c) =>
        new SimulatedCluster(
          c.spec,
          c.index,
          this.engine,
          deliver,
          {
            started: (jobId, _component, processors) => this.componentStarted(jobId, processors),
            usage: (index, concertina, background) => {
              if (recordMetrics) this.metrics.usage(this.engine.now, index, concertina, background);
            },
          },
          config.launchDelayS ?? 0,
          walltimes,
        ),
    );
    this.applications = new SimulatedApplications(
      this.engine,
      deliver,
      (jobId) => this.applicationFinished(jobId),
      random.fork('applications'),
      config.adaptS ?? 0,
    );
    this.scheduler = new Scheduler(grid, this.clusters, this.applications, config.scheduler);
    this.scheduler.on(
      (e) => this.onEvent(e, recordMetrics),
      recordMetrics ? MetricsCollector.EVENT_TYPES : ['job.ended'],
    );
    this.jobs = isJobSequence(config.jobs) ? config.jobs : sortedSpecs(config.jobs);
    this.maxTime = config.maxTimeS ?? Number.POSITIVE_INFINITY;
    this.endless = config.endless ?? false;
    this.stream = config.stream;
    this.streamBesideWorkload = config.streamBesideWorkload ?? false;
    this.endedNow = config.forgetEnded ? [] : undefined;

    this.skipIdlePolls =
      !this.endless &&
      this.stream === undefined &&
      (config.background === false || grid.clusters.every((c) => !c.spec.background));
    // Decision: a policy that brings its own iteration (DBES) is left every poll: its pass is not shown here to repeat.
    this.passesRepeat =
      !Number.isFinite(this.scheduler.queue.triesThreshold) &&
      malleabilityPolicy(config.scheduler?.policy ?? DEFAULT_SCHEDULER_OPTIONS.policy)?.iteration === undefined;
    const pollInterval = config.pollIntervalS ?? DEFAULT_POLL_INTERVAL_S;
    const poll = () => {
      let next = this.engine.now + pollInterval;
      if (!this.idlePoll()) {
        this.polledOnce = true;
        this.pollNow = 'polled';
        this.scheduler.poll(this.engine.now);
      } else {
        this.pollNow = 'skipped';
        if (this.uninterrupted && pollInterval > 0) {
          // Every poll before the engine's next action would be idle too (alone, and nothing changes until then): the
          // chain goes on from the first poll at or after it, its times summed one interval at a time as before.
          const work = this.engine.nextTime();
          if (Number.isFinite(work)) while (next < work) next += pollInterval;
        }
      }
      if (!this.finished) this.engine.at(next, poll);
    };
    this.engine.at(0, poll);
    if (config.background !== false) {
      for (const c of grid.clusters) {
        const spec = c.spec.background;
        if (!spec) continue;
        const rng = random.fork(`background:${c.name}`);
        const cluster = this.clusters[c.index]!;
        const arrive = () => {
          cluster.addBackground(
            rng.int(spec.minSize, Math.min(spec.maxSize, c.processors)),
            rng.exponential(spec.meanDurationS),
          );
          if (!this.finished) this.engine.at(this.engine.now + rng.exponential(spec.meanInterarrivalS), arrive);
        };
        this.engine.at(rng.exponential(spec.meanInterarrivalS), arrive);
      }
    }
    this.scheduleNextSubmission();
    if (this.streamBesideWorkload) this.scheduleStreamArrival(0);
  }

  /** Every job submitted has ended (or the time limit passed). */
  get finished(): boolean {
    if (this.engine.now > this.maxTime) return true;
    return !this.endless && this.submitted === this.jobs.length && this.scheduler.unfinishedJobs === 0;
  }

  /**
   * Runs every instant up to virtual time `t`, then sets the clock to `t` (a hosted grid follows a wall clock).
   * `stop`, asked after each instant, ends it early (a host computes in bounded slices, each making progress); then
   * it returns false, and a later call goes on from there exactly as one uninterrupted call would have.
   */
  runUntil(t: number, stop?: () => boolean): boolean {
    while (this.engine.nextTime() <= t) {
      if (!this.stepInstant()) break;
      if (stop?.() && this.engine.nextTime() <= t) return false;
    }
    if (t > this.engine.now && !this.finished) this.engine.now = t;
    return true;
  }

  /** Submits a job at virtual time `t` (not before now); for replaying what a hosted run accepted. */
  submitAt(t: number, input: unknown): void {
    this.skipIdlePolls = false;
    this.engine.at(t, () => {
      const result = this.scheduler.submit(input, this.engine.now, true);
      if (!result.ok)
        this.refused.push({ jobId: String((input as { id?: unknown })?.id ?? '?'), errors: result.errors });
    });
  }

  /** Submits a job now (validated by the scheduler; `stored`: replayed from a store, see Scheduler.submit). */
  submit(input: unknown, stored = false): ReturnType<Scheduler['submit']> {
    this.skipIdlePolls = false;
    const result = this.scheduler.submit(input, this.engine.now, stored);
    // Its try happens in the scheduler's next pass: make sure the engine visits this instant again.
    this.engine.soon(nothing);
    return result;
  }

  get totalJobs(): number {
    return this.jobs.length;
  }

  /** Runs every action due at the next instant, then the scheduler's pass for it; false once finished. */
  stepInstant(): boolean {
    if (this.finished) return false;
    const t = this.engine.nextTime();
    if (!Number.isFinite(t) || t > this.maxTime) return false;
    // Decision: a job is forgotten only once the clock has moved past its end, so that the messages its end caused
    // at that instant (the clusters' releases) still find it, as they would in a run that keeps every job.
    if (t > this.engine.now) this.forgetEnded();
    this.instantStart = this.engine.processed;
    this.pollNow = undefined;
    while (this.engine.nextTime() === t) this.engine.step();
    const actions = this.engine.processed - this.instantStart;
    // A poll alone (with the drain of its clusters' answers), whose pass changes nothing by the scheduler's own key
    // (state-key.ts) and leaves no work; or, after one, a skipped poll alone. Anything else breaks the quiet.
    const lonePoll = this.passesRepeat && this.pollNow === 'polled' && actions === 2;
    const before = lonePoll ? this.scheduler.stateKey() : 0;
    this.scheduler.advance(t);
    const wake = this.scheduler.nextWakeup();
    if (lonePoll) this.quietSincePoll = this.scheduler.stateKey() === before && this.engine.nextTime() > t && wake > t;
    else this.quietSincePoll &&= this.pollNow === 'skipped' && actions === 1;
    if (Number.isFinite(wake) && wake > t && wake !== this.wakeAt) {
      this.wakeAt = wake;
      this.engine.at(wake, nothing);
    }
    return true;
  }

  run(onInstant?: () => void): void {
    // Without a callback between instants nothing outside the engine acts until the run ends (see the poll chain).
    this.uninterrupted = onInstant === undefined;
    while (this.stepInstant()) onInstant?.();
    this.uninterrupted = false;
    this.forgetEnded();
  }

  private forgetEnded(): void {
    if (!this.endedNow?.length) return;
    for (const id of this.endedNow) this.scheduler.forget(id);
    this.endedNow.length = 0;
  }

  /** The stream's load and mix (undefined without a stream). */
  get streamSettings(): JobStreamSettings | undefined {
    return this.stream?.current;
  }

  /** New load and mix for the stream, from its next arrival on (a stream that was off starts from now). */
  setStream(settings: JobStreamSettings): void {
    if (!this.stream) return;
    this.stream.set(settings);
    if (this.streamBesideWorkload || this.submitted === this.jobs.length) this.scheduleStreamArrival(this.engine.now);
  }

  private scheduleStreamArrival(after: number): void {
    if (!this.stream || this.streamPending || this.finished) return;
    const spec = this.stream.next(after);
    if (!spec) return;
    this.streamPending = true;
    this.engine.at(spec.submitTime, () => {
      this.streamPending = false;
      const result = this.scheduler.submitSpec(spec, this.engine.now);
      if (!result.ok) this.refused.push({ jobId: spec.id ?? '?', errors: result.errors });
      this.scheduleStreamArrival(this.engine.now);
    });
  }

  private scheduleNextSubmission(): void {
    if (this.submitted === this.jobs.length) return this.scheduleStreamArrival(this.engine.now);
    this.engine.at(this.jobs.submitTime(this.submitted), this.submitNext);
  }

  /** Submits the workload's next job (one action for all of them: a trace's jobs make no closure each). */
  private readonly submitNext = (): void => {
    const spec = this.jobs.spec(this.submitted++);
    const result = this.scheduler.submitSpec(spec, this.engine.now);
    if (!result.ok) this.refused.push({ jobId: spec.id ?? `#${this.submitted}`, errors: result.errors });
    else if (canChangeWhileRunning(spec)) this.changeable.add(result.value.id);
    this.scheduleNextSubmission();
  };

  /**
   * A poll that would change nothing: the first action of its instant and the only one due then (so no other work
   * shares the instant), no pass or timer due, and only jobs that cannot change size running, on clusters whose
   * status it already knows; and either no job waiting (its pass could only find the same state again: no job to
   * try, none to grow), or nothing happened since a poll whose pass did nothing, in a run whose passes repeat: with no
   * tries limit a failed try counts once, so a waiting job's try changes nothing, and the queue policies decide from
   * what runs and waits, not from the clock (a backfill that did not fit before the head's reservation fits no better
   * later; a reservation's start is a running job's end, itself an action). Skipping it changes no decision.
   * Decision: what it does change is not read by a one-shot run: the poll round's number (compared only for equality,
   * and counting tries only under a tries limit) and the clusters' time of last poll (shown by a hosted grid's
   * console, which never skips: see skipIdlePolls).
   */
  private idlePoll(): boolean {
    const now = this.engine.now;
    return (
      this.skipIdlePolls &&
      this.polledOnce &&
      this.changeable.size === 0 &&
      this.engine.processed === this.instantStart + 1 &&
      this.engine.nextTime() > now &&
      (this.scheduler.queue.length === 0 || (this.passesRepeat && this.quietSincePoll)) &&
      this.scheduler.nextWakeup() > now
    );
  }

  /**
   * A component of a job started: its application starts once all have. Returns the time the application finishes at
   * when that is fixed (SimulatedApplications.start), or undefined.
   */
  private componentStarted(jobId: string, processors: number): number | undefined {
    const job = this.scheduler.job(jobId);
    if (!job) return undefined;
    const started = (this.startedComponents.get(jobId) ?? 0) + processors;
    // The application starts once all its components are running.
    // An evolving job's local job starts with its initial size, not its whole pre-allocation.
    const total = job.evolving
      ? componentRequest(job.spec, 0).initial
      : job.components.reduce((s, c) => s + c.processors, 0);
    if (started < total) {
      this.startedComponents.set(jobId, started);
      return undefined;
    }
    this.startedComponents.delete(jobId);
    return this.applications.start(job.spec, jobId, started);
  }

  private applicationFinished(jobId: string): void {
    const job = this.scheduler.job(jobId);
    if (job) this.endOnClusters(job.components, jobId, 'completed', 'application finished');
  }

  /** Ends a job on each cluster its components run on, once per cluster. */
  private endOnClusters(
    components: ReadonlyArray<{ readonly cluster: string }>,
    jobId: string,
    state: 'completed' | 'failed' | 'cancelled',
    reason: string,
  ): void {
    // Most jobs have one component: no set of names for them.
    const names = components.length === 1 ? undefined : new Set(components.map((c) => c.cluster));
    for (let i = 0; i < components.length; i++) {
      const name = components[i]!.cluster;
      if (names !== undefined && !names.delete(name)) continue;
      this.clusters[this.scheduler.grid.cluster(name)!.index]!.end(jobId, state, reason);
    }
  }

  private onEvent(e: SchedulerEvent, recordMetrics: boolean): void {
    if (recordMetrics) this.metrics.event(e);
    if (e.type === 'job.ended') {
      // Whatever ended it, nothing of the job may linger in the clusters or as a running application.
      this.applications.stop(e.jobId);
      this.startedComponents.delete(e.jobId);
      const job = this.scheduler.job(e.jobId);
      if (job) this.endOnClusters(job.components, e.jobId, e.state, e.reason);
      this.endedNow?.push(e.jobId);
      this.changeable.delete(e.jobId);
    }
  }
}

/** An engine action that only makes the engine visit its instant (the scheduler's wake-ups). */
const nothing = (): void => undefined;

/** A running job a poll may act on: one that may grow or shrink, ask for updates, or report iterations. */
function canChangeWhileRunning(spec: JobSpec): boolean {
  return (
    spec.kind !== 'rigid' ||
    spec.profile !== undefined ||
    spec.app?.model === 'evolving' ||
    spec.app?.model === 'esp-evolving'
  );
}
