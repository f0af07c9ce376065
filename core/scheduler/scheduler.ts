// The multicluster scheduler: the orchestration of a pass over one capacity model. It is driven from outside —
// `submit`, `receive` (port answers), `poll`, `advance(now)` — and acts only through its ports, so the simulator and
// live mode run the very same code. Its parts, each behind a small interface: the placement queue and the queue
// policies (core/queue/), KOALA's scan (koala-scan.ts) with PWA's shrink-to-place (shrink-to-place.ts), the claimer,
// the malleability manager and its policies (core/malleability/), growth at polls (growth.ts), the evolving jobs'
// updates (evolving.ts), size changes (job-sizes.ts), restart adoption (adoption.ts), operator resizes
// (operator-resize.ts), the event bus (event-bus.ts) and the ledger that alone moves the counters (ledger.ts).
import type { EventListener, PlacedComponent, SchedulerEventBody, SchedulerEventType } from '../events.js';
import type { Grid } from '../model/grid.js';
import { checkJobAgainstGrid, componentRequest } from '../model/job.js';
import { fail, ok, parseWith, type Result } from '../model/result.js';
import { jobSpecSchema, storedJobSpecSchema, type JobSpec } from '../model/schemas.js';
import type { JobManagementApproach, PassContext } from '../malleability/approach.js';
import { approach as approachByName } from '../malleability/approaches/index.js';
import { MalleabilityManager } from '../malleability/manager.js';
import type { IterationHost, SchedulingIteration } from '../malleability/iteration.js';
import type { MalleabilityPolicy } from '../malleability/policy.js';
import { malleabilityPolicies, malleabilityPolicy } from '../malleability/registry.js';
import { placementPolicy } from '../placement/registry.js';
import type { PlacementContext } from '../placement/policy.js';
import type { ApplicationPort, InboundMessage, JobOutput, LocalManager } from '../ports.js';
import { PlacementQueue, TRIES_EXHAUSTED, type TryOutcome } from '../queue/placement-queue.js';
import { PlannedPass, type OffersHeld } from '../queue/planned-pass.js';
import type { Reservation } from '../plan/availability.js';
import { holdingEnd } from '../plan/holding.js';
import type { QueuePolicy, QueuePolicyName } from '../queue/policy.js';
import { queuePolicies, queuePolicy } from '../queue/registry.js';
import { prioritized, QUEUE_PRIORITIES, queuePriority, type QueuePriorityName } from '../queue/priority.js';
import { planSnapshot, reservedViews, type PlanCluster, type PlanSnapshot } from '../plan/plan-snapshot.js';
import { checkAdoption, resumeAdopted, type AdoptedJob } from './adoption.js';
import { Claimer } from './claimer.js';
import { ClusterState, type ClusterSnapshot, type ThresholdScope } from './cluster-state.js';
import { EventBus } from './event-bus.js';
import { EvolvingUpdates } from './evolving.js';
import { GrowthTrigger, NO_ROOM_LIMIT, type GrowthAtPoll, type ReservedRoom } from './growth.js';
import { JobRecord } from './job-record.js';
import { JobSizes } from './job-sizes.js';
import { InteractiveJobs, type InteractiveClusterSample } from './interactive-jobs.js';
import { DEFAULT_FPE_VARIANT, FpeJobs } from './fpe-jobs.js';
import type { FpeVariantName } from '../fpe/registry.js';
import { KoalaScan } from './koala-scan.js';
import { CapacityLedger } from './ledger.js';
import { resizeByOperator, type OperatorResize } from './operator-resize.js';
import { MostTree } from './most-tree.js';
import { roomFor } from './room.js';
import { ShrinkToPlace } from './shrink-to-place.js';
import { PassHistory, PassStateKey } from './state-key.js';
import { ReusedList } from './reused-list.js';
import { Timers } from './timers.js';
import type { Step } from '../time/step-function.js';

export type { AdoptedJob } from './adoption.js';
export { GROWTH_AT_POLL, type GrowthAtPoll } from './growth.js';
export type { ClusterSnapshot } from './cluster-state.js';
export type { OperatorResize } from './operator-resize.js';
export type { InteractiveClusterSample } from './interactive-jobs.js';

export interface SchedulerOptions {
  /** Job-management approach: `pra` or `pwa`. */
  approach: string;
  /** Malleability policy, by name in core/malleability/registry.ts (`fpsma`, `egs`, `equipartition`, `dbes`, ...). */
  policy: string;
  /** Failed placement tries after which a job fails. */
  triesThreshold: number;
  /** Without reservations, processors are claimed this many seconds before the estimated start. */
  claimMarginS: number;
  /** Marks Concertina's jobs at the local managers. */
  tag: string;
  /** What each cluster's threshold caps: all Concertina holds (`all`), or only growth (`growth`). */
  thresholdScope: ThresholdScope;
  /** When a poll makes growth due: `idle` (whenever some could be taken) or `freed` (the paper's, see growth.ts). */
  growthAtPoll: GrowthAtPoll;
  /** Which waiting jobs may start now: `koala` (every job tried head to tail), `fcfs`, `easy` or `cbf` (core/queue/). */
  queue: QueuePolicyName;
  /** How many waiting jobs get reservations (Maui's ReservationDepth); undefined: the queue policy's own. */
  reservationDepth: number | undefined;
  /** The order a planning queue policy takes waiting jobs in. */
  priority: QueuePriorityName;
  /** DBES and its baselines: the delay evolving jobs' grants may cause waiting jobs (seconds); undefined: the default. */
  fairness?: { readonly perJob: number; readonly perUser: number } | undefined;
  /** How jobs submitted with an evolution profile are fitted on the plan (core/fpe/registry.ts). */
  fpeVariant?: FpeVariantName;
  /** Seconds a profiled job's step grow may take to be all running before it is withdrawn as failed (fpe-jobs.ts). */
  fpeGrowTimeoutS?: number;
  /** Failed grows of one step after which a profiled job ends, failed (fpe-jobs.ts). */
  fpeGrowAttempts?: number;
}

/** Rounds of passes `advance` runs at one instant at most (each pass must make progress: PassHistory). */
const SETTLE_ROUNDS = 16;

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  approach: 'pra',
  policy: 'fpsma',
  triesThreshold: 1000,
  claimMarginS: 30,
  tag: 'concertina',
  // Decision: live clusters keep the threshold on everything Concertina holds, the safer reading for their owners.
  thresholdScope: 'all',
  // Decision: an operator reads a malleable job left small beside idle processors as broken; KOALA's information
  // service polls for exactly this, so growth is offered at every poll that finds room.
  growthAtPoll: 'idle',
  queue: 'koala',
  reservationDepth: undefined,
  priority: 'submit',
};

