// The host: owns a scheduler over a grid (by default the simulated DAS-3, living in virtual time that follows the
// wall clock at the chosen speed), serves the typed API and streams the scheduler's events.
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, type GridSpec, type JobSpec } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { SimWorld } from '../../core/sim/world.js';
import { DEFAULT_JOB_STREAM, JobStream, NO_JOB_STREAM, type JobStreamSettings } from '../../core/sim/workloads/stream.js';
import { gridHistoryStateSchema, type ApiResult, type AsyncMethodName, type ClusterSample, type MethodName, type RunStatus, type Speed, type StreamMessage, type ViewStep } from '../api/contract.js';
import { createDispatcher, type Dispatch } from '../api/dispatcher.js';
import { LabRunner } from '../lab/runner.js';
import { labExperimentInfos } from '../lab/registry.js';
import { GridHistory } from './grid-history.js';
import { ActivityHistory } from './activity-history.js';
import { RecentJobEvents } from './recent-job-events.js';
import { EndedSummaries, FinishedJobs, listJobs, placementsOf, sizeSteps, viewsFromEvents } from './finished-jobs.js';
import type { RunConfig, Store, StoredCommand, StoredQueueSettings, StoredTemplate } from '../store/store.js';
import { Replay } from './replay.js';
import { RunRecorder } from './run-recorder.js';
import { backupName } from './backup-name.js';
import type { Scheduler, SchedulerOptions } from '../../core/scheduler/scheduler.js';
import { queuePolicies } from '../../core/queue/registry.js';
import { malleabilityPolicies } from '../../core/malleability/registry.js';
import type { QueuePolicy, QueuePolicyName } from '../../core/queue/policy.js';
import { QUEUE_PRIORITIES, type QueuePriorityName } from '../../core/queue/priority.js';
import type { LiveClusterConfig, LiveWorld } from '../../runners/live/types.js';
import { ClusterService, type ClusterServiceOptions } from '../live/cluster-service.js';
import { clustersSecretSource, createLiveWorldFromConfig, liveClusterSnapshots, type LiveWorldFactory, type LiveWorldFactoryOptions } from '../live/live-run.js';

const SPEED_FACTOR: Record<Speed, number> = { pause: 0, '1x': 1, '10x': 10, '100x': 100, max: Number.POSITIVE_INFINITY };
/** One tick (or one slice of a replay) computes for at most this long, so the API and signals are served between. */
const SLICE_MS = 50;
/** A run behind its speed keeps at most this much wall time of backlog: past it, the backlog is dropped, not chased. */
const MAX_BACKLOG_WALL_S = 10;
/** A stored run whose replay takes longer than this is not resumed (the user chooses a fresh run or read-only). */
const REPLAY_LIMIT_S = 120;
/** Methods that change the run or the store: refused while a run is resumed, cannot be, or is read-only. */
/** Why a live run's speed cannot change: the refusal of sim.setSpeed, and what the snapshot says beside the speed. */
const LIVE_SPEED_FIXED = 'a live run follows real time: its speed cannot change (a simulated run can: switch the live run off in Settings → Clusters, or sim.reset)';
const RUN_COMMANDS = new Set<MethodName>(['jobs.submit', 'jobs.cancel', 'jobs.resize', 'settings.set', 'sim.setSpeed']);
const STORE_WRITES = new Set<MethodName>(['templates.save', 'templates.delete', 'clusters.save', 'clusters.update', 'clusters.remove', 'clusters.setSecret', 'run.startLive', 'lab.start', 'sim.reset']);
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


/** How the store marks a live run (its clusters are the configured ones; its jobs' times are seconds since it began). */
const LIVE_RUN: RunConfig = { grid: null, workload: 'none', seed: 0, mode: 'live' };

/** The settings kept as stored commands and applied again when a run is resumed (a live run's too). */
const SCHEDULER_SETTINGS = new Set(['approach', 'policy', 'triesThreshold', 'queue', 'reservationDepth', 'priority']);

/** The priorities in words for Settings (a new name in QUEUE_PRIORITIES needs its words here: the Record says so). */
const PRIORITY_DESCRIPTIONS: Readonly<Record<QueuePriorityName, string>> = {
  submit: 'submission order: the earliest submitted job first',
  wait: 'waiting time: the job that has waited longest first',
  size: 'size: ordered by the processors each job needs',
};

/**
 * Whether a queue policy plans over time (its jobs' walltimes say when processors come free). Decision: a policy
 * plans ahead when it runs its own pass over the plans (fcfs, easy, cbf...), not the scheduler's scan (koala): asked
 * of the policy itself on an empty view, so a policy added to core/queue is classed without a list here; one whose
 * pass cannot begin on an empty view reads the view, so it plans.
 */
function plansAhead(policy: QueuePolicy): boolean {
  const empty = {
    now: 0,
    clusterCount: 0,
    plan: () => {
      throw new Error('no cluster');
    },
    freed: () => true,
    promised: 0,
  };
  try {
    return policy.begin(empty) !== undefined;
  } catch {
    return true;
  }
}

