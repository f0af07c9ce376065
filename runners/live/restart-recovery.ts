// Recovery of an earlier run's jobs after a restart: the launched ones are looked up on their cluster by tag and
// adopted (running or starting) or recorded as ended with how they ended, the ones never launched are queued again,
// jobs on a cluster not reached wait for it to join, and jobs found by tag that the stored state does not know are
// left to run as background load. What became of each job is kept for the console (RecoveryOutcome).
import type { InboundMessage } from '../../core/ports.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';
import type { RecoveredJob } from '../managers/batch-local-manager.js';
import { localJobName } from '../managers/naming.js';
import { sh } from '../shell/quote.js';
import { resizable, type ClusterRuntime } from './cluster-runtime.js';
import type { LivePersistentJob, LivePersistentState, RecoveryOutcome } from './types.js';

export interface RestartRecoveryContext {
  readonly tag: string;
  readonly commandTimeoutMs: number;
  /** The scheduler's time in seconds. */
  readonly now: () => number;
  readonly log: (text: string) => void;
  /** A message on a recovered job's behalf (an update it had asked for), through the world's inbox. */
  readonly deliver: (message: InboundMessage) => void;
  /** A job's directory on its cluster (the protocol's files, the exit-status file). */
  readonly jobDir: (runtime: ClusterRuntime, jobId: string) => string;
}

type Adoption = {
  processors: number;
  growing?: number;
  startTime?: number;
  ended?: { state: 'completed' | 'failed' | 'cancelled'; reason: string };
};

export class RestartRecovery {
  /** What became of each job found or restored. */
  readonly outcomes: RecoveryOutcome[] = [];
  /** Launched jobs of the restored state on an unreachable cluster: adopted when it joins, never submitted again. */
  readonly stranded: LivePersistentJob[] = [];
  /** The highest `job-<n>` of jobs found by tag but unknown to the restored state: generated ids go past it. */
  private unknownJobNumber = 0;

  /** `restore`: what an earlier world's persistentState() returned (undefined: a new run). */
  constructor(
    private readonly restore: LivePersistentState | undefined,
    private readonly context: RestartRecoveryContext,
  ) {}

  /**
   * Jobs of the earlier run: the launched ones are looked up on their cluster by tag and adopted (running or
   * starting), or recorded as ended with how they ended; the ones never launched are queued again. `readAgain`
   * reads again the statuses of the clusters where jobs were found (the first ones counted them as background).
   */
  async recover(
    scheduler: Scheduler,
    runtimes: ReadonlyMap<string, ClusterRuntime>,
    unreachable: ReadonlyMap<string, string>,
    readAgain: (clusters: ReadonlySet<string>) => Promise<void>,
  ): Promise<void> {
    const found = new Map<string, RecoveredJob[]>();
    await Promise.all(
      [...runtimes.values()].map(async (r) => {
        found.set(r.config.name, await r.manager.recover());
      }),
    );
    // Unknown ones are disowned before the statuses are read again (they are background).
    for (const [cluster, jobs] of found) this.refuseUnknown(runtimes.get(cluster)!, jobs);
    // The first statuses were read before the managers knew the earlier run's local jobs, which they counted as
    // background (a cluster full of it: malleable jobs shrunk at once); they are read again now.
    const withJobs = new Set([...found].filter(([, jobs]) => jobs.length > 0).map(([name]) => name));
    if (withJobs.size > 0) await readAgain(withJobs);
    const restore = this.restore;
    if (!restore) {
      scheduler.skipJobNumbers(this.unknownJobNumber);
      return;
    }
    const now = this.context.now();
    for (const job of [...restore.jobs].sort((a, b) => a.submitTime - b.submitTime)) {
      const id = job.spec.id!;
      const runtime = job.cluster === undefined ? undefined : runtimes.get(job.cluster);
      const away = job.cluster === undefined ? undefined : unreachable.get(job.cluster);
      if (job.launched && away !== undefined) {
        this.stranded.push(job);
        this.outcomes.push({
          jobId: id,
          cluster: job.cluster!,
          outcome: 'refused',
          detail: `its cluster is unreachable (${away}): adopted once it is reached, not submitted again`,
        });
        continue;
      }
      if (!job.launched || !runtime) {
        const r = scheduler.submitSpec({ ...job.spec, id }, now);
        this.outcomes.push(
          r.ok
            ? { jobId: id, outcome: 'requeued', detail: 'never launched: queued again' }
            : { jobId: id, outcome: 'refused', detail: r.errors.map((e) => `${e.path}: ${e.message}`).join('; ') },
        );
        continue;
      }
      await this.adoptJob(scheduler, runtime, job, found.get(runtime.config.name)!);
    }
    // Generated ids go on after the earlier run's (the jobs above keep theirs), and after unknown ones found.
    scheduler.skipJobNumbers(Math.max(restore.submitted, this.unknownJobNumber));
  }

