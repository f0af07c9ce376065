// The multicluster scheduler: placement queue, placement policies, claimer, information service and malleability
// manager over one capacity model. It is driven from outside — `submit`, `receive` (port answers), `poll`,
// `advance(now)` — and acts only through its ports, so the simulator and live mode run the very same code.
import type { EventListener, PlacedComponent, SchedulerEvent, SchedulerEventBody, SchedulerEventType } from '../events.js';
import type { Grid } from '../model/grid.js';
import { checkJobAgainstGrid, componentRequest } from '../model/job.js';
import { fail, ok, parseWith, type Result } from '../model/result.js';
import { jobSpecSchema, storedJobSpecSchema, type JobSpec } from '../model/schemas.js';
import type { JobManagementApproach, PassContext } from '../malleability/approach.js';
import { approach as approachByName } from '../malleability/approaches/index.js';
import { MalleabilityManager } from '../malleability/manager.js';
import type { MalleabilityPolicy } from '../malleability/policy.js';
import { malleabilityPolicies, malleabilityPolicy } from '../malleability/registry.js';
import { placementPolicy } from '../placement/registry.js';
import type { PlacementContext } from '../placement/policy.js';
import type { ApplicationPort, InboundMessage, JobOutput, LocalManager } from '../ports.js';
import { PlacementQueue, TRIES_EXHAUSTED, type TryOutcome } from '../queue/placement-queue.js';
import { PlannedPass } from '../queue/planned-pass.js';
import type { QueuePolicy, QueuePolicyName } from '../queue/policy.js';
import { queuePolicies, queuePolicy } from '../queue/registry.js';
import { QUEUE_PRIORITIES, queuePriority, type QueuePriorityName } from '../queue/priority.js';
import { Claimer } from './claimer.js';
import { ClusterState, type CapacityBreakdown, type ThresholdScope } from './cluster-state.js';
import { JobRecord } from './job-record.js';
import { Timers } from './timers.js';
import type { Step } from '../time/step-function.js';

export interface SchedulerOptions {
  /** Job-management approach: `pra` or `pwa`. */
  approach: string;
  /** Malleability policy: `fpsma`, `egs` or `equipartition`. */
  policy: string;
  /** Failed placement tries after which a job fails. */
  triesThreshold: number;
  /** Without reservations, processors are claimed this many seconds before the estimated start. */
  claimMarginS: number;
  /** Marks Concertina's jobs at the local managers. */
  tag: string;
  /** What each cluster's threshold caps: all Concertina holds (`all`), or only growth (`growth`). */
  thresholdScope: ThresholdScope;
  /**
   * When a poll makes growth due: `idle`, whenever processors are free for growth and a running malleable job could
   * take some (an idle cluster grows its jobs without waiting for a release); `freed`, only when local users gave
   * processors back (the KOALA paper's trigger, section V-B).
   */
  growthAtPoll: GrowthAtPoll;
  /** Which waiting jobs may start now: `koala` (every job tried head to tail), `fcfs`, `easy` or `cbf` (core/queue/). */
  queue: QueuePolicyName;
  /** How many waiting jobs get reservations (Maui's ReservationDepth); undefined: the queue policy's own. */
  reservationDepth: number | undefined;
  /** The order a planning queue policy takes waiting jobs in. */
  priority: QueuePriorityName;
}

export type GrowthAtPoll = 'idle' | 'freed';
export const GROWTH_AT_POLL = ['idle', 'freed'] as const satisfies readonly GrowthAtPoll[];

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

export interface ClusterSnapshot extends CapacityBreakdown {
  readonly name: string;
  readonly reachable: boolean;
  readonly lastPoll: number;
  readonly runningMalleable: number;
}

/**
 * A job an earlier run of Concertina launched, found again on its cluster after a restart (live mode): it runs
 * there with `processors` since `startTime`, or waits for its local jobs to start (`startTime` undefined), or has
 * ended meanwhile (`ended`).
 */
export interface AdoptedJob {
  readonly cluster: string;
  readonly processors: number;
  /** When it was submitted, in the scheduler's time. */
  readonly submitTime: number;
  readonly startTime?: number;
  readonly ended?: { readonly state: 'completed' | 'failed' | 'cancelled'; readonly reason: string };
  /** A malleable job's cap, when an operator's shrink set it below its max (it sticks across a restart). */
  readonly cap?: number;
}

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

/** What an operator's resize set going: processors offered to the job, or asked back from it. */
export interface OperatorResize {
  readonly jobId: string;
  readonly cluster: string;
  readonly processors: number;
  readonly direction: 'grow' | 'shrink';
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
  private readonly listeners: Array<{ listener: EventListener; types: ReadonlySet<string> | undefined }> = [];
  private readonly wanted = new Map<SchedulerEventType, boolean>();
  private events = 0;
  private approach: JobManagementApproach;
  private readonly tag: string;
  private readonly growthAtPoll: GrowthAtPoll;
  private queuePolicy: QueuePolicy;
  private reservationDepthOption: number | undefined;
  private priorityOption: QueuePriorityName;
  /** Jobs placed and not yet ended: what the queue policies' plans hold. */
  private readonly placedJobs = new Set<JobRecord>();
  /**
   * Jobs in submission order (jobsById keeps it), walked once: `firstWaiting` is the earliest submitted job not yet
   * placed, as far as placements so far have moved it on (what says whether a job starting now is backfilled).
   */
  private readonly submitOrder: IterableIterator<JobRecord> = this.jobsById.values();
  private firstWaiting: JobRecord | undefined;
  /** Passes of the planning queue policies (fcfs, easy, cbf). */
  private readonly plannedPass: PlannedPass;
  private seq = 0;
  private live = 0;
  private passRequested = false;
  /** Jobs submitted since the last pass: each gets a try of its own. */
  private arrivals: JobRecord[] = [];
  private growthDueClusters: ClusterState[] = [];
  /** Clusters polled since the last pass, whose idle processors may go to growth once that pass has run. */
  private idlePolled: ClusterState[] = [];
  private now = Number.NEGATIVE_INFINITY;
  /** Poll rounds so far: a status from a local manager opens a new one; a job counts one failed try per round. */
  private pollRound = 0;
  /** The poll round of the last full scan of the queue; whether an evolving job was ever submitted. */
  private scannedInRound = -1;
  /** The fewest processors any queued job could be placed with on one cluster (a lower bound). */
  private queueSmallest = Number.POSITIVE_INFINITY;
  private sawEvolving = false;
  /**
   * While the queue is scanned: the most any cluster has available for a job without reservations now, and the first
   * cluster with it; known since the last visit that may have changed any cluster (a placement, a shrink, a job
   * ended), and for the commands so far (`roomEpoch`).
   */
  private roomMost = 0;
  private roomAt = 0;
  private roomKnown = false;
  private roomEpoch = -1;
  /** Commands and polls so far: a pass after one is never skipped as a repeat. */
  private epoch = 0;
  /** The instant of the passes in `passStates`, and the states they started from and left. */
  private passInstant = Number.NaN;
  private readonly passStates: number[] = [];