/** A run's stored queue settings as the scheduler takes them (undefined: its defaults). */
function schedulerQueueOptions(q: StoredQueueSettings | undefined): Pick<SchedulerOptions, 'queue' | 'reservationDepth' | 'priority'> | undefined {
  if (!q) return undefined;
  return { queue: q.queue as QueuePolicyName, reservationDepth: q.reservationDepth ?? undefined, priority: q.priority as QueuePriorityName };
}

/** What a host opens at start, in words: `stored` the store's run, else `run` is a new one. */
function describeStart(stored: RunConfig | undefined, run: RunConfig, clusters: readonly string[]): string {
  if (stored?.mode === 'live') return `resuming a live run on ${clusters.length} cluster${clusters.length === 1 ? '' : 's'}${clusters.length ? ` (${clusters.join(', ')})` : ''}`;
  const grid = gridSpecSchema.safeParse(run.grid);
  const name = grid.success ? (grid.data.name === 'das3' ? 'DAS-3' : grid.data.name) : 'a stored grid';
  const simulated = `a simulated run on ${name}, workload ${run.workload}, seed ${run.seed}`;
  return stored ? `resuming ${simulated}` : `a new ${simulated.slice(2)}`;
}

export class Host {
  readonly dispatch: Dispatch;
  /** Experiments and whole simulations, each in a worker thread (the `lab.*` methods). */
  readonly lab: LabRunner;
  private current!: SimWorld;
  /** Counts the runs this host has opened (a reset opens another): part of the jobs list's version. */
  private runNumber = 0;
  /** Event listeners, each with how to detach it from the current world (a reset moves them to the new one). */
  private readonly subscribers = new Set<{ listener: (event: SchedulerEvent) => void; off: () => void }>();
  /** Templates of a host without a store. */
  private readonly memoryTemplates = new Map<string, StoredTemplate>();
  private speed: Speed;
  private wallAnchor: number;
  private virtualAnchor: number;
  private readonly clock: () => number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly store: Store | undefined;
  /** The run's events with the store: numbered, compared when replayed, written with everything else in one commit. */
  private readonly recorder: RunRecorder | undefined;
  /** Where the run stands (resumed, not resumable, read-only); `running` otherwise. */
  private status: RunStatus = { state: 'running' };
  /** A stored run's replay while the host resumes it. */
  private replay: Replay | undefined;
  /** Resolves once a stored run is resumed, or found not resumable (at once without one). */
  readonly ready: Promise<void>;
  private readonly sliceMs: number;
  private readonly replayLimitS: number;
  private readonly warmUpS: number;
  /** Virtual seconds the current run computed before its clock started (0: none, or a resumed run). */
  private warmedUpS = 0;
  /** Virtual seconds behind the chosen speed after the last tick. */
  private behindS = 0;
  /** Submissions by the console's id: the job each made and its spec, so that a retry is answered, not run twice. */
  private submissionIds = new Map<string, { jobId: string; spec: string }>();
  /** Utilization over the whole run, downsampled, for consoles that open late (grid.history). */
  private history = new GridHistory<ClusterSample>();
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
  /** The live run, when there is one: it replaces the simulated world for every method (`world` stays idle). */
  private live: LiveWorld | undefined;
  private readonly liveWorldFactory: LiveWorldFactory;
  /** The live world has started: its persistent state is valid (and stored at every flush that saw events). */
  private liveReady = false;
  /** A live run being resumed: its world is starting (the idle simulated world is not served meanwhile). */
  private resuming: LiveWorld | undefined;
  /** Why the live world could not start (connection errors are per cluster, in the snapshot). */
  private liveStartError: string | undefined;
  /** What the host opened at start, in words (the start-up banner): a new simulated run, or which stored run it resumes. */
  readonly startedWith: string;
  /** The live run was resumed from the store: its jobs' sizes before this session are in the store, not the world. */
  private liveResumed = false;