  /**
   * A cluster reached after start, as it would have been at start: jobs found there that the restored state does
   * not know are disowned, and the restored jobs stranded there are adopted (never submitted again).
   */
  async joined(scheduler: Scheduler, runtime: ClusterRuntime, found: readonly RecoveredJob[]): Promise<void> {
    const name = runtime.config.name;
    const stranded = this.stranded.filter((j) => j.cluster === name);
    this.refuseUnknown(runtime, found);
    for (const job of stranded) {
      this.stranded.splice(this.stranded.indexOf(job), 1);
      await this.adoptJob(scheduler, runtime, job, found);
    }
    scheduler.skipJobNumbers(this.unknownJobNumber);
  }

  /**
   * Jobs found by tag that the restored state does not know (their spec is lost: submitted after the state was last
   * stored): the manager disowns them, and generated ids go on past theirs.
   */
  private refuseUnknown(runtime: ClusterRuntime, found: readonly RecoveredJob[]): void {
    const cluster = runtime.config.name;
    const known = new Set(this.restore?.jobs.map((j) => j.spec.id!) ?? []);
    for (const f of found) {
      if (known.has(f.jobId) || (f.state !== 'running' && f.state !== 'pending')) continue;
      // Decision: such a job is left running and counted as background load (not Concertina's, as the scheduler
      // cannot manage it; not cancelled, as nothing says it is unwanted: that is an operator's call).
      runtime.manager.disown(f.jobId);
      const number = /^job-([1-9]\d{0,8})$/.exec(f.jobId)?.[1];
      if (number !== undefined) this.unknownJobNumber = Math.max(this.unknownJobNumber, Number(number));
      this.outcomes.push({
        jobId: f.jobId,
        cluster,
        outcome: 'refused',
        detail: `found on the cluster (${f.running} of ${f.members} local jobs running) but unknown to the restored state: left running, counted as background load`,
      });
      this.context.log(
        `${cluster}: job ${f.jobId} found by its tag but unknown to the restored state; left running, counted as background load`,
      );
    }
  }

