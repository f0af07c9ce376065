// A placed job's size as its local jobs and its application answer: components started, grown processors active,
// processors released. Each change is counted by the ledger and told as an event.
import type { SchedulerEventBody } from '../events.js';
import type { ExpansionReason } from '../malleability/policy.js';
import type { Grid } from '../model/grid.js';
import type { ApplicationPort, LocalManager } from '../ports.js';
import type { ClusterState } from './cluster-state.js';
import type { JobRecord } from './job-record.js';
import type { CapacityLedger } from './ledger.js';

/**
 * "a, b": the clusters of a job's components, in order, as its reason names them. A loop, not `map` and `join`: in
 * optimized `started`, `join` met the array `map` made with a map it had not seen (a "wrong map" deoptimization in
 * every NASA replay and most HPC2N ones), and `started` was compiled twice.
 */
export function clusterNames(components: JobRecord['components']): string {
  let names = components[0]!.cluster;
  for (let i = 1; i < components.length; i++) names += `, ${components[i]!.cluster}`;
  return names;
}

/** What the size changes need of the scheduler. */
export interface SizesHost {
  readonly grid: Grid;
  readonly clusters: readonly ClusterState[];
  /** The local managers, by cluster index. */
  readonly managers: readonly LocalManager[];
  readonly applications: ApplicationPort;
  readonly ledger: CapacityLedger;
  emit(now: number, event: SchedulerEventBody): void;
  /** An evolving job asks for a new size (a release of its own is one). */
  update(jobId: string, processors: number, announceS: number, now: number): void;
  /** Processors came free on a cluster: growth is due there, and another pass. */
  freed(state: ClusterState): void;
  /** A profiled job holds fewer than its step needs, none on their way: its step's grow fell short (fpe-jobs.ts). */
  shortOfStep(job: JobRecord): boolean;
  /** A job released processors: a malleability operation waiting on it may go on. */
  jobChanged(job: JobRecord, now: number): void;
}

export class JobSizes {
  constructor(private readonly host: SizesHost) {}

  /** A component's local job started with `processors`: once all have, the job runs. */
  started(job: JobRecord, processors: number, now: number): void {
    job.startedComponents++;
    if (job.malleable || job.evolving) {
      this.host.ledger.account(job, () => {
        job.claimed -= processors;
        job.size += processors;
      });
    } else job.size += processors;
    if (job.startedComponents < job.components.length) return;
    job.startTime = now;
    this.host.ledger.started(job);
    const first = job.components[0]!;
    job.transition('running', now, `started on ${clusterNames(job.components)}`);
    if (job.malleable) this.host.clusters[job.clusterIndex]!.addMalleable(job);
    job.recordSize(now);
    if (job.evolving)
      this.host.emit(now, {
        type: 'job.started',
        jobId: job.id,
        cluster: first.cluster,
        size: job.size,
        preallocation: job.preallocation,
      });
    else this.host.emit(now, { type: 'job.started', jobId: job.id, cluster: first.cluster, size: job.size });
  }

  /** The application accepted `processors` more of offer `offerId`: counted as its own and asked of the local manager. */
  grantGrow(job: JobRecord, processors: number, offerId: number, why?: ExpansionReason): void {
    this.host.ledger.account(job, () => (job.pendingGrow += processors));
    if (why !== undefined) job.growReasons.push({ processors, why });
    if (job.malleable) (job.growGrants ??= []).push({ offerId, processors, granted: processors });
    this.host.managers[this.host.grid.cluster(job.components[0]!.cluster)!.index]!.grow(job.id, processors);
  }

  /** The local manager added `processors` of a granted grow. */
  grown(job: JobRecord, processors: number, now: number): void {
    const n = Math.min(processors, job.pendingGrow);
    if (n <= 0) return;
    this.host.ledger.account(job, () => {
      job.pendingGrow -= n;
      job.size += n;
    });
    // Grows come in the order they were asked for: the oldest grants are the ones served.
    const grants = job.growGrants;
    for (let left = n; left > 0 && grants !== undefined && grants.length > 0;) {
      const head = grants[0]!;
      const k = Math.min(left, head.processors);
      head.processors -= k;
      left -= k;
      if (head.processors === 0) grants.shift();
    }
    const cluster = job.components[0]!.cluster;
    job.recordSize(now);
    if (job.evolving) {
      // Decision: an evolving job asked for a size: it hears of it once every processor of its update is active
      // (a grow may start one processor at a time), not of each step on the way, nor of a grow that fell short.
      if (job.pendingGrow > 0 || this.host.shortOfStep(job)) return;
      this.host.emit(now, {
        type: 'job.evolved',
        jobId: job.id,
        cluster,
        size: job.size,
        preallocation: job.preallocation,
      });
    } else if (job.growReasons.length === 0)
      this.host.emit(now, { type: 'job.grown', jobId: job.id, cluster, processors: n, size: job.size });
    else {
      // Decision: processors granted for different reasons (DBES expansions of other steps or for other jobs) that
      // arrive together are told as one job.grown per reason, oldest first, each with its size after it.
      let size = job.size - n;
      for (let left = n; left > 0;) {
        const head = job.growReasons[0];
        const k = head === undefined ? left : Math.min(left, head.processors);
        size += k;
        left -= k;
        if (head === undefined) this.host.emit(now, { type: 'job.grown', jobId: job.id, cluster, processors: k, size });
        else {
          this.host.emit(now, {
            type: 'job.grown',
            jobId: job.id,
            cluster,
            processors: k,
            size,
            ...expansionFields(head.why),
          });
          head.processors -= k;
          if (head.processors === 0) job.growReasons.shift();
        }
      }
    }
    this.host.applications.resized(job.id, job.size);
    if (job.evolving && job.pendingGrow === 0) this.refuseFailedUpdate(job, now);
  }