  constructor(options: HostOptions = {}) {
    this.store = options.store;
    this.recorder = this.store ? new RunRecorder(this.store) : undefined;
    this.sliceMs = options.sliceMs ?? SLICE_MS;
    this.replayLimitS = options.replayLimitS ?? REPLAY_LIMIT_S;
    this.warmUpS = options.warmUpS ?? 0;
    this.clock = options.clock ?? (() => performance.now());
    this.speed = options.speed ?? '1x';
    this.clusters = new ClusterService({ ...options.clusters, ...(this.store ? { store: this.store } : {}) });
    this.liveWorldFactory = options.liveWorld ?? createLiveWorldFromConfig;
    const resumed = this.store?.run();
    const resumedLive = resumed?.mode === 'live';
    const run: RunConfig =
      resumed && !resumedLive
        ? resumed
        : { grid: options.grid ?? gridSpecSchema.parse(gridPreset('das3')), workload: resumedLive ? 'none' : (options.workload ?? 'wm'), seed: options.seed ?? 1, streamFrom: 'start' };
    this.startedWith = describeStart(resumed, run, this.clusters.configs().map((c) => c.name));
    const problems = resumed ? this.store!.check() : [];
    if (problems.length) {
      // Nothing is replayed or written: the user chooses a fresh run (the store kept as a backup) or read-only.
      this.open(run, { idle: true });
      this.status = { state: 'unresumable', reason: `the store failed its check: ${problems.join('; ')}` };
      this.ready = Promise.resolve();
    } else if (resumedLive && this.store!.readOnly) {
      this.open(run, { idle: true });
      this.status = { state: 'read-only', reason: 'a live run opened read-only: its clusters are not contacted' };
      this.ready = Promise.resolve();
    } else {
      // A resumed live run keeps an idle simulated world underneath, never stored.
      // Only the first start of a fresh run is warmed up (a new run from Settings starts at 0).
      this.open(run, { resumed: resumed !== undefined && !resumedLive, idle: resumedLive, warmUp: true });
      if (resumedLive) this.resumeLive();
      this.ready = this.replay ? new Promise((resolve) => this.replaySlices(performance.now(), resolve)) : Promise.resolve();
    }
    this.wallAnchor = this.clock();
    this.virtualAnchor = this.world.engine.now;
    this.lab = new LabRunner({ store: this.store?.readOnly ? undefined : this.store });
    this.dispatch = createDispatcher({
      'grid.snapshot': () => ({
        ok: true,
        value: {
          time: this.now(),
          speed: this.live ? '1x' : this.speed,
          clusters: this.withInteractive(this.clusterSamples()),
          mode: this.live || this.resuming ? 'live' : 'sim',
          run: this.runStatus(),
          behindS: this.live ? 0 : this.behindS,
          ...(this.warmedUpS > 0 && !this.live ? { warmedUpS: this.warmedUpS } : {}),
          ...(this.live || this.resuming ? { speedFixed: LIVE_SPEED_FIXED } : {}),
        },
      }),
      'grid.history': () => ({ ok: true, value: { samples: this.history.view() } }),
      'activity.history': () => {
        const now = this.now();
        return { ok: true, value: { now, ...this.activity.view(now) } };
      },
      'jobs.events': ({ jobId }) => {
        const known = this.scheduler.job(jobId) !== undefined || this.finished.has(jobId) || (this.status.state !== 'running' && this.store?.events(jobId).length);
        if (!known) return { ok: false, errors: [{ path: 'jobId', message: `no job "${jobId}"` }] };
        this.flush();
        const events = this.store ? this.store.events(jobId) : this.recentEvents.of(jobId);
        return { ok: true, value: { events } };
      },
      'jobs.views': ({ jobId }) => {
        const now = this.now();
        if (!this.scheduler.job(jobId) && this.finished.has(jobId)) {
          this.flush();
          return { ok: true, value: viewsFromEvents(this.store ? this.store.events(jobId) : this.recentEvents.of(jobId), now) };
        }
        const views = this.scheduler.views(jobId, now);
        if (!views) return { ok: false, errors: [{ path: 'jobId', message: `no job "${jobId}"` }] };
        return { ok: true, value: { now, ...views, allocated: this.withEarlierSizes(jobId, views.allocated) } };
      },
      'jobs.submit': ({ submissionId, ...spec }) => {
        if (this.resuming) return this.stillResuming();
        this.catchUp();
        const canonical = JSON.stringify(spec);
        const earlier = submissionId === undefined ? undefined : this.submissionIds.get(submissionId);
        if (earlier) {
          if (earlier.spec === canonical) return { ok: true, value: { jobId: earlier.jobId } };
          return { ok: false, errors: [{ path: 'submissionId', message: `was already used for another job (${earlier.jobId})` }] };
        }
        if (spec.id !== undefined && this.finished.has(spec.id)) return { ok: false, errors: [{ path: 'id', message: `duplicates job "${spec.id}"` }] };
        const r = this.live ? this.live.act((s, now) => s.submit(spec, now)) : this.world.submit(spec);
        if (!r.ok) return r;
        const jobId = r.value.id;
        if (submissionId !== undefined) this.submissionIds.set(submissionId, { jobId, spec: canonical });
        // On disk with its events before the answer: a job the API accepted survives a crash, whole.
        if (!this.flush({ t: this.now(), key: 'jobs.submit', value: spec, jobId, ...(submissionId === undefined ? {} : { submissionId }) })) return this.refusal('jobs.submit')!;
        return { ok: true, value: { jobId } };
      },
      'jobs.cancel': ({ jobId }) => {
        if (this.resuming) return this.stillResuming();
        this.catchUp();
        if (this.finished.has(jobId)) return { ok: false, errors: [{ path: 'jobId', message: `job ${jobId} has already ${this.endedState(jobId)}` }] };
        const r = this.act((s, now) => s.cancel(jobId, now));
        if (!r.ok) return r;
        this.record('jobs.cancel', { jobId });
        return { ok: true, value: { jobId } };
      },
      'jobs.resize': ({ jobId, delta }) => {
        if (this.resuming) return this.stillResuming();
        this.catchUp();
        if (this.finished.has(jobId)) return { ok: false, errors: [{ path: 'jobId', message: `job ${jobId} is not running (it is ${this.endedState(jobId)})` }] };
        const r = this.act((s, now) => s.resize(jobId, delta, now));
        if (!r.ok) return r;
        this.record('jobs.resize', { jobId, delta });
        return r;
      },
      'jobs.list': ({ states, limit, since }) => {
        // Every change to a job is an event: the run and its event count tell whether anything listed may differ.
        const version = `${this.runNumber}:${this.scheduler.eventCount}`;
        const wanted = states ? new Set(states) : undefined;
        if (since === version) {
          let total = 0;
          for (const j of this.scheduler.jobs()) if (!wanted || wanted.has(j.state)) total++;
          for (const { summary } of this.finished.values()) if (!wanted || wanted.has(summary.state)) total++;
          return { ok: true, value: { jobs: [], total, version, unchanged: true } };
        }
        // The scheduler's jobs and those that left memory (ended, stored), in submission order.
        const released = [...this.finished.values()].filter((j) => !wanted || wanted.has(j.summary.state));
        const held = [...this.scheduler.jobs()].filter((j) => !wanted || wanted.has(j.state));
        // Decision: a waiting job's planned start is listed as of the last event (the version): a pass that moves only
        // reservations (a poll that saw another background load) shows at the next event.
        const grid = this.scheduler.grid;
        return { ok: true, value: { ...listJobs(held, released, limit, (i) => grid.clusters[i]?.name), version } };
      },
      'plan.snapshot': ({ limit }) => {
        if (this.resuming) return { ok: true, value: { now: 0, queuePolicy: this.scheduler.queuePolicyName, limit, clusters: [] } };
        return { ok: true, value: this.scheduler.planSnapshot(this.now(), limit) };
      },
      'sim.setSpeed': ({ speed }) => {
        if (this.live || this.resuming) return { ok: false, errors: [{ path: 'speed', message: LIVE_SPEED_FIXED }] };
        this.catchUp();
        this.speed = speed;
        this.behindS = 0;
        this.reanchor();
        return { ok: true, value: { speed } };
      },
      'sim.reset': ({ grid, workload, seed, ...queueChanges }) => {
        this.catchUp();
        let backup: string | undefined;
        // Decision: a new run keeps the current run's queue settings, except those the reset gives.
        const current = this.queueSettings();
        const queue: StoredQueueSettings = {
          queue: queueChanges.queue ?? current.queue,
          reservationDepth: queueChanges.reservationDepth !== undefined ? queueChanges.reservationDepth : current.reservationDepth,
          priority: queueChanges.priority ?? current.priority,
        };
        // The world is built before the store forgets the old run: a grid the simulator refuses changes nothing.
        try {
          this.open({ grid, workload, seed, streamFrom: 'start', queue }, {
            beforeSwitch: () => {
              backup = this.keepUnresumedRun();
              void this.stopLive();
            },
          });
        } catch (error) {
          return { ok: false, errors: [{ path: 'grid', message: error instanceof Error ? error.message : String(error) }] };
        }
        this.behindS = 0;
        this.reanchor();
        this.flush();
        return { ok: true, value: { grid: grid.name, clusters: grid.clusters.length, workload, jobs: this.world.totalJobs, seed, ...(backup ? { backup } : {}) } };
      },
      'run.openReadOnly': () => {
        if (this.status.state === 'running') return { ok: false, errors: [{ path: '', message: 'the run is running: only a stored run being resumed, or one that cannot be, is opened read-only' }] };
        if (this.status.state !== 'read-only') this.status = { state: 'read-only', reason: this.status.state === 'unresumable' ? this.status.reason : 'opened read-only while it was being resumed' };
        this.replay = undefined;
        return { ok: true, value: this.runStatus() };
      },
      'settings.get': () => ({ ok: true, value: this.settings() }),
      'settings.set': (changes) => {
        if (this.resuming) return this.stillResuming();
        this.catchUp();
        const t = this.now();
        for (const [key, value] of Object.entries(changes)) {
          if (value === undefined) continue;
          const r = this.applySetting(key, value);
          if (!r.ok) return r;
          this.flush({ t, key, value });
        }
        return { ok: true, value: this.settings() };
      },
      'settings.choices': () => ({
        ok: true,
        value: {
          queuePolicies: Object.values(queuePolicies).map((q) => ({ name: q.name, description: q.description, plansAhead: plansAhead(q) })),
          priorities: QUEUE_PRIORITIES.map((name) => ({ name, description: PRIORITY_DESCRIPTIONS[name] })),
          policies: Object.values(malleabilityPolicies).map((p) => ({ name: p.name, description: p.description })),
        },
      }),
      'templates.list': () => ({ ok: true, value: { templates: this.templates() as Array<{ name: string; spec: JobSpec }> } }),
      'templates.save': ({ name, spec }) => {
        if (this.store) this.store.saveTemplate({ name, spec });
        else this.memoryTemplates.set(name, { name, spec });
        return { ok: true, value: { name } };
      },
      'templates.delete': ({ name }) => {
        const had = this.store ? this.store.deleteTemplate(name) : this.memoryTemplates.delete(name);
        return had ? { ok: true, value: { name } } : { ok: false, errors: [{ path: 'name', message: `names no template ("${name}")` }] };
      },
      'lab.experiments': () => ({ ok: true, value: { experiments: labExperimentInfos() } }),
      'lab.start': (spec) => ({ ok: true, value: { runId: this.lab.start(spec) } }),
      'lab.cancel': ({ runId }) => this.lab.cancel(runId),
      'clusters.list': () => this.clusters.list(),
      'clusters.save': (config) => this.clusters.save(config),
      // Decision: no cluster is renamed during a live run: its jobs, and the run resumed after a restart, find their cluster by name.
      'clusters.update': ({ name, config }) =>
        this.clusters.update(name, config, this.live || this.resuming ? 'a cluster is not renamed during a live run: switch the live run off first' : undefined),
      'clusters.remove': ({ name }) => this.clusters.remove(name),
      'clusters.test': (config) => this.clusters.test(config),
      'clusters.acceptHostKey': ({ host, port, fingerprint, cluster }) => this.clusters.acceptHostKey(host, port, fingerprint, cluster),
      'clusters.setSecret': ({ cluster, kind, value }) => this.clusters.setSecret(cluster, kind, value),
      'clusters.stageAssets': ({ name }) => this.stageAssets(name),
      'run.startLive': () => this.startLive(),
      'lab.list': () => ({ ok: true, value: { runs: this.lab.list() } }),
      'lab.result': ({ runId }) => this.lab.result(runId),
    });
    const dispatch = this.dispatch;
    this.dispatch = ((method: string, payload: unknown) => this.refusal(method) ?? dispatch(method, payload)) as Dispatch;
  }