/**
 * A job's views (CooRMv2), in absolute scheduler time; the last step of each holds on. `nonPreemptive`: what it may
 * hold with a guarantee (an evolving job: its pre-allocation); `preemptive`: what it could hold preemptibly now and
 * ahead (a malleable job: its size and what it could grow into, less what it must release by a deadline);
 * `allocated`: its size so far.
 */
export interface JobViews {
  readonly nonPreemptive: Step[];
  readonly preemptive: Step[];
  readonly allocated: Step[];
}

export class Scheduler {
  readonly grid: Grid;
  readonly clusters: readonly ClusterState[];
  readonly queue: PlacementQueue;
  readonly timers = new Timers();
  private readonly managers: readonly LocalManager[];
  private readonly malleability: MalleabilityManager;
  private readonly claimer: Claimer;
  private readonly jobsById = new Map<string, JobRecord>();
  private readonly bus = new EventBus();
  private readonly ledger: CapacityLedger;
  private readonly growth: GrowthTrigger;
  private readonly evolving: EvolvingUpdates;
  private readonly koalaScan: KoalaScan;
  private readonly sizes: JobSizes;
  /** Interactive periodic jobs: admission on the clusters' worker nodes, their reports (interactive-jobs.ts). */
  private readonly interactive: InteractiveJobs;
  /** Fully-predictably evolving jobs: fitted on the plan by the FPE variant, run step by step (fpe-jobs.ts). */
  private readonly fpe: FpeJobs;
  private approach: JobManagementApproach;
  private readonly growthAtPoll: GrowthAtPoll;
  private queuePolicy: QueuePolicy;
  private reservationDepthOption: number | undefined;
  private priorityOption: QueuePriorityName;
  private readonly fairnessOption: SchedulerOptions['fairness'];
  /** Jobs placed and not yet ended: what the queue policies' plans hold (kept by the ledger). */
  private get placedJobs(): ReadonlySet<JobRecord> {
    return this.ledger.placedJobs;
  }
  /**
   * Jobs in submission order (jobsById keeps it), walked once: `firstWaiting` is the earliest submitted job not yet
   * placed, as far as placements so far have moved it on (what says whether a job starting now is backfilled).
   */
  private readonly submitOrder: IterableIterator<JobRecord> = this.jobsById.values();
  private firstWaiting: JobRecord | undefined;
  /** Passes of the planning queue policies (fcfs, easy, cbf). */
  private readonly plannedPass: PlannedPass;
  /** The clusters whose `availableFor` may have changed since `drainAvailability` last read it. */
  private readonly availabilityMoved = new ReusedList<ClusterState>();
  /** The clusters by `availableFor()`, brought up to date by `drainAvailability`. */
  private readonly byAvailable: MostTree;
  /** While a planned pass watches: the clusters whose `availableFor` moved since it last looked, each once. */
  private plannedMoved: ReusedList<number> | undefined;
  private readonly plannedMark: Uint8Array;
  /** A job's run time at a size, as its application declares it (the plan's estimate of a malleable job's end). */
  private readonly runtimeAt = (jobId: string, size: number): number | undefined =>
    this.applications.runtimeAt?.(jobId, size);
  private seq = 0;
  private unfinished = 0;
  private passRequested = false;
  /** Jobs submitted since the last pass: each gets a try of its own. */
  private arrivals: JobRecord[] = [];
  private now = Number.NEGATIVE_INFINITY;
  /** Poll rounds so far: a status from a local manager opens a new one; a job counts one failed try per round. */
  private pollRound = 0;
  /** Commands and polls so far: a pass after one is never skipped as a repeat. */
  private epoch = 0;
  private readonly passes = new PassHistory();
  private readonly passState: PassStateKey;
  /** The malleability policy's own iteration (DBES), run instead of the approach's pass; undefined for the others. */
  private iteration: SchedulingIteration | undefined;

