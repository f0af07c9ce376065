// The plan as an operator reads it: per cluster at time now, what Concertina may use over time, its running jobs
// (size, start, estimated end) and the reservations ahead (where and when a planning queue policy, or dbes, promised
// each waiting job its start, a waiting profiled job's fit its steps, and which running jobs that start waits for). Built from a read-only view of the jobs and
// clusters (the scheduler's records satisfy it structurally); it changes nothing. Bounded: at most `limit` running
// jobs and `limit` reservations per cluster, with their totals, so a console never receives a whole trace.
import { AvailabilityProfile, type Holding } from './availability.js';
import {
  currentStepEnd,
  placedHolding,
  sharedPreallocationHolds,
  type PreallocationSharing,
  type HoldingJob,
  type RuntimeAt,
} from './holding.js';
import { placeOwnSteps, placeRest, sizesOf, type StepsInPlan } from './snapshot-steps.js';
import type { Step } from '../time/step-function.js';

/** A job as the plan reads it (JobRecord has these fields). */
export interface PlanJob extends HoldingJob {
  readonly id: string;
  /** Submission order: profiled jobs' steps go into the plan by it (without it, in the order given). */
  readonly seq?: number;
  readonly kind: string;
  readonly spec: { readonly walltime?: number | undefined };
  /** Where it was placed, per component (empty while waiting). */
  readonly components: ReadonlyArray<{ readonly cluster: string; readonly processors: number }>;
  /** NaN until its local jobs start. */
  readonly startTime: number;
  /** Processors Concertina holds for it (a malleable job: its current size with what is being added). */
  readonly held: number;
  /** Processors active in the application. */
  readonly size: number;
  readonly evolving: boolean;
  readonly malleable: boolean;
  readonly preallocation: number;
  /** Processors it needs on one cluster to start. */
  readonly need: number;
  readonly backfilled: boolean;
  readonly plannedStart: { readonly cluster: number; readonly start: number } | undefined;
  readonly sizeHistory: readonly Step[];
}

/** A cluster as the plan reads it. */
export interface PlanCluster {
  readonly name: string;
  readonly processors: number;
  /** What a job may take there now, placed jobs' holdings already subtracted. */
  readonly availableNow: number;
  /** Where malleable extras fill unused pre-allocated processors (ClusterState.preallocationSharing). */
  readonly preallocationSharing?: PreallocationSharing | undefined;
  /**
   * Processors set aside for grow offers not yet answered (they leave `availableNow` without being in any job's
   * holding), held as the queue policies' plans hold them: from now until `end` (core/queue/planned-pass.ts
   * OffersHeld); `jobId`: the job they are offered to now (none between two offers of one operation).
   */
  readonly offersHeld?: { readonly n: number; readonly end: number; readonly jobId?: string | undefined } | undefined;
}

export interface PlanSource {
  readonly now: number;
  /** The run's queue policy. */
  readonly queuePolicy: string;
  /**
   * What made the reservations: the queue policy (koala makes none), or a malleability policy that schedules the queue
   * itself in its place (dbes). Without it, the queue policy.
   */
  readonly planner?: string;
  readonly clusters: readonly PlanCluster[];
  /** Cluster index by name. */
  readonly clusterIndex: (name: string) => number | undefined;
  /** Jobs placed and not ended. */
  readonly placed: Iterable<PlanJob>;
  /** Waiting jobs in queue order. */
  readonly waiting: Iterable<PlanJob>;
  /** Items of each kind per cluster at most (default PLAN_ITEM_LIMIT). */
  readonly limit?: number;
  /** A malleable job's run time at a size, as its application declares it (holding.ts). */
  readonly runtimeAt?: RuntimeAt;
  /**
   * A profiled (FPE) job's steps ahead: a waiting one's fit (its cluster, start and each step's length and
   * processors), a placed one's from its current step's start on.
   */
  readonly scheduledSteps?: (jobId: string) => ScheduledSteps | undefined;
}

/** Where and when a profiled job's steps run (fpe-jobs.ts). */
export interface ScheduledSteps {
  readonly cluster: number;
  readonly start: number;
  readonly steps: ReadonlyArray<{ readonly duration: number; readonly nodes: number }>;
  /** The first of `steps` in its profile (0-based; 0 for a waiting job), and the profile's number of steps. */
  readonly first?: number;
  readonly count?: number;
}

