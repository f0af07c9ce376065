// The host: owns a scheduler over a grid (by default the simulated DAS-3, living in virtual time that follows the
// wall clock at the chosen speed), serves the typed API and streams the scheduler's events. It keeps the run (its
// world, its store, what is recorded of it); each domain's methods are a service in ./services/, and the
// dispatcher's table is built from theirs.
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, type GridSpec, type JobSpec } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { SimWorld } from '../../core/sim/world.js';
import { DEFAULT_JOB_STREAM, JobStream, NO_JOB_STREAM } from '../../core/sim/workloads/stream.js';
import {
  gridHistoryStateSchema,
  type ApiResult,
  type AsyncMethodName,
  type MethodName,
  type RunStatus,
  type Speed,
  type StreamMessage,
} from '../api/contract.js';
import { createDispatcher, type Dispatch } from '../api/dispatcher.js';
import { LabRunner } from '../lab/runner.js';
import { GridHistory } from './grid-history.js';
import { ActivityHistory } from './activity-history.js';
import { RecentJobEvents } from './recent-job-events.js';
import { EndedSummaries, FinishedJobs, placementsOf } from './finished-jobs.js';
import type { RunConfig, Store, StoredCommand } from '../store/store.js';
import { Replay } from './replay.js';
import { RunRecorder } from './run-recorder.js';
import { backupName } from './backup-name.js';
import type { ClusterSnapshot, Scheduler } from '../../core/scheduler/scheduler.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { ClusterService, type ClusterServiceOptions } from '../live/cluster-service.js';
import { createLiveWorldFromConfig, liveClusterSnapshots, type LiveWorldFactory } from '../live/live-run.js';
import { HostModeMachine } from './mode.js';
import { refused, type HostRun, type Refusal, type ServiceHandlers } from './services/run.js';
import { TemplatesService } from './services/templates.js';
import { labHandlers } from './services/lab.js';
import { SettingsService, SCHEDULER_SETTINGS, schedulerQueueOptions } from './services/settings.js';
import { JobsService } from './services/jobs.js';
import { SimulationService } from './services/simulation.js';
import { LiveRunService } from './services/live-run.js';
import { clusterHandlers } from './services/clusters.js';
import { GridService, type RunRecords } from './services/grid.js';

/** One tick (or one slice of a replay) computes for at most this long, so the API and signals are served between. */
const SLICE_MS = 50;
/** A stored run whose replay takes longer than this is not resumed (the user chooses a fresh run or read-only). */
const REPLAY_LIMIT_S = 120;
/** Methods that change the run or the store: refused while a run is resumed, cannot be, or is read-only. */
const RUN_COMMANDS = new Set<MethodName>(['jobs.submit', 'jobs.cancel', 'jobs.resize', 'settings.set', 'sim.setSpeed']);
const STORE_WRITES = new Set<MethodName>([
  'templates.save',
  'templates.delete',
  'clusters.save',
  'clusters.update',
  'clusters.remove',
  'clusters.setSecret',
  'run.startLive',
  'lab.start',
  'sim.reset',
]);
/** The grid history: samples shown (as many as a console chart keeps), first spacing, how often it is stored. */
const GRID_HISTORY_LIMIT = 300;
const GRID_HISTORY_STEP_S = 10;
const GRID_HISTORY_SAVE_MS = 5000;
/** Without a store, the host remembers this many recent job events for jobs.events (memory stays bounded). */
const RECENT_EVENTS = 20_000;
/** Wall milliseconds a fresh run's warm-up may compute before its clock starts. */
const WARM_UP_WALL_MS = 3000;
/** A resumed live run's stored events are read back (activity history, ended jobs) in pages of this many. */
const STORED_READ_PAGE = 10_000;