  constructor(
    grid: Grid,
    managers: readonly LocalManager[],
    private readonly applications: ApplicationPort,
    options: Partial<SchedulerOptions> = {},
  ) {
    const o = { ...DEFAULT_SCHEDULER_OPTIONS, ...options };
    this.grid = grid;
    this.clusters = grid.clusters.map((c) => new ClusterState(c, o.thresholdScope));
    this.passState = new PassStateKey(this.clusters);
    this.byAvailable = new MostTree(this.clusters.length);
    this.plannedMark = new Uint8Array(this.clusters.length);
    for (const s of this.clusters) s.watchAvailability(this.availabilityMoved);
    this.ledger = new CapacityLedger(grid, this.clusters, (state) => this.growth.due(state));
    this.managers = grid.clusters.map((c) => {
      const m = managers.find((x) => x.cluster === c.name);
      if (!m) throw new Error(`no local manager for cluster ${c.name}`);
      return m;
    });
    this.queue = new PlacementQueue(o.triesThreshold);
    this.growthAtPoll = o.growthAtPoll;
    this.queuePolicy = required(queuePolicy(o.queue), 'queue', o.queue);
    this.reservationDepthOption = o.reservationDepth;
    this.priorityOption = o.priority;
    this.fairnessOption = o.fairness;
    this.plannedPass = new PlannedPass({
      grid,
      availableFor: (i) => this.clusters[i]!.availableFor(),
      preallocationSharing: (i) => this.clusters[i]!.preallocationSharing(),
      placedJobs: () => this.placedJobs,
      placedOn: (i) => this.ledger.placedOn(i),
      holdingsVersion: (i) => this.ledger.version(i),
      placements: () => this.ledger.placements,
      placedCount: () => this.ledger.placedJobs.size,
      watchChanges: (on) => {
        this.ledger.watchChanges(on);
        this.watchPlannedMoved(on);
      },
      watchMoved: (on) => {
        this.ledger.watchMoved(on);
        this.watchPlannedMoved(on);
      },
      // A profiled job's holding follows its evolution profile (holding.ts): not the plain way.
      plainAt: (now) => this.fpe.count === 0 && this.ledger.plain.plainAt(now),
      drainChanges: (i, visit) => this.ledger.drainChanges(i, visit),
      drainMoved: (visit) => {
        this.ledger.drainMoved(visit);
        this.drainAvailability();
        const moved = this.plannedMoved;
        if (moved === undefined || moved.count === 0) return;
        for (let k = 0; k < moved.count; k++) {
          this.plannedMark[moved.items[k]!] = 0;
          visit(moved.items[k]!);
        }
        moved.clear();
      },
      roomFor: (job, i) => this.roomFor(job, this.clusters[i]!, false),
      // room.ts: only an evolving job's room is not what is available (its pre-allocation's own rule).
      roomAtLeastAvailable: (job) => !job.evolving,
      place: (job, components, policy, now) => this.place(job, components, policy, now),
      failedTry: (job, reason, now) => this.failedTry(job, reason, now),
      wake: (t) => this.timers.at(t, () => (this.passRequested = true)),
      eventCount: () => this.bus.count,
      profiledHolds: (now) => this.fpe.profiledHolds(now),
      offersHeld: (i, now) => this.offersHeld(this.clusters[i]!, now),
      runtimeAt: this.runtimeAt,
    });
    this.approach = required(approachByName(o.approach), 'approach', o.approach);
    // What every part shares: the grid, each cluster's state and local manager, the ports, the timers, the ledger.
    const emit = (now: number, e: SchedulerEventBody) => this.emit(now, e);
    const parts = {
      grid,
      clusters: this.clusters,
      managers: this.managers,
      applications,
      timers: this.timers,
      ledger: this.ledger,
      emit,
    };
    const freed = (state: ClusterState) => {
      this.growth.due(state);
      this.passRequested = true;
    };
    this.malleability = new MalleabilityManager(
      {
        ...parts,
        grantGrow: (job, n, offerId, why) => this.sizes.grantGrow(job, n, offerId, why),
        // What an operation leaves unclaimed was already offered: only processors freed meanwhile re-trigger growth.
        operationDone: () => (this.passRequested = true),
        reservedRoom: this.reservedRoom,
      },
      required(malleabilityPolicy(o.policy), 'policy', o.policy),
    );
    this.claimer = new Claimer(
      {
        ...parts,
        tag: o.tag,
        claimed: (job, now) => this.emit(now, { type: 'job.claimed', jobId: job.id, components: job.components }),
        claimFailed: (job, reason, now) => this.claimFailed(job, reason, now),
      },
      o.claimMarginS,
    );
    this.iteration = this.malleability.policy.iteration?.(this.iterationHost());
    this.growth = new GrowthTrigger(this.malleability, this.reservedRoom);
    this.koalaScan = new KoalaScan({
      ...parts,
      queue: this.queue,
      pwa: new ShrinkToPlace(grid, this.clusters, this.ledger, this.malleability),
      malleability: this.malleability,
      round: () => this.tryRound,
      epoch: () => this.epoch,
      mostAvailableCluster: () => this.mostAvailableCluster(),
      place: (job, components, policy, now) => this.place(job, components, policy, now),
      failedTry: (job, reason, now) => this.failedTry(job, reason, now),
    });
    this.evolving = new EvolvingUpdates({
      ...parts,
      malleability: this.malleability,
      job: (id) => this.jobsById.get(id),
      freed,
      reservedRoom: this.reservedRoom,
      request: (job, processors, now) => {
        if (this.iteration) {
          this.iteration.request(job, processors, now);
          this.passRequested = true;
          return;
        }
        // Placed without a pre-allocation under a policy since changed for one that decides no requests.
        const reason = `no pre-allocation to grow into, and policy ${this.malleability.policy.name} decides no requests`;
        this.emit(now, { type: 'evolve.refused', jobId: job.id, reason });
        this.applications.updateRefused(job.id, reason);
      },
    });
    this.interactive = new InteractiveJobs({ grid, applications, emit, at: (t, action) => this.timers.at(t, action) });
    const placedJobs = () => this.placedJobs;
    const place = (job: JobRecord, components: PlacedComponent[], policy: string, now: number) =>
      this.place(job, components, policy, now);
    const wake = (t: number) => this.timers.at(t, () => (this.passRequested = true));
    this.fpe = new FpeJobs(
      {
        ...parts,
        runtimeAt: this.runtimeAt,
        placedJobs,
        queuedJobs: () => this.queue.list(),
        place,
        freed,
        wake,
        shrinks: this.malleability,
        fail: (job, reason, now) => void this.cancel(job.id, now, reason, 'failed'),
      },
      o.fpeVariant ?? DEFAULT_FPE_VARIANT,
      { timeoutS: o.fpeGrowTimeoutS, attempts: o.fpeGrowAttempts },
    );
    this.sizes = new JobSizes({
      ...parts,
      update: (jobId, processors, announceS, now) => this.evolving.update(jobId, processors, announceS, now),
      freed,
      jobChanged: (job, now) => this.malleability.onJobChanged(job, now),
      shortOfStep: (job) => this.fpe.shortOfStep(job.id),
    });
  }

  // ---- settings ------------------------------------------------------------------------------------------------

  get approachName(): string {
    return this.approach.name;
  }

  get queuePolicyName(): QueuePolicyName {
    return this.queuePolicy.name;
  }

  get reservationDepth(): number | undefined {
    return this.reservationDepthOption;
  }

  get priority(): QueuePriorityName {
    return this.priorityOption;
  }

  setQueuePolicy(name: string): Result<void> {
    const q = queuePolicy(name);
    if (!q)
      return fail([
        { path: 'queue', message: `must be one of ${Object.keys(queuePolicies).join(', ')} (got "${name}")` },
      ]);
    this.queuePolicy = q;
    // Reservations were the old policy's: the new one plans its own at its first pass (koala plans none).
    for (const job of this.queue.list()) job.plannedStart = undefined;
    this.passRequested = true;
    this.epoch++;
    return ok(undefined);
  }

  /** undefined: the queue policy's own depth. */
  setReservationDepth(depth: number | undefined): Result<void> {
    if (depth !== undefined && !(Number.isInteger(depth) && depth >= 0)) {
      return fail([{ path: 'reservationDepth', message: `must be a whole number of jobs, 0 or more (got ${depth})` }]);
    }
    this.reservationDepthOption = depth;
    this.passRequested = true;
    this.epoch++;
    return ok(undefined);
  }

  setPriority(name: string): Result<void> {
    if (!(QUEUE_PRIORITIES as readonly string[]).includes(name)) {
      return fail([{ path: 'priority', message: `must be one of ${QUEUE_PRIORITIES.join(', ')} (got "${name}")` }]);
    }
    this.priorityOption = name as QueuePriorityName;
    this.passRequested = true;
    this.epoch++;
    return ok(undefined);
  }

  get fpeVariant(): FpeVariantName {
    return this.fpe.variant;
  }

  setFpeVariant(name: string): Result<void> {
    const r = this.fpe.setVariant(name);
    if (r.ok) this.passRequested = true;
    return r;
  }

  /** Seconds a profiled job's step grow may take to be all running before it is withdrawn as failed. */
  get fpeGrowTimeoutS(): number {
    return this.fpe.growTimeoutS;
  }

  setFpeGrowTimeoutS(seconds: number): Result<void> {
    return this.fpe.setGrowTimeoutS(seconds);
  }

