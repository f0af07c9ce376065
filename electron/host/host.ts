// The host: owns a scheduler over a grid (by default the simulated DAS-3, living in virtual time that follows the
// wall clock at the chosen speed), serves the typed API and streams the scheduler's events.
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, type GridSpec, type JobSpec } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { SimWorld } from '../../core/sim/world.js';
import type { ApiResult, MethodName, Speed, StreamMessage } from '../api/contract.js';
import { createDispatcher, type Dispatch } from '../api/dispatcher.js';
import { LabRunner } from '../lab/runner.js';
import type { RunConfig, Store, StoredTemplate } from '../store/store.js';

const SPEED_FACTOR: Record<Speed, number> = { pause: 0, '1x': 1, '10x': 10, '100x': 100, max: Number.POSITIVE_INFINITY };
/** At "max", one tick simulates for at most this long, so the API stays responsive. */
const MAX_SPEED_SLICE_MS = 50;

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
  private unsaved: SchedulerEvent[] = [];

  constructor(options: HostOptions = {}) {
    this.store = options.store;
    const resumed = this.store?.run();
    const run: RunConfig = resumed ?? { grid: options.grid ?? gridSpecSchema.parse(gridPreset('das3')), workload: options.workload ?? 'wm', seed: options.seed ?? 1 };
    this.open(run, resumed !== undefined);
    this.clock = options.clock ?? (() => performance.now());
    this.speed = options.speed ?? '1x';
    this.wallAnchor = this.clock();
    this.virtualAnchor = this.world.engine.now;
    this.lab = new LabRunner({ store: this.store });
    this.dispatch = createDispatcher({
      'grid.snapshot': () => ({
        ok: true,
        value: {
          time: this.world.engine.now,
          speed: this.speed,
          clusters: this.world.scheduler.snapshot().map((c) => ({ ...c, lastPoll: Number.isFinite(c.lastPoll) ? c.lastPoll : null })),
        },
      }),
      'jobs.submit': (spec) => {
        this.tick();
        const r = this.world.submit(spec);
        if (!r.ok) return r;
        // On disk before the answer: a job the API accepted survives a crash.
        this.store?.addSubmission({ t: this.world.engine.now, spec });
        this.flush();
        return { ok: true, value: { jobId: r.value.id } };
      },
      'jobs.cancel': ({ jobId }) => {
        this.tick();
        const r = this.world.scheduler.cancel(jobId, this.world.engine.now);
        if (!r.ok) return r;
        this.record('jobs.cancel', { jobId });
        return { ok: true, value: { jobId } };
      },
      'jobs.resize': ({ jobId, delta }) => {
        this.tick();
        const r = this.world.scheduler.resize(jobId, delta, this.world.engine.now);
        if (!r.ok) return r;
        this.record('jobs.resize', { jobId, delta });
        return r;
      },
      'jobs.list': ({ states, limit, since }) => {
        // Every change to a job is an event: the run and its event count tell whether anything listed may differ.
        const version = `${this.runNumber}:${this.world.scheduler.eventCount}`;
        const wanted = states ? new Set(states) : undefined;
        if (since === version) {
          let total = 0;
          for (const j of this.world.scheduler.jobs()) if (!wanted || wanted.has(j.state)) total++;
          return { ok: true, value: { jobs: [], total, version, unchanged: true } };
        }
        const all = [...this.world.scheduler.jobs()].filter((j) => !wanted || wanted.has(j.state));
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
        this.tick();
        this.speed = speed;
        this.reanchor();
        return { ok: true, value: { speed } };
      },
      'sim.reset': ({ grid, workload, seed }) => {
        this.tick();
        // The world is built before the store forgets the old run: a grid the simulator refuses changes nothing.
        try {
          this.open({ grid, workload, seed }, false);
        } catch (error) {
          return { ok: false, errors: [{ path: 'grid', message: error instanceof Error ? error.message : String(error) }] };
        }
        this.reanchor();
        this.flush();
        return { ok: true, value: { grid: grid.name, clusters: grid.clusters.length, workload, jobs: this.world.totalJobs, seed } };
      },
      'settings.get': () => ({ ok: true, value: this.settings() }),
      'settings.set': (changes) => {
        this.tick();
        for (const [key, value] of Object.entries(changes)) {
          if (value === undefined) continue;
          this.applySetting(key, value);
          this.store?.addSetting({ t: this.world.engine.now, key, value });
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
      'lab.list': () => ({ ok: true, value: { runs: this.lab.list() } }),
      'lab.result': ({ runId }) => this.lab.result(runId),
    });
  }

  /** The simulated grid; `sim.reset` replaces it. */
  get world(): SimWorld {
    return this.current;
  }

  /** Builds the world of a run and makes it current; a resumed run is replayed from the store up to its clock. */
  private open(run: RunConfig, resumed: boolean): void {
    const jobs: JobSpec[] = run.workload === 'none' ? [] : (workloadPreset(run.workload, run.seed) ?? []);
    const world = new SimWorld({ grid: gridSpecSchema.parse(run.grid), jobs, seed: run.seed, endless: true, metrics: false });
    this.current = world;
    this.runNumber++;
    this.unsaved = [];
    if (this.store) {
      // Events already stored are replayed identically (the run is deterministic): only later ones are written.
      let replayed = resumed ? this.store.eventCount() : 0;
      world.scheduler.on((e) => {
        if (replayed > 0) replayed--;
        else this.unsaved.push(e);
      });
    }
    if (resumed && this.store) this.replay(this.store);
    else this.store?.startRun(run);
    for (const s of this.subscribers) {
      s.off();
      s.off = world.scheduler.on(s.listener);
    }
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
    this.store?.addSetting({ t: this.world.engine.now, key, value });
    // Its effects happen in the scheduler's next pass: make sure the engine visits this instant again.
    this.world.engine.soon(() => undefined);
    this.flush();
  }

  private templates(): StoredTemplate[] {
    return this.store ? this.store.templates() : [...this.memoryTemplates.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  call<M extends MethodName>(method: M, payload: unknown): ApiResult<M> {
    return this.dispatch(method, payload) as ApiResult<M>;
  }

  /** Every scheduler event, as it happens. */
  subscribe(listener: (event: SchedulerEvent) => void): () => void {
    const entry = { listener, off: this.world.scheduler.on(listener) };
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
  }

  private applySetting(key: string, value: unknown): void {
    const s = this.world.scheduler;
    const now = this.world.engine.now;
    if (key === 'approach') s.setApproach(String(value));
    else if (key === 'policy') s.setPolicy(String(value));
    else if (key === 'triesThreshold') s.queue.triesThreshold = Number(value);
    else if (key === 'jobs.cancel') s.cancel((value as { jobId: string }).jobId, now);
    else if (key === 'jobs.resize') s.resize((value as { jobId: string }).jobId, (value as { delta: number }).delta, now);
  }

  /** Writes the events since the last flush and the virtual clock. */
  flush(): void {
    if (!this.store) return;
    this.store.addEvents(this.unsaved);
    this.unsaved = [];
    this.store.setClock(this.world.engine.now);
  }

  private reanchor(): void {
    this.wallAnchor = this.clock();
    this.virtualAnchor = this.world.engine.now;
  }

  private settings() {
    const s = this.world.scheduler;
    return { approach: s.approachName as 'pra' | 'pwa', policy: s.policy.name, triesThreshold: s.queue.triesThreshold };
  }
}
