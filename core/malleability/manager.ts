// The malleability manager: runs a policy's grow or shrink procedure on one cluster at a time, sending its offers
// and requests to applications and resuming it with their answers, whenever those arrive.
import type { ApplicationPort } from '../ports.js';
import type { SchedulerEventBody } from '../events.js';
import type { ClusterState } from '../scheduler/cluster-state.js';
import type { JobRecord } from '../scheduler/job-record.js';
import type { GrowthRoom } from '../scheduler/growth.js';
import type { CapacityLedger } from '../scheduler/ledger.js';
import { operatorGrow, operatorShrink } from './operator.js';
import type { ExpansionReason, MalleabilityPolicy, PolicyProcedure, PolicyStep } from './policy.js';

/** What the manager needs from the scheduler that owns it. */
export interface MalleabilityHost {
  readonly applications: ApplicationPort;
  /** Where the processors offers earmark and shrinks agree to release are counted. */
  readonly ledger: CapacityLedger;
  emit(now: number, event: SchedulerEventBody): void;
  /** The application accepted `processors` more of offer `offerId`: account them and ask the local manager for them. */
  grantGrow(job: JobRecord, processors: number, offerId: number, why?: ExpansionReason): void;
  /** An operation ended on a cluster (its processors may now be placed or grown into). */
  operationDone(cluster: ClusterState, now: number): void;
  /**
   * What free processors growth may take on a cluster without delaying a waiting job's reservation there
   * (core/scheduler/growth.ts); absent: no limit.
   */
  reservedRoom?(cluster: ClusterState, now: number): GrowthRoom;
}

interface Operation {
  readonly cluster: ClusterState;
  readonly procedure: PolicyProcedure<JobRecord>;
  readonly mandatory: boolean;
  /** Started by an operator (one job resized by hand), not by the policy: its events say so. */
  readonly operator: boolean;
  /** The step it waits on: an answer to an offer or request, or releases. */
  waiting: PolicyStep<JobRecord> | undefined;
  offerId: number;
  /** Processors its pending offer or request named to the application (a policy's figure cut to the job's room). */
  offered: number;
  /** Processors set aside for a grow operation from its start, so that nothing else takes them meanwhile. */
  earmarked: number;
  /** A shrink's deadline: when the processors must be released (ahead of an evolving job's announced update). */
  readonly deadline: number | undefined;
  /** Its key in `byCluster`: the cluster's index for the policies' and operators' operations, or an evolving lane. */
  readonly key: number;
}

export class MalleabilityManager {
  private readonly byOffer = new Map<number, Operation>();
  /**
   * One operation at a time per cluster, keyed by cluster index; beside it, one mandatory shrink for evolving jobs'
   * updates (keyed by -1 - index), so that a guaranteed update never waits for a policy's operation to end.
   */
  private readonly byCluster = new Map<number, Operation>();
  private nextOfferId = 1;

  constructor(
    private readonly host: MalleabilityHost,
    public policy: MalleabilityPolicy,
  ) {}

  /** Operations running now, on every cluster (a cheap part of the scheduler's state key). */
  get running(): number {
    return this.byCluster.size;
  }

  /** Whether any operation runs on the cluster (growth and shrinks to place jobs wait for it). */
  busy(cluster: ClusterState): boolean {
    return this.byCluster.has(cluster.cluster.index) || this.byCluster.has(evolvingKey(cluster.cluster.index));
  }

  /** The job a grow offer on the cluster awaits the answer of; undefined when none does. */
  offeredTo(cluster: ClusterState): JobRecord | undefined {
    const waiting = this.byCluster.get(cluster.cluster.index)?.waiting;
    return waiting?.kind === 'offerGrow' ? waiting.job : undefined;
  }

  /** Whether a shrink for evolving jobs' updates runs on the cluster. */
  busyForUpdates(cluster: ClusterState): boolean {
    return this.byCluster.has(evolvingKey(cluster.cluster.index));
  }

  /**
   * Mandatory shrink of malleable extras for evolving jobs' updates, chosen by the policy. With a deadline (an
   * announced update) the jobs keep their processors until then and the operation ends once they have answered;
   * without, it ends once they have released them.
   */
  shrinkForUpdates(cluster: ClusterState, shrinkValue: number, now: number, deadline?: number): void {
    const procedure = this.policy.shrink(cluster.malleableJobs.slice(), shrinkValue);
    this.start(
      cluster,
      procedure,
      { mandatory: true, earmark: 0, operator: false, deadline, key: evolvingKey(cluster.cluster.index) },
      now,
    );
  }

  grow(cluster: ClusterState, growValue: number, now: number): void {
    this.start(
      cluster,
      this.policy.grow(cluster.malleableJobs.slice(), growValue),
      { mandatory: false, earmark: growValue, operator: false },
      now,
    );
  }