  /** Failed grows of one step after which a profiled job ends, failed. */
  get fpeGrowAttempts(): number {
    return this.fpe.growAttempts;
  }

  setFpeGrowAttempts(attempts: number): Result<void> {
    return this.fpe.setGrowAttempts(attempts);
  }

  /** A profiled job's scheduled EP and the step it runs (fpe-jobs.ts); undefined for other jobs. */
  fpeSchedule(jobId: string): ReturnType<FpeJobs['describe']> {
    return this.fpe.describe(jobId);
  }

  get policy(): MalleabilityPolicy {
    return this.malleability.policy;
  }

  setApproach(name: string): Result<void> {
    const a = approachByName(name);
    if (!a) return fail([{ path: 'approach', message: `must be one of pra, pwa (got "${name}")` }]);
    this.approach = a;
    this.epoch++;
    return ok(undefined);
  }

  setPolicy(name: string): Result<void> {
    const p = malleabilityPolicy(name);
    if (!p)
      return fail([
        { path: 'policy', message: `must be one of ${Object.keys(malleabilityPolicies).join(', ')} (got "${name}")` },
      ]);
    this.malleability.policy = p;
    this.iteration = p.iteration?.(this.iterationHost());
    this.epoch++;
    return ok(undefined);
  }

  // ---- observation ---------------------------------------------------------------------------------------------

  /**
   * Subscribes to the event stream, or only to some types of events: a type nobody listens to is not even built
   * (failed tries are the bulk of the stream on a full grid).
   */
  on(listener: EventListener, types?: readonly SchedulerEventType[]): () => void {
    return this.bus.on(listener, types);
  }

  /** Events decided so far, whether or not anyone listened to them. */
  get eventCount(): number {
    return this.bus.count;
  }

  job(id: string): JobRecord | undefined {
    return this.jobsById.get(id);
  }

  jobs(): IterableIterator<JobRecord> {
    return this.jobsById.values();
  }

  /**
   * Lets an ended job go (its record is kept elsewhere, e.g. a store) and returns it; a job not yet ended stays.
   * Afterwards the scheduler knows the id no more: commands and late messages for it find no job.
   */
  forget(id: string): JobRecord | undefined {
    const job = this.jobsById.get(id);
    if (!job?.ended) return undefined;
    this.jobsById.delete(id);
    return job;
  }

  /** Jobs not yet ended. */
  get unfinishedJobs(): number {
    return this.unfinished;
  }

  snapshot(): ClusterSnapshot[] {
    return this.clusters.map((s) => s.snapshot());
  }

  /** A cluster's interactive worker nodes (utilization, slack) and counts, when it has an interactive partition. */
  interactiveSample(cluster: string): InteractiveClusterSample | undefined {
    return this.interactive.sample(cluster);
  }

  /**
   * The plan per cluster at `now` (core/plan/plan-snapshot.ts): capacity, running jobs with their estimated ends, and
   * the reservations made for waiting jobs (by the queue policy, or by a malleability policy that brings its own
   * iteration and schedules the queue in its place: dbes), each with the running jobs its start waits for.
   */
  planSnapshot(now: number, limit?: number): PlanSnapshot {
    return planSnapshot({
      now,
      queuePolicy: this.queuePolicy.name,
      planner: this.iteration ? this.malleability.policy.name : this.queuePolicy.name,
      clusters: this.clusters.map((s) => ({
        name: s.cluster.name,
        processors: s.cluster.processors,
        availableNow: s.availableFor(),
        preallocationSharing: s.preallocationSharing(),
        offersHeld: this.offersHeldFor(s, now),
      })),
      clusterIndex: (name) => this.grid.cluster(name)?.index,
      placed: this.placedJobs,
      // The queue's jobs, then the profiled ones (kept by the FPE jobs, not queued), reserved by their fits; a placed
      // profiled job holds its steps ahead.
      waiting: [...this.queue.list(), ...this.fpe.waiting()],
      runtimeAt: this.runtimeAt,
      scheduledSteps: (jobId) => this.fpe.plannedSteps(jobId),
      ...(limit === undefined ? {} : { limit }),
    });
  }

  /**
   * The least a cluster has free until its malleable jobs' estimated ends once the waiting jobs reserved there by the
   * queue policy (and the profiled jobs' steps ahead) are in its plan (core/queue/planned-pass.ts): what their extras
   * may take or move onto without delaying those jobs (an extra goes with its job, which growing never makes end
   * later); negative when they do not fit, Infinity when nothing is reserved there or the policy brings its own
   * iteration (dbes: its grants weigh delays themselves). One function, handed as it is to growth, the malleability
   * manager, the evolving jobs' updates and operator resizes.
   */
  private readonly reservedRoom: ReservedRoom = (state, now) => {
    if (this.iteration) return NO_ROOM_LIMIT;
    const i = state.cluster.index;
    const reserved: Reservation[] = [];
    for (const job of this.queue.list()) {
      const p = job.plannedStart;
      if (p === undefined || p.cluster !== i || p.start < now) continue;
      reserved.push({
        id: job.id,
        n: job.need,
        start: p.start,
        duration: job.spec.walltime ?? Number.POSITIVE_INFINITY,
      });
    }
    if (reserved.length === 0) return NO_ROOM_LIMIT;
    let available = state.availableFor() - state.overcommitted;
    const offers = this.offersHeld(state, now);
    if (offers !== undefined) {
      available += offers.n;
      if (offers.end > now) reserved.push({ id: 'grow offers', n: offers.n, start: now, duration: offers.end - now });
    }
    // Decision: extras filling an evolving job's unfilled pre-allocation stay on its processors when it ends (nothing
    // shrinks them then), so from the first such end on they count against the reservations as free ones do.
    let preallocationEnd = Number.POSITIVE_INFINITY;
    for (const job of state.evolvingJobs)
      if (job.preallocation > job.held)
        preallocationEnd = Math.min(preallocationEnd, holdingEnd(job, now, this.runtimeAt));
    const until = this.malleableEnd(state, now);
    return this.plannedPass.reservedRoom(i, now, until, available, reserved, preallocationEnd);
  };

  /**
   * What grow offers set aside on a cluster, as the plans hold it: until the latest estimated end of its malleable
   * jobs, any of which may take it (the job offered, or the next one its operation offers the rest to).
   */
  private offersHeld(state: ClusterState, now: number): OffersHeld | undefined {
    if (state.offered <= 0) return undefined;
    return { n: state.offered, end: this.malleableEnd(state, now) };
  }

  /** offersHeld, with the job they are offered to now (the plan snapshot draws them as its). */
  private offersHeldFor(state: ClusterState, now: number): PlanCluster['offersHeld'] {
    const offers = this.offersHeld(state, now);
    return offers && { ...offers, jobId: this.malleability.offeredTo(state)?.id };
  }