export const PLAN_ITEM_LIMIT = 200;
/** The id of the reservation that holds a cluster's pending grow offers in its plan (as the passes' plans name it). */
const GROW_OFFERS = 'grow offers';
/** Steps of a running job's size history kept in a snapshot (the latest). */
export const PLAN_SIZE_STEPS = 50;

export interface PlannedRunning {
  readonly id: string;
  readonly kind: string;
  /** What the plan holds for it: its processors (an evolving job its pre-allocation, a malleable one what it holds now). */
  readonly processors: number;
  /** Processors active now (a malleable job's current size). */
  readonly size: number;
  /** When its local jobs started; `now` for a job placed whose start is still coming. */
  readonly start: number;
  /** start + walltime, or null for a job without a walltime (it holds its processors with no end in the plan). */
  readonly end: number | null;
  readonly backfilled: boolean;
  /** Its size over time, the latest PLAN_SIZE_STEPS steps (the last holds until now). */
  readonly sizes: Step[];
  /**
   * A profiled job's sizes from its current step's start on: that step, then its later steps as planned, one step
   * each, the last 0 at its end (`end`). Its box is its current step; the later ones are in the plan as it holds them.
   */
  readonly steps?: Step[];
  /** The step it runs (1-based, the first of `steps`) of its profile's `stepCount`. */
  readonly step?: number;
  readonly stepCount?: number;
}

export interface PlannedReservation {
  readonly id: string;
  readonly processors: number;
  readonly start: number;
  /** start + walltime, or null without a walltime. */
  readonly end: number | null;
  /** The running jobs whose ends this start waits for (AvailabilityProfile.reservationWaitsFor), by end. */
  readonly waitsFor: string[];
  /** A profiled job's scheduled sizes over time (one step each, the last 0 at its end); `processors` is their peak. */
  readonly steps?: Step[];
}

/** Processors set aside for grow offers not yet answered, held from now as the queue policies' plans hold them. */
export interface PlannedOffers {
  readonly processors: number;
  readonly start: number;
  /** Until when the plans hold them (the latest estimated end of the cluster's malleable jobs); null: no end. */
  readonly end: number | null;
  /** The job they are offered to now; absent between two offers of one operation. */
  readonly jobId?: string;
}

export interface ClusterPlan {
  readonly name: string;
  readonly processors: number;
  /** What Concertina may use there from now on (threshold, background load as last seen). */
  readonly capacity: Step[];
  /** What is left free over time once running jobs (all of them, listed or not) and the reservations listed are in the plan. */
  readonly free: Step[];
  readonly running: PlannedRunning[];
  readonly runningTotal: number;
  readonly reservations: PlannedReservation[];
  readonly reservationsTotal: number;
  /** Grow offers pending there; absent when none is. */
  readonly offers?: PlannedOffers;
}

export interface PlanSnapshot {
  readonly now: number;
  readonly queuePolicy: string;
  /** What made the reservations (PlanSource.planner): the queue policy, or dbes. */
  readonly planner: string;
  /** Items of each kind per cluster at most; a cluster with more says its totals. */
  readonly limit: number;
  readonly clusters: ClusterPlan[];
}

const finiteOrNull = (t: number): number | null => (Number.isFinite(t) ? t : null);

/**
 * A profile's steps from now on. Whole: one per running job's end (at most one per processor of the cluster, each job
 * holding one at least) and two per reservation listed.
 */
function steps(
  profile: { times: readonly number[]; values: readonly number[]; valueAt(t: number): number },
  now: number,
): Step[] {
  const out: Step[] = [{ t: now, v: profile.valueAt(now) }];
  for (let i = 0; i < profile.times.length; i++) {
    const t = profile.times[i]!;
    if (t > now) out.push({ t, v: profile.values[i]! });
  }
  return out;
}