export interface HostOptions {
  readonly grid?: GridSpec;
  /** A workload preset (wm, wmr, wm-fast, wmr-fast) or `none`. */
  readonly workload?: string;
  readonly seed?: number;
  /** Where the run is kept; a store that holds a run resumes it. */
  readonly store?: Store;
  readonly speed?: Speed;
  /** Wall clock in milliseconds (injected by tests). */
  readonly clock?: () => number;
  /** Live clusters: the OS keychain (window only), known_hosts, ssh config (see ClusterService). */
  readonly clusters?: Omit<ClusterServiceOptions, 'store'>;
  /** Builds the world of a live run (default createLiveWorld; a fake in tests). */
  readonly liveWorld?: LiveWorldFactory;
  /** Wall milliseconds one tick or replay slice may compute (default 50). */
  readonly sliceMs?: number;
  /** Wall seconds a stored run's replay may take before it is given up (default 120). */
  readonly replayLimitS?: number;
  /** Virtual seconds a fresh simulated run computes before its clock starts, at the host's first start only, not after
   *  sim.reset (default 0; serve and the window: DEFAULT_WARM_UP_S, ./warm-up.ts). */
  readonly warmUpS?: number;
}

/** What a host opens at start, in words: `stored` the store's run, else `run` is a new one. */
function describeStart(stored: RunConfig | undefined, run: RunConfig, clusters: readonly string[]): string {
  if (stored?.mode === 'live')
    return `resuming a live run on ${clusters.length} cluster${clusters.length === 1 ? '' : 's'}${clusters.length ? ` (${clusters.join(', ')})` : ''}`;
  const grid = gridSpecSchema.safeParse(run.grid);
  const name = grid.success ? (grid.data.name === 'das3' ? 'DAS-3' : grid.data.name) : 'a stored grid';
  const simulated = `a simulated run on ${name}, workload ${run.workload}, seed ${run.seed}`;
  return stored ? `resuming ${simulated}` : `a new ${simulated.slice(2)}`;
}

export class Host {
  readonly dispatch: Dispatch;
  /** Experiments and whole simulations, each in a worker thread (the `lab.*` methods). */
  readonly lab: LabRunner;
  /** Which world serves the run: the simulated one, a live one, or a stored live run resuming (./mode.ts). */
  private readonly mode = new HostModeMachine();
  private current!: SimWorld;
  /** Counts the runs this host has opened (a reset opens another): part of the jobs list's version. */
  private runNumber = 0;
  /** Event listeners, each with how to detach it from the current world (a reset moves them to the new one). */
  private readonly subscribers = new Set<{ listener: (event: SchedulerEvent) => void; off: () => void }>();
  private readonly clock: () => number;
  private readonly store: Store | undefined;
  /** The run's events with the store: numbered, compared when replayed, written with everything else in one commit. */
  private readonly recorder: RunRecorder | undefined;
  /** Where the run stands (resumed, not resumable, read-only); `running` otherwise. */
  private state: RunStatus = { state: 'running' };
  /** A stored run's replay while the host resumes it. */
  private replay: Replay | undefined;
  /** Resolves once a stored run is resumed, or found not resumable (at once without one). */
  readonly ready: Promise<void>;
  private readonly sliceMs: number;
  private readonly replayLimitS: number;
  private readonly warmUpS: number;
  /** Virtual seconds the current run computed before its clock started (0: none, or a resumed run). */
  private warmedUpS = 0;
  /** Utilization over the whole run, downsampled, for consoles that open late (grid.history). */
  private history = new GridHistory<ClusterSnapshot>();
  private historySavedAt = Number.NEGATIVE_INFINITY;
  private historyDirty = false;
  private recentEvents = new RecentJobEvents(RECENT_EVENTS);
  /** Ended jobs of a simulated run that have left the scheduler once stored (their summaries, capped; their ids). */
  private finished = new FinishedJobs();
  /** Ended jobs not yet released: released at the next flush that stores their end. */
  private endedPending: string[] = [];
  /** Grow, shrink and evolve operations over the whole run, bucketed, for consoles that open late (activity.history). */
  private activity = new ActivityHistory();
  /** Live clusters' configurations, secrets and connection tests (the `clusters.*` methods). */
  readonly clusters: ClusterService;
  /** What the host opened at start, in words (the start-up banner): a new simulated run, or which stored run it resumes. */
  readonly startedWith: string;
  private readonly templates: TemplatesService;
  private readonly settings: SettingsService;
  private readonly jobs: JobsService;
  private readonly simulation: SimulationService;
  private readonly liveRun: LiveRunService;

