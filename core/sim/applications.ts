// Simulated applications behind the ApplicationPort: each tracks its progress at its current size, answers grow
// offers and shrink requests as its model says, and tells its cluster when it is done. Evolving jobs with the
// evolving model ask for their own updates (apps/evolving.ts).
import type { ApplicationMessage, ApplicationPort, InteractiveTasks } from '../ports.js';
import type { JobSpec } from '../model/schemas.js';
import { componentRequest } from '../model/job.js';
import { appModel, type AppModel } from './apps/model.js';
import { EvolvingRun, workingSetProfile } from './apps/evolving.js';
import { EspEvolvingRun } from './apps/esp-evolving.js';
import { FpeRun } from './apps/fpe.js';
import { DEFAULT_PERIODIC_BEHAVIOUR, PeriodicApps } from './interactive/periodic-apps.js';
import type { EventEngine } from './engine.js';
import { Random } from '../random.js';

/** Run time of a job that names no application model. */
export const DEFAULT_RUNTIME_S = 600;

class RunningApp {
  /** Processors in use. */
  size = 0;
  /** Processors in use plus those accepted and on their way (what answers are based on). */
  committed = 0;
  /** Processors it runs on once its adaptations in progress are done (the scheduler's count of its active ones). */
  target = 0;
  /** An adaptation to `target` is under way. */
  adapting = false;
  /** Fraction of the work done. */
  done = 0;
  private since = 0;
  version = 0;

  constructor(
    readonly jobId: string,
    readonly model: AppModel,
    readonly min: number,
    readonly max: number,
  ) {}

  /** Brings progress up to `now` and changes the size; returns the time it will finish at the new size. */
  resize(size: number, now: number): number {
    if (this.size > 0) this.done += (now - this.since) / this.model.runtime(this.size);
    this.since = now;
    this.size = size;
    this.version++;
    return now + Math.max(0, 1 - this.done) * this.model.runtime(size);
  }
}

export class SimulatedApplications implements ApplicationPort {
  private readonly apps = new Map<string, RunningApp>();
  private readonly evolving = new Map<string, EvolvingRun>();
  /** The DBES benchmark's evolving jobs (apps/esp-evolving.ts): they ask for processors beyond what they hold. */
  private readonly espEvolving = new Map<string, EspEvolvingRun>();
  /** Updates refused so far, by job (an evolving model asks only inside its pre-allocation, so none are expected). */
  readonly refusedUpdates = new Map<string, string[]>();
  /** Fully-predictably evolving applications (apps/fpe.ts): they run their profile's steps as the scheduler says. */
  private readonly fpe = new Map<string, FpeRun>();
  /** Interactive jobs' applications: their iterations on their cluster's EDF worker nodes (interactive/periodic-apps.ts). */
  private readonly periodic: PeriodicApps;

  constructor(
    private readonly engine: EventEngine,
    private readonly deliver: (message: ApplicationMessage) => void,
    private readonly finished: (jobId: string) => void,
    /** Draws each evolving application's working-set profile (forked per job, so one job's draws do not shift another's). */
    private readonly random: Random = new Random(0),
    /**
     * Seconds a malleable application takes to adapt to a new size: it goes on at its old size meanwhile, then runs
     * on the processors it holds by then (grown ones that started during the adaptation included); a shrink's
     * processors are let go once it has adapted.
     */
    private readonly adaptS = 0,
  ) {
    this.periodic = new PeriodicApps({
      now: () => engine.now,
      at: (t, action) => engine.at(t, action),
      deliver,
      finished,
    });
  }

  /**
   * The job's processors are all active: its application starts. Returns the time it finishes at when nothing can
   * move it (a rigid job's: its size never changes), or undefined.
   */
  start(spec: JobSpec, jobId: string, size: number): number | undefined {
    if (spec.kind === 'interactive' && spec.interactive) {
      const behaviour = spec.app?.model === 'periodic' ? spec.app : DEFAULT_PERIODIC_BEHAVIOUR;
      const cluster = spec.components[0]!.cluster!;
      this.periodic.start(jobId, cluster, spec.interactive.arrivalMs, behaviour, spec.walltime ?? DEFAULT_RUNTIME_S);
      return undefined;
    }
    if (spec.profile) {
      const run = new FpeRun(spec.profile.steps, {
        now: () => this.engine.now,
        at: (t, action) => this.engine.at(t, action),
        update: (processors, announceS) => this.deliver({ type: 'update', jobId, processors, announceS }),
        finished: () => {
          if (this.fpe.get(jobId) !== run) return;
          this.fpe.delete(jobId);
          this.finished(jobId);
        },
      });
      this.fpe.set(jobId, run);
      run.start(size);
      return undefined;
    }
    if (spec.kind === 'evolving' && spec.app?.model === 'evolving') {
      const { phases, phaseS, announceS } = spec.app;
      const request = componentRequest(spec, 0);
      const profile = workingSetProfile(this.random.fork(`evolving:${jobId}`), request.min, request.max, size, phases);
      const run = new EvolvingRun(
        { profile, phaseS, announceS },
        {
          now: () => this.engine.now,
          at: (t, action) => this.engine.at(t, action),
          update: (processors, announce) =>
            this.deliver(
              announce > 0
                ? { type: 'update', jobId, processors, announceS: announce }
                : { type: 'update', jobId, processors },
            ),
          finished: () => {
            if (this.evolving.get(jobId) !== run) return;
            this.evolving.delete(jobId);
            this.finished(jobId);
          },
        },
      );
      this.evolving.set(jobId, run);
      run.start(size);
      return undefined;
    }
    if (spec.app?.model === 'esp-evolving') {
      const { runtime, extra, askAt } = spec.app;
      const run = new EspEvolvingRun(
        { runtimeS: runtime, extra, askAt },
        {
          now: () => this.engine.now,
          at: (t, action) => this.engine.at(t, action),
          request: (processors) => this.deliver({ type: 'update', jobId, processors }),
          finished: () => {
            if (this.espEvolving.get(jobId) !== run) return;
            this.espEvolving.delete(jobId);
            this.finished(jobId);
          },
        },
      );
      this.espEvolving.set(jobId, run);
      run.start(size);
      return undefined;
    }
    const model = appModel(spec.app, spec.walltime ?? DEFAULT_RUNTIME_S);
    const request = spec.kind === 'malleable' ? componentRequest(spec, 0) : undefined;
    const app = new RunningApp(jobId, model, request?.min ?? size, request?.max ?? size);
    this.apps.set(jobId, app);
    app.committed = size;
    const usable = spec.kind === 'malleable' ? model.usableSize(size, app.min) : size;
    app.target = usable;
    const end = this.setSize(app, usable);
    // FT given a size that is not a power of two lets the extra processors go on its own.
    if (usable < size) this.deliver({ type: 'released', jobId, processors: size - usable });
    app.committed = usable;
    return spec.kind === 'rigid' ? end : undefined;
  }

