// The processor claimer (KOALA paper, IV-A): makes sure a placed job's processors are still there when it starts.
// With reservations it claims at placement; without, it claims shortly before the estimated start (after the
// job's input files are staged) and sends the job back to the queue if its processors are gone. Then it launches the
// job: its components go to the local managers.
import type { Grid } from '../model/grid.js';
import type { LocalManager } from '../ports.js';
import type { ClusterState } from './cluster-state.js';
import type { JobRecord } from './job-record.js';
import type { Timers } from './timers.js';

export interface ClaimerHost {
  readonly grid: Grid;
  readonly clusters: readonly ClusterState[];
  readonly timers: Timers;
  /** The local managers, by cluster index. */
  readonly managers: readonly LocalManager[];
  /** Marks Concertina's jobs at the local managers. */
  readonly tag: string;
  claimed(job: JobRecord, now: number): void;
  claimFailed(job: JobRecord, reason: string, now: number): void;
}

export class Claimer {
  constructor(
    private readonly host: ClaimerHost,
    /** Seconds before the estimated start at which processors are claimed without reservations. */
    public marginS: number,
  ) {}

  /** Seconds to stage the job's input files to where its components were placed (components stage in parallel). */
  stagingTime(job: JobRecord): number {
    const specs = job.spec.components;
    const placed = job.components;
    let longest = 0;
    for (let i = 0; i < placed.length; i++) {
      // A flexible split may yield more components than the spec; each part needs the files of the whole job.
      const files = specs.length === placed.length ? specs[i]!.inputFiles : specs.flatMap((c) => c.inputFiles);
      longest = Math.max(longest, this.host.grid.transferTime(files, placed[i]!.cluster));
    }
    return longest;
  }

  claim(job: JobRecord, now: number): void {
    const start = now + this.stagingTime(job);
    if (start === now || this.reservable(job)) {
      this.host.claimed(job, now);
      this.launchAt(job, start, now);
      return;
    }
    this.host.timers.at(Math.max(now, start - this.marginS), (t) => {
      if (job.state !== 'claiming') return;
      const short = job.components.find((c) => {
        const state = this.host.clusters[this.host.grid.cluster(c.cluster)!.index]!;
        // The job is already in Concertina's count: the claim holds if nothing is overcommitted with it.
        return !state.reachable || state.cluster.processors - state.background - state.concertina < 0;
      });
      if (short) return this.host.claimFailed(job, `processors on ${short.cluster} were taken before the claim`, t);
      this.host.claimed(job, t);
      this.launchAt(job, start, t);
    });
  }

  /** Whether every cluster the job was placed on supports reservations. */
  private reservable(job: JobRecord): boolean {
    for (const c of job.components) if (this.host.grid.cluster(c.cluster)?.supportsReservations !== true) return false;
    return true;
  }

  private launchAt(job: JobRecord, start: number, now: number): void {
    if (start <= now) return this.launch(job);
    this.host.timers.at(start, () => {
      if (job.state === 'claiming') this.launch(job);
    });
  }

  /** Hands the job's components to the local managers. */
  private launch(job: JobRecord): void {
    job.launched = true;
    const specs = job.spec.components;
    const walltime = job.spec.walltime;
    for (let component = 0; component < job.components.length; component++) {
      const c = job.components[component]!;
      const spec = specs[Math.min(component, specs.length - 1)]!;
      // An evolving job's local job starts with its initial size; the rest of its pre-allocation is added by updates.
      const processors = job.evolving ? job.claimed : c.processors;
      const manager = this.host.managers[this.host.grid.cluster(c.cluster)!.index]!;
      const tag = `${this.host.tag}:${job.id}`;
      // Without a walltime, no `walltimeS` key (and no object spread to say so).
      manager.submit(
        walltime === undefined
          ? { jobId: job.id, component, processors, program: spec.program, args: spec.args, tag }
          : { jobId: job.id, component, processors, program: spec.program, args: spec.args, tag, walltimeS: walltime },
      );
    }
  }
}