  constructor(options: HostOptions = {}) {
    this.store = options.store;
    this.recorder = this.store ? new RunRecorder(this.store) : undefined;
    this.sliceMs = options.sliceMs ?? SLICE_MS;
    this.replayLimitS = options.replayLimitS ?? REPLAY_LIMIT_S;
    this.warmUpS = options.warmUpS ?? 0;
    this.clock = options.clock ?? (() => performance.now());
    this.clusters = new ClusterService({ ...options.clusters, ...(this.store ? { store: this.store } : {}) });
    const context = this.runContext();
    const whileResuming = () => this.liveRun.whileResuming();
    this.templates = new TemplatesService(this.store);
    this.settings = new SettingsService(context, whileResuming);
    this.jobs = new JobsService(context, whileResuming);
    this.liveRun = new LiveRunService(
      context,
      this.clusters,
      this.settings,
      options.liveWorld ?? createLiveWorldFromConfig,
    );
    this.simulation = new SimulationService(
      context,
      this.liveRun,
      this.settings,
      this.clock,
      this.sliceMs,
      options.speed ?? '1x',
    );
    const resumed = this.store?.run();
    const resumedLive = resumed?.mode === 'live';
    const run: RunConfig =
      resumed && !resumedLive
        ? resumed
        : {
            grid: options.grid ?? gridSpecSchema.parse(gridPreset('das3')),
            workload: resumedLive ? 'none' : (options.workload ?? 'wm'),
            seed: options.seed ?? 1,
            streamFrom: 'start',
          };
    this.startedWith = describeStart(
      resumed,
      run,
      this.clusters.configs().map((c) => c.name),
    );
    const problems = resumed ? this.store!.check() : [];
    if (problems.length) {
      // Nothing is replayed or written: the user chooses a fresh run (the store kept as a backup) or read-only.
      this.openWorld(run, { idle: true });
      this.state = { state: 'unresumable', reason: `the store failed its check: ${problems.join('; ')}` };
      this.ready = Promise.resolve();
    } else if (resumedLive && this.store!.readOnly) {
      this.openWorld(run, { idle: true });
      this.state = { state: 'read-only', reason: 'a live run opened read-only: its clusters are not contacted' };
      this.ready = Promise.resolve();
    } else {
      // A resumed live run keeps an idle simulated world underneath, never stored.
      // Only the first start of a fresh run is warmed up (a new run from Settings starts at 0).
      this.openWorld(run, { resumed: resumed !== undefined && !resumedLive, idle: resumedLive, warmUp: true });
      if (resumedLive) this.liveRun.resume();
      this.ready = this.replay
        ? new Promise((resolve) => this.replaySlices(performance.now(), resolve))
        : Promise.resolve();
    }
    this.simulation.restart();
    this.lab = new LabRunner({ store: this.store?.readOnly ? undefined : this.store });
    const grid = new GridService(context, context, this.simulation);
    const dispatch = createDispatcher({
      ...grid.handlers(),
      ...this.jobs.handlers(),
      ...this.simulation.handlers(),
      ...this.runHandlers(),
      ...this.settings.handlers(),
      ...this.templates.handlers(),
      ...labHandlers(this.lab),
      ...clusterHandlers(this.clusters, this.mode),
      ...this.liveRun.handlers(),
    });
    this.dispatch = ((method: string, payload: unknown) =>
      this.refusal(method) ?? dispatch(method, payload)) as Dispatch;
  }

  /** The run as the services see it: the host's own state, kept out of its public surface. */
  private runContext(): HostRun & RunRecords {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below read the host, not the object
    const host = this;
    return {
      get store() {
        return host.store;
      },
      mode: host.mode,
      get world() {
        return host.world;
      },
      get scheduler() {
        return host.scheduler;
      },
      get status() {
        return host.status;
      },
      get finished() {
        return host.finished;
      },
      get recentEvents() {
        return host.recentEvents;
      },
      get runNumber() {
        return host.runNumber;
      },
      get history() {
        return host.history;
      },
      get activity() {
        return host.activity;
      },
      get warmedUpS() {
        return host.warmedUpS;
      },
      now: () => host.now(),
      act: (command) => host.act(command),
      catchUp: () => host.catchUp(),
      flush: (command, final) => host.flush(command, final),
      record: (key, value) => host.record(key, value),
      refusal: (method) => host.refusal(method),
      open: (config, how) => host.openWorld(config, how),
      keepUnresumedRun: () => host.keepUnresumedRun(),
      follow: (scheduler, o) => host.follow(scheduler, o),
      adopt: (events) => host.adopt(events),
      clusterSamples: () => host.clusterSamples(),
    };
  }

