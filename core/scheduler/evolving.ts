// Evolving jobs' updates (CooRMv2): an evolving job asks for a new size inside its pre-allocation; a grow is
// guaranteed (its processors are promised at once, malleable extras holding them are shrunk mandatorily), a shrink
// frees processors for malleable growth, and an announced update takes effect at its time.
import type { SchedulerEventBody } from '../events.js';
import type { ApplicationPort, LocalManager } from '../ports.js';
import type { ClusterState } from './cluster-state.js';
import type { GrowthRoom } from './growth.js';
import type { JobRecord } from './job-record.js';
import type { CapacityLedger } from './ledger.js';
import type { Timers } from './timers.js';

/** What the evolving jobs' updates need of the scheduler. */
export interface EvolvingHost {
  readonly clusters: readonly ClusterState[];
  /** The local managers, by cluster index. */
  readonly managers: readonly LocalManager[];
  readonly applications: ApplicationPort;
  readonly timers: Timers;
  readonly ledger: CapacityLedger;
  readonly malleability: {
    /** Whether a shrink for evolving jobs' updates runs on the cluster. */
    busyForUpdates(cluster: ClusterState): boolean;
    /** Mandatory shrink of malleable extras for updates, by `deadline` if given. */
    shrinkForUpdates(cluster: ClusterState, shrinkValue: number, now: number, deadline?: number): void;
  };
  job(id: string): JobRecord | undefined;
  emit(now: number, event: SchedulerEventBody): void;
  /** Processors of a pre-allocation came free on a cluster: malleable jobs may fill them, at another pass. */
  freed(state: ClusterState): void;
  /**
   * What the cluster has free beside the waiting jobs reserved there (growth.ts ReservedRoom): `free` negative when
   * what Concertina holds leaves them short; Infinity when nothing is reserved there.
   */
  reservedRoom(state: ClusterState, now: number): GrowthRoom;
  /** A job without a pre-allocation asks for `processors` more: the policy's iteration decides (DBES). */
  request(job: JobRecord, processors: number, now: number): void;
}

export class EvolvingUpdates {
  constructor(private readonly host: EvolvingHost) {}

  /**
   * An evolving job asks for a new total size (ApplicationMessage `update`). Inside its pre-allocation a grow is
   * guaranteed: its processors are promised at once (nobody else is given them from now), malleable extras holding
   * them are shrunk mandatorily — at once for a spontaneous update, by its time for an announced one — and the local
   * manager is asked for them when the update takes effect. A shrink frees processors for malleable growth.
   */
  update(jobId: string, processors: number, announceS: number, now: number): void {
    const job = this.host.job(jobId);
    const refuse = (reason: string) => {
      this.host.emit(now, { type: 'evolve.refused', jobId, reason });
      this.host.applications.updateRefused(jobId, reason);
    };
    if (!job) return refuse(`names no job ("${jobId}")`);
    if (!job.evolving)
      return refuse(`job ${jobId} is not evolving (it is ${job.kind}): only an evolving job asks for updates`);
    if (job.state !== 'running') return refuse(`job ${jobId} is not running (it is ${job.state})`);
    if (!Number.isInteger(processors) || processors < job.min || processors > job.max) {
      return refuse(
        `asks for ${processors} processors, outside its ${job.min}..${job.max}: an update must stay inside its pre-allocation of ${job.max}`,
      );
    }
    if (!Number.isFinite(announceS) || announceS < 0)
      return refuse(`announceS must be a number of seconds, 0 or more (got ${announceS})`);
    if (processors < job.held && job.pendingGrow > 0 && processors < job.size + job.promised) {
      return refuse(
        `${job.pendingGrow} processors of an earlier update are still being activated; ask again once resized`,
      );
    }
    const cluster = job.components[0]!.cluster;
    this.host.emit(now, { type: 'evolve.requested', jobId, cluster, processors, announceS });
    this.settleAnnounced(job, now);
    // Without a pre-allocation a grow is a request, granted or refused by the policy's iteration at its next pass.
    if (!job.preallocating && processors > job.held) return this.host.request(job, processors - job.held, now);
    if (announceS > 0 && processors < job.held) {
      // Decision: an announced shrink keeps its processors until its time, then takes effect like a spontaneous one.
      const shrink = { processors, at: now + announceS };
      job.announcedShrink = shrink;
      this.host.timers.at(shrink.at, (t) => {
        if (job.announcedShrink !== shrink || job.state !== 'running') return;
        job.announcedShrink = undefined;
        this.applyUpdate(job, processors, 0, t);
      });
      return;
    }
    this.applyUpdate(job, processors, announceS, now);
  }

