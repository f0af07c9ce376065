// A pass of a planning queue policy (fcfs, easy, cbf) over the scheduler's queue: builds each cluster's plan from the
// placed jobs, shows the policy each waiting job in turn, and places those it admits through the scheduler. The
// scheduler keeps its records; this module reads them and acts through the small host below.
import {
  holdingEnd,
  holdingEndMovesWithNow,
  sharedPreallocationHolds,
  type PreallocationSharing,
  type RuntimeAt,
} from '../plan/holding.js';
import type { PlacedComponent } from '../events.js';
import type { Grid } from '../model/grid.js';
import type { PlacementContext } from '../placement/policy.js';
import { AvailabilityProfile, holdsAt, type Reservation } from '../plan/availability.js';
import { profileOfRects, pushSpan } from '../time/profile.js';
import { FreedRegions } from '../plan/freed-regions.js';
import { KeptHoldings } from '../plan/kept-holdings.js';
import type { JobRecord } from '../scheduler/job-record.js';
import type { PassOver, PlacementQueue, TryOutcome } from './placement-queue.js';
import {
  FEW_CLUSTERS,
  hasRoom,
  NO_ROOM,
  type ClusterRoom,
  type QueuePass,
  type QueuePolicy,
  type QueueView,
  type WaitingJob,
} from './policy.js';
import { MostTree } from '../scheduler/most-tree.js';
import { NO_ROOM_LIMIT, type GrowthRoom } from '../scheduler/growth.js';
import { ReusedList } from '../scheduler/reused-list.js';
import { prioritized, type PrioritizedJob, type QueuePriority } from './priority.js';
import { withReservationDepth } from './registry.js';
import { firstAfter, RoomMemo, type RoomInputs } from './room-memo.js';
import type { StepFunction } from '../time/step-function.js';

/** What a planned pass needs of the scheduler. */
export interface PlannedPassHost {
  readonly grid: Grid;
  /** What Concertina may take on cluster i now for a job without reservations. */
  availableFor(clusterIndex: number): number;
  /** Where malleable extras fill unused pre-allocated processors on cluster i (ClusterState.preallocationSharing). */
  preallocationSharing?(clusterIndex: number): PreallocationSharing | undefined;
  /** Jobs placed and not yet ended: what the plans hold. */
  placedJobs(): Iterable<JobRecord>;
  /**
   * What the scheduler's ledger keeps so that a pass makes again only the holdings that changed: the placed jobs with
   * a component on cluster i, a version of the cluster that moves whenever what they hold there may have changed,
   * and, while watched, the jobs noted as changed there. Without them, every pass makes every cluster's holdings
   * again from `placedJobs`.
   */
  placedOn?(clusterIndex: number): ReadonlySet<JobRecord>;
  holdingsVersion?(clusterIndex: number): number;
  watchChanges?(on: boolean): void;
  drainChanges?(clusterIndex: number, visit: (job: JobRecord) => void): void;
  /**
   * While watched: shows each cluster whose holdings version moved or whose `availableFor` may have changed since
   * the last drain, once. With it, a pass looks only at those clusters and those where a holding's end passed.
   */
  drainMoved?(visit: (clusterIndex: number) => void): void;
  /** Moves whenever a job is placed or leaves the placed jobs; without it, `placedJobs` is walked to tell. */
  placements?(): number;
  /** How many jobs are placed: what making every cluster's holdings again costs, job by job. */
  placedCount?(): number;
  /**
   * While on: drainMoved shows the clusters whose holdings version or `availableFor` may have changed, as while
   * changes are watched, without noting which jobs changed. Stops watching changes.
   */
  watchMoved?(on: boolean): void;
  /**
   * Whether at `now` (never earlier than the last call) every placed job holds its processors until an estimated end
   * still ahead (core/plan/holding.ts), no grow offer sets processors aside, no pre-allocation is shared and no
   * profiled job is kept: then what cluster i's plan has free from now on, before a pass reserves anything, is
   * `availableFor(i)` (core/scheduler/plain-placements.ts). Absent: never so.
   */
  plainAt?(now: number): boolean;
  /** A job's run time at a size, as its application declares it (core/plan/holding.ts). */
  readonly runtimeAt?: RuntimeAt;
  /** What a placement of `job` may take on cluster i now. */
  roomFor(job: JobRecord, clusterIndex: number): number;
  /** Whether `roomFor(job, i)` is at least `availableFor(i)` on every cluster (a job without a pre-allocation). */
  roomAtLeastAvailable?(job: JobRecord): boolean;
  place(job: JobRecord, components: PlacedComponent[], policy: string, now: number): void;
  /** Counts a failed try (`reason` recorded), which may end the job. */
  failedTry(job: JobRecord, reason: string | undefined, now: number): TryOutcome;
  /** Asks for a pass at time t (a promised start that no job's end will announce). */
  wake(t: number): void;
  /** Events emitted so far: unchanged, nothing a plan is built from has changed (jobs, queue, load). */
  eventCount(): number;
  /**
   * The profiled jobs' steps ahead, by submission (core/scheduler/fpe-jobs.ts): a waiting one's scheduled EP, a
   * running one's later steps beyond what its holding counts; absent: none.
   */
  profiledHolds?(now: number): readonly ProfiledHold[];
  /**
   * Processors set aside on cluster i for grow offers not yet answered (they leave what is available without being
   * in any job's holding), and until when the jobs they go to would hold them; undefined: none.
   */
  offersHeld?(clusterIndex: number, now: number): OffersHeld | undefined;
}

/** Processors set aside for grow offers on a cluster, held in its plan from now until `end`. */
export interface OffersHeld {
  readonly n: number;
  readonly end: number;
}

/** A profiled job's steps ahead as the plans hold them: `steps` one after the other from `start` on `cluster`. */
export interface ProfiledHold {
  readonly id: string;
  readonly seq: number;
  readonly cluster: number;
  readonly start: number;
  readonly steps: ReadonlyArray<{ readonly duration: number; readonly nodes: number }>;
  /**
   * A placed job's (claiming or running: `steps` are its later ones) processors the plan holds until its current
   * step's end (its pre-allocation, holding.ts); undefined for a waiting job.
   */
  readonly holding?: number;
}

/** Waiting jobs with a promise, and the reservations that hold them, by cluster; `count` in all. */
interface PromisedOn {
  readonly jobs: JobRecord[][];
  readonly reservations: Reservation[][];
  count: number;
}

const NO_HOLDS: readonly ProfiledHold[] = [];
/** The id of the reservation that holds a cluster's grow offers in its plan. */
const GROW_OFFERS = 'grow offers';

/** Whether f is above g anywhere from `from` on (risingRuns without a visitor: the walk stops at the first rise). */
export function risesAbove(f: StepFunction, g: StepFunction, from: number): boolean {
  return risingRuns(f, g, from);
}

/**
 * Visits each maximal run [a, b) from `from` on where f is above g (walks both breakpoint lists once, allocating
 * nothing); returns whether there was one. Without `visit`, returns at the first rise.
 */
export function risingRuns(
  f: StepFunction,
  g: StepFunction,
  from: number,
  visit?: (a: number, b: number) => void,
): boolean {
  const ft = f.times;
  const fv = f.values;
  const gt = g.times;
  const gv = g.values;
  // Values in force at `from`.
  let i = upperIndex(ft, from);
  let j = upperIndex(gt, from);
  let a = i > 0 ? fv[i - 1]! : f.initial;
  let b = j > 0 ? gv[j - 1]! : g.initial;
  let t = from;
  let runFrom = Number.NaN;
  let any = false;
  for (;;) {
    if (a > b) {
      if (visit === undefined) return true;
      if (runFrom !== runFrom) runFrom = t;
    } else if (runFrom === runFrom) {
      visit!(runFrom, t);
      any = true;
      runFrom = Number.NaN;
    }
    const tf = i < ft.length ? ft[i]! : Number.POSITIVE_INFINITY;
    const tg = j < gt.length ? gt[j]! : Number.POSITIVE_INFINITY;
    if (tf === Number.POSITIVE_INFINITY && tg === Number.POSITIVE_INFINITY) break;
    t = Math.min(tf, tg);
    if (tf <= tg) a = fv[i++]!;
    if (tg <= tf) b = gv[j++]!;
  }
  if (runFrom === runFrom) {
    visit!(runFrom, Number.POSITIVE_INFINITY);
    any = true;
  }
  return any;
}