  /** The stored run's own method: a run being resumed, or one that cannot be, is opened read-only. */
  private runHandlers(): ServiceHandlers<'run.openReadOnly'> {
    return {
      'run.openReadOnly': () => {
        if (this.state.state === 'running')
          return refused(
            '',
            'the run is running: only a stored run being resumed, or one that cannot be, is opened read-only',
          );
        if (this.state.state !== 'read-only')
          this.state = {
            state: 'read-only',
            reason:
              this.state.state === 'unresumable' ? this.state.reason : 'opened read-only while it was being resumed',
          };
        this.replay = undefined;
        return { ok: true, value: this.status };
      },
    };
  }

  /** Why `method` cannot be served now (the run is being resumed, cannot be, or is read-only), if it cannot. */
  private refusal(method: string): Refusal | undefined {
    const name = method as MethodName;
    if (this.store?.readOnly && STORE_WRITES.has(name))
      return refused('', `the store ${this.store.file} is open read-only: start without --read-only to change it`);
    if (!RUN_COMMANDS.has(name)) return undefined;
    const status = this.state;
    if (status.state === 'resuming') {
      const share = status.storedEvents ? Math.floor((100 * this.recorder!.recorded) / status.storedEvents) : 0;
      return refused('', `the stored run is being resumed (${Math.min(share, 99)} % replayed): try again in a moment`);
    }
    if (status.state === 'unresumable')
      return refused(
        '',
        `the stored run cannot be resumed (${status.reason}): start a fresh run (sim.reset; the store is kept as a backup) or open it read-only (run.openReadOnly)`,
      );
    if (status.state === 'read-only')
      return refused(
        '',
        `the run is open read-only (${status.reason}): start a fresh run (sim.reset) to change anything`,
      );
    return undefined;
  }

  /** Where the run stands: running, being resumed from the store, not resumable, or read-only. */
  get run(): RunStatus {
    return this.status;
  }

  private get status(): RunStatus {
    return this.state.state === 'resuming'
      ? { ...this.state, replayedEvents: this.recorder?.recorded ?? 0 }
      : this.state;
  }

  /** Why the live run could not resume, if it could not. */
  get liveError(): string | undefined {
    return this.liveRun.error;
  }

  /** The live world serving the run, when one does. */
  private get live(): LiveWorld | undefined {
    return this.mode.liveWorld;
  }

  /**
   * Before the store drops a run that could not be resumed (or was only opened read-only), a copy of the whole store
   * is written beside it, so that a fresh run loses nothing. Returns the copy's path.
   */
  private keepUnresumedRun(): string | undefined {
    const status = this.state;
    this.state = { state: 'running' };
    this.replay = undefined;
    if (status.state === 'running' || !this.store) return undefined;
    const file = backupName(this.store.file, new Date());
    this.store.backup(file);
    return file;
  }

  /** Replays a slice of the stored run, then yields to the event loop; resolves `done` once it is over either way. */
  private replaySlices(startedAt: number, done: () => void): void {
    const replay = this.replay;
    if (!replay || this.state.state !== 'resuming') return done(); // stopped: a fresh run, or read-only
    const deadline = performance.now() + this.sliceMs;
    let finished: boolean;
    try {
      finished = replay.step(() => performance.now() >= deadline || this.recorder?.divergence !== undefined);
    } catch (error) {
      return this.stopResume(`its replay failed: ${error instanceof Error ? error.message : String(error)}`, done);
    }
    const divergence = this.recorder?.divergence;
    if (divergence) return this.stopResume(`its replay does not give back the stored history (${divergence})`, done);
    if (finished) {
      this.replay = undefined;
      this.state = this.store?.readOnly
        ? { state: 'read-only', reason: `the store ${this.store.file} was opened read-only` }
        : { state: 'running' };
      this.simulation.restart();
      return done();
    }
    const elapsedS = (performance.now() - startedAt) / 1000;
    if (elapsedS > this.replayLimitS) {
      const stored = this.state.storedEvents;
      return this.stopResume(
        `replaying it would take too long: ${this.recorder?.recorded ?? 0} of its ${stored} events replayed in ${Math.round(elapsedS)} s`,
        done,
      );
    }
    setImmediate(() => this.replaySlices(startedAt, done));
  }