export function planSnapshot(source: PlanSource): PlanSnapshot {
  const now = source.now;
  const limit = source.limit ?? PLAN_ITEM_LIMIT;
  const perCluster = source.clusters.map(() => ({
    holdings: new Map<string, Holding>(),
    /** Placed profiled jobs' later steps, held in the plan from their current step's end at the earliest. */
    later: [] as PlacedSteps[],
    running: [] as PlannedRunning[],
    runningTotal: 0,
  }));
  for (const job of source.placed) {
    // A job split over clusters holds its components' processors on each; several on one cluster add up.
    const on = new Map<number, number>();
    for (const c of job.components) {
      const i = source.clusterIndex(c.cluster);
      if (i !== undefined) on.set(i, (on.get(i) ?? 0) + c.processors);
    }
    const scheduled = source.scheduledSteps?.(job.id);
    for (const [i, processors] of on) {
      const h = placedHolding(job, processors, now, source.runtimeAt);
      const c = perCluster[i]!;
      const ahead = scheduled?.cluster === i ? stepsAhead(job.id, scheduled, h.n, now) : undefined;
      // A profiled job holds what it holds now until its current step's end; its later steps are in the plan after.
      c.holdings.set(job.id, { id: job.id, n: h.n, end: ahead?.currentEnd ?? h.end });
      c.runningTotal++;
      let shown: { -readonly [K in keyof PlannedRunning]: PlannedRunning[K] } | undefined;
      if (c.running.length < limit) {
        const sizes = job.sizeHistory.slice(-PLAN_SIZE_STEPS).map((s) => ({ t: s.t, v: s.v }));
        shown = {
          id: job.id,
          kind: job.kind,
          processors: h.n,
          size: job.size,
          start: h.start,
          end: finiteOrNull(ahead ? ahead.sizes[ahead.sizes.length - 1]!.t : h.end),
          backfilled: job.backfilled,
          sizes,
          ...(ahead && {
            steps: ahead.sizes,
            step: (scheduled!.first ?? 0) + 1,
            stepCount: scheduled!.count ?? ahead.sizes.length - 1,
          }),
        };
        c.running.push(shown);
      }
      if (ahead && ahead.later.steps.length > 0) c.later.push({ ...ahead.later, seq: job.seq, shown });
    }
  }
  const waiting = source.clusters.map(() => [] as Array<{ job: PlanJob; steps: ScheduledSteps | undefined }>);
  for (const job of source.waiting) {
    const p = job.plannedStart;
    if (p !== undefined && p.cluster >= 0 && p.cluster < waiting.length) {
      waiting[p.cluster]!.push({ job, steps: undefined });
      continue;
    }
    const steps = source.scheduledSteps?.(job.id);
    if (steps !== undefined && steps.cluster >= 0 && steps.cluster < waiting.length)
      waiting[steps.cluster]!.push({ job, steps });
  }
  const clusters = source.clusters.map((cluster, i): ClusterPlan => {
    const c = perCluster[i]!;
    const running = [...c.holdings.values()];
    let held = 0;
    for (const h of running) held += h.n;
    // Decision: as in the queue policies' plans, the capacity is what a job may take now plus what placed jobs hold
    // and what pending grow offers set aside, constant from now on (the threshold and the background load as last
    // seen); the offers are held from now until the end those plans give them (planned-pass.ts settle and build).
    const offers = cluster.offersHeld !== undefined && cluster.offersHeld.n > 0 ? cluster.offersHeld : undefined;
    const capacity = Math.max(0, cluster.availableNow + held + (offers?.n ?? 0));
    const plan = AvailabilityProfile.build({ now, capacity, running });
    if (offers !== undefined && offers.end > now)
      plan.reserve({ id: GROW_OFFERS, n: offers.n, start: now, duration: offers.end - now });
    // Placed profiled jobs' next steps that need no more than they hold start on time, and what they hold then stays
    // theirs until their larger steps are in the plan: those processors are never freed at a step's end (so never set
    // aside there as shared pre-allocated processors, nor taken by a reservation put in before those steps).
    for (const later of c.later) placeOwnSteps(plan, later);
    if (cluster.preallocationSharing !== undefined)
      for (const r of sharedPreallocationHolds(cluster.preallocationSharing, plan.free, now)) plan.reserve(r);
    // Decision: the other profiled jobs' steps go into the plan in submission order among the reservations (arrival
    // order decides, as in fpe-jobs.ts), each where it can run: a step the plan has no room for at its scheduled time
    // (a job started into its processors under koala, an earlier job's promise made after its fit) starts once there
    // is, the step before holding its processors meanwhile, as the scheduler runs it. One that has no room at any time
    // (it waits for what a later one holds: a running job's processors are never another's) goes in after the others.
    const order: Entry[] = [...c.later, ...waiting[i]!];
    const seqOf = (e: Entry) => ('job' in e ? e.job.seq : e.seq);
    if (order.every((e) => seqOf(e) !== undefined)) order.sort((a, b) => seqOf(a)! - seqOf(b)!);
    const listed: Array<PlannedReservation | undefined> = [];
    let todo: Array<{ entry: Entry; slot: number }> = [];
    for (const entry of order) {
      if (!('job' in entry)) todo.push({ entry, slot: -1 });
      else if (listed.length < limit) todo.push({ entry, slot: listed.push(undefined) - 1 });
    }
    // Each round puts in what has room; a round that puts in nothing puts the rest in anyway (overbooked).
    let last = false;
    while (todo.length > 0) {
      const left = todo.filter(({ entry, slot }) => {
        if (!('job' in entry)) {
          if (!placeRest(plan, entry, last)) return true;
          if (entry.shown) {
            entry.shown.steps = sizesOf(entry, { t: entry.currentStart, v: entry.currentNodes });
            entry.shown.end = finiteOrNull(entry.shown.steps[entry.shown.steps.length - 1]!.t);
          }
          return false;
        }
        const r = reserveWaiting(plan, entry.job, entry.steps, last);
        listed[slot] = r;
        return r === undefined;
      });
      last = left.length === todo.length;
      todo = left;
    }
    const reservations = listed as PlannedReservation[];
    return {
      name: cluster.name,
      processors: cluster.processors,
      capacity: [{ t: now, v: capacity }],
      free: steps(plan.free, now),
      running: c.running,
      runningTotal: c.runningTotal,
      reservations,
      reservationsTotal: waiting[i]!.length,
      ...(offers !== undefined && {
        offers: {
          processors: offers.n,
          start: now,
          end: finiteOrNull(Math.max(now, offers.end)),
          ...(offers.jobId !== undefined && { jobId: offers.jobId }),
        },
      }),
    };
  });
  return { now, queuePolicy: source.queuePolicy, planner: source.planner ?? source.queuePolicy, limit, clusters };
}

