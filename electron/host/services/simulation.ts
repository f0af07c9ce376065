// The simulated run's clock and its new runs (`sim.*`): virtual time follows the wall clock at the chosen speed,
// computed in slices so that the API is served between them; a run that cannot keep up falls behind.
import type { Speed } from '../../api/contract.js';
import type { StoredQueueSettings } from '../../store/store.js';
import type { LiveRunService } from './live-run.js';
import { refused, type HostRun, type ServiceHandlers } from './run.js';
import type { SettingsService } from './settings.js';

const SPEED_FACTOR: Record<Speed, number> = {
  pause: 0,
  '1x': 1,
  '10x': 10,
  '100x': 100,
  max: Number.POSITIVE_INFINITY,
};
/** A run behind its speed keeps at most this much wall time of backlog: past it, the backlog is dropped, not chased. */
const MAX_BACKLOG_WALL_S = 10;
/** Why a live run's speed cannot change: the refusal of sim.setSpeed, and what the snapshot says beside the speed. */
export const LIVE_SPEED_FIXED =
  'a live run follows real time: its speed cannot change (a simulated run can: switch the live run off in Settings → Clusters, or sim.reset)';

export class SimulationService {
  private speedNow: Speed;
  private wallAnchor = 0;
  private virtualAnchor = 0;
  /** Virtual seconds behind the chosen speed after the last tick. */
  private behind = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly run: HostRun,
    private readonly live: LiveRunService,
    private readonly settings: SettingsService,
    /** Wall clock in milliseconds. */
    private readonly clock: () => number,
    /** Wall milliseconds one tick may compute. */
    private readonly sliceMs: number,
    speed: Speed,
  ) {
    this.speedNow = speed;
  }

  get speed(): Speed {
    return this.speedNow;
  }

  get behindS(): number {
    return this.behind;
  }

  /** The wall clock and virtual time start again from here (a new speed, a new or resumed run); nothing is behind. */
  restart(): void {
    this.behind = 0;
    this.reanchor();
  }

  private reanchor(): void {
    this.wallAnchor = this.clock();
    this.virtualAnchor = this.run.world.engine.now;
  }

  /**
   * Brings virtual time up to the wall clock at the current speed, computing for at most one slice: a run that
   * cannot keep up falls behind (`behindS` in the snapshot) instead of holding the host.
   */
  tick(): void {
    const run = this.run;
    if (run.mode.liveWorld) return void run.flush(); // a live world keeps its own time
    if (run.status.state !== 'running') return;
    const factor = SPEED_FACTOR[this.speedNow];
    if (factor === 0) return;
    const world = run.world;
    const deadline = performance.now() + this.sliceMs;
    const outOfTime = () => performance.now() >= deadline;
    if (!Number.isFinite(factor)) {
      while (world.stepInstant() && !outOfTime());
      this.reanchor();
    } else {
      const target = this.virtualAnchor + ((this.clock() - this.wallAnchor) / 1000) * factor;
      world.runUntil(target, outOfTime);
      this.behind = Math.max(0, target - world.engine.now);
      // Decision: a backlog beyond MAX_BACKLOG_WALL_S of wall time is dropped, so a speed the grid cannot reach
      // does not pile up work that would race ahead once the load eases.
      if (this.behind > factor * MAX_BACKLOG_WALL_S) {
        this.virtualAnchor = world.engine.now + factor * MAX_BACKLOG_WALL_S;
        this.wallAnchor = this.clock();
        this.behind = factor * MAX_BACKLOG_WALL_S;
      }
    }
    void run.flush();
  }

  /**
   * Before a command or a request: virtual time brought up to the wall clock, so that what is accepted lands at the
   * right time. A run at "max", or one already behind its speed, computes on its timer only: a request then costs
   * no slice of its own.
   */
  catchUp(): void {
    if (!this.run.mode.liveWorld && (this.behind > 0 || !Number.isFinite(SPEED_FACTOR[this.speedNow])))
      return void this.run.flush();
    this.tick();
  }

  start(intervalMs: number): void {
    this.timer ??= setInterval(() => this.tick(), intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  handlers(): ServiceHandlers<'sim.setSpeed' | 'sim.reset'> {
    const run = this.run;
    return {
      'sim.setSpeed': ({ speed }) => {
        if (run.mode.isLive) return refused('speed', LIVE_SPEED_FIXED);
        this.catchUp();
        this.speedNow = speed;
        this.restart();
        return { ok: true, value: { speed } };
      },
      'sim.reset': ({ grid, workload, seed, ...queueChanges }) => {
        this.catchUp();
        let backup: string | undefined;
        // Decision: a new run keeps the current run's queue settings, except those the reset gives.
        const current = this.settings.queueSettings();
        const carried = this.settings.carried();
        const queue: StoredQueueSettings = {
          queue: queueChanges.queue ?? current.queue,
          reservationDepth:
            queueChanges.reservationDepth !== undefined ? queueChanges.reservationDepth : current.reservationDepth,
          priority: queueChanges.priority ?? current.priority,
        };
        // The world is built before the store forgets the old run: a grid the simulator refuses changes nothing.
        try {
          run.open(
            { grid, workload, seed, streamFrom: 'start', queue },
            {
              beforeSwitch: () => {
                backup = run.keepUnresumedRun();
                void this.live.stop();
              },
            },
          );
        } catch (error) {
          return refused('grid', error instanceof Error ? error.message : String(error));
        }
        this.restart();
        run.flush();
        // Decision: the other scheduler settings (approach, policy, tries threshold, FPE variant) are kept too.
        this.settings.carryInto(carried);
        return {
          ok: true,
          value: {
            grid: grid.name,
            clusters: grid.clusters.length,
            workload,
            jobs: run.world.totalJobs,
            seed,
            ...(backup ? { backup } : {}),
          },
        };
      },
    };
  }
}