  private stopResume(reason: string, done: () => void): void {
    this.replay = undefined;
    this.state = this.store?.readOnly ? { state: 'read-only', reason } : { state: 'unresumable', reason };
    done();
  }

  /** The simulated grid; `sim.reset` replaces it. */
  get world(): SimWorld {
    return this.current;
  }

  /**
   * Builds the world of a run and makes it current. `resumed`: the store's run, replayed from its commands up to its
   * clock in slices (see replaySlices). `idle`: the simulated world under a live run, or under a stored run that is
   * not resumed (not stored, not followed). `beforeSwitch` runs once the new world is built, before it replaces the
   * current one.
   */
  private openWorld(
    run: RunConfig,
    how: { resumed?: boolean; idle?: boolean; warmUp?: boolean; beforeSwitch?: () => void } = {},
  ): void {
    const jobs: JobSpec[] = run.workload === 'none' ? [] : (workloadPreset(run.workload, run.seed) ?? []);
    // Decision: beside a preset workload's jobs, a stationary stream keeps the grid alive (core/sim/workloads/stream.ts)
    // from the start: W_m alone holds DAS-3 at 1-5 running jobs and never queues one for its 10 h. A run with no
    // workload has the stream off until Settings turns it on; runs stored before `streamFrom` keep theirs after.
    const stream = new JobStream(run.seed, run.workload === 'none' ? NO_JOB_STREAM : DEFAULT_JOB_STREAM);
    const queue = schedulerQueueOptions(run.queue);
    const world = new SimWorld({
      grid: gridSpecSchema.parse(run.grid),
      jobs,
      seed: run.seed,
      endless: true,
      metrics: false,
      stream,
      streamBesideWorkload: run.streamFrom === 'start',
      ...(queue ? { scheduler: queue } : {}),
    });
    how.beforeSwitch?.();
    this.current = world;
    this.jobs.forgetSubmissions();
    this.warmedUpS = 0;
    if (how.idle) return;
    const store = this.store;
    if (how.resumed && store) {
      // The run is deterministic: replayed, it emits the stored events again, which are compared, not written.
      this.follow(world.scheduler, { stored: store.eventCount(), replaying: true, resumed: true });
      this.state = { state: 'resuming', replayedEvents: 0, storedEvents: store.eventCount() };
      this.replay = new Replay(world, store.commands(), store.clock(), (command) => this.replayCommand(command));
    } else {
      store?.startRun(run);
      this.follow(world.scheduler, { stored: 0, replaying: false, resumed: false });
      // The warm-up is the run's own past: recorded and stored like any other, replayed on resume.
      if (how.warmUp && this.warmUpS > 0) {
        // Decision: a warm-up computes for at most WARM_UP_WALL_MS (a grid too busy for it starts where it got to).
        const deadline = performance.now() + WARM_UP_WALL_MS;
        const outOfTime = () => performance.now() >= deadline;
        // Decision: past the warm-up's length it goes on until a job waits in the queue (at most as long again), so
        // that the first view shows every state: running, grown and queued jobs.
        const longest = 2 * this.warmUpS;
        // Sampled for the grid history as it goes, so that the cards' charts show the warm-up too.
        for (let t = Math.min(GRID_HISTORY_STEP_S, longest); ; t = Math.min(t + GRID_HISTORY_STEP_S, longest)) {
          const done = world.runUntil(t, outOfTime);
          this.history.offer(world.engine.now, () => this.clusterSamples());
          if (!done || outOfTime() || t >= longest || (t >= this.warmUpS && world.scheduler.queue.length > 0)) break;
        }
        this.warmedUpS = world.engine.now;
        this.historyDirty = true;
      }
    }
  }

  /** A stored command applied again to the replayed world, as the API applied it. */
  private replayCommand(command: StoredCommand): void {
    if (SCHEDULER_SETTINGS.has(command.key) || command.key === 'stream')
      return void this.settings.apply(command.key, command.value);
    this.jobs.replay(command);
  }