  /** The latest estimated end of a cluster's running malleable jobs (core/plan/holding.ts), now at the earliest. */
  private malleableEnd(state: ClusterState, now: number): number {
    let until = now;
    for (const job of state.malleableJobs) until = Math.max(until, holdingEnd(job, now, this.runtimeAt));
    return until;
  }

  /**
   * Where and when a waiting job is planned to start: its reservation (a queue policy's or dbes's), or a profiled
   * job's fit (its first step's start); undefined otherwise.
   */
  plannedStart(jobId: string): { readonly cluster: number; readonly start: number } | undefined {
    const job = this.jobsById.get(jobId);
    if (!job || job.state !== 'queued') return undefined;
    if (job.plannedStart) return job.plannedStart;
    const fit = job.spec.profile ? this.fpe.plannedSteps(jobId) : undefined;
    return fit && { cluster: fit.cluster, start: fit.start };
  }

  // ---- commands ------------------------------------------------------------------------------------------------

  /**
   * Validates and queues a job; placement happens in the next pass. `stored`: a submission accepted earlier and
   * replayed from a store, read under the rules it was accepted by (storedJobSpecSchema).
   */
  submit(input: unknown, now: number, stored = false): Result<JobRecord> {
    const parsed = parseWith(stored ? storedJobSpecSchema : jobSpecSchema, input);
    return parsed.ok ? this.submitSpec(parsed.value, now) : parsed;
  }

  /** Queues a spec already validated by its schema (a workload loaded once); still checked against the grid. */
  submitSpec(spec: JobSpec, now: number): Result<JobRecord> {
    this.now = now;
    this.epoch++;
    const errors = checkJobAgainstGrid(spec, this.grid);
    const id = spec.id ?? `job-${this.seq + 1}`;
    if (this.jobsById.has(id)) errors.push({ path: 'id', message: `duplicates job "${id}"` });
    if (errors.length) return fail(errors);
    // An interactive job is admitted (or refused) now; its driver is then pinned to the cluster that took it.
    const admitted = spec.kind === 'interactive' ? this.interactive.admit(spec, id, now) : undefined;
    if (admitted && !admitted.ok) return fail(admitted.errors);
    if (admitted) spec = { ...spec, components: [{ ...spec.components[0]!, cluster: admitted.cluster }] };
    const job = new JobRecord(spec, id, this.seq++, now, placementPolicy(spec.placement)!);
    this.jobsById.set(id, job);
    this.unfinished++;
    const name = spec.name ?? id;
    this.emit(now, { type: 'job.submitted', jobId: id, kind: spec.kind, name, min: job.min, max: job.max });
    if (admitted) this.emit(now, admitted.event);
    if (spec.profile) {
      job.transition('queued', now, 'waiting for the start of its scheduled evolution profile');
      this.fpe.arrive(job, now);
      return ok(job);
    }
    this.enqueue(job, 'waiting for placement', now);
    // A new job gets its own try at once (paper IV-A); the rest of the queue waits for processors to free up.
    this.arrivals.push(job);
    return ok(job);
  }

  /** Takes over a job an earlier run launched, after a restart (adoption.ts); the spec must carry the job's id. */
  adopt(input: unknown, adopted: AdoptedJob, now: number): Result<JobRecord> {
    this.now = now;
    const checked = checkAdoption(input, adopted, this.grid, (id) => this.jobsById.has(id));
    if (!checked.ok) return checked;
    const { spec, id, cluster } = checked.value;
    const job = new JobRecord(spec, id, this.seq++, adopted.submitTime, placementPolicy(spec.placement)!);
    this.jobsById.set(id, job);
    if (!adopted.ended) this.unfinished++;
    this.emit(now, resumeAdopted(job, adopted, this.clusters[cluster.index]!, this.ledger, now));
    if (!adopted.ended) this.ledger.place(job);
    if (spec.profile && !adopted.ended) this.fpe.adopt(job, adopted.step, now);
    if (spec.kind === 'interactive' && !adopted.ended)
      this.readmitInteractive(job, cluster.name, now, adopted.startTime !== undefined);
    return ok(job);
  }

  /**
   * An adopted interactive job is admitted again on its cluster (jobs adopted in their submission order take the
   * places they had). Decision: one that no longer fits is ended, failed, with the reason; a running one is sent its
   * tasks at the next instant, once the runner has attached its application.
   */
  private readmitInteractive(job: JobRecord, cluster: string, now: number, running: boolean): void {
    const spec = { ...job.spec, components: [{ ...job.spec.components[0]!, cluster }] };
    const admitted = this.interactive.admit(spec, job.id, now);
    if (!admitted.ok) {
      this.cancel(
        job.id,
        now,
        `adopted after a restart, but its tasks fit no more: ${admitted.errors.map((e) => e.message).join('; ')}`,
        'failed',
      );
      return;
    }
    this.emit(now, admitted.event);
    if (running) {
      this.interactive.running(job.id);
      this.timers.at(now, () => this.interactive.started(job.id));
    }
  }

  cancel(
    jobId: string,
    now: number,
    reason = 'cancelled by user',
    state: 'cancelled' | 'failed' = 'cancelled',
  ): Result<void> {
    this.now = now;
    this.epoch++;
    const job = this.jobsById.get(jobId);
    if (!job) return fail([{ path: 'jobId', message: `names no job ("${jobId}")` }]);
    if (job.ended) return fail([{ path: 'jobId', message: `job ${jobId} has already ${job.state}` }]);
    if (job.launched) {
      for (const cluster of new Set(job.components.map((c) => c.cluster))) this.managerOf(cluster).cancel(job.id);
    }
    this.endJob(job, state, reason, now);
    return ok(undefined);
  }

  /** An operator's resize of a running malleable job by `delta` processors (operator-resize.ts). */
  resize(jobId: string, delta: number, now: number): Result<OperatorResize> {
    this.now = now;
    this.epoch++;
    const job = this.jobsById.get(jobId);
    if (!job) return fail([{ path: 'jobId', message: `names no job ("${jobId}")` }]);
    return resizeByOperator(job, delta, this.clusters, this.malleability, now, this.reservedRoom);
  }

  /** The information service: asks every cluster for its status (background load). */
  poll(now: number): void {
    this.now = now;
    for (const m of this.managers) m.poll();
  }

  /**
   * Counts `n` jobs as already submitted, so that generated ids (`job-<n+1>`...) go on after an earlier run's and
   * never collide with an adopted job's (after a restart).
   */
  skipJobNumbers(n: number): void {
    if (Number.isInteger(n) && n > this.seq) this.seq = n;
  }

