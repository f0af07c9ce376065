// A job as the scheduler tracks it while it lives: spec, state history, placement, and a malleable or evolving job's
// sizes.
import type { PlacedComponent } from '../events.js';
import type { ExpansionReason } from '../malleability/policy.js';
import type { Step } from '../time/step-function.js';
import { componentRequest, FINAL_STATES, type JobKind, type JobState, type Transition } from '../model/job.js';
import type { JobSpec } from '../model/schemas.js';
import type { PlacementPolicy } from '../placement/policy.js';
import { noClusterReason } from '../placement/sizing.js';
import type { ClosedScan } from '../queue/placement-queue.js';

/**
 * A job as policies see it (malleability policies and approaches, placement sizing): read-only. Only the scheduler's
 * own modules change a record, through `JobRecord`.
 */
export interface ReadonlyJobRecord {
  readonly id: string;
  readonly spec: JobSpec;
  readonly kind: JobKind;
  readonly min: number;
  readonly max: number;
  /** Order of arrival in the grid. */
  readonly seq: number;
  readonly state: JobState;
  readonly startTime: number;
  readonly clusterIndex: number;
  readonly components: readonly PlacedComponent[];
  readonly size: number;
  readonly held: number;
  readonly releasing: number;
  readonly releasingNow: number;
  readonly cap: number;
  readonly shrinkable: number;
  readonly growable: number;
  readonly malleable: boolean;
  readonly evolving: boolean;
  readonly ended: boolean;
  readonly preallocation: number;
  readonly need: number;
}