  /**
   * Makes `scheduler` the run's: its events recorded, streamed and charted. `stored`: events the store holds for this
   * run already — emitted again by its replay (`replaying`), or kept before the ones to come (a resumed live run).
   */
  private follow(scheduler: Pick<Scheduler, 'on'>, o: { stored: number; replaying: boolean; resumed: boolean }): void {
    this.runNumber++;
    const recent = (this.recentEvents = new RecentJobEvents(RECENT_EVENTS));
    this.finished = new FinishedJobs();
    const pending: string[] = (this.endedPending = []);
    // Ended jobs leave memory once stored, in a simulated run and a live one alike (a live world's state lists only
    // the jobs not ended).
    scheduler.on(
      (e) => {
        if (e.type === 'job.ended') pending.push(e.jobId);
      },
      ['job.ended'],
    );
    if (!this.store)
      scheduler.on((e) => {
        recent.add(e);
      });
    const activity = (this.activity = new ActivityHistory());
    // A replay emits the stored events again; a resumed live run's earlier sessions are read back from the store once:
    // their operations, and their ended jobs as the Queue listed them (the world holds only the jobs not ended).
    if (o.resumed && !o.replaying && this.store) {
      const ended = new EndedSummaries(placementsOf(this.store.commands()));
      for (let first = 0; first < o.stored; first += STORED_READ_PAGE)
        for (const { event } of this.store.eventsFrom(first, STORED_READ_PAGE)) {
          activity.add(event);
          ended.add(event);
        }
      // Numbered before this session's jobs, in their submission order (listJobs orders by time, then number).
      for (const { order, summary } of ended.ended)
        if (!this.scheduler.job(summary.id)) this.finished.restore(order - ended.submissions, summary);
    }
    scheduler.on((e) => activity.add(e));
    const recorder = this.recorder;
    if (recorder) {
      recorder.begin(o.stored, o.replaying);
      scheduler.on((e) => recorder.record(e));
    }
    const storedHistory = o.resumed ? gridHistoryStateSchema.safeParse(this.store?.gridHistory()) : undefined;
    this.history = new GridHistory<ClusterSnapshot>(
      GRID_HISTORY_LIMIT,
      GRID_HISTORY_STEP_S,
      storedHistory?.success ? storedHistory.data : undefined,
    );
    for (const s of this.subscribers) {
      s.off();
      s.off = scheduler.on(this.unlessReplayed(s.listener));
    }
  }

  /** Events a resumed live world emitted while it started, kept now that it is the run's. */
  private adopt(events: readonly SchedulerEvent[]): void {
    for (const e of events) {
      this.recorder?.record(e);
      // A job that ended while the host was away leaves memory too, once its end is stored.
      if (e.type === 'job.ended') this.endedPending.push(e.jobId);
    }
  }

  /** A replay's events are the stored past: consoles are not sent them again (they read jobs and history instead). */
  private unlessReplayed(listener: (event: SchedulerEvent) => void): (event: SchedulerEvent) => void {
    return (event) => {
      if (this.state.state !== 'resuming') listener(event);
    };
  }

  /** The run's scheduler: the live world's in a live run, else the simulated one's. */
  private get scheduler(): Scheduler {
    return this.live ? this.live.scheduler : this.world.scheduler;
  }

  /** The run's time: seconds since a live run began, or the simulation's virtual time. */
  private now(): number {
    return this.live ? this.live.now() : this.world.engine.now;
  }

  /** Runs a command on the run's scheduler at its current time (through the live world, which re-arms its timer). */
  private act<T>(command: (scheduler: Scheduler, now: number) => T): T {
    return this.live ? this.live.act(command) : command(this.world.scheduler, this.world.engine.now);
  }

  /** Keeps an operator's command with the run, so that a resumed run replays it. */
  private record(key: string, value: unknown): void {
    // Its effects happen in the scheduler's next pass: make sure the engine visits this instant again (a live
    // world's act re-arms its own timer).
    if (!this.live) this.world.engine.soon(() => undefined);
    void this.flush({ t: this.now(), key, value });
  }

  call<M extends MethodName>(
    method: M,
    payload: unknown,
  ): M extends AsyncMethodName ? Promise<ApiResult<M>> : ApiResult<M> {
    return this.dispatch(method, payload);
  }

  /** Every scheduler event, as it happens. */
  subscribe(listener: (event: SchedulerEvent) => void): () => void {
    const entry = { listener, off: this.scheduler.on(this.unlessReplayed(listener)) };
    this.subscribers.add(entry);
    return () => {
      entry.off();
      this.subscribers.delete(entry);
    };
  }