  /** Jobs submitted or adopted so far (what `skipJobNumbers` takes after a restart). */
  get jobNumber(): number {
    return this.seq;
  }

  /** Asks for a full scheduling pass at the next `advance`, as a poll does: each queued job gets a counted try. */
  requestPass(): void {
    this.passRequested = true;
    this.epoch++;
    this.pollRound++;
  }

  /** The next time `advance` has work to do (a claim or a staged start), or +Infinity. */
  nextWakeup(): number {
    return this.passRequested || this.arrivals.length > 0 ? this.now : this.timers.next();
  }

  /**
   * Settles the instant `now`: runs what is due — claims, starts, wakes — and the scheduling passes asked for (a full
   * pass when processors came free or on a poll; otherwise a pass over the jobs submitted since the last one), round
   * after round, until nothing is due at `now` (issue 16): what a round makes due at this instant (a claim due at
   * once, a start fitted for now, a wake for now, a pass an operation asks for) runs in it, not at the next event.
   * Decision: at most SETTLE_ROUNDS rounds, so no input can spin an instant; what is still due then (a pass the last
   * round asked for; its timers ran) waits for the host's next call (nextWakeup says now: the live inbox comes back at
   * once, the simulator at its next event).
   */
  advance(now: number): void {
    this.now = now;
    let timersRan = this.timers.runDue(now);
    this.passes.at(now);
    // Due timers all ran (runDue also runs those they set for now): only a pass may be due.
    for (let round = 0; round < SETTLE_ROUNDS && (this.passRequested || this.arrivals.length > 0); round++) {
      // Profiled jobs are fitted before the round's pass whenever it follows new work (the instant's first pass, or
      // timers that ran), as a fresh advance would. A job the fit starts at this very instant (the step that frees
      // its processors changed, after its earlier start failed) has its start timer due now: it runs here.
      if (round === 0 || timersRan) {
        this.fpe.pass(now);
        this.timers.runDue(now);
      }
      const onlyArrivals = !this.passRequested;
      this.passRequested = false;
      // A pass makes progress or stops: one from a state an earlier pass at this instant started from or left would
      // only repeat it (a shrink that frees too little, then a grow that takes the freed processors back; issue 11).
      const before = this.stateKey();
      if (this.arrivals.length === 0 && this.passes.seen(before)) break;
      // Updates inside pre-allocations are guaranteed: they go before anything the approach decides.
      this.evolving.serveAll(now);
      if (this.iteration) {
        this.iteration.pass(now);
        // The jobs it placed leave the queue, which keeps its order.
        this.queue.scan(() => 'kept');
      } else this.approach.pass(this.passContext(now, onlyArrivals ? this.arrivals : undefined));
      // The arrivals had their pass: a fresh list (the pass's context still holds this one), made only if any came.
      if (this.arrivals.length > 0) this.arrivals = [];
      this.passes.record(before, this.stateKey());
      // After the pass's states are kept: growth made due here is a change the next round acts on, not a repeat.
      // (A policy's own iteration grows jobs itself: the approaches' growth trigger is not read under it.)
      if (!onlyArrivals && this.iteration === undefined && this.growth.afterFullPass()) this.passRequested = true;
      // What the pass made due at this instant (a claim due at once, a wake for now) runs before the next round.
      timersRan = this.timers.runDue(now);
    }
  }

  /** What a pass decides from, hashed (state-key.ts): two passes at one instant from equal states decide the same. */
  stateKey(): number {
    return this.passState.key(
      this.epoch,
      this.pollRound,
      this.queue.length,
      this.unfinished,
      this.malleability.running,
    );
  }

  /** An answer from a local manager or an application. */
  receive(message: InboundMessage, now: number): void {
    this.now = now;
    switch (message.type) {
      case 'status': {
        const state = this.clusters[this.grid.cluster(message.cluster)?.index ?? -1];
        if (!state) return;
        // Polling triggers job management (paper V-B): processors local users gave back count as freed, so running
        // jobs may grow; the queue is scanned on every poll whatever changed.
        const { freed, changed } = state.recordPoll(message.status, now);
        if (freed) this.growth.due(state);
        // Decision: idle processors go to growth only after the pass that follows the poll has tried the queue, so a
        // job waiting for them is placed first (what a release frees still goes to the approach's order).
        if (this.growthAtPoll === 'idle' && state.reachable) this.growth.polled(state);
        this.passRequested = true;
        this.pollRound++;
        if (changed)
          this.emit(now, {
            type: 'cluster.polled',
            cluster: message.cluster,
            processors: message.status.processors,
            background: state.background,
            reachable: state.reachable,
          });
        return;
      }
      case 'growAnswer':
        return this.malleability.onGrowAnswer(message.offerId, message.accepted, now);
      case 'shrinkAnswer':
        return this.malleability.onShrinkAnswer(message.offerId, message.accepted, now);
      case 'update': {
        const refused = this.fpe.update(message.jobId, message.processors);
        if (refused !== undefined) {
          this.emit(now, { type: 'evolve.refused', jobId: message.jobId, reason: refused });
          this.applications.updateRefused(message.jobId, refused);
        }
        if (this.fpe.owns(message.jobId)) return;
        return this.evolving.update(message.jobId, message.processors, message.announceS ?? 0, now);
      }
    }
    const job = this.jobsById.get(message.jobId);
    if (!job || job.ended) return;
    switch (message.type) {
      case 'started':
        this.sizes.started(job, message.processors, now);
        // A policy's own iteration (DBES) expands a malleable job once it runs: the start asks for a pass.
        if (this.iteration && job.state === 'running') this.passRequested = true;
        if (job.kind === 'interactive' && job.state === 'running') this.interactive.started(job.id);
        if (job.state === 'running') this.fpe.started(job.id, now);
        return;
      case 'iteration': {
        const overran = this.interactive.iteration(message, now);
        if (overran !== undefined) this.cancel(job.id, now, overran, 'failed');
        return;
      }
      case 'grown':
        this.sizes.grown(job, message.processors, now);
        return this.fpe.grown(job.id, now);
      case 'growFailed':
        this.sizes.growFailed(job, message.processors, message.reason, now);
        return this.fpe.growFailed(job.id, message.reason, now);
      case 'released':
        return this.sizes.released(job, message.processors, message.offerId !== undefined, now);
      case 'finished':
        return this.endJob(job, message.state, message.reason, now, message.output);
    }
  }

  // ---- the pass ------------------------------------------------------------------------------------------------

  /** `arrivals`: the pass only tries these newly submitted jobs, the rest of the queue is not scanned. */
  private passContext(now: number, arrivals?: readonly JobRecord[]): PassContext {
    const context = this.context;
    context.clusters = this.clusters;
    context.growthDue = this.growth.dueClusters();
    this.contextNow = now;
    this.contextArrivals = arrivals;
    return context;
  }