  /**
   * Before a new update: an announced shrink due now takes effect first; announced updates not yet due are dropped.
   * Decision: the newest update is the job's word on its future, so it supersedes what it announced before.
   */
  private settleAnnounced(job: JobRecord, now: number): void {
    const shrink = job.announcedShrink;
    job.announcedShrink = undefined;
    if (shrink && shrink.at <= now) this.applyUpdate(job, shrink.processors, 0, now);
    let dropped = 0;
    for (let i = job.evolveDemands.length - 1; i >= 0; i--) {
      const d = job.evolveDemands[i]!;
      if (d.at <= now) continue;
      dropped += d.processors;
      job.evolveDemands.splice(i, 1);
    }
    if (dropped === 0) return;
    this.host.ledger.account(job, () => (job.promised -= dropped));
    this.host.freed(this.host.clusters[job.clusterIndex]!);
  }

  private applyUpdate(job: JobRecord, processors: number, announceS: number, now: number): void {
    const jobId = job.id;
    const cluster = job.components[0]!.cluster;
    const state = this.host.clusters[job.clusterIndex]!;
    if (processors > job.held) {
      const more = processors - job.held;
      this.host.ledger.account(job, () => (job.promised += more));
      const at = now + announceS;
      let i = job.evolveDemands.length;
      while (i > 0 && job.evolveDemands[i - 1]!.at > at) i--;
      job.evolveDemands.splice(i, 0, { processors: more, at, shrunkFor: false });
      if (announceS > 0) this.host.timers.at(at, (t) => this.serveUpdates(state, t));
      this.serveUpdates(state, now);
      return;
    }
    let fewer = job.held - processors;
    // Promises not yet handed to the local manager go first, the latest first.
    while (fewer > 0 && job.evolveDemands.length > 0) {
      const last = job.evolveDemands[job.evolveDemands.length - 1]!;
      const k = Math.min(fewer, last.processors);
      last.processors -= k;
      if (last.processors === 0) job.evolveDemands.pop();
      this.host.ledger.account(job, () => (job.promised -= k));
      fewer -= k;
    }
    // Decision: never below its minimum in use, even while an earlier grow is still being activated.
    fewer = Math.min(fewer, job.size - job.min);
    if (fewer > 0) {
      this.host.ledger.account(job, () => (job.size -= fewer));
      this.host.managers[job.clusterIndex]!.shrink(job.id, fewer);
    }
    job.recordSize(now);
    this.host.emit(now, { type: 'job.evolved', jobId, cluster, size: job.size, preallocation: job.preallocation });
    this.host.applications.resized(jobId, job.size);
    // Processors of its pre-allocation came free: malleable jobs may fill them.
    this.host.freed(state);
  }

  /** Clusters where an evolving job waits for promised processors. */
  private evolvingClusters(): ClusterState[] {
    return this.host.clusters.filter((s) => s.evolvingJobs.some((j) => j.promised > 0));
  }

  /** Serves the promised processors on every cluster where an evolving job waits for some. */
  serveAll(now: number): void {
    if (this.host.ledger.evolvingPlaced === 0) return;
    for (const state of this.evolvingClusters()) this.serveUpdates(state, now);
  }

  /**
   * Serves the evolving jobs' promised processors on a cluster: first mandatory shrinks of malleable extras where
   * the promises leave Concertina over what the cluster has, or where the extras they displace from the pre-allocation
   * would take processors reserved for a waiting job (once per update; the deadline is the earliest announced update's
   * time, none for a spontaneous one), then each update whose time has come is handed to the local manager.
   */
  private serveUpdates(state: ClusterState, now: number): void {
    if (this.host.malleability.busyForUpdates(state)) return;
    let unshrunk = 0;
    let due = false;
    let deadline = Number.POSITIVE_INFINITY;
    for (const job of state.evolvingJobs) {
      for (const d of job.evolveDemands) {
        if (d.shrunkFor) continue;
        unshrunk += d.processors;
        deadline = Math.min(deadline, d.at);
        if (d.at <= now) due = true;
      }
    }
    // Decision: a displaced extra moves only onto processors no reservation needs from now on; one that has nowhere
    // else to go is shrunk away, so that a waiting job starts when it was promised (cbf, easy's head).
    let shortage = Math.min(state.overcommitted, unshrunk);
    if (shortage < unshrunk && state.shrinkable > 0)
      shortage = Math.max(shortage, Math.min(-this.host.reservedRoom(state, now).free, unshrunk));
    if (shortage > 0 && state.shrinkable > 0) {
      for (const job of state.evolvingJobs) for (const d of job.evolveDemands) d.shrunkFor = true;
      this.host.malleability.shrinkForUpdates(state, shortage, now, due ? undefined : deadline);
      // A shrink with a deadline ends at once; updates already due are served when releases end the other kind.
      if (due) return;
    }
    for (const job of state.evolvingJobs) {
      let grant = 0;
      while (job.evolveDemands.length > 0 && job.evolveDemands[0]!.at <= now)
        grant += job.evolveDemands.shift()!.processors;
      if (grant === 0) continue;
      // Decision: what shrinks could not free (local users took it meanwhile) is asked anyway; the local manager
      // starts it when it can.
      this.host.ledger.account(job, () => {
        job.promised -= grant;
        job.pendingGrow += grant;
      });
      this.host.managers[job.clusterIndex]!.grow(job.id, grant);
    }
  }
}