/** The number of breakpoints at or before t. */
function upperIndex(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The reason a pass gives the jobs its scan did not visit, or undefined when it visited them all: those after it
 * closed (QueuePass.closed) and those it passed over by need or fit (`passedOver` finite: the least need among these),
 * the reason `waits` gives every need above waitsAbove, so an infinite one's (QueuePass.waitsAbove, mayFit). The queue
 * keeps one reason for them all (ClosedScan).
 */
function unvisitedReason(pass: QueuePass, passedOver: number): string | undefined {
  const closed = pass.closed?.();
  if (passedOver === Number.POSITIVE_INFINITY) return closed;
  const waits = pass.waits!(Number.POSITIVE_INFINITY);
  // Cannot happen for a pass that keeps waitsAbove's promise; a guard, since no job may read a reason its visit
  // would not have given it.
  if (waits === undefined || (closed !== undefined && closed !== waits))
    throw new Error(`a pass passed over jobs it does not tell one reason (${waits}; closed: ${closed})`);
  return waits;
}

function prioritizedJob(job: JobRecord): PrioritizedJob {
  return {
    seq: job.seq,
    submitTime: job.transitions[0]!.time,
    need: job.need,
    walltime: job.spec.walltime ?? Number.POSITIVE_INFINITY,
  };
}

export class PlannedPass {
  /** For a policy with promises: each cluster's free processors at the end of its last pass, and which policy. */
  private lastFree: Array<StepFunction | undefined> = [];
  /** For a policy with promises: each cluster's plan at the end of its last pass, whose reservations the next keeps. */
  private lastPlans: Array<AvailabilityProfile | undefined> = [];
  private lastPolicy = '';
  /** The waiting jobs' promises at a promising pass's start, by cluster (see promisedOn). */
  private readonly promised: PromisedOn = { jobs: [], reservations: [], count: 0 };
  /** The promises shown to the policy in this pass, by job id (those the plans still hold). */
  private promises = new Map<string, { readonly cluster: number; readonly start: number }>();
  /** The earliest reserved start of the pass running, and the earliest wake-up asked for and not yet due. */
  private earliestReserved = Number.POSITIVE_INFINITY;
  private wakeAsked = Number.POSITIVE_INFINITY;
  /**
   * What the last pass of a policy with promises left: the events so far, the policy, depth and priority, and each
   * cluster's capacity (see `unchanged`); `lastEvents` -1: no such pass.
   */
  private lastEvents = -1;
  private lastPolicyName = '';
  private lastDepth: number | undefined;
  private lastPriority: string | undefined;
  private readonly lastCapacity: number[] = [];
  /** The placed jobs at the end of the last pass of a policy with promises: how many, and the sum of their numbers. */
  private lastPlaced = '';
  /** The policy whose passes planned nothing (KOALA's: the scheduler's own scan runs). */
  private unplanned: QueuePolicy | undefined;
  /** Each cluster's holdings, kept between passes (see `refresh`), and the host's version each was brought to. */
  private kept: KeptHoldings[] = [];
  private keptVersions: number[] = [];
  /** Where the plans of a policy with promises freed processors, kept with lastFree (see core/plan/freed-regions.ts). */
  private readonly freedRegions = new FreedRegions();
  /** Whether the host notes changed jobs for this pass (from the first planned pass until a policy plans nothing). */
  private watching = false;
  /**
   * Per cluster, as of its last refresh (kept while neither its holdings nor what it has available changed, and no
   * holding's end passed): its plan's capacity, and what is free from now on before the pass reserves anything.
   */
  private capacityAt: number[] = [];
  private freeNow: number[] = [];
  /** Per cluster, as of its last refresh: what grow offers set aside there (`offersHeld`), held in its plan. */
  private offersAt: Array<OffersHeld | undefined> = [];
  /**
   * Per cluster, as of its last refresh: where malleable extras fill its unused pre-allocated processors, and the
   * clusters with some: their plans set them aside (core/plan/holding.ts) and are built whenever asked (what is free
   * from now falls there).
   */
  private sharing: Array<PreallocationSharing | undefined> = [];
  private readonly sharedOn = new Set<number>();
  /** While a promising view builds its plans: the shared processors are set aside after its promises. */
  private promisesFirst = false;
  /** Clusters to refresh in this pass, each once (`dirtyMark`). */
  private readonly dirty = new ReusedList<number>();
  private dirtyMark = new Uint8Array(0);
  /** When each cluster's holdings change by themselves (KeptHoldings.nextChange), as a heap of due times. */
  private readonly due = new DueHeap();
  /** The clusters by `freeNow`, those with a plan built in the pass running left out (-Infinity). */
  private byFree = new MostTree(0);
  /** How many clusters have more free from now than available (a holding past its estimated end still placed). */
  private pastEnd = 0;
  private pastEndOn: boolean[] = [];
  /**
   * The pass running over `view` (not the view of a policy with promises): its plans built so far and on which
   * clusters, and whether something moved on a cluster without one since the pass began.
   */
  private passPlans: Array<AvailabilityProfile | undefined> | undefined;
  /**
   * The view of every pass but a promising one's, made once: passes never overlap, and the view asks this pass for
   * what it answers (`passPlan` ...), so that a pass makes no closures. Its plans (`plansInPass`, built so far: those
   * in `built`) are let go at the next pass's start; whether the holdings were brought to its time: `refreshedInPass`.
   */
  private readonly plainView: { now: number; clusterCount: number } & QueueView = {
    now: 0,
    clusterCount: 0,
    plan: (i) => {
      this.ready();
      if (this.answersPlain) this.wake();
      this.askedPlan = true;
      this.flushHolds();
      return this.passPlan(i);
    },
    freeFromNow: (i, duration) => this.passFreeFromNow(i, duration),
    mostFreeFromNow: (duration) => this.passMostFreeFromNow(duration),
    freed: () => true,
    promised: 0,
    hold: (i, r) => {
      if (this.answersPlain) return this.holdPlain(i, r);
      const plan = this.plansInPass[i];
      if (plan !== undefined && this.heldClusters.count === 0) plan.reserve(r);
      else {
        this.heldClusters.push(i);
        this.heldReservations.push(r);
      }
    },
  };
  private readonly plansInPass: Array<AvailabilityProfile | undefined> = [];
  private refreshedInPass = false;
  /**
   * Holdings of jobs placed in the plain pass running, not yet in its plans: put in, in order, at the pass's next
   * question (`flushHolds`), so that a pass whose last question came before its last placement (most passes: one job
   * arrives, fits and starts) builds no plan for it.
   */
  private readonly heldClusters = new ReusedList<number>();
  private readonly heldReservations = new ReusedList<Reservation>();
  private readonly built = new ReusedList<number>();
  private movedInPass = false;
  /**
   * Whether the holdings are let go, neither kept nor watched, while the passes need none (see `ready`): only the
   * clusters that moved are noted, and `freeNow` of a cluster not dirty is what is available there.
   */
  private idle = false;
  /**
   * Whether the pass running answers from what is available (idle, and plain at its time): without plans, and so
   * without holdings, until a question needs them (`wake`).
   */
  private answersPlain = false;
  /** In such a pass, per cluster: what its placements hold from now on there (their reservations, in no plan yet). */
  private heldInPass: number[] = [];
  private inPassMark = new Uint8Array(0);
  /** In such a pass: the jobs it placed; after a `wake`, those its holdings left out, added at the pass's end. */
  private readonly placedInPass = new ReusedList<JobRecord>();
  /** The jobs given a reservation (a planned start) in this pass, and in the last one (see dropUnvisitedStarts). */
  private reservedInPass = new ReusedList<JobRecord>();
  private reservedInLastPass = new ReusedList<JobRecord>();
  private readonly unkept = new ReusedList<JobRecord>();
  /** The pass running: whether it is a promising view's, started plain, asked a plan; its holdings' upkeep. */
  private promisingPass = false;
  private plainAtStart = false;
  private askedPlan = false;
  private upkeep = 0;
  /** While watched: the upkeep of passes that started plain and asked no plan, since one asked (see `afterPlain`). */
  private unneededUpkeep = 0;
  /** The pass running: the profiled jobs' steps ahead, how many of them its plans hold, and its view. */
  private holds: readonly ProfiledHold[] = NO_HOLDS;
  private holdsIn = 0;
  private passView: QueueView | undefined;
  /** The pass running and its time, for the visitors below. */
  private passRunning: QueuePass | undefined;
  private passNow = 0;
  /** The cluster whose noted jobs `updateKept` makes again, and its placed jobs. */
  private updatingOn: KeptHoldings | undefined;
  private updatingPlaced: ReadonlySet<JobRecord> | undefined;
  // The visitors a pass hands the queue and the host, made once: a pass then makes no closures of its own.
  private readonly visitQueued = (job: JobRecord): TryOutcome => this.visit(this.passRunning!, job, this.passNow);
  private readonly passClosed = (): boolean => this.passRunning!.closed!() !== undefined;
  private readonly passOverByNeed: PassOver = {
    byNeed: true,
    limit: () => this.passRunning!.waitsAbove!(),
    fits: (need, walltime) => this.passRunning!.mayFit?.(need, walltime) ?? true,
  };
  private readonly markDirtyVisitor = (i: number): void => this.markDirty(i);
  private readonly updateKept = (job: JobRecord): void => {
    this.upkeep++;
    this.updatingOn!.update(job, this.updatingPlaced!.has(job), this.host.runtimeAt);
  };
  private readonly movedInPassVisitor = (i: number): void => {
    // Looked at again in the next pass's refresh.
    this.markDirty(i);
    if (this.passPlans![i] === undefined && this.inPassMark[i] === 0) this.movedInPass = true;
  };

  /** Each cluster's last reservedRoom, with what it was computed from (room-memo.ts). */
  private readonly rooms = new RoomMemo();

  /** What a visit's placement may take on each cluster, made once (`set` before each placement). */
  private readonly placing: PassPlacement;
  private readonly placingWithMost: PassPlacementWithMost;

  constructor(private readonly host: PlannedPassHost) {
    this.placing = new PassPlacement(host);
    this.placingWithMost = new PassPlacementWithMost(host);
  }

  /**
   * Runs a pass of `policy` over the queue, in `priority`'s order; false when the policy plans nothing (KOALA's own
   * scan runs instead). A job the policy holds back waits its turn: it is not tried, counts no try and is never
   * failed for waiting. `depth`: the reservation depth that overrides a backfilling policy's own.
   * Decision: under these policies a full pass follows every arrival (a new job may start only as the policy lets
   * it), and PWA's shrink-to-place does not apply (a later step plans shrinks).
   */
  run(base: QueuePolicy, queue: PlacementQueue, now: number, depth?: number, priority?: QueuePriority): boolean {
    // A policy that planned nothing once (koala) never does: its passes cost nothing here.
    if (base === this.unplanned) {
      this.unwatch();
      return false;
    }
    const policy = withReservationDepth(base, depth);
    const sorted = priority?.score !== undefined;
    let ordered: readonly JobRecord[] | undefined;
    let view: QueueView;
    const holds = inPlanOrder(this.host.profiledHolds?.(now) ?? NO_HOLDS);
    this.promisingPass = policy.promises === true;
    if (policy.promises) {
      // Decision: a pass of a policy with promises (a poll's) when nothing changed since the last one (no event, the
      // same settings and capacities) and no promise is due would keep every promise and start nothing: it is skipped.
      if (now < this.wakeAsked && this.unchanged(policy, depth, priority)) return true;
      ordered = sorted ? prioritized(queue.list(), priority!, now, prioritizedJob) : queue.list();
      view = this.promisingView(policy, ordered, now, holds);
    } else view = this.view(now);
    const pass = policy.begin(view);
    if (pass === undefined) {
      if (policy === base) this.unplanned = base;
      this.unwatch();
      return false;
    }
    this.earliestReserved = Number.POSITIVE_INFINITY;
    this.holds = holds;
    this.holdsIn = 0;
    this.passView = view;
    this.passRunning = pass;
    this.passNow = now;
    queue.closedScan.begin();
    const closed = pass.closed === undefined ? undefined : this.passClosed;
    // A job needing more than `waitsAbove` is kept without a visit (it would only be told `waits`' reason).
    // Decision: not while profiled jobs' steps go into the plans between visits (see visit): a visit puts them in
    // before it asks, a job passed over would not, and such passes are few.
    const byNeed = pass.waitsAbove !== undefined && holds.length === 0 ? this.passOverByNeed : undefined;
    let passedOver = Number.POSITIVE_INFINITY;
    if (!sorted) passedOver = queue.scan(this.visitQueued, byNeed, closed);
    else {
      ordered ??= prioritized(queue.list(), priority!, now, prioritizedJob);
      for (const job of ordered!) {
        if (job.state === 'queued') this.visit(pass, job, now);
        if (closed?.()) break;
      }
      // The jobs placed or ended leave the queue, which keeps its order.
      queue.scan(() => 'kept');
    }
    const closedReason = unvisitedReason(pass, passedOver);
    if (closedReason !== undefined) {
      // The jobs the scan did not visit read why they wait from the queue (JobRecord.lastFailure), at no cost each.
      queue.closedScan.close(closedReason);
      this.dropUnvisitedStarts();
    }
    const reservedBefore = this.reservedInLastPass;
    this.reservedInLastPass = this.reservedInPass;
    this.reservedInPass = reservedBefore;
    reservedBefore.clear();
    if (policy.promises) {
      // The next pass compares its plans with these only for promises kept (see promisingView): without any, none is
      // drawn (the free processors of a plan are made on demand, from all its holdings).
      const kept = this.anyPromise(queue);
      for (let c = 0; c < this.lastFree.length; c++) {
        this.lastPlans[c] = kept ? view.plan(c) : undefined;
        this.lastFree[c] = kept ? view.plan(c).free : undefined;
      }
      // Decision: a promised start is a time to act at even when no job ends then (the plan's holes are where
      // walltimes end, but a job that ended early opens one between them): the first is woken for, once.
      if (this.wakeAsked <= now) this.wakeAsked = Number.POSITIVE_INFINITY;
      if (this.earliestReserved < this.wakeAsked) {
        this.wakeAsked = this.earliestReserved;
        this.host.wake(this.earliestReserved);
      }
      this.keepSignature(policy, depth, priority);
      this.lastPlaced = this.placedSignature();
    } else {
      this.lastPolicy = '';
      this.lastEvents = -1;
      this.afterPlain();
    }
    // A new map, not Map.clear, which makes the map's new table in the generation of its old one: once a full
    // collection had moved the table to the old generation, each later pass made its promises' tables (every one they
    // grew through) there too, garbage only full collections free, each bringing the next (issue 17: a Lublin cbf
    // replay that met one ran 1.9 s CPU and 144 MiB, not 1.55 s and 119). None when empty (a pass without promises).
    if (this.promises.size > 0) this.promises = new Map();
    this.holds = NO_HOLDS;
    this.passView = undefined;
    this.passRunning = undefined;
    return true;
  }

  /**
   * The least cluster i's plan has free over [now, until) with `reserved` (waiting jobs' reservations there) in, and
   * at each waiting job's start there with the profiled jobs' steps ahead in too, built afresh from what its placed
   * jobs hold and `available` (what is available there now, negative when overcommitted; the shared processors set
   * aside last): what malleable extras held until `until` may take or move onto without delaying a waiting job
   * (`free`); negative when the reservations do not fit;
   * Infinity when none is made. `all`: the least it has free over [preallocationEnd, until), what extras may take of
   * free and unfilled pre-allocated processors together (those left where a pre-allocation ends stay until `until`).
   * Read between passes (an evolving job's grow, a growth), it changes nothing the passes keep.
   */
  reservedRoom(
    i: number,
    now: number,
    until: number,
    available: number,
    reserved: readonly Reservation[],
    preallocationEnd = Number.POSITIVE_INFINITY,
  ): GrowthRoom {
    // Decision: without a waiting job reserved here nothing limits the extras: a profiled job's step takes its
    // processors back by mandatory shrinks (fpe-jobs.ts); with one, its steps are in the plan its start is read from.
    if (reserved.length === 0) return NO_ROOM_LIMIT;
    const host = this.host;
    const holds = (host.profiledHolds?.(now) ?? NO_HOLDS).filter((h) => h.cluster === i);
    const sharing = host.preallocationSharing?.(i);
    const inputs = this.roomInputs(i, now, until, available, reserved, preallocationEnd, holds, sharing);
    const remembered = inputs === undefined ? undefined : this.rooms.get(i, now, inputs);
    if (remembered !== undefined) return remembered;
    const kept = this.made(i, host.placedOn?.(i) ?? this.bucketed()[i]!, now);
    const capacity = Math.max(0, available + kept.held);
    const plan = this.roomPlan(now, capacity, kept, reserved, holds, sharing);
    // Decision: a running profiled job's later step takes what it lacks back from malleable extras by mandatory
    // shrinks (fpe-jobs.ts), as where nothing is reserved: it limits growth only at a waiting job's start (a
    // reservation's, a waiting profiled job's first step's), which reclaims nothing, where it holds processors then
    // (one that began before). Counted everywhere, a step limited growth even beside a reservation over before it
    // began, or one it began inside (the step's own start taken for a waiting job's), and not at all once that job ran.
    const plain = holds.length > 0 ? this.roomPlan(now, capacity, kept, reserved, NO_HOLDS, sharing) : plan;
    const end = Math.max(now, until);
    const from = Math.max(now, preallocationEnd);
    let free = plain.freeBetween(now, end);
    let all = preallocationEnd < end ? plain.freeBetween(from, end) : Infinity;
    if (plain !== plan) {
      const atStart = (start: number): void => {
        const s = Math.max(now, start);
        if (!(s < end || s === now)) return;
        const left = plan.freeBetween(s, s);
        free = Math.min(free, left);
        if (preallocationEnd < end && s >= from) all = Math.min(all, left);
      };
      for (const r of reserved) atStart(r.start);
      for (const h of holds) if (h.holding === undefined) atStart(h.start);
    }
    const validUntil = Math.min(firstAfter(plan.free.times, now), firstAfter(plain.free.times, now));
    const room = { free, all };
    if (inputs !== undefined) this.rooms.set(i, now, inputs, validUntil, room);
    return room;
  }

  /**
   * Cluster i's plan for reservedRoom: its placed jobs' holdings, the waiting jobs' reservations, the profiled jobs'
   * steps ahead, and the extras already filling pre-allocations, held twice from now on after the reservations (as in
   * a pass).
   */
  private roomPlan(
    now: number,
    capacity: number,
    kept: KeptHoldings,
    reserved: readonly Reservation[],
    holds: readonly ProfiledHold[],
    sharing: PreallocationSharing | undefined,
  ): AvailabilityProfile {
    const plan = AvailabilityProfile.build({ now, capacity, kept });
    for (const r of reserved) plan.reserve(r);
    const view = { clusterCount: this.host.grid.clusters.length, now, plan: () => plan };
    for (const h of holds) reserveHold(view, h);
    if (sharing !== undefined) for (const r of sharedPreallocationHolds(sharing, plan.free, now)) plan.reserve(r);
    return plan;
  }

  /**
   * Everything reservedRoom(i, now, ...) reads but now, as one text: its arguments, the profiled jobs' steps and the
   * shared pre-allocated processors there, the cluster's holdings version, and what the holdings that move with now
   * (a malleable job's, one not started) are at now. undefined for a host that keeps no holdings versions.
   */
  private roomInputs(
    i: number,
    now: number,
    until: number,
    available: number,
    reserved: readonly Reservation[],
    preallocationEnd: number,
    holds: readonly ProfiledHold[],
    sharing: PreallocationSharing | undefined,
  ): RoomInputs | undefined {
    const host = this.host;
    if (host.holdingsVersion === undefined || host.placedOn === undefined) return undefined;
    const parts: Array<string | number> = [host.holdingsVersion(i), until, available, preallocationEnd];
    for (const r of reserved) parts.push(`r ${JSON.stringify(r.id)} ${r.n} ${r.start} ${r.duration}`);
    for (const h of holds) {
      parts.push(`h ${JSON.stringify(h.id)} ${h.start} ${h.holding}`);
      for (const s of h.steps) parts.push(s.duration, s.nodes);
    }
    if (sharing !== undefined) {
      parts.push(`s ${sharing.unused} ${sharing.extras}`);
      for (const j of sharing.byJob) parts.push(`${JSON.stringify(j.id)} ${j.unused} ${j.extras}`);
    }
    for (const job of host.placedOn(i))
      if (holdingEndMovesWithNow(job))
        parts.push(`m ${JSON.stringify(job.id)} ${job.held} ${holdingEnd(job, now, host.runtimeAt)}`);
    return parts.join(',');
  }

  /** Moves when a job ended (or came): the host's count of placements, or the placed jobs' count and numbers. */
  private placedSignature(): string {
    if (this.host.placements !== undefined) return `${this.host.placements()}`;
    let count = 0;
    let sum = 0;
    for (const job of this.host.placedJobs()) {
      count++;
      sum += job.seq;
    }
    return `${count}:${sum}`;
  }

  /** Whether the events, settings and capacities are those the last pass of a policy with promises left. */
  private unchanged(policy: QueuePolicy, depth: number | undefined, priority: QueuePriority | undefined): boolean {
    const host = this.host;
    const count = host.grid.clusters.length;
    if (
      host.eventCount() !== this.lastEvents ||
      policy.name !== this.lastPolicyName ||
      depth !== this.lastDepth ||
      priority?.name !== this.lastPriority ||
      count !== this.lastCapacity.length
    )
      return false;
    for (let c = 0; c < count; c++) if (!same(host.availableFor(c), this.lastCapacity[c]!)) return false;
    return true;
  }

  private keepSignature(policy: QueuePolicy, depth: number | undefined, priority: QueuePriority | undefined): void {
    const host = this.host;
    const count = host.grid.clusters.length;
    this.lastEvents = host.eventCount();
    this.lastPolicyName = policy.name;
    this.lastDepth = depth;
    this.lastPriority = priority?.name;
    this.lastCapacity.length = count;
    for (let c = 0; c < count; c++) this.lastCapacity[c] = host.availableFor(c);
  }

  /** Whether a waiting job holds a promise (a planned start) after a pass. */
  private anyPromise(queue: PlacementQueue): boolean {
    // An empty queue holds none: its list, which walks every slot the queue has not yet compacted (up to a thousand
    // for a queue that is mostly empty), is not made (most passes of a lightly loaded replay end with it empty).
    if (queue.length === 0) return false;
    for (const job of queue.list()) if (job.plannedStart !== undefined) return true;
    return false;
  }

  private visit(pass: QueuePass, job: JobRecord, now: number): TryOutcome {
    const host = this.host;
    // Decision: arrival order decides between profiled and queue jobs (as fpe-jobs.ts fits the former around the
    // latter's promises): a profiled job's steps ahead (waiting: its scheduled EP; running: its later steps) go into
    // the plans before the first job submitted after it is shown, so that no later job starts or is reserved into
    // them. Under a priority order that is not the arrival order they stay in for the rest of the pass (a job shown
    // later may be held back by them).
    const holds = this.holds;
    while (this.holdsIn < holds.length && (isOwn(holds[this.holdsIn]!) || holds[this.holdsIn]!.seq < job.seq))
      reserveHold(this.passView!, holds[this.holdsIn++]!);
    // What admit would do for a job the pass tells waits from its need alone (QueuePass.waits), without a WaitingJob.
    const waits =
      pass.waits !== undefined && job.spec.components[0]!.cluster === undefined ? pass.waits(job.need) : undefined;
    if (waits !== undefined) {
      job.plannedStart = undefined;
      job.lastFailure = waits;
      return 'kept';
    }
    const waiting = this.waitingJob(job);
    const admission = pass.admit(waiting);
    job.plannedStart = admission.reserved;
    if (admission.reserved !== undefined) this.reservedInPass.push(job);
    if (admission.reserved !== undefined && admission.reserved.start < this.earliestReserved)
      this.earliestReserved = admission.reserved.start;
    // A job reserved to start later has no room now (every policy answers so): its room is not scanned.
    if (
      (admission.reserved !== undefined && admission.reserved.start > now) ||
      !hasRoom(admission.room, waiting.need)
    ) {
      if (admission.reason !== undefined) job.lastFailure = admission.reason;
      else job.keepReason();
      return 'kept';
    }
    // A visit that gives a job a reason makes it its own (JobRecord.lastFailure); one that may give none (a try in the
    // same poll round, a placement) keeps the one it reads. Not at every visit: a replay makes millions of them.
    job.keepReason();
    const placementPolicy = job.placementPolicy;
    const room = admission.room;
    const most = this.mostAvailable(job, room);
    const context = most === undefined ? this.placing : this.placingWithMost;
    context.set(job, room, most ?? -1);
    const placement = placementPolicy.place(job.spec, context);
    context.set(undefined, NO_ROOM, -1);
    if (!placement.ok) {
      pass.notPlaced(waiting);
      return host.failedTry(job, placement.reason, now);
    }
    host.place(job, placement.components, placementPolicy.name, now);
    if (this.answersPlain) this.placedInPass.push(job);
    // Pushed into a literal, not made by components.map: map's array had one kind when this ran interpreted and
    // another once optimized, and the pass's `placed` (holdInPlans) met both and was deoptimized (NASA easy replays).
    const held: Array<{ cluster: number; processors: number }> = [];
    for (const c of placement.components)
      held.push({
        cluster: host.grid.cluster(c.cluster)!.index,
        processors: job.evolving ? job.preallocation : c.processors,
      });
    pass.placed(waiting, held);
    return 'placed';
  }

  /**
   * After a pass that did not visit every job (its policy closed, or it passed over jobs by need): a waiting job
   * reserved in the last pass and not in this one was either visited (its planned start is already gone) or not:
   * its visit would have taken its planned start away, as done here (none of the jobs not visited had one otherwise).
   */
  private dropUnvisitedStarts(): void {
    const before = this.reservedInLastPass;
    const again = this.reservedInPass;
    for (let k = 0; k < before.count; k++) {
      const job = before.items[k]!;
      if (job.state !== 'queued') continue;
      let reserved = false;
      for (let m = 0; m < again.count && !reserved; m++) reserved = again.items[m] === job;
      if (!reserved) job.plannedStart = undefined;
    }
  }

  private waitingJob(job: JobRecord): WaitingJob {
    const pinned = job.spec.components[0]!.cluster;
    return {
      id: job.id,
      need: job.need,
      walltime: job.spec.walltime ?? Number.POSITIVE_INFINITY,
      cluster: pinned === undefined ? undefined : this.host.grid.cluster(pinned)?.index,
      promise: this.promises.get(job.id),
    };
  }

  /**
   * Brings each cluster's kept holdings to now: the jobs the host noted as changed there since the last pass made
   * again (only on a cluster whose version moved), and those whose holdings depend on now. Run at a pass's first use
   * of a plan, for every cluster at once: placements later in the pass are in the plans as reservations, never as
   * holdings too. A host that keeps no lists has every cluster's holdings made again.
   */
  private refresh(now: number): KeptHoldings[] {
    const host = this.host;
    const count = host.grid.clusters.length;
    const kept = this.kept;
    const incremental =
      host.placedOn !== undefined &&
      host.holdingsVersion !== undefined &&
      host.drainChanges !== undefined &&
      host.watchChanges !== undefined;
    if (!incremental) {
      const buckets = this.bucketed();
      for (let i = 0; i < count; i++) kept[i] = this.made(i, buckets[i]!, now);
      kept.length = count;
      this.settleAll(now);
      return kept;
    }
    if (!this.watching || kept.length !== count) {
      host.watchChanges!(true);
      this.watching = true;
      this.idle = false;
      // Noted before the watch began: every cluster is made again below.
      host.drainMoved?.(() => {});
      for (let i = 0; i < count; i++) this.remake(i, now);
      kept.length = count;
      this.settleAll(now);
      return kept;
    }
    // Decision: on a few clusters, looking at each costs less than telling which moved (their lists are not drained).
    if (host.drainMoved === undefined || count <= FEW_CLUSTERS) {
      // Every cluster is looked at: what came due needs no telling (taken out, so that the heap does not grow).
      this.due.popDue(now, () => {});
      for (let i = 0; i < count; i++) {
        this.refreshCluster(i, now);
        this.settle(i, now);
      }
      return kept;
    }
    // Only the clusters where something moved, or a holding's end passed: the others' figures still hold.
    host.drainMoved(this.markDirtyVisitor);
    this.due.popDue(now, this.markDirtyVisitor);
    const dirty = this.dirty;
    for (let k = 0; k < dirty.count; k++) {
      const i = dirty.items[k]!;
      this.dirtyMark[i] = 0;
      this.refreshCluster(i, now);
      this.settle(i, now);
    }
    dirty.clear();
    return kept;
  }

  private markDirty(i: number): void {
    if (this.dirtyMark[i] === 1) return;
    this.dirtyMark[i] = 1;
    this.dirty.push(i);
  }

  /** Brings cluster i's kept holdings to now: the jobs noted as changed there made again, ends passed taken out. */
  private refreshCluster(i: number, now: number): void {
    const host = this.host;
    const k = this.kept[i]!;
    const version = host.holdingsVersion!(i);
    if (version === this.keptVersions[i] && k.now === now) return;
    this.upkeep++;
    // Decision: a pass at an earlier time than the last (never in a run: time only moves on) makes them again.
    if (now < k.now) {
      this.remake(i, now);
      return;
    }
    k.advance(now, host.runtimeAt);
    if (version === this.keptVersions[i]) return;
    this.updatingOn = k;
    this.updatingPlaced = host.placedOn!(i);
    host.drainChanges!(i, this.updateKept);
    this.updatingOn = undefined;
    this.updatingPlaced = undefined;
    this.keptVersions[i] = version;
  }

  /**
   * Cluster i's capacity and free processors read again (its holdings at now), and when they next change.
   * `plainAvailable`: what was available there when a pass that started plain began (it had no offers nor sharing).
   */
  private settle(i: number, now: number, plainAvailable?: readonly number[]): void {
    const k = this.kept[i]!;
    const plain = plainAvailable !== undefined;
    const available = plain ? plainAvailable[i]! : this.host.availableFor(i);
    // Decision: processors set aside for a grow offer are held as if the offer were accepted (the jobs' holdings
    // with them), so that the plan's capacity does not fall by them meanwhile and drop a promise.
    const offers = plain ? undefined : this.host.offersHeld?.(i, now);
    this.offersAt[i] = offers;
    const offered = offers?.n ?? 0;
    const capacity = available + k.held + offered;
    this.capacityAt[i] = capacity;
    const free = capacity - k.heldAfter(now) - (offered > 0 && offers!.end > now ? offered : 0);
    this.freeNow[i] = free;
    this.byFree.set(i, free);
    const sharing = plain ? undefined : this.host.preallocationSharing?.(i);
    const shared = sharing !== undefined && Math.min(sharing.unused, sharing.extras) > 0;
    this.sharing[i] = shared ? sharing : undefined;
    if (shared) this.sharedOn.add(i);
    else this.sharedOn.delete(i);
    const pastEnd = free !== available;
    if (pastEnd !== this.pastEndOn[i]) {
      this.pastEndOn[i] = pastEnd;
      this.pastEnd += pastEnd ? 1 : -1;
    }
    this.due.set(i, offered > 0 && offers!.end > now ? Math.min(k.nextChange, offers!.end) : k.nextChange);
  }

  private settleAll(now: number, plainAvailable?: readonly number[]): void {
    const count = this.kept.length;
    this.capacityAt.length = count;
    this.freeNow.length = count;
    this.offersAt.length = count;
    this.sharing.length = count;
    this.sharedOn.clear();
    if (this.dirtyMark.length !== count) this.dirtyMark = new Uint8Array(count);
    this.dirtyMark.fill(0);
    this.dirty.clear();
    this.due.reset(count);
    this.byFree = new MostTree(count);
    this.pastEnd = 0;
    this.pastEndOn = new Array<boolean>(count).fill(false);
    for (let i = 0; i < count; i++) this.settle(i, now, plainAvailable);
  }

  /** Cluster i's holdings made afresh from the host's placed jobs there (the jobs noted as changed dropped). */
  private remake(i: number, now: number): void {
    const host = this.host;
    host.drainChanges!(i, () => {});
    this.keptVersions[i] = host.holdingsVersion!(i);
    this.kept[i] = this.made(i, host.placedOn!(i), now);
  }

  /** Stops the host noting changed jobs (a policy that plans nothing runs): the holdings are made afresh later. */
  private unwatch(): void {
    if (this.idle) {
      this.host.watchMoved!(false);
      this.idle = false;
    }
    if (!this.watching) return;
    this.host.watchChanges?.(false);
    this.watching = false;
  }

  /** The placed jobs by cluster index, in the order the host gives them (for a host that keeps no lists). */
  private bucketed(): JobRecord[][] {
    const grid = this.host.grid;
    const out = grid.clusters.map((): JobRecord[] => []);
    for (const job of this.host.placedJobs()) {
      for (const c of job.components) {
        const list = out[grid.cluster(c.cluster)!.index]!;
        // A job with two components on one cluster is listed there once.
        if (list[list.length - 1] !== job) list.push(job);
      }
    }
    return out;
  }

  /** Cluster i's holdings made from its placed jobs at now (but those in `except`). */
  private made(i: number, jobs: Iterable<JobRecord>, now: number, except?: ReadonlySet<JobRecord>): KeptHoldings {
    const k = new KeptHoldings(this.host.grid.clusters[i]!.name);
    k.advance(now, this.host.runtimeAt);
    for (const job of jobs) if (except === undefined || !except.has(job)) k.update(job, true, this.host.runtimeAt);
    return k;
  }

  /**
   * What a queue policy reads: each cluster's plan, built on first use. Its capacity is what Concertina may take
   * there now plus what its placed jobs hold, so that the plan's free processors now are exactly what a job may take.
   * A placed job holds what core/plan/holding.ts says, until the end it estimates. A cluster's capacity is read at the
   * pass's first question about it (placements later in the pass are in its plan as reservations).
   */
  private view(now: number): QueueView {
    const clusterCount = this.host.grid.clusters.length;
    const plans = this.plansInPass;
    // The clusters the last pass built plans on go back into the index (a refresh below sets those that moved), and
    // their plans are let go.
    const built = this.built;
    for (let k = 0; k < built.count; k++) {
      const i = built.items[k]!;
      if (i < this.byFree.size) this.byFree.set(i, this.freeNow[i]!);
      plans[i] = undefined;
      if (this.inPassMark[i] === 1) {
        this.inPassMark[i] = 0;
        this.heldInPass[i] = 0;
      }
    }
    built.clear();
    this.placedInPass.clear();
    this.answersPlain = false;
    this.plainAtStart = false;
    this.askedPlan = false;
    this.upkeep = 0;
    if (plans.length !== clusterCount) plans.length = clusterCount;
    this.movedInPass = false;
    this.passPlans = plans;
    this.refreshedInPass = false;
    // The last pass's holdings never asked for go with its plans.
    this.heldClusters.clear();
    this.heldReservations.clear();
    const view = this.plainView;
    view.now = now;
    view.clusterCount = clusterCount;
    return view;
  }

  /** Brings every cluster's holdings to the pass's time, once per pass (at its first question). */
  private ready(): void {
    // Asked before every question of a pass: the first one's work apart, so that this stays small enough to inline.
    if (!this.refreshedInPass) this.readyFirst();
  }

  private readyFirst(): void {
    this.refreshedInPass = true;
    const now = this.plainView.now;
    this.plainAtStart = !this.promisingPass && this.holds.length === 0 && this.mayIdle() && this.host.plainAt!(now);
    // Decision: while every placed job is held the plain way, a pass reads what is available instead of plans, and
    // the holdings are made only when a pass needs plans (a job has to wait): a replay where jobs seldom wait then
    // keeps no holdings. Once watched, they are let go only after their upkeep cost more than making them again.
    if (this.plainAtStart && !this.watching) this.readyPlain();
    else this.refresh(now);
  }

  /** Whether the host tells what a pass needs to keep no holdings (`plainAt`) and to make them again (`wake`). */
  private mayIdle(): boolean {
    const host = this.host;
    return (
      host.plainAt !== undefined &&
      host.watchMoved !== undefined &&
      host.drainMoved !== undefined &&
      host.placedOn !== undefined &&
      host.holdingsVersion !== undefined &&
      host.drainChanges !== undefined &&
      host.watchChanges !== undefined
    );
  }

  /** Starts a pass that answers from what is available: the clusters that moved are read again. */
  private readyPlain(): void {
    if (!this.idle) this.enterIdle();
    this.answersPlain = true;
    const host = this.host;
    host.drainMoved!(this.markDirtyVisitor);
    const dirty = this.dirty;
    for (let k = 0; k < dirty.count; k++) {
      const i = dirty.items[k]!;
      this.dirtyMark[i] = 0;
      const available = host.availableFor(i);
      this.freeNow[i] = available;
      this.byFree.set(i, available);
    }
    dirty.clear();
  }

  /**
   * Lets the holdings go: from now on only the clusters that moved are noted, and every cluster is read again at the
   * next pass that answers from what is available.
   */
  private enterIdle(): void {
    const count = this.host.grid.clusters.length;
    this.host.watchMoved!(true);
    this.watching = false;
    this.idle = true;
    this.unneededUpkeep = 0;
    this.kept = [];
    this.keptVersions = [];
    this.freeNow.length = count;
    this.capacityAt.length = 0;
    this.offersAt.length = 0;
    this.sharing.length = 0;
    this.sharedOn.clear();
    if (this.byFree.size !== count) this.byFree = new MostTree(count);
    this.due.reset(count);
    this.pastEnd = 0;
    this.pastEndOn = new Array<boolean>(count).fill(false);
    if (this.heldInPass.length !== count) {
      this.heldInPass = new Array<number>(count).fill(0);
      this.inPassMark = new Uint8Array(count);
    }
    if (this.dirtyMark.length !== count) this.dirtyMark = new Uint8Array(count);
    this.dirtyMark.fill(0);
    this.dirty.clear();
    for (let i = 0; i < count; i++) this.markDirty(i);
  }

  /** A placement in a pass that answers from what is available: held where the cluster's plan would hold it. */
  private holdPlain(i: number, r: Reservation): void {
    // Kept for a `wake`, which puts them in the plans it builds.
    this.heldClusters.push(i);
    this.heldReservations.push(r);
    // As a plan built for this pass answers: what is free from now on there less what the reservation holds at now
    // (a plain plan's free processors only rise from now on, and this reservation starts now).
    if (holdsAt(r, this.plainView.now)) this.heldInPass[i]! += r.n;
    if (this.inPassMark[i] === 0) {
      // The cluster would have a plan in this pass: counted as built (see passMostFreeFromNow, mostAvailable).
      this.inPassMark[i] = 1;
      this.built.push(i);
    }
    this.byFree.set(i, this.freeNow[i]! - this.heldInPass[i]!);
  }

  /**
   * A pass that answered from what is available needs plans after all (its policy asks one: a job has to wait):
   * every cluster's holdings are made as they stood at the pass's start (its own placements go into its plans as
   * reservations, as in any pass), with what was available then, and kept from now on.
   */
  private wake(): void {
    const host = this.host;
    const now = this.plainView.now;
    const count = host.grid.clusters.length;
    this.answersPlain = false;
    this.idle = false;
    // What moved since the pass began (its placements) is looked at again in the next pass.
    host.drainMoved!(this.markDirtyVisitor);
    const moved = this.dirty.items.slice(0, this.dirty.count) as number[];
    host.watchChanges!(true);
    this.watching = true;
    const placed = this.placedInPass;
    const except = new Set<JobRecord>();
    for (let k = 0; k < placed.count; k++) {
      except.add(placed.items[k]!);
      this.unkept.push(placed.items[k]!);
    }
    placed.clear();
    const kept = this.kept;
    for (let i = 0; i < count; i++) {
      this.keptVersions[i] = host.holdingsVersion!(i);
      kept[i] = this.made(i, host.placedOn!(i), now, except);
    }
    kept.length = count;
    this.settleAll(now, this.freeNow.slice(0, count));
    for (const i of moved) this.markDirty(i);
    // The placements' clusters get their plans below, their reservations in, as in a pass that kept its holdings.
    const built = this.built;
    for (let k = 0; k < built.count; k++) {
      this.inPassMark[built.items[k]!] = 0;
      this.heldInPass[built.items[k]!] = 0;
    }
    built.clear();
    this.flushHolds();
  }

  /**
   * After a pass of a policy without promises: the jobs a `wake` left out of the holdings go in (placed in the pass,
   * they were in its plans as reservations); and holdings watched through passes that needed none are let go once
   * their upkeep since a pass needed them passed what making them all again costs (ski rental: never more than
   * twice the cheaper of the two).
   */
  private afterPlain(): void {
    const host = this.host;
    const unkept = this.unkept;
    for (let k = 0; k < unkept.count; k++) {
      const job = unkept.items[k]!;
      for (const c of job.components) {
        const i = host.grid.cluster(c.cluster)!.index;
        if (!host.placedOn!(i).has(job)) continue;
        this.kept[i]!.update(job, true, host.runtimeAt);
        this.markDirty(i);
      }
    }
    unkept.clear();
    if (!this.watching || !this.mayIdle() || host.placedCount === undefined) return;
    if (this.askedPlan) {
      this.unneededUpkeep = 0;
      return;
    }
    if (!this.plainAtStart) return;
    this.unneededUpkeep += this.upkeep;
    if (this.unneededUpkeep > host.placedCount()) this.enterIdle();
  }

  /** Puts the holdings of the jobs placed since the pass's last question in its plans (see `heldClusters`). */
  private flushHolds(): void {
    const clusters = this.heldClusters;
    // A pass that answers from what is available builds no plan (holdPlain counts them).
    if (clusters.count === 0 || this.answersPlain) return;
    const reservations = this.heldReservations;
    for (let k = 0; k < clusters.count; k++) this.passPlan(clusters.items[k]!).reserve(reservations.items[k]!);
    clusters.clear();
    reservations.clear();
  }

  /** Cluster i's plan in the pass running over `plainView`, built on first use. */
  private passPlan(i: number): AvailabilityProfile {
    return (this.plansInPass[i] ??= this.build(i));
  }

  private build(i: number): AvailabilityProfile {
    this.ready();
    const now = this.plainView.now;
    const kept = this.kept[i]!;
    // A cluster left out of the refresh had nothing due: bringing its holdings to now only moves their clock.
    if (kept.now !== now) kept.advance(now, this.host.runtimeAt);
    // From now on in this pass its plan answers for it, reservations in: out of the index.
    this.built.push(i);
    this.byFree.set(i, Number.NEGATIVE_INFINITY);
    const plan = AvailabilityProfile.build({ now, capacity: this.capacityAt[i]!, kept });
    const offers = this.offersAt[i];
    if (offers !== undefined && offers.end > now)
      plan.reserve({ id: GROW_OFFERS, n: offers.n, start: now, duration: offers.end - now });
    if (!this.promisesFirst) this.setSharedAside(i, plan);
    return plan;
  }

  /** Sets aside in cluster i's plan the pre-allocated processors malleable extras fill there (core/plan/holding.ts). */
  private setSharedAside(i: number, plan: AvailabilityProfile): void {
    const sharing = this.sharing[i];
    if (sharing !== undefined) for (const r of sharedPreallocationHolds(sharing, plan.free, plan.now)) plan.reserve(r);
  }

  private passFreeFromNow(i: number, duration: number): number {
    this.ready();
    // What its plan would answer: a plain plan's free processors only rise from now on (see holdPlain).
    if (this.answersPlain) return this.freeNow[i]! - this.heldInPass[i]!;
    this.flushHolds();
    const plans = this.plansInPass;
    const plan = plans[i] ?? (this.sharedOn.has(i) ? (plans[i] = this.build(i)) : undefined);
    const now = this.plainView.now;
    if (plan !== undefined) return plan.freeBetween(now, now + duration);
    // What the plan would answer, without building it: on a plan with no reservation, what is free from now
    // only rises, so over any window from now it is what is free now.
    return this.freeNow[i]!;
  }

  private passMostFreeFromNow(duration: number): number | undefined {
    this.ready();
    if (this.answersPlain) {
      // The clusters with a placement are in the index less what they hold (holdPlain): as their plans answer.
      if (this.built.count > MOST_BUILT_ASKED) return undefined;
      const most = this.byFree.most;
      return most >= 0 && this.byFree.value(most) > Number.NEGATIVE_INFINITY ? most : -1;
    }
    this.flushHolds();
    const plans = this.plansInPass;
    const now = this.plainView.now;
    for (const i of this.sharedOn) plans[i] ??= this.build(i);
    const built = this.built;
    // Decision: past a few plans built in one pass (a head's reservation searched on every cluster), every
    // cluster is asked instead.
    if (built.count > MOST_BUILT_ASKED) return undefined;
    let most = this.byFree.most;
    let mostFree = most >= 0 ? this.byFree.value(most) : Number.NEGATIVE_INFINITY;
    for (let k = 0; k < built.count; k++) {
      const i = built.items[k]!;
      const free = plans[i]!.freeBetween(now, now + duration);
      if (free > mostFree || (free === mostFree && i < most)) {
        most = i;
        mostFree = free;
      }
    }
    return mostFree === Number.NEGATIVE_INFINITY ? -1 : most;
  }

  /**
   * The first cluster with the most a placement of `job` may take now, when it is `room`'s: what the room says on
   * each cluster is no more than what the scheduler lets the job take there. So on a cluster without a plan in this
   * pass, where what is free from now is what is available (no holding past its end) and nothing moved since the
   * pass began; and on each cluster with one, checked. Undefined when that is not known (the placement asks every
   * cluster).
   */
  private mostAvailable(job: JobRecord, room: ClusterRoom): number | undefined {
    const host = this.host;
    if (this.passPlans === undefined || this.passPlans.length <= FEW_CLUSTERS || room.most < 0 || this.pastEnd > 0)
      return undefined;
    this.flushHolds();
    if (host.roomAtLeastAvailable === undefined || !host.roomAtLeastAvailable(job)) return undefined;
    if (host.drainMoved === undefined || this.built.count > MOST_BUILT_ASKED) return undefined;
    host.drainMoved(this.movedInPassVisitor);
    if (this.movedInPass) return undefined;
    const built = this.built;
    for (let k = 0; k < built.count; k++)
      if (room.on(built.items[k]!) > host.roomFor(job, built.items[k]!)) return undefined;
    return room.most;
  }

  /**
   * Puts `rs` (cluster c's promises, all from its last pass's plan) into `plan` from what that plan reserved, less
   * what left it since (jobs started, promises dropped, jobs placed in that pass, now holdings): O(s + m log m) for the
   * m reservations gone, instead of a sweep over them all. False, and nothing changed, when that cannot be done (no
   * plan kept, a reservation not the same object as the last pass's) or they do not fit.
   */
  private keptIn(c: number, plan: AvailabilityProfile, rs: readonly Reservation[]): boolean {
    const last = this.lastPlans[c];
    if (last === undefined || last.now > plan.now) return false;
    const held = last.reserved();
    if (held === undefined) return false;
    const kept = new Set<Reservation>();
    for (const r of rs) {
      if (last.reservation(r.id) !== r) return false;
      kept.add(r);
    }
    const gone: number[] = [];
    for (const r of last.reservationList())
      if (!kept.has(r)) pushSpan(gone, r.start, r.start + r.duration, r.n, plan.now);
    return plan.reserveAllHeld(rs, gone.length === 0 ? held : held.minus(profileOfRects(gone)));
  }

  /**
   * Drops the promises of jobs submitted after a profiled job where its steps ahead, put in the plans in
   * submission order, leave them no room (it was fitted later, around the promises of earlier jobs only): those jobs
   * are planned afresh in this pass, after it. Returns how many. The steps go in for good as the pass shows the jobs.
   */
  private dropPromisesInto(
    holds: readonly ProfiledHold[],
    plans: readonly AvailabilityProfile[],
    jobs: readonly JobRecord[][],
    now: number,
  ): number {
    const view = { clusterCount: plans.length, now, plan: (c: number) => plans[c]! };
    const reserved: Array<[number, string[]]> = [];
    let dropped = 0;
    for (const h of holds) {
      if (h.cluster >= plans.length) continue;
      const plan = plans[h.cluster]!;
      reserved.push([h.cluster, reserveHold(view, h)]);
      let end = h.start;
      for (const s of h.steps) end += s.duration;
      if (!(end > now) || plan.freeBetween(now, end) >= 0) continue;
      for (const job of jobs[h.cluster]!) {
        const p = this.promises.get(job.id);
        if (p === undefined || (!isOwn(h) && job.seq < h.seq)) continue;
        if (p.start >= end || p.start + (job.spec.walltime ?? Number.POSITIVE_INFINITY) <= h.start) continue;
        plan.unreserve(job.id);
        this.promises.delete(job.id);
        dropped++;
      }
    }
    for (const [c, ids] of reserved) for (const id of ids) plans[c]!.unreserve(id);
    return dropped;
  }

  /**
   * The waiting jobs' promises the plans may keep, by cluster in `ordered`'s order. The lists are the pass's own, made
   * once and emptied at each promising pass: fresh ones each pass changed their elements' kind at their first push,
   * which made V8 compile promisingView again (issue 17: a cold cbf replay is mostly compiling).
   */
  private promisedOn(ordered: readonly JobRecord[], now: number, clusterCount: number): PromisedOn {
    const on = this.promised;
    on.count = 0;
    while (on.jobs.length < clusterCount) {
      on.jobs.push([]);
      on.reservations.push([]);
    }
    for (let c = 0; c < on.jobs.length; c++) {
      on.jobs[c]!.length = 0;
      on.reservations[c]!.length = 0;
    }
    for (const job of ordered) {
      const p = job.plannedStart;
      if (p === undefined || job.state !== 'queued' || p.cluster >= clusterCount || p.start < now) continue;
      on.jobs[p.cluster]!.push(job);
      const duration = job.spec.walltime ?? Number.POSITIVE_INFINITY;
      // The last pass's reservation when it is the same (what lets keptIn see it has not moved).
      const last = this.lastPlans[p.cluster]?.reservation(job.id);
      on.reservations[p.cluster]!.push(
        last !== undefined && last.start === p.start && last.n === job.need && last.duration === duration
          ? last
          : { id: job.id, n: job.need, start: p.start, duration },
      );
      on.count++;
    }
    return on;
  }

  /** Puts the promises that still fit into `plans` (see promisingView); returns how many. */
  private keepPromises(plans: readonly AvailabilityProfile[], on: PromisedOn): number {
    let promised = 0;
    for (let c = 0; c < plans.length; c++) {
      const plan = plans[c]!;
      const list = on.jobs[c]!;
      const reservations = on.reservations[c]!;
      // Usually every promise still fits (no job overran its walltime): all go in at once.
      const all = list.length > 0 && (this.keptIn(c, plan, reservations) || plan.reserveAll(reservations));
      for (let k = 0; k < list.length; k++) {
        const r = reservations[k]!;
        if (!all) {
          if (plan.freeBetween(r.start, r.start + r.duration) < r.n) continue;
          plan.reserve(r);
        }
        this.promises.set(r.id, list[k]!.plannedStart!);
        promised++;
      }
    }
    return promised;
  }

  /**
   * The view of a policy whose reservations persist: every cluster's plan with the promises of the waiting jobs in
   * (in `ordered`'s order), and which clusters freed something since the last pass.
   * Decision: a promise the plan can no longer hold (its start has passed, or a job overran its walltime, or the
   * capacity fell) is dropped: the job is planned afresh, as a new one.
   */
  private promisingView(
    policy: QueuePolicy,
    ordered: readonly JobRecord[],
    now: number,
    holds: readonly ProfiledHold[],
  ): QueueView {
    const base = this.view(now);
    // Its plans are all built and hold promises: no cluster's most is known without asking each.
    this.passPlans = undefined;
    const clusterCount = base.clusterCount;
    if (this.lastPolicy !== policy.name || this.lastFree.length !== clusterCount) {
      this.lastFree = new Array<StepFunction | undefined>(clusterCount);
      this.lastPlans = new Array<AvailabilityProfile | undefined>(clusterCount);
      this.lastPolicy = policy.name;
      this.freedRegions.reset(clusterCount);
    }
    // Decision: kept promises go into the plans before the shared pre-allocated processors are set aside: an extra
    // displaced by an evolving job's grow is shrunk rather than moved onto them (evolving.ts), so they stay the job's.
    this.promisesFirst = true;
    const plans: AvailabilityProfile[] = [];
    for (let c = 0; c < clusterCount; c++) plans.push(base.plan(c));
    this.promisesFirst = false;
    const promisedOn = this.promisedOn(ordered, now, clusterCount);
    let promised = promisedOn.count === 0 ? 0 : this.keepPromises(plans, promisedOn);
    for (let c = 0; c < clusterCount; c++) this.setSharedAside(c, plans[c]!);
    if (holds.length > 0) promised -= this.dropPromisesInto(holds, plans, promisedOn.jobs, now);
    const regions = this.freedRegions;
    // Without a promise kept, no job is compressed: what rose matters to no search (a job reserved later is checked
    // then, after any rise logged now), and the last pass drew no plan to compare with (see run).
    if (promised === 0)
      return { now, clusterCount, plan: (c) => plans[c]!, freed: () => false, promised, freedRegions: regions };
    // Decision: as pyss and batsched do, every job's end (early or at its walltime) compresses the whole plan: a move
    // made late in the last pass may have opened a hole for a job taken before it, which only the next end offers it.
    const ended = this.placedSignature() !== this.lastPlaced;
    // Where a plan rose above the last pass's end is logged, with the most it has free there now.
    const freed = plans.map((plan, c) => {
      const last = this.lastFree[c];
      if (last === undefined) return true;
      const rose = risingRuns(plan.free, last, now, (a, b) => regions.freed(c, a, b, plan.mostFreeBetween(a, b)));
      return ended || rose;
    });
    return { now, clusterCount, plan: (c) => plans[c]!, freed: (c) => freed[c]!, promised, freedRegions: regions };
  }
}

/** A placed profiled job's processors kept into its later steps (inPlanOrder), held before every waiting job. */
const isOwn = (h: ProfiledHold): boolean => h.holding !== undefined;

/**
 * The profiled jobs' steps ahead in the order a pass puts them into its plans. Decision: what a placed profiled job
 * holds and keeps into its later steps (each step's processors up to what it held in the step before) is its own, as
 * the plan snapshot holds it (snapshot-steps.ts placeOwnSteps): it goes in first, before any waiting job's reservation
 * whatever its submission, since the scheduler never gives a running job's processors to another; a job submitted
 * earlier promised a start inside them would hold the job's next step back (fpe-jobs.ts dueBefore) and still not
 * start. Only where a later step grows beyond them, the growth goes in by submission with the waiting jobs' fits.
 */
function inPlanOrder(holds: readonly ProfiledHold[]): readonly ProfiledHold[] {
  if (!holds.some(isOwn)) return holds;
  const own: ProfiledHold[] = [];
  const bySubmission: ProfiledHold[] = [];
  for (const h of holds) {
    if (h.holding === undefined) {
      bySubmission.push(h);
      continue;
    }
    let kept = h.holding;
    let grows = false;
    const ownSteps: Array<{ duration: number; nodes: number }> = [];
    const growth: Array<{ duration: number; nodes: number }> = [];
    for (const s of h.steps) {
      kept = Math.min(kept, s.nodes);
      ownSteps.push({ duration: s.duration, nodes: kept });
      growth.push({ duration: s.duration, nodes: s.nodes - kept });
      if (s.nodes > kept) grows = true;
    }
    own.push({ ...h, steps: ownSteps });
    if (grows)
      bySubmission.push({ id: `${h.id} growth`, seq: h.seq, cluster: h.cluster, start: h.start, steps: growth });
  }
  return [...own, ...bySubmission];
}

/** Puts a profiled job's scheduled steps in the plan of its cluster (each step a reservation); returns their ids. */
function reserveHold(view: Pick<QueueView, 'clusterCount' | 'now' | 'plan'>, h: ProfiledHold): string[] {
  const ids: string[] = [];
  if (h.cluster >= view.clusterCount) return ids;
  const plan = view.plan(h.cluster);
  let t = h.start;
  for (let k = 0; k < h.steps.length; k++) {
    const s = h.steps[k]!;
    if (s.nodes > 0 && t + s.duration > view.now) {
      const id = `${h.id}#step${k + 1}`;
      plan.reserve({ id, n: s.nodes, start: t, duration: s.duration });
      ids.push(id);
    }
    t += s.duration;
  }
  return ids;
}

/**
 * A placement's context in a pass: what the job's admission leaves it on each cluster, no more than the scheduler lets
 * it take there. One object for every visit of the pass (placement policies read it only while they place).
 */
class PassPlacement implements PlacementContext {
  readonly grid: Grid;
  protected job: JobRecord | undefined;
  protected room: ClusterRoom = NO_ROOM;
  protected most = -1;

  constructor(private readonly host: PlannedPassHost) {
    this.grid = host.grid;
  }

  set(job: JobRecord | undefined, room: ClusterRoom, most: number): void {
    this.job = job;
    this.room = room;
    this.most = most;
  }

  available(i: number): number {
    return Math.min(this.room.on(i), this.host.roomFor(this.job!, i));
  }
}

/** The same, where the pass knows the first cluster with the most available. */
class PassPlacementWithMost extends PassPlacement {
  mostAvailableCluster(): number {
    return this.most;
  }
}

/** Equal numbers, NaN equal to itself (as their decimal forms were compared before). */
function same(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** Plans built in one pass beyond which a pass asks every cluster for the most free (see mostFreeFromNow). */
const MOST_BUILT_ASKED = 16;

/** Clusters by the time their kept holdings next change by themselves: a binary heap, a cluster's older entries skipped. */
class DueHeap {
  private times: number[] = [];
  private clusters: number[] = [];
  /** Per cluster, the time of its entry in the heap that counts (NaN: none). */
  private queued: number[] = [];

  reset(count: number): void {
    this.times.length = 0;
    this.clusters.length = 0;
    this.queued = new Array<number>(count).fill(Number.NaN);
  }

  /** Cluster i next changes at t (Infinity: never by itself). */
  set(i: number, t: number): void {
    if (t === Number.POSITIVE_INFINITY) {
      this.queued[i] = Number.NaN;
      return;
    }
    if (this.queued[i] === t) return;
    this.queued[i] = t;
    const times = this.times;
    const clusters = this.clusters;
    let j = times.length;
    times.push(t);
    clusters.push(i);
    while (j > 0) {
      const parent = (j - 1) >> 1;
      if (times[parent]! <= t) break;
      times[j] = times[parent]!;
      clusters[j] = clusters[parent]!;
      j = parent;
    }
    times[j] = t;
    clusters[j] = i;
  }

  /** Shows each cluster whose time is at or before now, once, and takes it out. */
  popDue(now: number, visit: (i: number) => void): void {
    const times = this.times;
    const clusters = this.clusters;
    while (times.length > 0 && times[0]! <= now) {
      const t = times[0]!;
      const i = clusters[0]!;
      const lastT = times.pop()!;
      const lastC = clusters.pop()!;
      if (times.length > 0) {
        let j = 0;
        for (;;) {
          const l = 2 * j + 1;
          if (l >= times.length) break;
          const r = l + 1;
          const c = r < times.length && times[r]! < times[l]! ? r : l;
          if (times[c]! >= lastT) break;
          times[j] = times[c]!;
          clusters[j] = clusters[c]!;
          j = c;
        }
        times[j] = lastT;
        clusters[j] = lastC;
      }
      if (this.queued[i] === t) {
        this.queued[i] = Number.NaN;
        visit(i);
      }
    }
  }
}