  /** `deadline`: the processors must be released by then, not at once (ahead of an evolving job's announced update). */
  shrink(cluster: ClusterState, shrinkValue: number, mandatory: boolean, now: number, deadline?: number): void {
    this.start(
      cluster,
      this.policy.shrink(cluster.malleableJobs.slice(), shrinkValue),
      { mandatory, earmark: 0, operator: false, deadline },
      now,
    );
  }

  /**
   * Runs a procedure a policy's own iteration made (DBES: its shrinks, or its expansions with their reasons) on a
   * cluster, as one operation; `earmark`: processors set aside for its offers from the start.
   */
  run(
    cluster: ClusterState,
    procedure: PolicyProcedure<JobRecord>,
    options: { mandatory: boolean; earmark: number },
    now: number,
  ): void {
    this.start(cluster, procedure, { ...options, operator: false }, now);
  }

  /** An operator offers one job of `cluster` up to `processors` more (set aside from the start, as a policy grow). */
  operatorGrow(cluster: ClusterState, job: JobRecord, processors: number, now: number): void {
    this.start(cluster, operatorGrow(job, processors), { mandatory: false, earmark: processors, operator: true }, now);
  }

  /** An operator makes one job of `cluster` give back `processors` (mandatory). */
  operatorShrink(cluster: ClusterState, job: JobRecord, processors: number, now: number): void {
    const capAtKept = () => (job.cap = Math.max(job.min, job.held - job.releasing));
    this.start(
      cluster,
      operatorShrink(job, processors, capAtKept),
      { mandatory: true, earmark: 0, operator: true },
      now,
    );
  }

  onGrowAnswer(offerId: number, accepted: number, now: number): void {
    const op = this.byOffer.get(offerId);
    const step = op?.waiting;
    if (!op || step?.kind !== 'offerGrow') return;
    this.byOffer.delete(offerId);
    // The job cannot take more than offered nor beyond its cap; a negative answer is a refusal. Nor what an
    // evolving job's update was promised meanwhile (the cluster is then over its capacity by that much).
    const taken = clamp(accepted, 0, Math.min(op.offered, step.job.growable, op.earmarked - op.cluster.overcommitted));
    // What the job takes becomes its own (pending) allocation; the rest stays set aside for the next offers.
    op.earmarked -= taken;
    this.host.ledger.unearmark(op.cluster, taken);
    const answer: OperationEvent = {
      type: 'grow.answered',
      jobId: step.job.id,
      offerId,
      accepted: taken,
      ...expansionOf(step),
    };
    // Decision: an answer cut to what could be granted keeps the application's own word beside it (`answered`), so
    // that the record never says the application accepted what it did not.
    if (taken !== accepted && Number.isFinite(accepted) && accepted > 0) answer.answered = accepted;
    this.host.emit(now, byOperator(op, answer));
    if (taken > 0) this.host.grantGrow(step.job, taken, offerId, step.why);
    // Decision: the cut stands (capacity fell meanwhile); the application is told what it gets, so its target follows.
    if (answer.answered !== undefined && taken < answer.answered)
      this.host.applications.growGranted(offerId, step.job.id, taken, answer.answered);
    this.resume(op, taken, now);
  }

  onShrinkAnswer(offerId: number, accepted: number, now: number): void {
    const op = this.byOffer.get(offerId);
    const step = op?.waiting;
    if (!op || step?.kind !== 'requestShrink') return;
    this.byOffer.delete(offerId);
    // A job may give back more than asked (FT keeps a power of two), never below its minimum.
    const agreed = clamp(accepted, 0, step.job.shrinkable);
    const answer: OperationEvent = { type: 'shrink.answered', jobId: step.job.id, offerId, accepted: agreed };
    if (agreed !== accepted && Number.isFinite(accepted) && accepted > 0) answer.answered = accepted;
    this.host.ledger.agreeToRelease(step.job, agreed, op.deadline);
    this.host.emit(now, byOperator(op, answer));
    this.resume(op, agreed, now);
  }

  /** A job released processors or ended: an operation waiting on it may go on. */
  onJobChanged(job: JobRecord, now: number): void {
    for (const [offerId, op] of this.byOffer) {
      if (op.waiting && 'job' in op.waiting && op.waiting.job === job && job.ended) {
        this.byOffer.delete(offerId);
        this.resume(op, 0, now);
      }
    }
    for (const key of [job.clusterIndex, evolvingKey(job.clusterIndex)]) {
      const op = this.byCluster.get(key);
      if (op?.waiting?.kind === 'awaitRelease' && op.waiting.jobs.every((j) => j.releasingNow === 0 || j.ended)) {
        this.resume(op, 0, now);
      }
    }
  }