  /** Why `method` cannot be served now (the run is being resumed, cannot be, or is read-only), if it cannot. */
  private refusal(method: string): { ok: false; errors: Array<{ path: string; message: string }> } | undefined {
    const name = method as MethodName;
    if (this.store?.readOnly && STORE_WRITES.has(name)) return { ok: false, errors: [{ path: '', message: `the store ${this.store.file} is open read-only: start without --read-only to change it` }] };
    if (!RUN_COMMANDS.has(name)) return undefined;
    const status = this.status;
    if (status.state === 'resuming') {
      const share = status.storedEvents ? Math.floor((100 * this.recorder!.recorded) / status.storedEvents) : 0;
      return { ok: false, errors: [{ path: '', message: `the stored run is being resumed (${Math.min(share, 99)} % replayed): try again in a moment` }] };
    }
    if (status.state === 'unresumable') return { ok: false, errors: [{ path: '', message: `the stored run cannot be resumed (${status.reason}): start a fresh run (sim.reset; the store is kept as a backup) or open it read-only (run.openReadOnly)` }] };
    if (status.state === 'read-only') return { ok: false, errors: [{ path: '', message: `the run is open read-only (${status.reason}): start a fresh run (sim.reset) to change anything` }] };
    return undefined;
  }

  /** Where the run stands: running, being resumed from the store, not resumable, or read-only. */
  get run(): RunStatus {
    return this.runStatus();
  }