  /** What an approach's pass reads (passContext): one object, its pass's time and arrivals in the two fields below. */
  private readonly context: { clusters: readonly ClusterState[]; growthDue: readonly ClusterState[] } & PassContext = {
    clusters: [],
    growthDue: [],
    growRunning: (state) => this.growth.growRunning(this.clusters[state.cluster.index]!, this.contextNow),
    scanQueue: ({ shrinkToPlace }) => this.scanQueue(shrinkToPlace, this.contextNow, this.contextArrivals),
  };
  private contextNow = 0;
  private contextArrivals: readonly JobRecord[] | undefined;

  /** What a policy's own iteration (DBES) may use of the scheduler: its records read, and acting through its parts. */
  private iterationHost(): IterationHost {
    return {
      grid: this.grid,
      clusters: this.clusters,
      placedJobs: () => this.placedJobs,
      waitingJobs: (now) =>
        prioritized(this.queue.list(), queuePriority(this.priorityOption)!, now, (job) => ({
          seq: job.seq,
          submitTime: job.transitions[0]!.time,
          need: job.need,
          walltime: job.spec.walltime ?? Number.POSITIVE_INFINITY,
        })),
      reservationDepth: () => this.reservationDepthOption,
      fairness: () => this.fairnessOption,
      runtimeAt: this.runtimeAt,
      profiledHolds: (now) => this.fpe.profiledHolds(now),
      busy: (state) => this.malleability.busy(state),
      run: (state, procedure, options, now) => this.malleability.run(state, procedure, options, now),
      place: (job, components, policy, now) => this.place(job, components, policy, now),
      failedTry: (job, reason, now) => this.failedTry(job, reason, now),
      grantEvolving: (job, processors) => {
        this.ledger.account(job, () => (job.pendingGrow += processors));
        this.managers[job.clusterIndex]!.grow(job.id, processors);
      },
      refuseEvolving: (job, reason, now) => {
        this.emit(now, { type: 'evolve.refused', jobId: job.id, reason });
        this.applications.updateRefused(job.id, reason);
      },
    };
  }

  /** Reads `availableFor` again on the clusters where it may have changed: the index, and a planned pass, see it. */
  private drainAvailability(): void {
    const moved = this.availabilityMoved;
    if (moved.count === 0) return;
    const planned = this.plannedMoved;
    for (let k = 0; k < moved.count; k++) {
      const s = moved.items[k]!;
      s.availabilitySeen();
      const i = s.cluster.index;
      this.byAvailable.set(i, s.availableFor());
      if (planned !== undefined && this.plannedMark[i] === 0) {
        this.plannedMark[i] = 1;
        planned.push(i);
      }
    }
    moved.clear();
  }

  /** Starts (or stops) noting the clusters whose availability moved, for a planned pass (its drainMoved). */
  private watchPlannedMoved(on: boolean): void {
    this.plannedMoved = on ? new ReusedList<number>() : undefined;
    this.plannedMark.fill(0);
  }

  /** The first cluster with the most a job without reservations may take now (-1: no cluster). */
  private mostAvailableCluster(): number {
    this.drainAvailability();
    return this.byAvailable.most;
  }

  private scanQueue(shrinkToPlace: boolean, now: number, only?: readonly JobRecord[]): void {
    if (this.queue.length === 0) return;
    if (
      this.plannedPass.run(
        this.queuePolicy,
        this.queue,
        now,
        this.reservationDepthOption,
        queuePriority(this.priorityOption),
      )
    )
      return;
    this.koalaScan.scan(shrinkToPlace, now, only);
  }

  /**
   * The round a failed try counts in: the poll round, a job counting one try per round.
   * Decision: without a tries limit (a trace replay: its batch system kept every job queued until it started) a job
   * waits rather than fails, and its tries are one round: it counts and reports its first failed try only, and later
   * passes keep it without a visit while no cluster has room for it, so that waiting costs nothing when nothing changed.
   */
  private get tryRound(): number {
    return Number.isFinite(this.queue.triesThreshold) ? this.pollRound : 0;
  }

  /** `reason` undefined: already recorded on the job (and worded only if someone reads it). */
  private failedTry(job: JobRecord, reason: string | undefined, now: number): TryOutcome {
    // A job tried again in the same poll round (processors freed meanwhile) counts nothing and says nothing new: it
    // keeps the reason of the try that counted (callers record a reason only for a try that counts).
    if (job.triedInRound === this.tryRound) return 'kept';
    const exhausted = this.queue.countTry(job, reason, this.tryRound);
    if (this.bus.wants('placement.failed'))
      this.emit(now, { type: 'placement.failed', jobId: job.id, tries: job.tries, reason: job.lastFailure });
    else this.bus.skip();
    if (!exhausted) return 'kept';
    this.endJob(job, 'failed', `${TRIES_EXHAUSTED} (${job.tries}); last: ${job.lastFailure}`, now);
    return 'exhausted';
  }

  /** What a placement of `job` may take on a cluster now, or with mandatory shrinks of malleable extras there. */
  private roomFor(job: JobRecord, state: ClusterState, withShrink: boolean): number {
    return roomFor(job, state, withShrink);
  }

  private view(available: (clusterIndex: number) => number): PlacementContext {
    return { grid: this.grid, available };
  }

  // ---- placement, claim, start ----------------------------------------------------------------------------------

  private place(job: JobRecord, components: PlacedComponent[], policy: string, now: number): void {
    // Decision: a policy's own iteration says whether evolving jobs hold their pre-allocation (DBES: they do not).
    // A profiled job holds its current step only (fpe-jobs.ts).
    if (job.evolving) job.preallocating = !this.fpe.owns(job.id) && (this.iteration?.preallocates ?? true);
    this.dropReservations(job);
    job.plannedStart = undefined;
    job.backfilled = this.startsAhead(job);
    job.components = components;
    job.clusterIndex = this.grid.cluster(components[0]!.cluster)!.index;
    this.ledger.place(job);
    if (job.malleable) this.account(job, () => (job.claimed = components[0]!.processors));
    else if (job.evolving) {
      // Its whole pre-allocation is held from now; it uses `initial` of it.
      this.holdPreallocation(job);
      this.account(
        job,
        () => (job.claimed = this.fpe.owns(job.id) ? components[0]!.processors : componentRequest(job.spec, 0).initial),
      );
    } else for (const c of components) this.ledger.holdRigid(this.clusterOf(c.cluster), c.processors);
    let where = `${components[0]!.processors} on ${components[0]!.cluster}`;
    for (let i = 1; i < components.length; i++) where += `, ${components[i]!.processors} on ${components[i]!.cluster}`;
    job.transition('claiming', now, `placed by ${policy}: ${where}`);
    this.emit(now, { type: 'job.placed', jobId: job.id, policy, components });
    this.claimer.claim(job, now);
  }