  /** `earmark`: processors set aside for the operation from its start (a grow's). */
  private start(
    cluster: ClusterState,
    procedure: PolicyProcedure<JobRecord>,
    {
      mandatory,
      earmark,
      operator,
      deadline,
      key = cluster.cluster.index,
    }: { mandatory: boolean; earmark: number; operator: boolean; deadline?: number | undefined; key?: number },
    now: number,
  ): void {
    if (this.byCluster.has(key))
      throw new Error(`a malleability operation is already running on ${cluster.cluster.name}`);
    const op: Operation = {
      cluster,
      procedure,
      mandatory,
      operator,
      waiting: undefined,
      offerId: 0,
      offered: 0,
      earmarked: earmark,
      deadline,
      key,
    };
    this.host.ledger.earmark(cluster, earmark);
    this.byCluster.set(key, op);
    this.resume(op, 0, now);
  }

  /** Drives the procedure until it waits for an answer from an application, or ends. */
  private resume(op: Operation, input: number, now: number): void {
    op.waiting = undefined;
    for (;;) {
      const next = op.procedure.next(input);
      if (next.done) return this.finish(op, now);
      const step = next.value;
      input = 0;
      if (step.kind === 'awaitRelease') {
        // A shrink with a deadline does not wait: the jobs release by then, and whoever needs it counts on that.
        if (op.deadline !== undefined || step.jobs.every((j) => j.releasingNow === 0 || j.ended)) continue;
        op.waiting = step;
        return;
      }
      if (step.kind === 'earmark') {
        // Decision: an earmark mid-operation takes no processor a reservation needs, as growth's first earmark does.
        const room = this.host.reservedRoom?.(op.cluster, now);
        input = Math.max(0, Math.min(step.processors, op.cluster.availableForGrowth(room?.free, room?.all)));
        this.host.ledger.earmark(op.cluster, input);
        op.earmarked += input;
        continue;
      }
      const job = step.job;
      const room = step.kind === 'offerGrow' ? job.growable : job.shrinkable;
      // Decision: a job with no room (at its max, or at its min) is not asked; the procedure sees 0 at once.
      if (room === 0 || step.processors <= 0) continue;
      // A shrink never asks a job for more than it runs above its minimum (the policy hears what it agrees to); an
      // offer never names more than the job may take (its cap, which an operator's shrink sets below the maximum the
      // application knows): an application that takes only some sizes then picks one it may have.
      const processors = Math.min(step.processors, room);
      const offerId = this.nextOfferId++;
      op.waiting = step;
      op.offerId = offerId;
      op.offered = processors;
      this.byOffer.set(offerId, op);
      const cluster = op.cluster.cluster.name;
      if (step.kind === 'offerGrow') {
        this.host.emit(
          now,
          byOperator(op, { type: 'grow.offered', jobId: job.id, cluster, offerId, processors, ...expansionOf(step) }),
        );
        this.host.applications.offerGrow(offerId, job.id, processors);
      } else {
        this.host.emit(
          now,
          byOperator(op, {
            type: 'shrink.requested',
            jobId: job.id,
            cluster,
            offerId,
            processors,
            mandatory: op.mandatory,
            ...shrinkOf(step),
          }),
        );
        if (op.deadline === undefined) this.host.applications.requestShrink(offerId, job.id, processors, op.mandatory);
        else this.host.applications.requestShrink(offerId, job.id, processors, op.mandatory, op.deadline);
      }
      return;
    }
  }

  private finish(op: Operation, now: number): void {
    this.host.ledger.unearmark(op.cluster, op.earmarked);
    op.earmarked = 0;
    this.byCluster.delete(op.key);
    this.host.operationDone(op.cluster, now);
  }
}

type OperationEvent = Extract<
  SchedulerEventBody,
  { type: 'grow.offered' | 'grow.answered' | 'shrink.requested' | 'shrink.answered' }
>;

/** Marks the events of an operator's operation; a policy's carry no mark (the common case stays small). */
function byOperator(op: Operation, event: OperationEvent): OperationEvent {
  if (op.operator) event.operator = true;
  return event;
}

/** A DBES expansion's reason as event fields (nothing for other policies' offers). */
function expansionOf(step: PolicyStep<JobRecord>): { step?: 1 | 2; forJob?: string } {
  if (step.kind !== 'offerGrow' || step.why === undefined) return {};
  return step.why.forJob === undefined ? { step: step.why.step } : { step: step.why.step, forJob: step.why.forJob };
}

/** A DBES shrink's reason as event fields. */
function shrinkOf(step: PolicyStep<JobRecord>): {
  phase?: 'evolving' | 'startLater' | 'steal';
  forJob?: string;
  fromStep?: 1 | 2;
  fromFor?: string;
} {
  if (step.kind !== 'requestShrink' || step.why === undefined) return {};
  const { phase, forJob, fromStep, fromFor } = step.why;
  return fromFor === undefined ? { phase, forJob, fromStep } : { phase, forJob, fromStep, fromFor };
}

function evolvingKey(clusterIndex: number): number {
  return -1 - clusterIndex;
}

function clamp(value: number, lo: number, hi: number): number {
  if (!Number.isFinite(value)) return lo;
  return Math.max(lo, Math.min(hi, Math.floor(value)));
}