  /** A launched job of the earlier run, adopted on its cluster as the manager found it there (or recorded ended). */
  private async adoptJob(
    scheduler: Scheduler,
    runtime: ClusterRuntime,
    job: LivePersistentJob,
    found: readonly RecoveredJob[],
  ): Promise<void> {
    const id = job.spec.id!;
    const cluster = runtime.config.name;
    const local = found.find((f) => f.jobId === id && f.component === 0);
    const adopted = await this.adoption(runtime, job, local);
    const r = scheduler.adopt(
      { ...job.spec, id },
      {
        cluster,
        submitTime: job.submitTime,
        ...adopted,
        ...(job.cap !== undefined && { cap: job.cap }),
        ...(job.step !== undefined && adopted.startTime !== undefined && { step: job.step }),
      },
      this.context.now(),
    );
    if (!r.ok) {
      const detail = r.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
      this.outcomes.push({ jobId: id, cluster, outcome: 'refused', detail });
      this.context.log(`${cluster}: job ${id} cannot be adopted (${detail}); its local jobs are cancelled`);
      runtime.manager.cancel(id);
      return;
    }
    if (adopted.ended) {
      this.outcomes.push({
        jobId: id,
        cluster,
        outcome: 'ended',
        detail: `${adopted.ended.state}: ${adopted.ended.reason}`,
      });
      return;
    }
    this.outcomes.push({
      jobId: id,
      cluster,
      outcome: 'adopted',
      detail:
        adopted.startTime === undefined
          ? `starting with ${adopted.processors} processors`
          : `running with ${adopted.processors} processors`,
    });
    // An interactive job's driver reports its iterations through the protocol too (it learns its tasks again).
    if (!resizable(r.value) && r.value.kind !== 'interactive') return;
    runtime.apps.attach(id, {
      channel: runtime.channel,
      jobDir: this.context.jobDir(runtime, id),
      ...(job.lastSeq !== undefined && { lastSeq: job.lastSeq }),
    });
    // Decision: a running adopted application is told the size it is adopted with: a `resources` the earlier run
    // had not yet written when it stopped would otherwise be lost (the SDK ignores a size it already has).
    if (adopted.startTime === undefined) return;
    runtime.apps.resized(id, r.value.size);
    // Decision: an update the earlier run accepted but had not put in effect is asked again at once, on the
    // application's behalf (an announced one loses its notice); its later updates, read again, supersede it.
    if (
      job.updateTarget !== undefined &&
      job.updateTarget !== r.value.size &&
      job.updateTarget >= r.value.min &&
      job.updateTarget <= r.value.max
    ) {
      this.context.deliver({ type: 'update', jobId: id, processors: job.updateTarget });
    }
  }

  /** How a job of the earlier run stands on its cluster, from what the manager found there (or its exit file). */
  private async adoption(
    runtime: ClusterRuntime,
    job: LivePersistentJob,
    local: RecoveredJob | undefined,
  ): Promise<Adoption> {
    const id = job.spec.id!;
    if (local && (local.state === 'running' || local.state === 'pending')) {
      const malleable = resizable(job.spec);
      const processors = malleable
        ? local.state === 'running'
          ? local.running
          : local.members
        : (job.processors ?? local.members);
      // A resizable job's local jobs still waiting once it runs are a grow under way: they come as grown.
      const growing = malleable && local.state === 'running' ? local.pending : 0;
      return local.state === 'running'
        ? { processors, ...(growing > 0 && { growing }), startTime: job.startTime ?? this.context.now() }
        : { processors };
    }
    if (local && (local.state === 'completed' || local.state === 'cancelled'))
      return { processors: 0, ended: { state: local.state, reason: `${local.state} while Concertina was away` } };
    // Not listed any more (or failed): the program's exit-status file says how it ended.
    const kind = resizable(job.spec) ? 'malleable' : 'rigid';
    const exitFile = `${this.context.jobDir(runtime, id)}/${localJobName({ tag: this.context.tag, jobId: id, component: 0, kind, member: 0 })}.exit`;
    const read = await runtime.runner
      .run(sh`cat ${exitFile} 2>/dev/null`.text, { timeoutMs: this.context.commandTimeoutMs })
      .catch(() => undefined);
    const status = read && /^\d+\s*$/.test(read.stdout) ? Number(read.stdout.trim()) : undefined;
    if (status === undefined)
      return {
        processors: 0,
        ended: { state: 'failed', reason: 'ended while Concertina was away, with no exit status recorded' },
      };
    return {
      processors: 0,
      ended:
        status === 0
          ? { state: 'completed', reason: 'ended while Concertina was away: exit status 0' }
          : { state: 'failed', reason: `ended while Concertina was away: exit status ${status}` },
    };
  }
}