  /**
   * Whether a job placed now starts while a job submitted before it still waits. Amortized O(1): the pointer over the
   * jobs in submission order only moves forward. Decision: a job sent back to the queue (its claim failed) after the
   * pointer passed it is not seen as waiting by the jobs after it, and is not counted as backfilled itself.
   */
  private startsAhead(job: JobRecord): boolean {
    let w = this.firstWaiting;
    if (w !== undefined && w.seq > job.seq) return false;
    // The job itself is in jobsById and waiting: the walk stops at it at the latest, never running off the end.
    while (w === undefined || (w !== job && w.state !== 'queued' && w.state !== 'submitted')) {
      const next = this.submitOrder.next();
      if (next.done === true) return false;
      w = next.value;
    }
    this.firstWaiting = w;
    return w !== job;
  }

  private claimFailed(job: JobRecord, reason: string, now: number): void {
    this.ledger.unaccount(job);
    this.ledger.remove(job);
    job.components = [];
    job.clusterIndex = -1;
    job.launched = false;
    this.emit(now, { type: 'claim.failed', jobId: job.id, reason });
    if (this.queue.countTry(job, reason))
      return this.endJob(job, 'failed', `${TRIES_EXHAUSTED} (${job.tries}); last: ${reason}`, now);
    this.enqueue(job, reason, now);
    this.passRequested = true;
  }

  /** Puts a job (submitted, or back from a failed claim) at the tail of the placement queue. */
  private enqueue(job: JobRecord, reason: string, now: number): void {
    job.transition('queued', now, reason);
    this.koalaScan.queued(job);
    const position = this.queue.push(job);
    this.emit(now, { type: 'job.queued', jobId: job.id, position });
  }

  /** A job's views (see JobViews); undefined for an unknown job. */
  views(jobId: string, now: number): JobViews | undefined {
    const job = this.jobsById.get(jobId);
    if (!job) return undefined;
    const allocated = job.sizeHistory.length ? job.sizeHistory.map((s) => ({ t: s.t, v: s.v })) : [{ t: now, v: 0 }];
    const end = job.ended ? job.transitions[job.transitions.length - 1]!.time : Number.NaN;
    const since = (t: number) => (Number.isFinite(t) ? t : now);
    const until = (steps: Step[]): Step[] =>
      job.ended && end > steps[steps.length - 1]!.t ? [...steps, { t: end, v: 0 }] : steps;
    if (job.ended && !Number.isFinite(job.startTime))
      return { nonPreemptive: [{ t: end, v: 0 }], preemptive: [{ t: end, v: 0 }], allocated };
    // Waiting: with a reservation, the plan's promise (core/plan/plan-snapshot.ts reservedViews); without, what it
    // could be placed with now, on the cluster with the most room for it.
    if (job.state === 'queued' || job.state === 'submitted') {
      const reserved = reservedViews(job, now);
      if (reserved) return { ...reserved, allocated };
      let most = 0;
      for (const state of this.clusters) most = Math.max(most, this.roomFor(job, state, false));
      return {
        nonPreemptive: [{ t: now, v: job.evolving ? Math.min(most, job.max) : most }],
        preemptive: [{ t: now, v: 0 }],
        allocated,
      };
    }
    const start = since(job.startTime);
    const guaranteed = job.evolving
      ? job.preallocation
      : job.malleable
        ? job.min
        : job.components.reduce((sum, c) => sum + c.processors, 0);
    const nonPreemptive = until([{ t: start, v: guaranteed }]);
    if (!job.malleable || job.ended || job.clusterIndex < 0)
      return { nonPreemptive, preemptive: until([{ t: start, v: 0 }]), allocated };
    const state = this.clusters[job.clusterIndex]!;
    const hold = job.held - job.releasing;
    const could = Math.min(job.cap, hold + state.availableForGrowth());
    const preemptive: Step[] = [{ t: now, v: could }];
    // Decision: processors promised to an announced update are not offered for growth from its announcement on;
    // what a job already holds of them is its own until the deadline, and its view steps down there.
    if (job.releasingByDeadline > 0 && job.releaseBy > now) {
      preemptive[0] = { t: now, v: could + job.releasingByDeadline };
      preemptive.push({ t: job.releaseBy, v: could });
    }
    return { nonPreemptive, preemptive, allocated };
  }

  // ---- the end -------------------------------------------------------------------------------------------------

  private endJob(
    job: JobRecord,
    state: 'completed' | 'failed' | 'cancelled',
    reason: string,
    now: number,
    output?: JobOutput,
  ): void {
    if (job.ended) return;
    if (job.state === 'queued' || job.state === 'submitted') this.queue.remove(job);
    // Only a job that held or had set aside processors frees any: only then is another pass worth it.
    const freed = job.components.length > 0 || job.waitingOn.length > 0;
    this.dropReservations(job);
    job.plannedStart = undefined;
    if (job.components.length) this.ledger.unaccount(job);
    this.ledger.remove(job);
    if (job.sizeHistory.length) job.recordSize(now);
    job.transition(state, now, reason);
    this.unfinished--;
    // Without an output, no `output` key (and no object spread into the event to say so).
    this.emit(
      now,
      output
        ? { type: 'job.ended', jobId: job.id, state, reason, tries: job.tries, output }
        : { type: 'job.ended', jobId: job.id, state, reason, tries: job.tries },
    );
    if (job.kind === 'interactive') this.interactive.ended(job.id, now);
    this.fpe.ended(job.id);
    this.malleability.onJobChanged(job, now);
    if (freed) this.passRequested = true;
  }

  // ---- accounting (core/scheduler/ledger.ts) ---------------------------------------------------------------------

  private account(job: JobRecord, change: () => void): void {
    this.ledger.account(job, change);
  }

  private holdPreallocation(job: JobRecord): void {
    this.ledger.holdPreallocation(job);
  }

  private dropReservations(job: JobRecord): void {
    this.ledger.dropReservations(job);
  }

  private clusterOf(name: string): ClusterState {
    return this.clusters[this.grid.cluster(name)!.index]!;
  }

  private managerOf(name: string): LocalManager {
    return this.managers[this.grid.cluster(name)!.index]!;
  }

  private emit(now: number, body: SchedulerEventBody): void {
    this.bus.emit(now, body);
  }
}

function required<T>(value: T | undefined, field: string, name: string): T {
  if (value === undefined) throw new RangeError(`${field}: unknown "${name}"`);
  return value;
}
