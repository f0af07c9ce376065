// The host: owns a scheduler over a grid (by default the simulated DAS-3, living in virtual time that follows the
// wall clock at the chosen speed), serves the typed API and streams the scheduler's events.
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, type GridSpec, type JobSpec } from '../../core/model/schemas.js';
import { gridPreset } from '../../core/sim/grids.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import { SimWorld } from '../../core/sim/world.js';
import type { ApiResult, MethodName, Speed } from '../api/contract.js';
import { createDispatcher, type Dispatch } from '../api/dispatcher.js';
import type { RunConfig, Store } from '../store/store.js';

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
  readonly world: SimWorld;
  readonly dispatch: Dispatch;
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
    const jobs: JobSpec[] = run.workload === 'none' ? [] : (workloadPreset(run.workload, run.seed) ?? []);
    this.world = new SimWorld({ grid: gridSpecSchema.parse(run.grid), jobs, seed: run.seed, endless: true, metrics: false });
    if (this.store) {
      // Events already stored are replayed identically (the run is deterministic): only later ones are written.
      let replayed = resumed ? this.store.eventCount() : 0;
      this.world.scheduler.on((e) => {
        if (replayed > 0) replayed--;
        else this.unsaved.push(e);
      });
    }
    if (resumed && this.store) {
      for (const s of this.store.submissions()) this.world.submitAt(s.t, s.spec);
      for (const s of this.store.settings()) this.world.engine.at(s.t, () => this.applySetting(s.key, s.value));
      this.world.runUntil(this.store.clock());
    } else this.store?.startRun(run);
    this.clock = options.clock ?? (() => performance.now());
    this.speed = options.speed ?? '1x';
    this.wallAnchor = this.clock();
    this.virtualAnchor = this.world.engine.now;
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
        const r = this.world.scheduler.cancel(jobId, this.world.engine.now);
        return r.ok ? { ok: true, value: { jobId } } : r;
      },
      'jobs.list': ({ states, limit }) => {
        const wanted = states ? new Set(states) : undefined;
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
        return { ok: true, value: { jobs, total: all.length } };
      },
      'sim.setSpeed': ({ speed }) => {
        this.tick();
        this.speed = speed;
        this.reanchor();
        return { ok: true, value: { speed } };
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
    });
  }

  call<M extends MethodName>(method: M, payload: unknown): ApiResult<M> {
    return this.dispatch(method, payload) as ApiResult<M>;
  }

  /** Every scheduler event, as it happens. */
  subscribe(listener: (event: SchedulerEvent) => void): () => void {
    return this.world.scheduler.on(listener);
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

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
  }

  private applySetting(key: string, value: unknown): void {
    const s = this.world.scheduler;
    if (key === 'approach') s.setApproach(String(value));
    else if (key === 'policy') s.setPolicy(String(value));
    else if (key === 'triesThreshold') s.queue.triesThreshold = Number(value);
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