  /**
   * `processors` of a granted grow will never be active (`reason`): they are the job's no more, and free again. Its
   * application hears it: a malleable one what its grants come to, an evolving one (once none of its update is on its
   * way) its size and a refusal; a profiled job's step is fpe-jobs.ts's to settle.
   */
  growFailed(job: JobRecord, processors: number, reason: string, now: number): void {
    const n = Math.min(processors, job.pendingGrow);
    if (n <= 0) return;
    this.host.ledger.account(job, () => (job.pendingGrow -= n));
    // Decision: the processors that failed are taken for the latest granted: their reasons go first.
    for (let left = n; left > 0 && job.growReasons.length > 0;) {
      const last = job.growReasons[job.growReasons.length - 1]!;
      const k = Math.min(left, last.processors);
      last.processors -= k;
      left -= k;
      if (last.processors === 0) job.growReasons.pop();
    }
    if (job.malleable) {
      // Decision: a malleable job's failed grow is job.growFailed, the counterpart of its job.grown (once per answer,
      // the processors that will not come); a profiled job's is fpe.growFailed, a different fact (its step did not
      // begin: attempts, a retry, or its end), and an evolving job's is its update's evolve.refused.
      this.host.emit(now, {
        type: 'job.growFailed',
        jobId: job.id,
        cluster: job.components[0]!.cluster,
        processors: n,
        size: job.size,
        reason,
      });
      this.cutGrants(job, n);
    } else if (job.evolving && job.spec.profile === undefined) {
      job.growFailure ??= reason;
      if (job.pendingGrow === 0) {
        // Decision: the update ends at the size it reached (job.evolved, `resources`: what the refusal leaves it at).
        this.host.emit(now, {
          type: 'job.evolved',
          jobId: job.id,
          cluster: job.components[0]!.cluster,
          size: job.size,
          preallocation: job.preallocation,
        });
        this.host.applications.resized(job.id, job.size);
        this.refuseFailedUpdate(job, now);
      }
    }
    this.host.freed(this.host.clusters[job.clusterIndex]!);
  }

  /**
   * The latest `n` processors the job was granted will not come: each offer they were granted for is told what its
   * grant comes to (`granted`), so that the application's target is what it will hold and it takes offers again.
   */
  private cutGrants(job: JobRecord, n: number): void {
    let left = n;
    for (const grants = job.growGrants ?? []; left > 0 && grants.length > 0;) {
      const last = grants[grants.length - 1]!;
      const k = Math.min(left, last.processors);
      last.processors -= k;
      left -= k;
      this.host.applications.growGranted(last.offerId, job.id, last.granted - k, last.granted);
      last.granted -= k;
      if (last.processors === 0) grants.pop();
    }
    // Decision: an adopted job's grow asked before the restart is of no offer known here: it is told as offer 0's
    // (offers are numbered from 1); applications count processors, not offers.
    if (left > 0) this.host.applications.growGranted(0, job.id, 0, left);
  }

  /** An evolving job's update that fell short (none of it on its way now) is refused, with why, once. */
  private refuseFailedUpdate(job: JobRecord, now: number): void {
    const reason = job.growFailure;
    if (reason === undefined) return;
    job.growFailure = undefined;
    const why = `its grow failed: ${reason}`;
    this.host.emit(now, { type: 'evolve.refused', jobId: job.id, reason: why });
    this.host.applications.updateRefused(job.id, why);
  }

  /** The job let `processors` go (`requested`: as a shrink asked). */
  released(job: JobRecord, processors: number, requested: boolean, now: number): void {
    // Decision: an evolving job letting processors go on its own is a spontaneous update to the smaller size.
    if (job.evolving) return this.host.update(job.id, Math.max(job.min, job.held - processors), 0, now);
    // Decision: a malleable job never drops below its minimum; a release past it is not taken from the count.
    const n = Math.max(0, Math.min(processors, job.size - job.min));
    if (n === 0) return;
    this.host.ledger.account(job, () => {
      job.size -= n;
      job.releasing = Math.max(0, job.releasing - n);
    });
    // Releases pay what is owed at once first, then what is owed by a deadline.
    job.releasingByDeadline = Math.min(job.releasingByDeadline, job.releasing);
    const state = this.host.clusters[job.clusterIndex]!;
    this.host.managers[job.clusterIndex]!.shrink(job.id, n);
    if (job.releasingByDeadline === 0) job.releaseBy = Number.NaN;
    job.recordSize(now);
    this.host.emit(now, {
      type: 'job.shrunk',
      jobId: job.id,
      cluster: state.cluster.name,
      processors: n,
      size: job.size,
      voluntary: !requested,
    });
    this.host.freed(state);
    this.host.jobChanged(job, now);
  }
}

/** A DBES expansion's reason as job.grown's fields. */
function expansionFields(why: ExpansionReason): { step: 1 | 2; forJob?: string } {
  return why.forJob === undefined ? { step: why.step } : { step: why.step, forJob: why.forJob };
}