  constructor(
    grid: Grid,
    managers: readonly LocalManager[],
    private readonly applications: ApplicationPort,
    options: Partial<SchedulerOptions> = {},
  ) {
    const o = { ...DEFAULT_SCHEDULER_OPTIONS, ...options };
    this.grid = grid;
    this.clusters = grid.clusters.map((c) => new ClusterState(c, o.thresholdScope));
    this.managers = grid.clusters.map((c) => {
      const m = managers.find((x) => x.cluster === c.name);
      if (!m) throw new Error(`no local manager for cluster ${c.name}`);
      return m;
    });
    this.queue = new PlacementQueue(o.triesThreshold);
    this.tag = o.tag;
    this.growthAtPoll = o.growthAtPoll;
    this.queuePolicy = required(queuePolicy(o.queue), 'queue', o.queue);
    this.reservationDepthOption = o.reservationDepth;
    this.priorityOption = o.priority;
    this.plannedPass = new PlannedPass({
      grid,
      availableFor: (i) => this.clusters[i]!.availableFor(),
      placedJobs: () => this.placedJobs,
      roomFor: (job, i) => this.roomFor(job, this.clusters[i]!, false),
      place: (job, components, policy, now) => this.place(job, components, policy, now),
      failedTry: (job, reason, now) => this.failedTry(job, reason, now),
      wake: (t) => this.timers.at(t, () => (this.passRequested = true)),
      eventCount: () => this.events,
    });
    this.approach = required(approachByName(o.approach), 'approach', o.approach);
    this.malleability = new MalleabilityManager(
      {
        applications,
        emit: (now, e) => this.emit(now, e),
        grantGrow: (job, n) => this.grantGrow(job, n),
        // What an operation leaves unclaimed was already offered: only processors freed meanwhile re-trigger growth.
        operationDone: () => (this.passRequested = true),
      },
      required(malleabilityPolicy(o.policy), 'policy', o.policy),
    );
    this.claimer = new Claimer(
      {
        grid,
        clusters: this.clusters,
        timers: this.timers,
        claimed: (job, now) => this.emit(now, { type: 'job.claimed', jobId: job.id, components: job.components }),
        launch: (job) => this.launch(job),
        claimFailed: (job, reason, now) => this.claimFailed(job, reason, now),
      },
      o.claimMarginS,
    );
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
    if (!q) return fail([{ path: 'queue', message: `must be one of ${Object.keys(queuePolicies).join(', ')} (got "${name}")` }]);
    this.queuePolicy = q;
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
    if (!p) return fail([{ path: 'policy', message: `must be one of ${Object.keys(malleabilityPolicies).join(', ')} (got "${name}")` }]);
    this.malleability.policy = p;
    this.epoch++;
    return ok(undefined);
  }

  // ---- observation ---------------------------------------------------------------------------------------------

  /**
   * Subscribes to the event stream, or only to some types of events: a type nobody listens to is not even built
   * (failed tries are the bulk of the stream on a full grid).
   */
  on(listener: EventListener, types?: readonly SchedulerEventType[]): () => void {
    const entry = { listener, types: types ? new Set<string>(types) : undefined };
    this.listeners.push(entry);
    this.wanted.clear();
    return () => {
      const i = this.listeners.indexOf(entry);
      if (i >= 0) this.listeners.splice(i, 1);
      this.wanted.clear();
    };
  }

  /** Events decided so far, whether or not anyone listened to them. */
  get eventCount(): number {
    return this.events;
  }