  /**
   * The event stream both transports carry: every scheduler event, and a grid snapshot at once and then every
   * `snapshotIntervalMs`. Returns the function that ends it.
   */
  stream(send: (message: StreamMessage) => void, snapshotIntervalMs = 1000): () => void {
    const unsubscribe = this.subscribe((event) => send({ topic: 'event', event }));
    const unsubscribeLab = this.lab.subscribe((run) => send({ topic: 'lab', run }));
    const snapshot = () => {
      const s = this.call('grid.snapshot', {});
      if (s.ok) send({ topic: 'snapshot', snapshot: s.value });
    };
    snapshot();
    const timer = setInterval(snapshot, snapshotIntervalMs);
    return () => {
      clearInterval(timer);
      unsubscribe();
      unsubscribeLab();
    };
  }

  /** Brings virtual time up to the wall clock at the current speed, computing for at most one slice (SimulationService.tick). */
  tick(): void {
    this.simulation.tick();
  }

  /** Before a command or a request: virtual time brought up to the wall clock (SimulationService.catchUp). */
  catchUp(): void {
    this.simulation.catchUp();
  }

  start(intervalMs = 100): void {
    this.simulation.start(intervalMs);
  }

  /**
   * Stops the clock, a replay and the lab's runs (their workers are terminated) at once, and writes what is not
   * stored yet; the promise settles when a live run's connections and timers are closed too.
   */
  stop(): Promise<void> {
    this.simulation.stop();
    this.lab.shutdown();
    this.replay = undefined;
    // A live run's jobs keep running on the clusters; its connections close. Its latest state is kept for the
    // next start (application progress changes it without an event).
    this.flush(undefined, true);
    return this.liveRun.stop();
  }

  /**
   * Writes, in one transaction, `command` (what the API just accepted) with the events not yet stored, the run's
   * clock, and when due the grid history and a live run's state. Nothing is written while a stored run is resumed,
   * cannot be, or is read-only. `final`: everything is written now (the host stops, or a live run begins).
   */
  flush(command?: StoredCommand, final = false): boolean {
    const recorder = this.recorder;
    const resuming = this.mode.resuming;
    if (!recorder || this.state.state !== 'running' || resuming) {
      if (this.state.state === 'running' && !resuming) {
        this.history.offer(this.now(), () => this.clusterSamples());
        if (!recorder) this.releaseEnded();
      }
      return !recorder;
    }
    if (this.history.offer(this.now(), () => this.clusterSamples())) this.historyDirty = true;
    // The history is one row, rewritten: at most every few seconds of wall time.
    const history =
      this.historyDirty && (final || this.clock() - this.historySavedAt >= GRID_HISTORY_SAVE_MS)
        ? this.history.state()
        : undefined;
    // A live world's state changes with its jobs' events: kept with them, so that a restart recovers every job.
    const live = this.live && (final || recorder.pending > 0) ? this.live.persistentState() : undefined;
    try {
      recorder.commit({
        ...(command ? { command } : {}),
        clock: this.now(),
        ...(history ? { gridHistory: history } : {}),
        ...(live !== undefined ? { liveState: live } : {}),
      });
    } catch (error) {
      // Decision: a run its store cannot keep (disk full, the file taken over by another host) stops where the
      // store has it: shown read-only, nothing more accepted, rather than running on with what a restart would lose.
      this.state = {
        state: 'read-only',
        reason: `the store could not be written (${error instanceof Error ? error.message : String(error)}); the run stops where the store has it`,
      };
      return false;
    }
    if (history) {
      this.historySavedAt = this.clock();
      this.historyDirty = false;
    }
    this.releaseEnded();
    return true;
  }

  /** Ended jobs whose end is stored (or, without a store, kept in the recent events) leave the scheduler's memory. */
  private releaseEnded(): void {
    const pending = this.endedPending;
    if (!pending.length) return;
    const scheduler = this.scheduler;
    for (const jobId of pending) this.finished.release(scheduler, jobId);
    pending.length = 0;
  }

  private clusterSamples(): ClusterSnapshot[] {
    if (this.mode.resuming) return []; // the live clusters are shown once the world has reconnected
    if (this.live) return liveClusterSnapshots(this.live.scheduler.snapshot(), this.live.clusters());
    return this.world.scheduler.snapshot();
  }
}