  private runStatus(): RunStatus {
    return this.status.state === 'resuming' ? { ...this.status, replayedEvents: this.recorder?.recorded ?? 0 } : this.status;
  }

  /**
   * Before the store drops a run that could not be resumed (or was only opened read-only), a copy of the whole store
   * is written beside it, so that a fresh run loses nothing. Returns the copy's path.
   */
  private keepUnresumedRun(): string | undefined {
    const status = this.status;
    this.status = { state: 'running' };
    this.replay = undefined;
    if (status.state === 'running' || !this.store) return undefined;
    const file = backupName(this.store.file, new Date());
    this.store.backup(file);
    return file;
  }

  /** Replays a slice of the stored run, then yields to the event loop; resolves `done` once it is over either way. */
  private replaySlices(startedAt: number, done: () => void): void {
    const replay = this.replay;
    if (!replay || this.status.state !== 'resuming') return done(); // stopped: a fresh run, or read-only
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
      this.status = this.store?.readOnly ? { state: 'read-only', reason: `the store ${this.store.file} was opened read-only` } : { state: 'running' };
      this.behindS = 0;
      this.reanchor();
      return done();
    }
    const elapsedS = (performance.now() - startedAt) / 1000;
    if (elapsedS > this.replayLimitS) {
      const stored = this.status.storedEvents;
      return this.stopResume(`replaying it would take too long: ${this.recorder?.recorded ?? 0} of its ${stored} events replayed in ${Math.round(elapsedS)} s`, done);
    }
    setImmediate(() => this.replaySlices(startedAt, done));
  }

  private stopResume(reason: string, done: () => void): void {
    this.replay = undefined;
    this.status = this.store?.readOnly ? { state: 'read-only', reason } : { state: 'unresumable', reason };
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
  private open(run: RunConfig, how: { resumed?: boolean; idle?: boolean; warmUp?: boolean; beforeSwitch?: () => void } = {}): void {
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
    this.submissionIds = new Map();
    this.warmedUpS = 0;
    if (how.idle) return;
    const store = this.store;
    if (how.resumed && store) {
      // The run is deterministic: replayed, it emits the stored events again, which are compared, not written.
      this.follow(world.scheduler, { stored: store.eventCount(), replaying: true, resumed: true });
      this.status = { state: 'resuming', replayedEvents: 0, storedEvents: store.eventCount() };
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
    if (command.key !== 'jobs.submit') return void this.applySetting(command.key, command.value);
    const r = this.world.submit(command.value, true);
    if (r.ok && command.submissionId !== undefined) this.submissionIds.set(command.submissionId, { jobId: r.value.id, spec: JSON.stringify(command.value) });
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
    scheduler.on((e) => {
      if (e.type === 'job.ended') pending.push(e.jobId);
    }, ['job.ended']);
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
      for (const { order, summary } of ended.ended) if (!this.scheduler.job(summary.id)) this.finished.restore(order - ended.submissions, summary);
    }
    scheduler.on((e) => activity.add(e));
    const recorder = this.recorder;
    if (recorder) {
      recorder.begin(o.stored, o.replaying);
      scheduler.on((e) => recorder.record(e));
    }
    const storedHistory = o.resumed ? gridHistoryStateSchema.safeParse(this.store?.gridHistory()) : undefined;
    this.history = new GridHistory<ClusterSample>(GRID_HISTORY_LIMIT, GRID_HISTORY_STEP_S, storedHistory?.success ? storedHistory.data : undefined);
    for (const s of this.subscribers) {
      s.off();
      s.off = scheduler.on(this.unlessReplayed(s.listener));
    }
  }

  /** A replay's events are the stored past: consoles are not sent them again (they read jobs and history instead). */
  private unlessReplayed(listener: (event: SchedulerEvent) => void): (event: SchedulerEvent) => void {
    return (event) => {
      if (this.status.state !== 'resuming') listener(event);
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

  /**
   * `clusters.stageAssets`: through the live run's connection to the cluster when it is in the run, else (no live
   * run, or the cluster not reached in it) over a connection of its own.
   */
  private async stageAssets(name: string): Promise<ApiResult<'clusters.stageAssets'>> {
    const config = this.clusters.configs().find((c) => c.name === name);
    if (!config) return { ok: false, errors: [{ path: 'name', message: `names no cluster ("${name}")` }] };
    const live = this.live;
    if (live?.stageAssets) {
      try {
        const [staged] = await live.stageAssets(name);
        if (staged) return { ok: true, value: { cluster: name, dir: staged.dir, copied: [...staged.copied], unchanged: [...staged.unchanged] } };
      } catch (error) {
        return { ok: false, errors: [{ path: 'name', message: `${name}: the assets cannot be staged: ${error instanceof Error ? error.message : String(error)}` }] };
      }
    }
    return this.clusters.stageAssets(config);
  }

  /** `run.startLive`: a live run on the configured clusters replaces the current run once its world has started. */
  private async startLive(): Promise<ApiResult<'run.startLive'>> {
    const clusters = this.clusters.configs();
    if (!clusters.length) return { ok: false, errors: [{ path: 'clusters', message: 'no live cluster is configured: add one in Settings → Clusters' }] };
    // The live run starts with the current run's queue settings, kept with it for a resume.
    const queue = this.queueSettings();
    let world: LiveWorld;
    try {
      world = this.liveWorldFactory(this.liveWorldOptions(clusters, undefined, queue));
      await world.start();
    } catch (error) {
      return { ok: false, errors: [{ path: 'clusters', message: `the live run could not start: ${error instanceof Error ? error.message : String(error)}` }] };
    }
    this.catchUp();
    await this.stopLive();
    const backup = this.keepUnresumedRun();
    this.store?.startRun({ ...LIVE_RUN, queue });
    this.live = world;
    this.liveReady = true;
    this.follow(world, { stored: 0, replaying: false, resumed: false });
    // Stored at once, before any job: the state holds the run's id, by which a resumed run knows its jobs on the clusters.
    this.flush(undefined, true);
    return { ok: true, value: { clusters: clusters.map((c) => c.name), ...(backup ? { backup } : {}) } };
  }

  private liveWorldOptions(clusters: readonly LiveClusterConfig[], restore?: unknown, queue?: StoredQueueSettings): LiveWorldFactoryOptions {
    const queueOptions = schedulerQueueOptions(queue);
    return {
      ...(queueOptions ? { queue: queueOptions } : {}),
      clusters,
      knownHosts: this.clusters.knownHosts,
      secrets: clustersSecretSource(clusters, (c) => this.clusters.secrets.sourceFor(c)),
      ...(this.clusters.sshConfigFile !== undefined ? { sshConfigFile: this.clusters.sshConfigFile } : {}),
      ...(restore !== undefined ? { restore } : {}),
    };
  }

  /**
   * A live run found in the store at start-up: its world is rebuilt from the clusters' configurations and the
   * state the previous world left (its jobs recovered from the managers by tag as it starts, none submitted
   * twice); the run's settings are applied again. Decision: operator cancels and resizes are not replayed — the
   * restored jobs are already in the state they led to.
   */
  private resumeLive(): void {
    const store = this.store!;
    let world: LiveWorld;
    try {
      world = this.liveWorldFactory(this.liveWorldOptions(this.clusters.configs(), store.liveState(), store.run()?.queue));
    } catch (error) {
      this.liveStartError = `the live run could not resume: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    // Its scheduler exists once it has started (reconnected, jobs recovered): until then commands are refused.
    this.resuming = world;
    // What the world emits while it starts (each adopted job's `job.adopted`, the ends of jobs that ended
    // meanwhile) is news to the store: kept, and stored once the world is the run's.
    const duringStart: SchedulerEvent[] = [];
    const offDuringStart = world.on((e) => duringStart.push(e));
    world.start().then(
      () => {
        offDuringStart();
        if (this.resuming !== world) return void world.stop(); // a new run was started meanwhile
        this.resuming = undefined;
        this.live = world;
        this.liveReady = true;
        for (const command of store.commands()) {
          if (SCHEDULER_SETTINGS.has(command.key)) this.applySetting(command.key, command.value);
        }
        // Events of the earlier sessions are kept; the resumed world's are appended.
        this.follow(world, { stored: store.eventCount(), replaying: false, resumed: true });
        this.liveResumed = true;
        for (const e of duringStart) {
          this.recorder?.record(e);
          // A job that ended while the host was away leaves memory too, once its end is stored.
          if (e.type === 'job.ended') this.endedPending.push(e.jobId);
        }
      },
      (error: unknown) => {
        // Commands stay refused, with why, until another run is started (sim.reset or run.startLive).
        this.liveStartError = `the live run could not resume: ${error instanceof Error ? error.message : String(error)}`;
      },
    );
  }

  private stillResuming(): { ok: false; errors: Array<{ path: string; message: string }> } {
    const message = this.liveStartError ?? 'the live run is resuming (reconnecting to its clusters): try again in a moment';
    return { ok: false, errors: [{ path: '', message }] };
  }

  /** Why the live run could not start or resume, if it could not. */
  get liveError(): string | undefined {
    return this.liveStartError;
  }

  private async stopLive(): Promise<void> {
    const world = this.live;
    this.live = undefined;
    this.liveReady = false;
    this.liveResumed = false;
    this.resuming = undefined; // a world still starting stops itself when it has

    await world?.stop();
  }

  /**
   * A job of a resumed live run: its sizes over its whole run from its stored events (an adopted job's record starts
   * at its adoption, with its size then), so that the drawer charts the earlier sessions too.
   */
  private withEarlierSizes(jobId: string, allocated: ViewStep[]): ViewStep[] {
    if (!this.live || !this.liveResumed || !this.store) return allocated;
    this.flush();
    const stored = sizeSteps(viewsFromEvents(this.store.events(jobId), this.now()).allocated);
    return stored.length ? stored : allocated;
  }

  /** How a job that left memory ended, as far as its summary is still listed. */
  private endedState(jobId: string): string {
    return this.finished.get(jobId)?.state ?? 'ended';
  }

  /** Keeps an operator's command with the run, so that a resumed run replays it. */
  private record(key: string, value: unknown): void {
    // Its effects happen in the scheduler's next pass: make sure the engine visits this instant again (a live
    // world's act re-arms its own timer).
    if (!this.live) this.world.engine.soon(() => undefined);
    void this.flush({ t: this.now(), key, value });
  }

  private templates(): StoredTemplate[] {
    return this.store ? this.store.templates() : [...this.memoryTemplates.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  call<M extends MethodName>(method: M, payload: unknown): M extends AsyncMethodName ? Promise<ApiResult<M>> : ApiResult<M> {
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

  /**
   * Brings virtual time up to the wall clock at the current speed, computing for at most one slice: a run that
   * cannot keep up falls behind (`behindS` in the snapshot) instead of holding the host.
   */
  tick(): void {
    if (this.live) return void this.flush(); // a live world keeps its own time
    if (this.status.state !== 'running') return;
    const factor = SPEED_FACTOR[this.speed];
    if (factor === 0) return;
    const deadline = performance.now() + this.sliceMs;
    const outOfTime = () => performance.now() >= deadline;
    if (!Number.isFinite(factor)) {
      while (this.world.stepInstant() && !outOfTime());
      this.reanchor();
    } else {
      const target = this.virtualAnchor + ((this.clock() - this.wallAnchor) / 1000) * factor;
      this.world.runUntil(target, outOfTime);
      this.behindS = Math.max(0, target - this.world.engine.now);
      // Decision: a backlog beyond MAX_BACKLOG_WALL_S of wall time is dropped, so a speed the grid cannot reach
      // does not pile up work that would race ahead once the load eases.
      if (this.behindS > factor * MAX_BACKLOG_WALL_S) {
        this.virtualAnchor = this.world.engine.now + factor * MAX_BACKLOG_WALL_S;
        this.wallAnchor = this.clock();
        this.behindS = factor * MAX_BACKLOG_WALL_S;
      }
    }
    void this.flush();
  }

  /**
   * Before a command or a request: virtual time brought up to the wall clock, so that what is accepted lands at the
   * right time. A run at "max", or one already behind its speed, computes on its timer only: a request then costs
   * no slice of its own.
   */
  catchUp(): void {
    if (!this.live && (this.behindS > 0 || !Number.isFinite(SPEED_FACTOR[this.speed]))) return void this.flush();
    this.tick();
  }

  start(intervalMs = 100): void {
    this.timer ??= setInterval(() => this.tick(), intervalMs);
  }

  /** Stops the clock, a replay and the lab's runs (their workers are terminated); writes what is not stored yet. */
  /** Stops at once; the promise settles when a live run's connections and timers are closed too. */
  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.lab.shutdown();
    this.replay = undefined;
    // A live run's jobs keep running on the clusters; its connections close. Its latest state is kept for the
    // next start (application progress changes it without an event).
    this.flush(undefined, true);
    return this.stopLive();
  }

  private applySetting(key: string, value: unknown): { ok: true } | { ok: false; errors: Array<{ path: string; message: string }> } {
    return this.act((s, now) => this.applySettingTo(s, now, key, value));
  }

  private applySettingTo(s: Scheduler, now: number, key: string, value: unknown): { ok: true } | { ok: false; errors: Array<{ path: string; message: string }> } {
    // The queue settings are checked by the scheduler too: its refusal names the field.
    if (key === 'queue') return s.setQueuePolicy(String(value));
    if (key === 'reservationDepth') return s.setReservationDepth(value === null ? undefined : Number(value));
    if (key === 'priority') return s.setPriority(String(value));
    if (key === 'approach') s.setApproach(String(value));
    else if (key === 'policy') s.setPolicy(String(value));
    else if (key === 'triesThreshold') s.queue.triesThreshold = Number(value);
    else if (key === 'stream') this.world.setStream(value as JobStreamSettings);
    else if (key === 'jobs.cancel') s.cancel((value as { jobId: string }).jobId, now);
    else if (key === 'jobs.resize') s.resize((value as { jobId: string }).jobId, (value as { delta: number }).delta, now);
    return { ok: true };
  }

  /**
   * Writes, in one transaction, `command` (what the API just accepted) with the events not yet stored, the run's
   * clock, and when due the grid history and a live run's state. Nothing is written while a stored run is resumed,
   * cannot be, or is read-only. `final`: everything is written now (the host stops, or a live run begins).
   */
  flush(command?: StoredCommand, final = false): boolean {
    const recorder = this.recorder;
    if (!recorder || this.status.state !== 'running' || this.resuming) {
      if (this.status.state === 'running' && !this.resuming) {
        this.history.offer(this.now(), () => this.clusterSamples());
        if (!recorder) this.releaseEnded();
      }
      return !recorder;
    }
    if (this.history.offer(this.now(), () => this.clusterSamples())) this.historyDirty = true;
    // The history is one row, rewritten: at most every few seconds of wall time.
    const history = this.historyDirty && (final || this.clock() - this.historySavedAt >= GRID_HISTORY_SAVE_MS) ? this.history.state() : undefined;
    // A live world's state changes with its jobs' events: kept with them, so that a restart recovers every job.
    const live = this.live && this.liveReady && (final || recorder.pending > 0) ? this.live.persistentState() : undefined;
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
      this.status = { state: 'read-only', reason: `the store could not be written (${error instanceof Error ? error.message : String(error)}); the run stops where the store has it` };
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

  /** The Grid cards' interactive worker nodes (not kept in the history: what they show is now). */
  private withInteractive(samples: ClusterSample[]): ClusterSample[] {
    const scheduler = this.live ? this.live.scheduler : this.world.scheduler;
    return samples.map((c) => {
      const interactive = scheduler.interactiveSample(c.name);
      return interactive ? { ...c, interactive } : c;
    });
  }

  private clusterSamples(): ClusterSample[] {
    if (this.resuming) return []; // the live clusters are shown once the world has reconnected
    if (this.live) return liveClusterSnapshots(this.live.scheduler.snapshot(), this.live.clusters());
    return this.world.scheduler.snapshot().map((c) => ({ ...c, lastPoll: Number.isFinite(c.lastPoll) ? c.lastPoll : null }));
  }

  private reanchor(): void {
    this.wallAnchor = this.clock();
    this.virtualAnchor = this.world.engine.now;
  }

  private settings() {
    const s = this.scheduler;
    return {
      approach: s.approachName as 'pra' | 'pwa',
      policy: s.policy.name,
      triesThreshold: s.queue.triesThreshold,
      stream: this.world.streamSettings ?? NO_JOB_STREAM,
      ...this.queueSettings(),
    };
  }

  /** The run's queue settings now. */
  private queueSettings(): { queue: QueuePolicyName; reservationDepth: number | null; priority: QueuePriorityName } {
    const s = this.scheduler;
    return { queue: s.queuePolicyName, reservationDepth: s.reservationDepth ?? null, priority: s.priority };
  }
}
