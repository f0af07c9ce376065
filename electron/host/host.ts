// The host: owns a scheduler over a grid (by default the simulated DAS-3, living in virtual time that follows the
// wall clock at the chosen speed), serves the typed API and streams the scheduler's events.
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, type GridSpec, type JobSpec } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { SimWorld } from '../../core/sim/world.js';
import { gridHistoryStateSchema, type ApiResult, type AsyncMethodName, type ClusterSample, type MethodName, type Speed, type StreamMessage } from '../api/contract.js';
import { createDispatcher, type Dispatch } from '../api/dispatcher.js';
import { LabRunner } from '../lab/runner.js';
import { GridHistory } from './grid-history.js';
import type { RunConfig, Store, StoredTemplate } from '../store/store.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';
import type { LiveClusterConfig, LiveWorld } from '../../runners/live/types.js';
import { ClusterService, type ClusterServiceOptions } from '../live/cluster-service.js';
import { clustersSecretSource, createLiveWorldFromConfig, liveClusterSnapshots, type LiveWorldFactory, type LiveWorldFactoryOptions } from '../live/live-run.js';

const SPEED_FACTOR: Record<Speed, number> = { pause: 0, '1x': 1, '10x': 10, '100x': 100, max: Number.POSITIVE_INFINITY };
/** At "max", one tick simulates for at most this long, so the API stays responsive. */
const MAX_SPEED_SLICE_MS = 50;
/** The grid history: samples shown (as many as a console chart keeps), first spacing, how often it is stored. */
const GRID_HISTORY_LIMIT = 300;
const GRID_HISTORY_STEP_S = 10;
const GRID_HISTORY_SAVE_MS = 5000;
/** Without a store, the host remembers this many recent events for jobs.events (memory stays bounded). */
const RECENT_EVENTS = 20_000;

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
}

