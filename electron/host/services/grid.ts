// What the Grid and Activity views read (`grid.*`, `activity.history`): the clusters now, with the run's time, speed
// and mode, and the utilization and operations over the whole run for consoles that open late.
import type { ClusterSnapshot } from '../../../core/model/cluster-snapshot.js';
import type { ActivityHistory } from '../activity-history.js';
import type { GridHistory } from '../grid-history.js';
import type { HostRun, ServiceHandlers } from './run.js';
import { LIVE_SPEED_FIXED, type SimulationService } from './simulation.js';

/** What the host records of the run for these views. */
export interface RunRecords {
  readonly history: GridHistory<ClusterSnapshot>;
  readonly activity: ActivityHistory;
  /** Virtual seconds the current run computed before its clock started (0: none, or a resumed run). */
  readonly warmedUpS: number;
  /** The clusters now, as the grid history keeps them. */
  clusterSamples(): ClusterSnapshot[];
}

export class GridService {
  constructor(
    private readonly run: HostRun,
    private readonly records: RunRecords,
    private readonly simulation: SimulationService,
  ) {}

  /** The Grid cards' interactive worker nodes (not kept in the history: what they show is now). */
  private withInteractive(samples: readonly ClusterSnapshot[]): ClusterSnapshot[] {
    const scheduler = this.run.scheduler;
    return samples.map((c) => {
      const interactive = scheduler.interactiveSample(c.name);
      return interactive ? { ...c, interactive } : c;
    });
  }

  handlers(): ServiceHandlers<'grid.snapshot' | 'grid.history' | 'activity.history'> {
    const { run, records } = this;
    return {
      'grid.snapshot': () => {
        const live = run.mode.liveWorld !== undefined;
        return {
          ok: true,
          value: {
            time: run.now(),
            speed: live ? '1x' : this.simulation.speed,
            clusters: this.withInteractive(records.clusterSamples()),
            mode: run.mode.isLive ? 'live' : 'sim',
            run: run.status,
            behindS: live ? 0 : this.simulation.behindS,
            ...(records.warmedUpS > 0 && !live ? { warmedUpS: records.warmedUpS } : {}),
            ...(run.mode.isLive ? { speedFixed: LIVE_SPEED_FIXED } : {}),
          },
        };
      },
      'grid.history': () => ({ ok: true, value: { samples: records.history.view() } }),
      'activity.history': () => {
        const now = run.now();
        return { ok: true, value: { now, ...records.activity.view(now) } };
      },
    };
  }
}