/**
 * A placed profiled job's steps from its current step's start: when its current step ends (now at the earliest: a
 * step waiting for the next one's processors holds its own meanwhile), its sizes as scheduled (the last 0 at its end),
 * and its later steps (each `<id> step <k>`) to put into the plan from then on.
 */
function stepsAhead(
  id: string,
  scheduled: ScheduledSteps,
  held: number,
  now: number,
): { currentEnd: number; sizes: Step[]; later: Omit<PlacedSteps, 'seq' | 'shown'> } {
  const first = scheduled.first ?? 0;
  const current = scheduled.steps[0]!;
  const currentEnd = currentStepEnd(scheduled.start, current.duration, now);
  const later: Omit<PlacedSteps, 'seq' | 'shown'> = {
    id,
    currentStart: scheduled.start,
    currentNodes: current.nodes,
    steps: scheduled.steps
      .slice(1)
      .map((s, k) => ({ id: `${id} step ${first + k + 2}`, n: s.nodes, duration: s.duration })),
    placed: 0,
    at: currentEnd,
    holding: held,
    starts: [],
  };
  const sizes: Step[] = [{ t: scheduled.start, v: current.nodes }];
  let t = currentEnd;
  for (const s of later.steps) {
    sizes.push({ t, v: s.n });
    t += s.duration;
  }
  sizes.push({ t, v: 0 });
  return { currentEnd, sizes, later };
}

/** A placed profiled job's later steps (after its current one), with its running item when listed. */
interface PlacedSteps extends StepsInPlan {
  readonly seq: number | undefined;
  readonly id: string;
  readonly currentStart: number;
  readonly currentNodes: number;
  readonly shown: { steps?: Step[]; end: number | null } | undefined;
}