/** How the store marks a live run (its clusters are the configured ones; its jobs' times are seconds since it began). */
const LIVE_RUN: RunConfig = { grid: null, workload: 'none', seed: 0, mode: 'live' };

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
  private unsaved: SchedulerEvent[] = [];
  /** Utilization over the whole run, downsampled, for consoles that open late (grid.history). */
  private history = new GridHistory<ClusterSample>();
  private historySavedAt = Number.NEGATIVE_INFINITY;
  private historyDirty = false;
  private recentEvents: SchedulerEvent[] = [];
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

  constructor(options: HostOptions = {}) {
    this.store = options.store;
    this.clusters = new ClusterService({ ...options.clusters, ...(this.store ? { store: this.store } : {}) });
    this.liveWorldFactory = options.liveWorld ?? createLiveWorldFromConfig;
    const resumed = this.store?.run();
    const resumedLive = resumed?.mode === 'live';
    const run: RunConfig =
      resumed && !resumedLive ? resumed : { grid: options.grid ?? gridSpecSchema.parse(gridPreset('das3')), workload: resumedLive ? 'none' : (options.workload ?? 'wm'), seed: options.seed ?? 1 };
    // A resumed live run keeps an idle simulated world underneath, never stored.
    this.open(run, resumed !== undefined && !resumedLive, resumedLive);
    if (resumedLive) this.resumeLive();
    this.clock = options.clock ?? (() => performance.now());
    this.speed = options.speed ?? '1x';
    this.wallAnchor = this.clock();
    this.virtualAnchor = this.world.engine.now;
    this.lab = new LabRunner({ store: this.store });
    this.dispatch = createDispatcher({
      'grid.snapshot': () => ({
        ok: true,
        value: {
          time: this.now(),
          speed: this.live ? '1x' : this.speed,
          clusters: this.clusterSamples(),
          mode: this.live || this.resuming ? 'live' : 'sim',
        },
      }),
      'grid.history': () => ({ ok: true, value: { samples: this.history.view() } }),
      'jobs.events': ({ jobId }) => {
        if (!this.scheduler.job(jobId)) return { ok: false, errors: [{ path: 'jobId', message: `no job "${jobId}"` }] };
        this.flush();
        const events = this.store ? this.store.events(jobId) : this.recentEvents.filter((e) => 'jobId' in e && e.jobId === jobId);
        return { ok: true, value: { events } };
      },
      'jobs.views': ({ jobId }) => {
        const now = this.now();
        const views = this.scheduler.views(jobId, now);
        if (!views) return { ok: false, errors: [{ path: 'jobId', message: `no job "${jobId}"` }] };
        return { ok: true, value: { now, ...views } };
      },
      'jobs.submit': (spec) => {
        if (this.resuming) return this.stillResuming();
        this.tick();
        const r = this.live ? this.live.act((s, now) => s.submit(spec, now)) : this.world.submit(spec);
        if (!r.ok) return r;
        // On disk before the answer: a job the API accepted survives a crash.
        this.store?.addSubmission({ t: this.now(), spec });
        this.flush();
        return { ok: true, value: { jobId: r.value.id } };
      },
      'jobs.cancel': ({ jobId }) => {
        if (this.resuming) return this.stillResuming();
        this.tick();
        const r = this.act((s, now) => s.cancel(jobId, now));
        if (!r.ok) return r;
        this.record('jobs.cancel', { jobId });
        return { ok: true, value: { jobId } };
      },
      'jobs.resize': ({ jobId, delta }) => {
        if (this.resuming) return this.stillResuming();
        this.tick();
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
          return { ok: true, value: { jobs: [], total, version, unchanged: true } };
        }
        const all = [...this.scheduler.jobs()].filter((j) => !wanted || wanted.has(j.state));
        const jobs = all.slice(-limit).map((j) => ({
          id: j.id,
          name: j.spec.name ?? j.id,
          kind: j.kind,
          state: j.state,
          tries: j.tries,
          lastFailure: j.lastFailure,
          size: j.size,
          min: j.min,
          max: j.max,
          placement: j.spec.placement,
          clusters: j.components.map((c) => c.cluster),
          submitted: j.transitions[0]!.time,
        }));
        return { ok: true, value: { jobs, total: all.length, version } };
      },
      'sim.setSpeed': ({ speed }) => {
        if (this.live || this.resuming) return { ok: false, errors: [{ path: 'speed', message: 'a live run follows real time: its speed cannot change (sim.reset starts a simulated run)' }] };
        this.tick();
        this.speed = speed;
        this.reanchor();
        return { ok: true, value: { speed } };
      },
      'sim.reset': ({ grid, workload, seed }) => {
        this.tick();
        // The world is built before the store forgets the old run: a grid the simulator refuses changes nothing.
        try {
          this.open({ grid, workload, seed }, false, false, () => void this.stopLive());
        } catch (error) {
          return { ok: false, errors: [{ path: 'grid', message: error instanceof Error ? error.message : String(error) }] };
        }
        this.reanchor();
        this.flush();
        return { ok: true, value: { grid: grid.name, clusters: grid.clusters.length, workload, jobs: this.world.totalJobs, seed } };
      },
      'settings.get': () => ({ ok: true, value: this.settings() }),
      'settings.set': (changes) => {
        if (this.resuming) return this.stillResuming();
        this.tick();
        for (const [key, value] of Object.entries(changes)) {
          if (value === undefined) continue;
          this.applySetting(key, value);
          this.store?.addSetting({ t: this.now(), key, value });
        }
        return { ok: true, value: this.settings() };
      },
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
      'lab.start': (spec) => ({ ok: true, value: { runId: this.lab.start(spec) } }),
      'lab.cancel': ({ runId }) => this.lab.cancel(runId),
      'clusters.list': () => this.clusters.list(),
      'clusters.save': (config) => this.clusters.save(config),
      'clusters.remove': ({ name }) => this.clusters.remove(name),
      'clusters.test': (config) => this.clusters.test(config),
      'clusters.acceptHostKey': ({ host, port, fingerprint, cluster }) => this.clusters.acceptHostKey(host, port, fingerprint, cluster),
      'clusters.setSecret': ({ cluster, kind, value }) => this.clusters.setSecret(cluster, kind, value),
      'clusters.stageAssets': ({ name }) => this.stageAssets(name),
      'run.startLive': () => this.startLive(),
      'lab.list': () => ({ ok: true, value: { runs: this.lab.list() } }),
      'lab.result': ({ runId }) => this.lab.result(runId),
    });
  }

  /** The simulated grid; `sim.reset` replaces it. */
  get world(): SimWorld {
    return this.current;
  }

  /**
   * Builds the world of a run and makes it current; a resumed run is replayed from the store up to its clock.
   * `idle`: the simulated world under a resumed live run (not stored, not followed). `beforeSwitch` runs once the
   * new world is built, before it replaces the current one.
   */
  private open(run: RunConfig, resumed: boolean, idle = false, beforeSwitch?: () => void): void {
    const jobs: JobSpec[] = run.workload === 'none' ? [] : (workloadPreset(run.workload, run.seed) ?? []);
    const world = new SimWorld({ grid: gridSpecSchema.parse(run.grid), jobs, seed: run.seed, endless: true, metrics: false });
    beforeSwitch?.();
    this.current = world;
    if (idle) return;
    // Events already stored are replayed identically (the run is deterministic): only later ones are written.
    this.follow(world.scheduler, resumed && this.store ? this.store.eventCount() : 0, resumed);
    if (resumed && this.store) this.replay(this.store);
    else this.store?.startRun(run);
  }

  /** Makes `scheduler` the run's: its events recorded (past the first `replayed`), streamed and charted. */
  private follow(scheduler: Pick<Scheduler, 'on'>, replayed: number, resumed: boolean): void {
    this.runNumber++;
    this.unsaved = [];
    this.recentEvents = [];
    if (!this.store)
      scheduler.on((e) => {
        this.recentEvents.push(e);
        if (this.recentEvents.length >= 2 * RECENT_EVENTS) this.recentEvents = this.recentEvents.slice(-RECENT_EVENTS);
      });
    if (this.store) {
      scheduler.on((e) => {
        if (replayed > 0) replayed--;
        else this.unsaved.push(e);
      });
    }
    const storedHistory = resumed ? gridHistoryStateSchema.safeParse(this.store?.gridHistory()) : undefined;
    this.history = new GridHistory<ClusterSample>(GRID_HISTORY_LIMIT, GRID_HISTORY_STEP_S, storedHistory?.success ? storedHistory.data : undefined);
    for (const s of this.subscribers) {
      s.off();
      s.off = scheduler.on(s.listener);
    }
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
    let world: LiveWorld;
    try {
      world = this.liveWorldFactory(this.liveWorldOptions(clusters));
      await world.start();
    } catch (error) {
      return { ok: false, errors: [{ path: 'clusters', message: `the live run could not start: ${error instanceof Error ? error.message : String(error)}` }] };
    }
    this.tick();
    await this.stopLive();
    this.store?.startRun(LIVE_RUN);
    // Stored at once, before any job: it holds the run's id, by which a resumed run knows its jobs on the clusters.
    this.store?.saveLiveState(world.persistentState());
    this.live = world;
    this.liveReady = true;
    this.follow(world, 0, false);
    this.flush();
    return { ok: true, value: { clusters: clusters.map((c) => c.name) } };
  }

  private liveWorldOptions(clusters: readonly LiveClusterConfig[], restore?: unknown): LiveWorldFactoryOptions {
    return {
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
      world = this.liveWorldFactory(this.liveWorldOptions(this.clusters.configs(), store.liveState()));
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
        for (const setting of store.settings()) {
          if (setting.key === 'approach' || setting.key === 'policy' || setting.key === 'triesThreshold') this.applySetting(setting.key, setting.value);
        }
        // Events of the earlier sessions are kept; the resumed world's are appended.
        this.follow(world, 0, true);
        this.unsaved.push(...duringStart);
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
    this.resuming = undefined; // a world still starting stops itself when it has

    await world?.stop();
  }

  /**
   * Replays what the API accepted as it was taken: the world brought up to the command's virtual time, then the
   * command. Decision: at the same instant, submissions go before settings and operator commands (their relative
   * order there is not stored; across instants it is).
   */
  private replay(store: Store): void {
    const world = this.current;
    const commands = [
      ...store.submissions().map((s) => ({ t: s.t, apply: () => void world.submit(s.spec) })),
      ...store.settings().map((s) => ({ t: s.t, apply: () => this.applySetting(s.key, s.value) })),
    ].sort((a, b) => a.t - b.t);
    for (const command of commands) {
      world.runUntil(command.t);
      command.apply();
    }
    world.runUntil(store.clock());
  }

  /** Keeps an operator's command with the run, so that a resumed run replays it. */
  private record(key: string, value: unknown): void {
    this.store?.addSetting({ t: this.now(), key, value });
    // Its effects happen in the scheduler's next pass: make sure the engine visits this instant again (a live
    // world's act re-arms its own timer).
    if (!this.live) this.world.engine.soon(() => undefined);
    this.flush();
  }

  private templates(): StoredTemplate[] {
    return this.store ? this.store.templates() : [...this.memoryTemplates.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  call<M extends MethodName>(method: M, payload: unknown): M extends AsyncMethodName ? Promise<ApiResult<M>> : ApiResult<M> {
    return this.dispatch(method, payload);
  }

  /** Every scheduler event, as it happens. */
  subscribe(listener: (event: SchedulerEvent) => void): () => void {
    const entry = { listener, off: this.scheduler.on(listener) };
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

  /** Brings virtual time up to the wall clock at the current speed. */
  tick(): void {
    if (this.live) return this.flush(); // a live world keeps its own time
    const factor = SPEED_FACTOR[this.speed];
    if (factor === 0) return;
    if (!Number.isFinite(factor)) {
      const until = this.clock() + MAX_SPEED_SLICE_MS;
      while (this.clock() < until && this.world.stepInstant());
      this.reanchor();
      this.flush();
      return;
    }
    const target = this.virtualAnchor + ((this.clock() - this.wallAnchor) / 1000) * factor;
    this.world.runUntil(target);
    this.flush();
  }

  start(intervalMs = 100): void {
    this.timer ??= setInterval(() => this.tick(), intervalMs);
  }

  /** Stops the clock and the lab's runs (their workers are terminated). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.lab.shutdown();
    this.flush();
    // A live run's jobs keep running on the clusters; its connections close. Its latest state is kept for the
    // next start (application progress changes it without an event).
    if (this.live && this.liveReady) this.store?.saveLiveState(this.live.persistentState());
    void this.stopLive();
    if (this.historyDirty) this.store?.saveGridHistory(this.history.state());
    this.historyDirty = false;
  }

  private applySetting(key: string, value: unknown): void {
    this.act((s, now) => this.applySettingTo(s, now, key, value));
  }

  private applySettingTo(s: Scheduler, now: number, key: string, value: unknown): void {
    if (key === 'approach') s.setApproach(String(value));
    else if (key === 'policy') s.setPolicy(String(value));
    else if (key === 'triesThreshold') s.queue.triesThreshold = Number(value);
    else if (key === 'jobs.cancel') s.cancel((value as { jobId: string }).jobId, now);
    else if (key === 'jobs.resize') s.resize((value as { jobId: string }).jobId, (value as { delta: number }).delta, now);
  }

  /** Writes the events since the last flush and the virtual clock. */
  flush(): void {
    if (this.history.offer(this.now(), () => this.clusterSamples())) this.historyDirty = true;
    if (!this.store) return;
    // The history is one row, rewritten: at most every few seconds of wall time.
    if (this.historyDirty && this.clock() - this.historySavedAt >= GRID_HISTORY_SAVE_MS) {
      this.store.saveGridHistory(this.history.state());
      this.historySavedAt = this.clock();
      this.historyDirty = false;
    }
    // A live world's state changes with its jobs' events: kept with them, so that a restart recovers every job.
    if (this.live && this.liveReady && this.unsaved.length) this.store.saveLiveState(this.live.persistentState());
    this.store.addEvents(this.unsaved);
    this.unsaved = [];
    this.store.setClock(this.now());
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
    return { approach: s.approachName as 'pra' | 'pwa', policy: s.policy.name, triesThreshold: s.queue.triesThreshold };
  }
}