  stop(jobId: string): void {
    this.apps.delete(jobId);
    this.evolving.delete(jobId);
    this.espEvolving.delete(jobId);
    this.fpe.delete(jobId);
    this.periodic.stop(jobId);
  }

  interactiveTasks(jobId: string, tasks: InteractiveTasks): void {
    this.periodic.tasks(jobId, tasks);
  }

  /** Processors the application uses now (for tests). */
  sizeOf(jobId: string): number | undefined {
    return (
      this.apps.get(jobId)?.size ??
      this.evolving.get(jobId)?.current ??
      this.espEvolving.get(jobId)?.current ??
      this.fpe.get(jobId)?.current ??
      (this.periodic.has(jobId) ? 1 : undefined)
    );
  }

  updateRefused(jobId: string, reason: string): void {
    const list = this.refusedUpdates.get(jobId);
    if (list) list.push(reason);
    else this.refusedUpdates.set(jobId, [reason]);
    this.espEvolving.get(jobId)?.refused();
  }

  offerGrow(offerId: number, jobId: string, processors: number): void {
    const app = this.apps.get(jobId);
    const accepted = app ? app.model.acceptGrow(app.committed, processors, app.max) : 0;
    if (app) app.committed += accepted;
    this.deliver({ type: 'growAnswer', offerId, jobId, accepted });
  }

  growGranted(_offerId: number, jobId: string, granted: number, accepted: number): void {
    const app = this.apps.get(jobId);
    if (app) app.committed -= accepted - granted;
  }

  requestShrink(offerId: number, jobId: string, processors: number, _mandatory?: boolean, deadline?: number): void {
    const app = this.apps.get(jobId);
    const accepted = app
      ? Math.min(app.model.acceptShrink(app.committed, processors, app.min), app.target - app.min)
      : 0;
    this.deliver({ type: 'shrinkAnswer', offerId, jobId, accepted });
    if (!app || accepted <= 0) return;
    app.committed -= accepted;
    app.target -= accepted;
    const release = () => {
      if (this.apps.get(jobId) !== app) return;
      this.setSize(app, Math.min(app.size, app.target));
      this.deliver({ type: 'released', jobId, processors: accepted, offerId });
    };
    // The processors are let go once the application has adapted (at once with no adapt time), or kept working
    // until the deadline of a shrink ahead of an announced update.
    const at = Math.max(this.engine.now + this.adaptS, deadline ?? Number.NEGATIVE_INFINITY);
    if (at > this.engine.now) this.engine.at(at, release);
    else release();
  }

  runtimeAt(jobId: string, size: number): number | undefined {
    return this.apps.get(jobId)?.model.runtime(size);
  }

  resized(jobId: string, size: number): void {
    const fpe = this.fpe.get(jobId);
    if (fpe) {
      fpe.resize(size);
      return;
    }
    const esp = this.espEvolving.get(jobId);
    if (esp) {
      esp.resize(size);
      return;
    }
    const run = this.evolving.get(jobId);
    if (run) {
      if (size !== run.current) run.resize(size);
      return;
    }
    const app = this.apps.get(jobId);
    if (!app) return;
    app.target = size;
    if (this.adaptS <= 0) {
      if (size !== app.size) this.setSize(app, size);
      return;
    }
    if (app.adapting || size === app.size) return;
    app.adapting = true;
    this.engine.at(this.engine.now + this.adaptS, () => {
      app.adapting = false;
      if (this.apps.get(jobId) === app && app.target !== app.size) this.setSize(app, app.target);
    });
  }

  /** Runs the application at `size` from now; returns the time it finishes at that size. */
  private setSize(app: RunningApp, size: number): number {
    const end = app.resize(size, this.engine.now);
    const version = app.version;
    this.engine.at(end, () => {
      if (this.apps.get(app.jobId) === app && app.version === version) {
        this.apps.delete(app.jobId);
        this.finished(app.jobId);
      }
    });
    return end;
  }
}