/** What goes into a cluster's plan after what placed jobs hold: placed profiled jobs' later steps, waiting jobs. */
type Entry = PlacedSteps | { readonly job: PlanJob; readonly steps: ScheduledSteps | undefined };

/**
 * A waiting job's reservation put into `plan`: a profiled job's scheduled steps (reserveSteps), another job's promised
 * start where it can hold (heldStart). undefined, with nothing put in, where the plan never has room, unless `last`.
 */
function reserveWaiting(
  plan: AvailabilityProfile,
  job: PlanJob,
  scheduled: ScheduledSteps | undefined,
  last: boolean,
): PlannedReservation | undefined {
  if (scheduled !== undefined) return reserveSteps(plan, job.id, scheduled, last);
  const walltime = job.spec.walltime ?? Number.POSITIVE_INFINITY;
  // A promise at a running job's estimated end, read after it (the job still running past its estimate), starts now:
  // drawn from the promise, it overlapped that job's box (5 over 16 at 34.41 under dbes).
  const promised = Math.max(plan.now, job.plannedStart!.start);
  const held = heldStart(plan, job.need, walltime, promised);
  if (held === undefined && !last) return undefined;
  // Decision: a promise the plan never has room for is drawn where it was made, overbooked (the free processors say so).
  const start = held ?? promised;
  plan.reserve({ id: job.id, n: job.need, start, duration: walltime });
  return {
    id: job.id,
    processors: job.need,
    start,
    end: finiteOrNull(start + walltime),
    waitsFor: plan.reservationWaitsFor(job.id),
  };
}

/**
 * Where a promised start can hold: the promise, or, where profiled steps put in before it (earlier jobs', arrival
 * order deciding) leave it no room, the earliest start after it that has (the policy's next pass plans it afresh);
 * undefined where none has.
 */
function heldStart(plan: AvailabilityProfile, n: number, duration: number, promised: number): number | undefined {
  if (plan.freeBetween(promised, promised + duration) >= n) return promised;
  const start = plan.earliestStart(n, duration, promised);
  return Number.isFinite(start) ? start : undefined;
}

/**
 * A waiting profiled job's scheduled steps set aside in `plan`, one reservation a step (the first under the job's id,
 * so that what its start waits for is the first step's), each where the plan has room for it (placeRest).
 */
function reserveSteps(
  plan: AvailabilityProfile,
  id: string,
  scheduled: ScheduledSteps,
  last: boolean,
): PlannedReservation | undefined {
  const job: StepsInPlan = {
    steps: scheduled.steps.map((s, k) => ({
      id: k === 0 ? id : `${id} step ${k + 1}`,
      n: s.nodes,
      duration: s.duration,
    })),
    placed: 0,
    at: scheduled.start,
    holding: 0,
    starts: [],
  };
  if (!placeRest(plan, job, last)) return undefined;
  const sizes = sizesOf(job);
  let peak = 0;
  for (const s of scheduled.steps) peak = Math.max(peak, s.nodes);
  return {
    id,
    processors: peak,
    start: sizes[0]!.t,
    end: finiteOrNull(sizes[sizes.length - 1]!.t),
    waitsFor: plan.reservation(id) ? plan.reservationWaitsFor(id) : [],
    steps: sizes,
  };
}

/**
 * A waiting job's views from its reservation: no guarantee before its planned start, its processors from then on
 * (until its planned end). undefined for a job without a reservation.
 * Decision: a reservation is the plan's promise, so the non-preemptive view of a reserved job steps up at its start.
 */
export function reservedViews(job: PlanJob, now: number): { nonPreemptive: Step[]; preemptive: Step[] } | undefined {
  const p = job.plannedStart;
  if (p === undefined) return undefined;
  const start = Math.max(now, p.start);
  const nonPreemptive: Step[] =
    start > now
      ? [
          { t: now, v: 0 },
          { t: start, v: job.need },
        ]
      : [{ t: now, v: job.need }];
  const walltime = job.spec.walltime;
  if (walltime !== undefined && p.start + walltime > start) nonPreemptive.push({ t: p.start + walltime, v: 0 });
  return { nonPreemptive, preemptive: [{ t: now, v: 0 }] };
}