export class JobRecord implements ReadonlyJobRecord {
  readonly id: string;
  readonly spec: JobSpec;
  readonly kind: JobKind;
  /** Bounds of the first component; malleable and moldable jobs have only one. */
  readonly min: number;
  readonly max: number;
  readonly transitions: Transition[] = [];
  state: JobState = 'submitted';
  tries = 0;
  /** The poll round of its last counted try (a job counts one try per round); -1 before any. */
  triedInRound = -1;
  /**
   * Set by the scheduler at each visit of the queue scan: the processors under which, once tried in the round, a
   * visit would only keep it unchanged (its minimum, for a single unpinned component); -1 when it must be visited.
   */
  passOver = -1;
  private failure = '';
  /**
   * A "no cluster has enough" failure is kept as two numbers (and, as a placement policy words it, the cluster with
   * the most) and worded only when read (it is the common one).
   */
  private failureNeed = 0;
  private failureMost = -1;
  private failureCluster: string | undefined = undefined;
  /**
   * Its queue's closed passes, once queued, and the pass in which its reason was last its own (queued, visited or
   * given one then): a later closed pass that did not reach it tells it why it waits instead (see lastFailure).
   */
  private closedScan: ClosedScan | undefined = undefined;
  private ownReasonIn = -1;
  /** Where it was placed, and with how many processors per component (the start size). */
  components: PlacedComponent[] = [];
  /** Cluster index of a single-cluster job once placed; -1 before. */
  clusterIndex = -1;
  startTime = Number.NaN;
  /** Where and when a planning queue policy (easy, cbf) reserved this waiting job to start, at its last pass. */
  plannedStart: { readonly cluster: number; readonly start: number } | undefined = undefined;
  /** It started while a job submitted before it was still waiting. */
  backfilled = false;
  /** Handed to the local managers (after the claim). */
  launched = false;
  /** Components whose local job has started. */
  startedComponents = 0;
  /** Processors placed but whose local jobs have not started yet. */
  claimed = 0;
  /** Processors active in the application (malleable: changes over time). */
  size = 0;
  /** Grown processors accepted by the application but not yet active. */
  pendingGrow = 0;
  /** Of `pendingGrow`, oldest first, those offered with a reason (a DBES expansion's step and job), for job.grown. */
  readonly growReasons: Array<{ processors: number; readonly why: ExpansionReason }> = [];
  /**
   * Malleable: of `pendingGrow`, oldest first, the offer each was granted for and how many that offer's grant came to
   * (an adopted job's grows asked before the restart are in none): what the application is told of a grow that fails.
   * Made at its first grant (most jobs have none).
   */
  growGrants: Array<{ readonly offerId: number; processors: number; granted: number }> | undefined = undefined;
  /** Evolving: why processors of its update under way will not come (the first reason); told once none is on its way. */
  growFailure: string | undefined = undefined;
  /** Processors the application has agreed to give back but not yet released. */
  releasing = 0;
  /** Of `releasing`, what it may keep until `releaseBy` (a shrink ahead of an evolving job's announced update). */
  releasingByDeadline = 0;
  /** When `releasingByDeadline` must be gone; NaN when nothing is. */
  releaseBy = Number.NaN;
  /**
   * Evolving: processors of its pre-allocation promised to an update (counted as in use, so nobody else is given
   * them) but not yet asked of the local manager: waiting for mandatory shrinks, or for an announced update's time.
   */
  promised = 0;
  /** Evolving: the updates promised and not yet handed to the local manager, earliest due first. */
  readonly evolveDemands: Array<{ processors: number; at: number; shrunkFor: boolean }> = [];
  /**
   * Evolving: whether it holds its whole pre-allocation (its max, CooRMv2: its updates are guaranteed), or only what it
   * was granted (under a policy with its own iteration, DBES: each grow is a request the scheduler may refuse).
   */
  preallocating = true;
  /** Profiled (FPE): its current step, when it began and its scheduled length (fpe-jobs.ts keeps it; holding.ts reads it). */
  profiledStep: { readonly start: number; readonly duration: number } | undefined = undefined;
  /** Evolving: a shrink it announced, taking effect at `at`. */
  announcedShrink: { readonly processors: number; readonly at: number } | undefined = undefined;
  /** Size over time (processors active), from the start; the last step holds until now. */
  readonly sizeHistory: Step[] = [];
  /** The size it started at (0 before): what its walltime is the run time at; sizeHistory loses it to a same-instant grow. */
  startSize = 0;
  /**
   * Most processors the policies may grow it to: its max, or less after an operator shrank it. Decision: an
   * operator's shrink sticks (PRA would otherwise grow the job straight back into what it gave up); an operator's
   * grow lifts the cap again.
   */
  cap: number;
  /** Placed whole on one cluster (not split by flexible cluster minimization, not co-allocated). */
  readonly singleCluster: boolean;
  /** Order of arrival in the grid, for deterministic tie-breaks. */
  readonly seq: number;

  constructor(
    spec: JobSpec,
    id: string,
    seq: number,
    now: number,
    readonly placementPolicy: PlacementPolicy,
  ) {
    this.id = id;
    this.spec = spec;
    this.kind = spec.kind;
    this.seq = seq;
    const request = componentRequest(spec, 0);
    this.min = request.min;
    this.max = request.max;
    this.cap = request.max;
    this.singleCluster = spec.components.length === 1 && !(spec.placement === 'fcm' && spec.kind === 'rigid');
    this.transitions.push({ state: 'submitted', time: now, reason: 'submitted' });
  }

  /**
   * Why the last placement try failed; for a waiting job a closed pass stopped before since (the scan does not visit
   * the rest of the queue), the reason that pass gives the jobs behind (EASY: behind its head's reservation), read
   * from the queue and not copied to each job, so that a closed pass costs nothing per job it leaves.
   */
  get lastFailure(): string {
    if (this.behindClosedScan) return this.closedScan!.reason;
    if (this.failureMost >= 0) {
      this.failure =
        this.failureCluster === undefined
          ? `no cluster has ${this.failureNeed} processors available (most: ${this.failureMost})`
          : noClusterReason(this.kind, this.failureNeed, 0, this.failureMost, this.failureCluster);
      this.failureMost = -1;
    }
    return this.failure;
  }

  set lastFailure(reason: string) {
    this.failure = reason;
    this.failureMost = -1;
    this.ownReasonNow();
  }