  /** Whether any listener takes events of this type. */
  private wants(type: SchedulerEventType): boolean {
    let wanted = this.wanted.get(type);
    if (wanted === undefined) this.wanted.set(type, (wanted = this.listeners.some((l) => !l.types || l.types.has(type))));
    return wanted;
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
  get liveJobs(): number {
    return this.live;
  }

  snapshot(): ClusterSnapshot[] {
    return this.clusters.map((s) => ({
      name: s.cluster.name,
      reachable: s.reachable,
      lastPoll: s.lastPoll,
      runningMalleable: s.malleableJobs.length,
      ...s.breakdown(),
    }));
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
    const job = new JobRecord(spec, id, this.seq++, now, placementPolicy(spec.placement)!);
    this.jobsById.set(id, job);
    this.live++;
    if (job.evolving) this.sawEvolving = true;
    const name = spec.name ?? id;
    this.emit(now, { type: 'job.submitted', jobId: id, kind: spec.kind, name, min: job.min, max: job.max });
    job.transition('queued', now, 'waiting for placement');
    this.queueSmallest = Math.min(this.queueSmallest, smallestNeed(job));
    const position = this.queue.push(job);
    this.emit(now, { type: 'job.queued', jobId: id, position });
    // A new job gets its own try at once (paper IV-A); the rest of the queue waits for processors to free up.
    this.arrivals.push(job);
    return ok(job);
  }

  /**
   * Takes over a job an earlier run launched (after a console restart): nothing is submitted again; it is counted in
   * the capacity model as it stands on its cluster (a malleable job's processors above its minimum as preemptible),
   * and its local manager, which has recovered it by its tag, answers for it from now on. A job that ended
   * meanwhile is only recorded, with its end state. The spec must carry the job's id.
   * Decision: the earlier run already emitted its submitted, placed and started events (a host stores them), so
   * adoption emits exactly one event: `job.adopted` (cluster, size, state), or `job.ended` for a job that ended.
   */
  adopt(input: unknown, adopted: AdoptedJob, now: number): Result<JobRecord> {
    this.now = now;
    // A job of an earlier session: read as it was stored.
    const parsed = parseWith(storedJobSpecSchema, input);
    if (!parsed.ok) return parsed;
    const spec = parsed.value;
    const errors = checkJobAgainstGrid(spec, this.grid);
    const id = spec.id;
    if (id === undefined) errors.push({ path: 'id', message: 'is required to adopt a job' });
    else if (this.jobsById.has(id)) errors.push({ path: 'id', message: `duplicates job "${id}"` });
    // Decision: only single-cluster jobs are adopted; a co-allocated rigid job split over clusters is not resumed.
    if (spec.components.length !== 1) errors.push({ path: 'components', message: `only a single-component job can be adopted (got ${spec.components.length})` });
    const cluster = this.grid.cluster(adopted.cluster);
    if (!cluster) errors.push({ path: 'cluster', message: `names no cluster ("${adopted.cluster}")` });
    if (!adopted.ended && spec.components.length === 1) {
      const request = componentRequest(spec, 0);
      const n = adopted.processors;
      if (!Number.isInteger(n) || n < request.min || n > request.max) {
        errors.push({ path: 'processors', message: `must be a whole number within ${request.min}..${request.max} (got ${n})` });
      }
    }
    if (adopted.cap !== undefined && !Number.isInteger(adopted.cap)) errors.push({ path: 'cap', message: `must be a whole number (got ${adopted.cap})` });
    if (errors.length || id === undefined || !cluster) return fail(errors);
    const job = new JobRecord(spec, id, this.seq++, adopted.submitTime, placementPolicy(spec.placement)!);
    this.jobsById.set(id, job);
    // Decision: a stored cap outside min..max (the spec changed meaning) is brought inside it, never refused.
    if (job.malleable && adopted.cap !== undefined) job.cap = Math.max(job.min, Math.min(job.max, adopted.cap));
    if (adopted.ended) {
      job.transition(adopted.ended.state, now, adopted.ended.reason);
      this.emit(now, { type: 'job.ended', jobId: id, state: adopted.ended.state, reason: adopted.ended.reason, tries: 0 });
      return ok(job);
    }
    this.live++;
    this.placedJobs.add(job);
    const components = [{ cluster: cluster.name, processors: adopted.processors }];
    job.components = components;
    job.clusterIndex = cluster.index;
    job.launched = true;
    const state = this.clusters[cluster.index]!;
    if (adopted.startTime === undefined) {
      // Launched, its local jobs not all running yet: held as a placed job until the manager answers `started`.
      if (job.evolving) this.holdPreallocation(job);
      if (job.malleable || job.evolving) this.account(job, () => (job.claimed = adopted.processors));
      else state.nonPreemptible += adopted.processors;
      job.transition('claiming', now, `adopted after a restart: launched on ${cluster.name}, waiting for its local jobs to start`);
      this.emit(now, { type: 'job.adopted', jobId: id, cluster: cluster.name, size: adopted.processors, state: 'claiming' });
      return ok(job);
    }
    if (job.malleable) {
      this.account(job, () => (job.size = adopted.processors));
      state.malleableJobs.push(job);
    } else if (job.evolving) {
      this.holdPreallocation(job);
      this.account(job, () => (job.size = adopted.processors));
    } else {
      state.nonPreemptible += adopted.processors;
      job.size = adopted.processors;
    }
    job.recordSize(adopted.startTime);
    job.startedComponents = 1;
    job.startTime = adopted.startTime;
    job.transition('running', now, `adopted after a restart: running on ${cluster.name} with ${adopted.processors} processors`);
    this.emit(now, { type: 'job.adopted', jobId: id, cluster: cluster.name, size: job.size, state: 'running' });
    return ok(job);
  }

  cancel(jobId: string, now: number, reason = 'cancelled by user'): Result<void> {
    this.now = now;
    this.epoch++;
    const job = this.jobsById.get(jobId);
    if (!job) return fail([{ path: 'jobId', message: `names no job ("${jobId}")` }]);
    if (job.ended) return fail([{ path: 'jobId', message: `job ${jobId} has already ${job.state}` }]);
    if (job.launched) {
      for (const cluster of new Set(job.components.map((c) => c.cluster))) this.managerOf(cluster).cancel(job.id);
    }
    this.endJob(job, 'cancelled', reason, now);
    return ok(undefined);
  }

  /**
   * An operator's resize of a running malleable job, run by the malleability manager like a policy's operation (and
   * like one, alone on its cluster). `delta` > 0 offers the job up to that many more processors, voluntarily and only
   * from what the capacity model has free for growth there (threshold, background load and waiting jobs' shares
   * respected): the offer is cut to what is free. `delta` < 0 makes it give back that many, mandatorily.
   */
  resize(jobId: string, delta: number, now: number): Result<OperatorResize> {
    this.now = now;
    this.epoch++;
    const job = this.jobsById.get(jobId);
    if (!job) return fail([{ path: 'jobId', message: `names no job ("${jobId}")` }]);
    if (!job.malleable) return fail([{ path: 'jobId', message: `job ${jobId} is not malleable (it is ${job.kind})` }]);
    if (job.state !== 'running') return fail([{ path: 'jobId', message: `job ${jobId} is not running (it is ${job.state})` }]);
    if (!Number.isInteger(delta) || delta === 0) return fail([{ path: 'delta', message: 'must be a whole number other than 0' }]);
    const state = this.clusters[job.clusterIndex]!;
    const cluster = state.cluster.name;
    if (this.malleability.busy(state)) {
      return fail([{ path: 'jobId', message: `cluster ${cluster} is busy with another grow or shrink operation; try again when it ends` }]);
    }
    if (delta > 0) {
      const room = job.max - job.held;
      if (delta > room) return fail([{ path: 'delta', message: `would take job ${jobId} beyond its maximum (${job.held} of max ${job.max}: grow by ${room} at most)` }]);
      const free = state.availableForGrowth();
      if (free === 0) return fail([{ path: 'delta', message: `no processors are free for growth on ${cluster}` }]);
      const processors = Math.min(delta, free);
      job.cap = job.max;
      this.malleability.operatorGrow(state, job, processors, now);
      return ok({ jobId, cluster, processors, direction: 'grow' });
    }
    const processors = -delta;
    if (processors > job.shrinkable) {
      return fail([{ path: 'delta', message: `would take job ${jobId} below its minimum (${job.size - job.releasing} of min ${job.min}: shrink by ${job.shrinkable} at most)` }]);
    }
    job.cap = job.held - job.releasing - processors;
    this.malleability.operatorShrink(state, job, processors, now);
    return ok({ jobId, cluster, processors, direction: 'shrink' });
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
   * Runs what is due at `now`: claims and starts, then a scheduling pass if one was asked for (a full pass when
   * processors came free or on a poll; otherwise a pass over the jobs submitted since the last one).
   */
  advance(now: number): void {
    this.now = now;
    this.timers.runDue(now);
    if (now !== this.passInstant) {
      this.passInstant = now;
      if (this.passStates.length > 0) this.passStates.length = 0;
    }
    // Operations that end at once may ask for another pass; a few rounds settle any instant.
    for (let round = 0; round < 4 && (this.passRequested || this.arrivals.length > 0); round++) {
      const onlyArrivals = !this.passRequested;
      this.passRequested = false;
      // A pass makes progress or stops: one from a state an earlier pass at this instant started from or left would
      // only repeat it (a shrink that frees too little, then a grow that takes the freed processors back; issue 11).
      const before = this.stateKey();
      if (this.arrivals.length === 0 && this.passStates.includes(before)) break;
      // Updates inside pre-allocations are guaranteed: they go before anything the approach decides.
      for (const state of this.evolvingClusters()) this.serveUpdates(state, now);
      this.approach.pass(this.passContext(now, onlyArrivals ? this.arrivals : undefined));
      this.arrivals = [];
      this.passStates.push(before, this.stateKey());
      // After the pass's states are kept: growth made due here is a change the next round acts on, not a repeat.
      if (this.idlePolled.length > 0 && !onlyArrivals) {
        for (const state of this.idlePolled.splice(0)) this.idleGrowthDue(state);
        if (this.growthDueClusters.length > 0) this.passRequested = true;
      }
    }
  }

  /**
   * What a pass decides from, hashed: each cluster's capacity classes (background, non-preemptible, preemptible,
   * pre-allocated, offered, reserved), growth flag, malleable jobs and last growth, the operations running, the queue, and the
   * commands and polls so far. Two passes at one instant from equal states decide the same.
   * Decision: processors that only move between the malleable jobs of a cluster do not count as progress.
   */
  stateKey(): number {
    let h1 = mix(mix(mix(mix(mix(0x2545f491, this.epoch), this.pollRound), this.queue.length), this.live), this.malleability.running);
    let h2 = h1;
    for (const s of this.clusters) {
      // Kept cheap (it runs twice a pass): one multiply per value, a second chain over the first.
      h1 = Math.imul(h1 ^ s.background, 0x9e3779b1);
      h1 = Math.imul(h1 ^ s.nonPreemptible, 0x85ebca6b);
      h1 = Math.imul(h1 ^ s.preemptible, 0xc2b2ae35);
      h1 = Math.imul(h1 ^ s.preallocatedUnused, 0x27d4eb2f);
      h1 = Math.imul(h1 ^ s.offered, 0x165667b1);
      h1 = Math.imul(h1 ^ s.reserved, 0x9e3779b1);
      h1 = Math.imul(h1 ^ ((s.growDue ? 1 : 0) + s.malleableJobs.length * 2), 0x85ebca6b);
      // What growth was last offered from (a growth that offered nothing still learnt not to ask again).
      h1 = Math.imul(h1 ^ (s.lastGrowFree + s.lastGrowRoom * 0x10001), 0xc2b2ae35);
      h2 = Math.imul(h2 ^ (h1 >>> 15), 0xcc9e2d51);
    }
    // Two 32-bit hashes in one exact number (53 bits): a false repeat would need both to collide.
    return (mix(h1, h2) >>> 0) * 0x200000 + (h2 & 0x1fffff);
  }


  /** An answer from a local manager or an application. */
  receive(message: InboundMessage, now: number): void {
    this.now = now;
    switch (message.type) {
      case 'status': {
        const state = this.clusters[this.grid.cluster(message.cluster)?.index ?? -1];
        if (!state) return;
        const background = Math.max(0, Math.min(message.status.background, state.cluster.processors));
        // Polling triggers job management (paper V-B): processors local users gave back count as freed, so running
        // jobs may grow; the queue is scanned on every poll whatever changed.
        if (background < state.background || (message.status.reachable && !state.reachable)) this.growthDue(state);
        // Decision: a poll is an event only when it changes what Concertina knows (load or reachability); the time
        // of the last poll is in the snapshot.
        const changed = background !== state.background || message.status.reachable !== state.reachable || state.lastPoll === Number.NEGATIVE_INFINITY;
        state.background = background;
        state.reachable = message.status.reachable;
        state.lastPoll = now;
        // Decision: idle processors go to growth only after the pass that follows the poll has tried the queue, so a
        // job waiting for them is placed first (what a release frees still goes to the approach's order).
        if (this.growthAtPoll === 'idle' && state.reachable && !this.idlePolled.includes(state)) this.idlePolled.push(state);
        this.passRequested = true;
        this.pollRound++;
        if (changed) this.emit(now, { type: 'cluster.polled', cluster: message.cluster, processors: message.status.processors, background, reachable: state.reachable });
        return;
      }
      case 'growAnswer':
        return this.malleability.onGrowAnswer(message.offerId, message.accepted, now);
      case 'shrinkAnswer':
        return this.malleability.onShrinkAnswer(message.offerId, message.accepted, now);
      case 'update':
        return this.update(message.jobId, message.processors, message.announceS ?? 0, now);
    }
    const job = this.jobsById.get(message.jobId);
    if (!job || job.ended) return;
    switch (message.type) {
      case 'started':
        return this.started(job, message.processors, now);
      case 'grown':
        return this.grown(job, message.processors, now);
      case 'released':
        return this.released(job, message.processors, message.offerId !== undefined, now);
      case 'finished':
        return this.endJob(job, message.state, message.reason, now, message.output);
    }
  }

  // ---- the pass ------------------------------------------------------------------------------------------------

  /** `arrivals`: the pass only tries these newly submitted jobs, the rest of the queue is not scanned. */
  private passContext(now: number, arrivals?: readonly JobRecord[]): PassContext {
    const due = this.dueClusters();
    return {
      clusters: this.clusters,
      growthDue: due,
      growRunning: (state) => this.growRunning(state, now),
      scanQueue: ({ shrinkToPlace }) => this.scanQueue(shrinkToPlace, now, arrivals),
    };
  }

  /** Processors came free on a cluster: its running malleable jobs may grow at the next pass. */
  private growthDue(state: ClusterState): void {
    if (state.growDue) return;
    state.growDue = true;
    this.growthDueClusters.push(state);
  }

  /**
   * A poll found the cluster: growth is due when processors are free for growth and its running malleable jobs could
   * take some, as at a release. Decision: not again for the very processors its jobs were last offered and declined
   * (the same free count and the same room), so that a job that takes only some sizes (FT) is not asked at every poll.
   */
  private idleGrowthDue(state: ClusterState): void {
    if (state.growDue || state.malleableJobs.length === 0) return;
    const free = state.availableForGrowth();
    if (free <= 0) return;
    const room = state.growRoom;
    if (room > 0 && (free !== state.lastGrowFree || room !== state.lastGrowRoom)) this.growthDue(state);
  }

  /** Clusters where growth is due, in grid order; each pass reads this rather than every cluster. */
  private dueClusters(): ClusterState[] {
    // A cluster stays listed while its flag is up (busy, or skipped by the approach); duplicates are dropped here.
    const due = this.growthDueClusters.filter((c, i, all) => c.growDue && all.indexOf(c) === i);
    due.sort((a, b) => a.cluster.index - b.cluster.index);
    this.growthDueClusters = due.slice();
    return due;
  }

  private growRunning(state: ClusterState, now: number): boolean {
    if (!state.growDue || this.malleability.busy(state)) return false;
    state.growDue = false;
    const free = state.availableForGrowth();
    if (free <= 0 || !state.malleableJobs.some((j) => j.growable > 0)) return false;
    state.lastGrowFree = free;
    state.lastGrowRoom = state.growRoom;
    this.malleability.grow(state, free, now);
    return true;
  }

  private scanQueue(shrinkToPlace: boolean, now: number, only?: readonly JobRecord[]): void {
    if (this.queue.length === 0) return;
    if (this.plannedPass.run(this.queuePolicy, this.queue, now, this.reservationDepthOption, queuePriority(this.priorityOption))) return;
    // Upper bounds of what any job may get, to refuse most jobs in O(1) when the grid is full.
    let mostFree = 0;
    let mostWithShrink = 0;
    for (const s of this.clusters) {
      const free = s.availableFor();
      mostFree = Math.max(mostFree, free);
      if (shrinkToPlace && !this.malleability.busy(s)) mostWithShrink = Math.max(mostWithShrink, free + s.shrinkableForPlacement);
    }
    // Decision: between polls, when no cluster has room for the smallest queued job, nothing can be placed and no try
    // counts: the queue is not visited (a long queue is scanned once a poll then, not at every operation). Not with
    // a job owed reserved processors, nor once an evolving job (whose pre-allocation may overlap malleable extras)
    // has been seen.
    const smallest = this.queueSmallest;
    if (!only && this.scannedInRound === this.pollRound && mostFree < smallest && mostWithShrink < smallest && !this.sawEvolving && this.clusters.every((c) => c.reserved === 0)) return;
    if (!only) {
      this.scannedInRound = this.pollRound;
      this.queueSmallest = Number.POSITIVE_INFINITY;
    }
    this.roomKnown = false;
    const visit = (job: JobRecord): TryOutcome => {
      const outcome = this.visit(job, shrinkToPlace, mostFree, mostWithShrink, now);
      if (outcome === 'kept') this.queueSmallest = Math.min(this.queueSmallest, smallestNeed(job));
      else this.roomKnown = false;
      return outcome;
    };
    if (only) return this.queue.scanOnly(only, visit);
    // A job tried already in this round that fits nowhere now would only be kept again (no try counts, nothing is
    // said, its reason stays): the scan passes over it without a visit while its minimum is above what is free.
    const round = this.pollRound;
    const limit = (): number => {
      if (this.pollRound !== round) return Number.POSITIVE_INFINITY;
      if (!this.roomKnown || this.roomEpoch !== this.epoch) this.measureRoom();
      const most = Math.min(mostFree, this.roomMost);
      return shrinkToPlace ? Math.max(most, mostWithShrink) : most;
    };
    const passedOver = this.queue.scan(visit, { round, limit });
    this.queueSmallest = Math.min(this.queueSmallest, passedOver);
  }

  private visit(job: JobRecord, shrinkToPlace: boolean, mostFree: number, mostWithShrink: number, now: number): TryOutcome {
    job.passOver = -1;
    // An evolving job's pre-allocation may overlap malleable extras: it is not bounded by what is free.
    if (job.waitingOn.length === 0 && job.singleCluster && !job.evolving && !(shrinkToPlace && job.min <= mostWithShrink)) {
      const unpinned = job.spec.components[0]!.cluster === undefined;
      // The common case on a full grid, kept short: a single-cluster job larger than what any cluster had free when
      // the scan began.
      if (job.min > mostFree) {
        if (job.triedInRound !== this.pollRound) job.tooLarge(job.min, mostFree);
        if (unpinned) job.passOver = job.min;
        return this.failedTry(job, undefined, now);
      }
      // Placements earlier in this scan may have taken that room: a job that fits on no cluster now fails as its
      // placement policy would (each one places a single unpinned component on a cluster with room for its
      // minimum, and says the same), without asking it to look at every cluster.
      if (unpinned) {
        if (!this.roomKnown || this.roomEpoch !== this.epoch) this.measureRoom();
        if (job.min > this.roomMost) {
          if (job.triedInRound !== this.pollRound) job.fitsNowhere(job.min, this.roomMost, this.clusters[this.roomAt]!.cluster.name);
          job.passOver = job.min;
          return this.failedTry(job, undefined, now);
        }
      }
    }
    const outcome = this.tryPlace(job, shrinkToPlace, mostFree, mostWithShrink, now);
    this.roomKnown = false;
    return outcome;
  }

  /** The most a job without reservations may have on one cluster now, and the first cluster with it. */
  private measureRoom(): void {
    let most = Number.NEGATIVE_INFINITY;
    let at = 0;
    for (let i = 0; i < this.clusters.length; i++) {
      const free = this.clusters[i]!.availableFor();
      if (free > most) {
        most = free;
        at = i;
      }
    }
    this.roomMost = most;
    this.roomAt = at;
    this.roomKnown = true;
    this.roomEpoch = this.epoch;
  }

  /** `reason` undefined: already recorded on the job (and worded only if someone reads it). */
  private failedTry(job: JobRecord, reason: string | undefined, now: number): TryOutcome {
    // A job tried again in the same poll round (processors freed meanwhile) counts nothing and says nothing new: it
    // keeps the reason of the try that counted (callers record a reason only for a try that counts).
    if (job.triedInRound === this.pollRound) return 'kept';
    const exhausted = this.queue.countTry(job, reason, this.pollRound);
    if (this.wants('placement.failed')) this.emit(now, { type: 'placement.failed', jobId: job.id, tries: job.tries, reason: job.lastFailure });
    else this.events++;
    if (!exhausted) return 'kept';
    this.endJob(job, 'failed', `${TRIES_EXHAUSTED} (${job.tries}); last: ${job.lastFailure}`, now);
    return 'exhausted';
  }

  private tryPlace(
    job: JobRecord,
    shrinkToPlace: boolean,
    mostFree: number,
    mostWithShrink: number,
    now: number,
  ): TryOutcome {
    const policy = job.placementPolicy;
    const need = job.need;
    const waiting = job.waitingOn.length > 0;
    if (waiting && job.waitingOn.some((i) => this.malleability.busy(this.clusters[i]!))) return 'kept';

    let reason: string | undefined;
    if (!waiting && need > mostFree && job.singleCluster && !job.evolving) {
      if (job.triedInRound !== this.pollRound) job.tooLarge(need, mostFree);
      reason = undefined;
    } else {
      const placement = policy.place(job.spec, this.view((i) => this.roomFor(job, this.clusters[i]!, false)));
      if (placement.ok) {
        this.place(job, placement.components, policy.name, now);
        return 'placed';
      }
      reason = placement.reason;
    }
    if (waiting) this.dropReservations(job);

    if (shrinkToPlace && (need <= mostWithShrink || !job.singleCluster || job.evolving)) {
      const busy = (i: number) => this.malleability.busy(this.clusters[i]!);
      const withShrink = policy.place(
        job.spec,
        this.view((i) => this.roomFor(job, this.clusters[i]!, !busy(i))),
      );
      if (withShrink.ok) {
        reason = this.shrinkToPlace(job, withShrink.components, now);
      }
    }
    return this.failedTry(job, reason, now);
  }

  /** PWA: reclaims processors from running malleable jobs for a job that fits only that way, and sets them aside. */
  private shrinkToPlace(job: JobRecord, components: readonly PlacedComponent[], now: number): string {
    const perCluster = new Map<number, number>();
    for (const c of components) {
      const i = this.grid.cluster(c.cluster)!.index;
      perCluster.set(i, (perCluster.get(i) ?? 0) + c.processors);
    }
    const asked: string[] = [];
    for (const [i, processors] of perCluster) {
      const state = this.clusters[i]!;
      const missing = processors - this.roomFor(job, state, false);
      state.reserve(job.id, processors);
      job.waitingOn.push(i);
      if (missing > 0) {
        this.malleability.shrink(state, missing, true, now);
        asked.push(`${missing} on ${state.cluster.name}`);
      }
    }
    return asked.length ? `waiting for mandatory shrinks to release ${asked.join(', ')}` : 'processors set aside; placing at the next pass';
  }

  /** What a placement of `job` may take on a cluster now, or with mandatory shrinks of malleable extras there. */
  private roomFor(job: JobRecord, state: ClusterState, withShrink: boolean): number {
    if (!job.evolving) {
      const free = state.availableFor(job.id) + (withShrink ? state.shrinkableForPlacement : 0);
      // Decision: a malleable job whose minimum fits may start above it into what growth could take (unused
      // pre-allocated processors included): what it has above its minimum is preemptible, as grown processors are.
      if (job.malleable && free >= job.min && !withShrink) return Math.max(free, state.availableForGrowth());
      return free;
    }
    const initial = componentRequest(job.spec, 0).initial;
    return state.availableForPreallocation(job.id, initial, job.max, withShrink ? state.shrinkable : 0);
  }

  private view(available: (clusterIndex: number) => number): PlacementContext {
    return { grid: this.grid, available };
  }

  // ---- placement, claim, start ----------------------------------------------------------------------------------

  private place(job: JobRecord, components: PlacedComponent[], policy: string, now: number): void {
    this.dropReservations(job);
    job.plannedStart = undefined;
    job.backfilled = this.startsAhead(job);
    this.placedJobs.add(job);
    job.components = components;
    job.clusterIndex = this.grid.cluster(components[0]!.cluster)!.index;
    if (job.malleable) this.account(job, () => (job.claimed = components[0]!.processors));
    else if (job.evolving) {
      // Its whole pre-allocation is held from now; it uses `initial` of it.
      this.holdPreallocation(job);
      this.account(job, () => (job.claimed = componentRequest(job.spec, 0).initial));
    } else for (const c of components) this.clusterOf(c.cluster).nonPreemptible += c.processors;
    const where = components.map((c) => `${c.processors} on ${c.cluster}`).join(', ');
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

  private launch(job: JobRecord): void {
    job.launched = true;
    job.components.forEach((c, component) => {
      const spec = job.spec.components[Math.min(component, job.spec.components.length - 1)]!;
      // An evolving job's local job starts with its initial size; the rest of its pre-allocation is added by updates.
      const processors = job.evolving ? job.claimed : c.processors;
      const walltime = job.spec.walltime === undefined ? {} : { walltimeS: job.spec.walltime };
      this.managerOf(c.cluster).submit({ jobId: job.id, component, processors, program: spec.program, args: spec.args, tag: this.tagFor(job), ...walltime });
    });
  }

  private tagFor(job: JobRecord): string {
    return `${this.tag}:${job.id}`;
  }

  private claimFailed(job: JobRecord, reason: string, now: number): void {
    this.unaccount(job);
    this.placedJobs.delete(job);
    job.components = [];
    job.clusterIndex = -1;
    job.launched = false;
    this.emit(now, { type: 'claim.failed', jobId: job.id, reason });
    if (this.queue.countTry(job, reason)) return this.endJob(job, 'failed', `${TRIES_EXHAUSTED} (${job.tries}); last: ${reason}`, now);
    job.transition('queued', now, reason);
    this.queueSmallest = Math.min(this.queueSmallest, smallestNeed(job));
    const position = this.queue.push(job);
    this.emit(now, { type: 'job.queued', jobId: job.id, position });
    this.passRequested = true;
  }

  private started(job: JobRecord, processors: number, now: number): void {
    job.startedComponents++;
    if (job.malleable || job.evolving) {
      this.account(job, () => {
        job.claimed -= processors;
        job.size += processors;
      });
    } else job.size += processors;
    if (job.startedComponents < job.components.length) return;
    job.startTime = now;
    const first = job.components[0]!;
    job.transition('running', now, `started on ${job.components.map((c) => c.cluster).join(', ')}`);
    if (job.malleable) this.clusters[job.clusterIndex]!.malleableJobs.push(job);
    job.recordSize(now);
    if (job.evolving) this.emit(now, { type: 'job.started', jobId: job.id, cluster: first.cluster, size: job.size, preallocation: job.preallocation });
    else this.emit(now, { type: 'job.started', jobId: job.id, cluster: first.cluster, size: job.size });
  }

  // ---- malleability ----------------------------------------------------------------------------------------------

  private grantGrow(job: JobRecord, processors: number): void {
    this.account(job, () => (job.pendingGrow += processors));
    this.managerOf(job.components[0]!.cluster).grow(job.id, processors);
  }

  private grown(job: JobRecord, processors: number, now: number): void {
    const n = Math.min(processors, job.pendingGrow);
    if (n <= 0) return;
    this.account(job, () => {
      job.pendingGrow -= n;
      job.size += n;
    });
    const cluster = job.components[0]!.cluster;
    job.recordSize(now);
    if (job.evolving) {
      // Decision: an evolving job asked for a size: it hears of it once every processor of its update is active
      // (a grow may start one processor at a time), not of each step on the way.
      if (job.pendingGrow > 0) return;
      this.emit(now, { type: 'job.evolved', jobId: job.id, cluster, size: job.size, preallocation: job.preallocation });
    } else this.emit(now, { type: 'job.grown', jobId: job.id, cluster, processors: n, size: job.size });
    this.applications.resized(job.id, job.size);
  }

  private released(job: JobRecord, processors: number, requested: boolean, now: number): void {
    // Decision: an evolving job letting processors go on its own is a spontaneous update to the smaller size.
    if (job.evolving) return this.update(job.id, Math.max(job.min, job.held - processors), 0, now);
    // Decision: a malleable job never drops below its minimum; a release past it is not taken from the count.
    const n = Math.max(0, Math.min(processors, job.size - job.min));
    if (n === 0) return;
    this.account(job, () => {
      job.size -= n;
      job.releasing = Math.max(0, job.releasing - n);
    });
    // Releases pay what is owed at once first, then what is owed by a deadline.
    job.releasingByDeadline = Math.min(job.releasingByDeadline, job.releasing);
    const state = this.clusters[job.clusterIndex]!;
    this.managers[job.clusterIndex]!.shrink(job.id, n);
    if (job.releasingByDeadline === 0) job.releaseBy = Number.NaN;
    job.recordSize(now);
    this.emit(now, { type: 'job.shrunk', jobId: job.id, cluster: state.cluster.name, processors: n, size: job.size, voluntary: !requested });
    this.growthDue(state);
    this.passRequested = true;
    this.malleability.onJobChanged(job, now);
  }

  // ---- evolving jobs --------------------------------------------------------------------------------------------

  /**
   * An evolving job asks for a new total size (ApplicationMessage `update`). Inside its pre-allocation a grow is
   * guaranteed: its processors are promised at once (nobody else is given them from now), malleable extras holding
   * them are shrunk mandatorily — at once for a spontaneous update, by its time for an announced one — and the local
   * manager is asked for them when the update takes effect. A shrink frees processors for malleable growth.
   */
  private update(jobId: string, processors: number, announceS: number, now: number): void {
    const job = this.jobsById.get(jobId);
    const refuse = (reason: string) => {
      this.emit(now, { type: 'evolve.refused', jobId, reason });
      this.applications.updateRefused(jobId, reason);
    };
    if (!job) return refuse(`names no job ("${jobId}")`);
    if (!job.evolving) return refuse(`job ${jobId} is not evolving (it is ${job.kind}): only an evolving job asks for updates`);
    if (job.state !== 'running') return refuse(`job ${jobId} is not running (it is ${job.state})`);
    if (!Number.isInteger(processors) || processors < job.min || processors > job.max) {
      return refuse(`asks for ${processors} processors, outside its ${job.min}..${job.max}: an update must stay inside its pre-allocation of ${job.max}`);
    }
    if (!Number.isFinite(announceS) || announceS < 0) return refuse(`announceS must be a number of seconds, 0 or more (got ${announceS})`);
    if (processors < job.held && job.pendingGrow > 0 && processors < job.size + job.promised) {
      return refuse(`${job.pendingGrow} processors of an earlier update are still being activated; ask again once resized`);
    }
    const cluster = job.components[0]!.cluster;
    this.emit(now, { type: 'evolve.requested', jobId, cluster, processors, announceS });
    this.settleAnnounced(job, now);
    if (announceS > 0 && processors < job.held) {
      // Decision: an announced shrink keeps its processors until its time, then takes effect like a spontaneous one.
      const shrink = { processors, at: now + announceS };
      job.announcedShrink = shrink;
      this.timers.at(shrink.at, (t) => {
        if (job.announcedShrink !== shrink || job.state !== 'running') return;
        job.announcedShrink = undefined;
        this.applyUpdate(job, processors, 0, t);
      });
      return;
    }
    this.applyUpdate(job, processors, announceS, now);
  }

  /**
   * Before a new update: an announced shrink due now takes effect first; announced updates not yet due are dropped.
   * Decision: the newest update is the job's word on its future, so it supersedes what it announced before.
   */
  private settleAnnounced(job: JobRecord, now: number): void {
    const shrink = job.announcedShrink;
    job.announcedShrink = undefined;
    if (shrink && shrink.at <= now) this.applyUpdate(job, shrink.processors, 0, now);
    let dropped = 0;
    for (let i = job.evolveDemands.length - 1; i >= 0; i--) {
      const d = job.evolveDemands[i]!;
      if (d.at <= now) continue;
      dropped += d.processors;
      job.evolveDemands.splice(i, 1);
    }
    if (dropped === 0) return;
    this.account(job, () => (job.promised -= dropped));
    this.growthDue(this.clusters[job.clusterIndex]!);
    this.passRequested = true;
  }

  private applyUpdate(job: JobRecord, processors: number, announceS: number, now: number): void {
    const jobId = job.id;
    const cluster = job.components[0]!.cluster;
    const state = this.clusters[job.clusterIndex]!;
    if (processors > job.held) {
      const more = processors - job.held;
      this.account(job, () => (job.promised += more));
      const at = now + announceS;
      let i = job.evolveDemands.length;
      while (i > 0 && job.evolveDemands[i - 1]!.at > at) i--;
      job.evolveDemands.splice(i, 0, { processors: more, at, shrunkFor: false });
      if (announceS > 0) this.timers.at(at, (t) => this.serveUpdates(state, t));
      this.serveUpdates(state, now);
      return;
    }
    let fewer = job.held - processors;
    // Promises not yet handed to the local manager go first, the latest first.
    while (fewer > 0 && job.evolveDemands.length > 0) {
      const last = job.evolveDemands[job.evolveDemands.length - 1]!;
      const k = Math.min(fewer, last.processors);
      last.processors -= k;
      if (last.processors === 0) job.evolveDemands.pop();
      this.account(job, () => (job.promised -= k));
      fewer -= k;
    }
    // Decision: never below its minimum in use, even while an earlier grow is still being activated.
    fewer = Math.min(fewer, job.size - job.min);
    if (fewer > 0) {
      this.account(job, () => (job.size -= fewer));
      this.managers[job.clusterIndex]!.shrink(job.id, fewer);
    }
    job.recordSize(now);
    this.emit(now, { type: 'job.evolved', jobId, cluster, size: job.size, preallocation: job.preallocation });
    this.applications.resized(jobId, job.size);
    // Processors of its pre-allocation came free: malleable jobs may fill them.
    this.growthDue(state);
    this.passRequested = true;
  }

  /** Clusters where an evolving job waits for promised processors. */
  private evolvingClusters(): ClusterState[] {
    return this.clusters.filter((s) => s.evolvingJobs.some((j) => j.promised > 0));
  }

  /**
   * Serves the evolving jobs' promised processors on a cluster: first mandatory shrinks of malleable extras where
   * the promises leave Concertina over what the cluster has (once per update; the deadline is the earliest announced
   * update's time, none for a spontaneous one), then each update whose time has come is handed to the local manager.
   */
  private serveUpdates(state: ClusterState, now: number): void {
    if (this.malleability.busyForUpdates(state)) return;
    let unshrunk = 0;
    let due = false;
    let deadline = Number.POSITIVE_INFINITY;
    for (const job of state.evolvingJobs) {
      for (const d of job.evolveDemands) {
        if (d.shrunkFor) continue;
        unshrunk += d.processors;
        deadline = Math.min(deadline, d.at);
        if (d.at <= now) due = true;
      }
    }
    const shortage = Math.min(state.overcommitted, unshrunk);
    if (shortage > 0 && state.shrinkable > 0) {
      for (const job of state.evolvingJobs) for (const d of job.evolveDemands) d.shrunkFor = true;
      this.malleability.shrinkForUpdates(state, shortage, now, due ? undefined : deadline);
      // A shrink with a deadline ends at once; updates already due are served when releases end the other kind.
      if (due) return;
    }
    for (const job of state.evolvingJobs) {
      let grant = 0;
      while (job.evolveDemands.length > 0 && job.evolveDemands[0]!.at <= now) grant += job.evolveDemands.shift()!.processors;
      if (grant === 0) continue;
      // Decision: what shrinks could not free (local users took it meanwhile) is asked anyway; the local manager
      // starts it when it can.
      this.account(job, () => {
        job.promised -= grant;
        job.pendingGrow += grant;
      });
      this.managers[job.clusterIndex]!.grow(job.id, grant);
    }
  }

  /** A job's views (see JobViews); undefined for an unknown job. */
  views(jobId: string, now: number): JobViews | undefined {
    const job = this.jobsById.get(jobId);
    if (!job) return undefined;
    const allocated = job.sizeHistory.length ? job.sizeHistory.map((s) => ({ t: s.t, v: s.v })) : [{ t: now, v: 0 }];
    const end = job.ended ? job.transitions[job.transitions.length - 1]!.time : Number.NaN;
    const since = (t: number) => (Number.isFinite(t) ? t : now);
    const until = (steps: Step[]): Step[] => (job.ended && end > steps[steps.length - 1]!.t ? [...steps, { t: end, v: 0 }] : steps);
    if (job.ended && !Number.isFinite(job.startTime)) return { nonPreemptive: [{ t: end, v: 0 }], preemptive: [{ t: end, v: 0 }], allocated };
    // Waiting: what it could be placed with now, on the cluster with the most room for it.
    if (job.state === 'queued' || job.state === 'submitted') {
      let most = 0;
      for (const state of this.clusters) most = Math.max(most, this.roomFor(job, state, false));
      return { nonPreemptive: [{ t: now, v: job.evolving ? Math.min(most, job.max) : most }], preemptive: [{ t: now, v: 0 }], allocated };
    }
    const start = since(job.startTime);
    const guaranteed = job.evolving ? job.preallocation : job.malleable ? job.min : job.components.reduce((sum, c) => sum + c.processors, 0);
    const nonPreemptive = until([{ t: start, v: guaranteed }]);
    if (!job.malleable || job.ended || job.clusterIndex < 0) return { nonPreemptive, preemptive: until([{ t: start, v: 0 }]), allocated };
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

  private endJob(job: JobRecord, state: 'completed' | 'failed' | 'cancelled', reason: string, now: number, output?: JobOutput): void {
    if (job.ended) return;
    if (job.state === 'queued' || job.state === 'submitted') this.queue.remove(job);
    // Only a job that held or had set aside processors frees any: only then is another pass worth it.
    const freed = job.components.length > 0 || job.waitingOn.length > 0;
    this.dropReservations(job);
    job.plannedStart = undefined;
    if (job.components.length) this.unaccount(job);
    this.placedJobs.delete(job);
    if (job.sizeHistory.length) job.recordSize(now);
    job.transition(state, now, reason);
    this.live--;
    this.emit(now, { type: 'job.ended', jobId: job.id, state, reason, tries: job.tries, ...(output ? { output } : {}) });
    this.malleability.onJobChanged(job, now);
    if (freed) this.passRequested = true;
  }

  // ---- accounting ----------------------------------------------------------------------------------------------

  /** Applies a change to a malleable job's processors and moves the difference between the capacity classes. */
  private account(job: JobRecord, change: () => void): void {
    const state = this.clusters[job.clusterIndex]!;
    const before = job.held;
    change();
    const after = job.held;
    if (job.evolving) {
      // What an evolving job holds moves between its pre-allocation's unused part and non-preemptible use.
      state.nonPreemptible += after - before;
      state.preallocatedUnused -= after - before;
      return;
    }
    state.nonPreemptible += Math.min(after, job.min) - Math.min(before, job.min);
    state.preemptible += Math.max(0, after - job.min) - Math.max(0, before - job.min);
  }

  /** Holds an evolving job's whole pre-allocation on its cluster, all of it unused so far. */
  private holdPreallocation(job: JobRecord): void {
    const state = this.clusters[job.clusterIndex]!;
    state.preallocatedUnused += job.preallocation;
    state.evolvingJobs.push(job);
  }

  /** Gives back everything a placed job holds. */
  private unaccount(job: JobRecord): void {
    if (job.evolving) {
      this.account(job, () => {
        job.claimed = 0;
        job.size = 0;
        job.pendingGrow = 0;
        job.promised = 0;
      });
      job.evolveDemands.length = 0;
      const state = this.clusters[job.clusterIndex]!;
      state.preallocatedUnused -= job.preallocation;
      const i = state.evolvingJobs.indexOf(job);
      if (i >= 0) state.evolvingJobs.splice(i, 1);
    } else if (job.malleable) {
      this.account(job, () => {
        job.claimed = 0;
        job.size = 0;
        job.pendingGrow = 0;
        job.releasing = 0;
      });
      job.releasingByDeadline = 0;
      const list = this.clusters[job.clusterIndex]!.malleableJobs;
      const i = list.indexOf(job);
      if (i >= 0) list.splice(i, 1);
    } else {
      for (const c of job.components) this.clusterOf(c.cluster).nonPreemptible -= c.processors;
    }
    for (const c of job.components) this.growthDue(this.clusterOf(c.cluster));
  }

  private dropReservations(job: JobRecord): void {
    for (const i of job.waitingOn) this.clusters[i]!.release(job.id);
    job.waitingOn = [];
  }

  private clusterOf(name: string): ClusterState {
    return this.clusters[this.grid.cluster(name)!.index]!;
  }

  private managerOf(name: string): LocalManager {
    return this.managers[this.grid.cluster(name)!.index]!;
  }

  private emit(now: number, body: SchedulerEventBody): void {
    this.events++;
    if (!this.wants(body.type)) return;
    // Bodies are fresh literals: stamping the time in place spares a copy per event on the hot path.
    const event = body as { t?: number } & SchedulerEventBody;
    event.t = now;
    for (const l of this.listeners) if (!l.types || l.types.has(body.type)) l.listener(event as SchedulerEvent);
  }
}

/** A lower bound of what a queued job needs free on one cluster: its minimum, or 1 for a job split over clusters. */
function smallestNeed(job: JobRecord): number {
  return job.singleCluster && !job.evolving ? job.need : 1;
}

/** One step of a 32-bit multiplicative hash (murmur3's mixing) over a whole number. */
function mix(h: number, value: number): number {
  let k = Math.imul(value | 0, 0xcc9e2d51);
  k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function required<T>(value: T | undefined, field: string, name: string): T {
  if (value === undefined) throw new RangeError(`${field}: unknown "${name}"`);
  return value;
}
