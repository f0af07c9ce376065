// The live run (`run.startLive`): a live world on the configured clusters replaces the simulated run once it has
// started; a stored live run is resumed at start-up; every change of the host's mode is made here (../mode.ts).
import type { SchedulerEvent } from '../../../core/events.js';
import type { ApiResult } from '../../api/contract.js';
import type { RunConfig, StoredQueueSettings } from '../../store/store.js';
import type { LiveClusterConfig, LiveWorld } from '../../../runners/live/types.js';
import type { ClusterService } from '../../live/cluster-service.js';
import { clustersSecretSource, type LiveWorldFactory, type LiveWorldFactoryOptions } from '../../live/live-run.js';
import { refused, type HostRun, type Refusal, type ServiceHandlers } from './run.js';
import { SCHEDULER_SETTINGS, schedulerQueueOptions, type SettingsService } from './settings.js';

/** How the store marks a live run (its clusters are the configured ones; its jobs' times are seconds since it began). */
const LIVE_RUN: RunConfig = { grid: null, workload: 'none', seed: 0, mode: 'live' };

export class LiveRunService {
  constructor(
    private readonly run: HostRun,
    private readonly clusters: ClusterService,
    private readonly settings: SettingsService,
    private readonly factory: LiveWorldFactory,
  ) {}

  /** Why the live run could not resume, if it could not (connection errors are per cluster, in the snapshot). */
  get error(): string | undefined {
    const mode = this.run.mode.current;
    return mode.kind === 'resume-failed' ? mode.reason : undefined;
  }

  /** Why commands are refused now: a stored live run is resuming, or could not. */
  whileResuming(): Refusal | undefined {
    const mode = this.run.mode.current;
    if (mode.kind === 'resume-failed') return refused('', mode.reason);
    if (mode.kind === 'resuming-live')
      return refused('', 'the live run is resuming (reconnecting to its clusters): try again in a moment');
    return undefined;
  }

  private worldOptions(
    clusters: readonly LiveClusterConfig[],
    restore?: unknown,
    queue?: StoredQueueSettings,
  ): LiveWorldFactoryOptions {
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

  /** `run.startLive`: a live run on the configured clusters replaces the current run once its world has started. */
  async start(): Promise<ApiResult<'run.startLive'>> {
    const run = this.run;
    const clusters = this.clusters.configs();
    if (!clusters.length) return refused('clusters', 'no live cluster is configured: add one in Settings → Clusters');
    // The live run starts with the current run's scheduler settings: the queue ones kept in its config, the others
    // stored as its first commands, for a resume.
    const queue = this.settings.queueSettings();
    const carried = this.settings.carried();
    let world: LiveWorld;
    try {
      world = this.factory(this.worldOptions(clusters, undefined, queue));
      await world.start();
    } catch (error) {
      return refused(
        'clusters',
        `the live run could not start: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    run.catchUp();
    // Another run may have started while the old world closed: it is replaced too.
    while (run.mode.current.kind !== 'simulating') await this.stop();
    const backup = run.keepUnresumedRun();
    run.store?.startRun({ ...LIVE_RUN, queue });
    run.mode.to({ kind: 'live', world, resumed: false });
    run.follow(world, { stored: 0, replaying: false, resumed: false });
    // Stored at once, before any job: the state holds the run's id, by which a resumed run knows its jobs on the clusters.
    run.flush(undefined, true);
    this.settings.carryInto(carried);
    return { ok: true, value: { clusters: clusters.map((c) => c.name), ...(backup ? { backup } : {}) } };
  }

  /**
   * A live run found in the store at start-up: its world is rebuilt from the clusters' configurations and the
   * state the previous world left (its jobs recovered from the managers by tag as it starts, none submitted
   * twice); the run's settings are applied again. Decision: operator cancels and resizes are not replayed — the
   * restored jobs are already in the state they led to.
   */
  resume(): void {
    const run = this.run;
    const store = run.store!;
    let world: LiveWorld;
    try {
      world = this.factory(this.worldOptions(this.clusters.configs(), store.liveState(), store.run()?.queue));
    } catch (error) {
      // Decision: a world that cannot even be built leaves the run as one that could not resume (commands refused
      // with why), not the idle simulated world beneath it.
      return run.mode.to({
        kind: 'resume-failed',
        reason: `the live run could not resume: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    // Its scheduler exists once it has started (reconnected, jobs recovered): until then commands are refused.
    run.mode.to({ kind: 'resuming-live', world });
    // What the world emits while it starts (each adopted job's `job.adopted`, the ends of jobs that ended
    // meanwhile) is news to the store: kept, and stored once the world is the run's.
    const duringStart: SchedulerEvent[] = [];
    const offDuringStart = world.on((e) => duringStart.push(e));
    const stillOurs = () => {
      const mode = run.mode.current;
      return mode.kind === 'resuming-live' && mode.world === world;
    };
    world.start().then(
      () => {
        offDuringStart();
        if (!stillOurs()) return void world.stop(); // a new run was started meanwhile
        run.mode.to({ kind: 'live', world, resumed: true });
        for (const command of store.commands()) {
          if (SCHEDULER_SETTINGS.has(command.key)) this.settings.apply(command.key, command.value);
        }
        // Events of the earlier sessions are kept; the resumed world's are appended.
        run.follow(world, { stored: store.eventCount(), replaying: false, resumed: true });
        run.adopt(duringStart);
      },
      (error: unknown) => {
        // Commands stay refused, with why, until another run is started (sim.reset or run.startLive).
        if (stillOurs())
          run.mode.to({
            kind: 'resume-failed',
            reason: `the live run could not resume: ${error instanceof Error ? error.message : String(error)}`,
          });
      },
    );
  }

  /** Back to the simulated world; the promise settles once the live world's connections and timers are closed. */
  async stop(): Promise<void> {
    const mode = this.run.mode;
    const current = mode.current;
    if (current.kind === 'simulating') return;
    mode.to({ kind: 'simulating' });
    // A world still starting stops itself when it has.
    if (current.kind === 'live') await current.world.stop();
  }

  handlers(): ServiceHandlers<'run.startLive'> {
    return { 'run.startLive': () => this.start() };
  }
}