  /** Queued (submitted, or back from a failed claim) in the queue whose closed passes are `closed`. */
  queuedIn(closed: ClosedScan): void {
    this.closedScan = closed;
    this.ownReasonNow();
  }

  /**
   * The reason it reads now becomes its own: at a visit of a pass that may give it none (a try in the same poll round
   * keeps it; giving one makes that its own), and as it leaves the queue (it reads it from then on, whatever later
   * passes tell the jobs behind them).
   */
  keepReason(): void {
    if (this.behindClosedScan) this.lastFailure = this.closedScan!.reason;
    else this.ownReasonNow();
  }

  /** Waiting, and not visited since a pass closed before reaching it (one that left the queue never is). */
  private get behindClosedScan(): boolean {
    const closed = this.closedScan;
    return closed !== undefined && this.ownReasonIn < closed.closedIn && this.state === 'queued';
  }

  /** Its own reason holds from the queue's pass running (or last run) on. */
  private ownReasonNow(): void {
    const closed = this.closedScan;
    if (closed !== undefined) this.ownReasonIn = closed.begun;
  }

  /** Records a try that failed because no cluster had `need` processors free (`most` at best). */
  tooLarge(need: number, most: number): void {
    this.failureNeed = need;
    this.failureMost = most;
    this.failureCluster = undefined;
    this.ownReasonNow();
  }

  /**
   * Records a try that failed as a placement policy would have failed it: no cluster had `need` left for its one
   * component, `most` at best, first on `cluster` (the policy's reason, worded only when read).
   */
  fitsNowhere(need: number, most: number, cluster: string): void {
    this.failureNeed = need;
    this.failureMost = most;
    this.failureCluster = cluster;
    this.ownReasonNow();
  }

  get malleable(): boolean {
    return this.kind === 'malleable';
  }

  get ended(): boolean {
    return FINAL_STATES.has(this.state);
  }

  /** Clusters (by index) where the job waits for processors that mandatory shrinks release for it. */
  waitingOn: number[] = [];

  get evolving(): boolean {
    return this.kind === 'evolving';
  }

  /**
   * Evolving: the processors held for it on its cluster for its whole run (its max), or, without a pre-allocation,
   * what it holds now; 0 for other kinds.
   */
  get preallocation(): number {
    if (this.kind !== 'evolving') return 0;
    return this.preallocating ? this.max : this.held;
  }

  /** Processors a placement must find for it: its minimum, an evolving job's whole pre-allocation (or, without one, its initial size). */
  get need(): number {
    if (this.kind !== 'evolving') return this.min;
    return this.preallocating ? this.max : componentRequest(this.spec, 0).initial;
  }

  /** Processors Concertina holds for the job: placed, active, being added, and promised to an evolving update. */
  get held(): number {
    return this.claimed + this.size + this.pendingGrow + this.promised;
  }

  /** Records the size in force from `t` (a later record at the same time replaces it). */
  recordSize(t: number): void {
    if (this.startSize === 0) this.startSize = this.size;
    const last = this.sizeHistory[this.sizeHistory.length - 1];
    if (last && last.t === t) last.v = this.size;
    else if (!last || last.v !== this.size) this.sizeHistory.push({ t, v: this.size });
  }

  /** Processors it agreed to give back at once and still holds. */
  get releasingNow(): number {
    return this.releasing - this.releasingByDeadline;
  }

  /**
   * Processors a mandatory shrink may still take from it: what it runs above its minimum and has not yet agreed to
   * give back. Processors of a grow whose local jobs have not started are not the application's to give (issue 11).
   */
  get shrinkable(): number {
    return this.state === 'running' && this.malleable ? Math.max(0, this.size - this.releasing - this.min) : 0;
  }

  /** Processors a grow offer may still add. */
  get growable(): number {
    return this.state === 'running' && this.malleable ? Math.max(0, this.cap - this.held) : 0;
  }

  transition(state: JobState, time: number, reason: string): void {
    this.state = state;
    this.transitions.push({ state, time, reason });
  }
}
