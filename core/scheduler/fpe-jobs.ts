// Fully-predictably evolving jobs online (Klein & Pérez, Euro-Par 2011 workshops; online scheduling is the paper's
// future work): an evolving job submitted with its evolution profile (`profile.steps`) is fitted on its cluster's plan
// by the run's FPE variant (core/fpe/registry.ts) — the resource EP being what the plan holds over time, with the
// starts the queue policy promised earlier jobs — and fitted again at each pass while it waits. It is started when its
// scheduled EP says, holds only its current step's processors (no pre-allocation), and at each scheduled step boundary
// takes its next step's processors: a shrink is released at once, a grow taken from what is free now or reclaimed from
// malleable jobs' expansions by mandatory shrinks; until it has them, the step before waits longer (expanded, its
// processors idle, as the paper assumes). A step's grow whose local jobs fail at the batch system, or are not all
// running after a timeout, is withdrawn and asked again later (the step delayed), a few times before the job ends,
// failed. The capacity is never exceeded: every processor it takes is counted by the ledger and was free when taken.
// A later job's step yields to earlier jobs' later grows, and its start to earlier jobs' stalled steps; where what a
// later stalled job holds is what an earlier one's grows need, the later one runs to its end first if it can; a
// mutual wait that slipped steps make anyway (every job on a cluster a profiled one stalled on the others) is broken
// where it forms (fpe-mutual-wait.ts). A job adopted after a restart goes on from its stored step.
import type { PlacedComponent, SchedulerEventBody } from '../events.js';
import { epFunction, type EpStep, type EvolutionProfile, type ScheduledEp } from '../fpe/evolution-profile.js';
import { fpeVariant, FPE_VARIANTS, type FpeVariant, type FpeVariantName } from '../fpe/registry.js';
import type { Grid } from '../model/grid.js';
import { fail, ok, type Result } from '../model/result.js';
import type { JobSpec } from '../model/schemas.js';
import { currentStepEnd, heldProcessors, holdingEnd, type RuntimeAt } from '../plan/holding.js';
import type { ScheduledSteps } from '../plan/plan-snapshot.js';
import type { ProfiledHold } from '../queue/planned-pass.js';
import type { ApplicationPort, LocalManager } from '../ports.js';
import { profileOfRects, pushSpan } from '../time/profile.js';
import type { StepFunction } from '../time/step-function.js';
import type { ClusterState } from './cluster-state.js';
import type { EvolvingHost } from './evolving.js';
import type { JobRecord } from './job-record.js';
import type { AdoptedStep } from './adoption.js';
import { breakMutualWait, type StalledStep } from './fpe-mutual-wait.js';
import type { CapacityLedger } from './ledger.js';
import type { ShrinkOperations } from './shrink-to-place.js';
import type { Timers } from './timers.js';

export const DEFAULT_FPE_VARIANT: FpeVariantName = '2X+c';
// Decision: a pass fits again at most this many waiting profiled jobs (in arrival order; the rest keep their last
// fit until a later pass), so that a pass costs a bounded number of fits whatever the backlog.
export const FPE_REFIT_LIMIT = 32;
// Decision: a step's grow not all running 5 minutes after it was asked for is withdrawn as failed: the scheduler asks
// only for processors it counts free, so a batch system that has not started them by then holds them elsewhere.
export const DEFAULT_FPE_GROW_TIMEOUT_S = 300;
// Decision: the third failed grow of one step ends the job: a failure that comes back twice more is not transient.
export const DEFAULT_FPE_GROW_ATTEMPTS = 3;
// Decision: a failed grow is asked again no sooner than a minute later (a node's failure or a full queue gets time to
// clear), at the first pass from then; the step before waits meanwhile, as a delayed step.
export const FPE_GROW_RETRY_S = 60;

/** When a profiled job's step grow counts as failed, and how many it may have (SchedulerOptions' fpeGrow*). */
export interface FpeGrowLimits {
  readonly timeoutS?: number | undefined;
  readonly attempts?: number | undefined;
}

/** What the profiled jobs need of the scheduler. */
export interface FpeJobsHost {
  readonly grid: Grid;
  readonly clusters: readonly ClusterState[];
  readonly managers: readonly LocalManager[];
  readonly applications: ApplicationPort;
  readonly ledger: CapacityLedger;
  readonly timers: Timers;
  readonly runtimeAt?: RuntimeAt;
  /**
   * Mandatory shrinks of running malleable jobs, to make room for a step (the malleability manager): at its boundary,
   * or announced ahead with the boundary as deadline, on the lane of evolving jobs' updates.
   */
  readonly shrinks: ShrinkOperations & EvolvingHost['malleability'];
  /** Jobs placed and not yet ended (what the plan holds). */
  placedJobs(): Iterable<JobRecord>;
  /** The placement queue's waiting jobs: those with a `plannedStart` hold the start the queue's planner promised them. */
  queuedJobs(): Iterable<JobRecord>;
  place(job: JobRecord, components: PlacedComponent[], policy: string, now: number): void;
  emit(now: number, event: SchedulerEventBody): void;
  /** Processors came free on a cluster: growth and another pass may use them. */
  freed(state: ClusterState): void;
  /** Asks for a pass (where waiting and stalled profiled jobs are tried again). */
  wake(t: number): void;
  /** Ends a job, failed, with the reason (its local jobs cancelled). */
  fail(job: JobRecord, reason: string, now: number): void;
}

/** The requested EP of a profiled job spec (its steps as the core's evolution profile). */
export function requestedProfile(spec: JobSpec): EvolutionProfile {
  return (spec.profile?.steps ?? []).map((s) => ({ duration: s.duration_s, nodes: s.processors }));
}

/** A queue job's promised start (job.plannedStart) as the plan holds it: `n` processors on a cluster over [from, to). */
interface PromisedStart {
  readonly seq: number;
  readonly cluster: number;
  readonly from: number;
  readonly to: number;
  readonly n: number;
}

interface ProfiledJob {
  readonly job: JobRecord;
  readonly requested: EvolutionProfile;
  /** The cluster its fit is on (-1: none fits yet). */
  cluster: number;
  /** Waiting: its scheduled EP (absolute start, expanded steps); undefined while none fits. */
  schedule: ScheduledEp | undefined;
  /** What it holds and for how long in each requested step (rigid: its peak throughout; else its scheduled steps). */
  held: number[];
  durations: number[];
  /** The requested step it runs (0-based); -1 before it runs. */
  step: number;
  stepStart: number;
  /** Its next step's processors were not free at the step's time: it waits, holding its current ones. */
  stalled: boolean;
  /** The shortfall its next step's announcement last asked shrinks for, and in which step (see `announce`). */
  announced?: { readonly step: number; readonly short: number };
  /** The earliest step whose grow is not all running yet; undefined when none is under way. */
  grow?: StepGrow;
  /** Failed grows of the step it waits to begin (reset once a grow brings all its processors). */
  growFailures: number;
  /** After a failed grow, the step's grow is asked again no sooner than this. */
  retryAt: number;
  /** Invalidates timers set for an earlier schedule. */
  version: number;
}

/** A step's grow under way. */
interface StepGrow {
  /** The requested step it is for (0-based). */
  readonly step: number;
  /** When the step before began: where the job goes back to when the grow fails. */
  readonly from: number;
  /** Why it fell short, from its first failure on. */
  reason?: string;
}

export class FpeJobs {
  private readonly jobs = new Map<string, ProfiledJob>();
  private variantOption: FpeVariant;
  private growTimeoutOption = DEFAULT_FPE_GROW_TIMEOUT_S;
  private growAttemptsOption = DEFAULT_FPE_GROW_ATTEMPTS;
  /** Inside a pass's tries of stalled steps, or breaking a mutual wait: a stall is judged after them, not at once. */
  private settling = false;

  constructor(
    private readonly host: FpeJobsHost,
    variant: FpeVariantName = DEFAULT_FPE_VARIANT,
    grow: FpeGrowLimits = {},
  ) {
    this.variantOption = fpeVariant(variant)!;
    for (const r of [
      this.setGrowTimeoutS(grow.timeoutS ?? DEFAULT_FPE_GROW_TIMEOUT_S),
      this.setGrowAttempts(grow.attempts ?? DEFAULT_FPE_GROW_ATTEMPTS),
    ])
      if (!r.ok) throw new RangeError(`${r.errors[0]!.path}: ${r.errors[0]!.message}`);
  }

  get variant(): FpeVariantName {
    return this.variantOption.name;
  }

  /** Seconds a step's grow may take to be all running before it is withdrawn (watchGrow). */
  get growTimeoutS(): number {
    return this.growTimeoutOption;
  }

  /** Failed grows of one step after which the job ends, failed (judgeGrow). */
  get growAttempts(): number {
    return this.growAttemptsOption;
  }

  /**
   * Decision: a new timeout holds for the grows watched from now on, and for a watch already armed from its next
   * withdrawal on (its first due time stays); a new limit of attempts is read at the next failed grow, so a job that
   * has failed as often already ends then.
   */
  setGrowTimeoutS(seconds: number): Result<void> {
    if (!(seconds > 0))
      return fail([{ path: 'fpeGrowTimeoutS', message: `must be a number of seconds > 0 (got ${String(seconds)})` }]);
    this.growTimeoutOption = seconds;
    return ok(undefined);
  }

  setGrowAttempts(attempts: number): Result<void> {
    if (!Number.isInteger(attempts) || attempts < 1)
      return fail([{ path: 'fpeGrowAttempts', message: `must be a whole number >= 1 (got ${String(attempts)})` }]);
    this.growAttemptsOption = attempts;
    return ok(undefined);
  }

  setVariant(name: string): Result<void> {
    const v = fpeVariant(name);
    if (!v) return fail([{ path: 'fpeVariant', message: `must be one of ${FPE_VARIANTS.join(', ')} (got "${name}")` }]);
    this.variantOption = v;
    return ok(undefined);
  }

  owns(jobId: string): boolean {
    return this.jobs.has(jobId);
  }

  /** How many profiled jobs it keeps (waiting or placed): none, and no holding follows an evolution profile. */
  get count(): number {
    return this.jobs.size;
  }

  /** A profiled job arrived: it waits here (not in the placement queue) and is fitted at once. */
  arrive(job: JobRecord, now: number): void {
    const requested = requestedProfile(job.spec);
    this.track({
      job,
      requested,
      cluster: -1,
      schedule: undefined,
      held: [],
      durations: [],
      step: -1,
      stepStart: Number.NaN,
      stalled: false,
      growFailures: 0,
      retryAt: Number.NEGATIVE_INFINITY,
      version: 0,
    });
    this.pass(now);
  }

  /**
   * A profiled job adopted after a restart (adoption.ts), placed as it stands on its cluster: it goes on with its
   * profile from `step` (a running one), or from its first step once its local jobs start. Its steps from the stored
   * one on last and hold what the earlier run planned (`step.planned`: its scheduled EP, expansions included), and a
   * step whose processors are not free waits as any other. Decision: stored without its plan (a state stored before
   * plans were), it runs as the rigid baseline did when it holds its peak in a step that asks fewer, else step by
   * step, its steps at their requested lengths. Without a stored step, it is the step its run time falls in at the
   * requested lengths.
   */
  adopt(job: JobRecord, step: AdoptedStep | undefined, now: number): void {
    const requested = requestedProfile(job.spec);
    let peak = 0;
    for (const s of requested) peak = Math.max(peak, s.nodes);
    const running = job.state === 'running';
    let index = 0;
    let stepStart = running ? job.startTime : Number.NaN;
    if (running && step !== undefined) {
      index = step.index;
      stepStart = step.start;
    } else if (running) {
      while (index + 1 < requested.length && stepStart + requested[index]!.duration <= now)
        stepStart += requested[index++]!.duration;
    }
    const rigid = job.held === peak && requested[index]!.nodes !== peak;
    const planned = running ? step?.planned : undefined;
    // Steps before the stored one are over: their requested sizes stand for them.
    const plannedStep = (k: number) => (planned && k >= index ? planned[k - index] : undefined);
    const p: ProfiledJob = {
      job,
      requested,
      cluster: job.clusterIndex,
      schedule: undefined,
      held: requested.map((s, k) => plannedStep(k)?.processors ?? (rigid && !planned ? peak : s.nodes)),
      durations: requested.map((s, k) => Math.max(s.duration, plannedStep(k)?.durationS ?? 0)),
      step: running ? index : -1,
      stepStart,
      stalled: false,
      // Decision: a stored count past the attempts allowed now (lowered meanwhile) ends the job at its next failure.
      growFailures: running ? (step?.growFailures ?? 0) : 0,
      retryAt: running ? (step?.retryAt ?? Number.NEGATIVE_INFINITY) : Number.NEGATIVE_INFINITY,
      version: 0,
    };
    this.track(p);
    // A failed grow's wait the earlier run began goes on: its step is tried again at a pass from then (boundary).
    if (now < p.retryAt) this.host.wake(p.retryAt);
    if (running && index > 0 && job.held < p.held[index]!) {
      // Decision: adopted short of its step's processors (a grow the restart cut short), it takes the rest as at a
      // step boundary, and the step begins again once it has them (its application waits for them to run it).
      p.step = index - 1;
      p.stepStart = now - requested[index - 1]!.duration;
      this.boundary(p, now);
    } else if (running) {
      this.stepTimer(p, now);
      // A grow the earlier run asked for its step, still under way at the batch system: watched as any other.
      if (index > 0 && job.pendingGrow > 0) this.watchGrow(p, index, p.stepStart - p.durations[index - 1]!, now);
    }
  }

  /** The job ended (however): it leaves the plan. */
  ended(jobId: string): void {
    const p = this.jobs.get(jobId);
    if (p) p.job.profiledStep = undefined;
    this.jobs.delete(jobId);
  }

  /** Keeps a profiled job; its record shows the plans (holding.ts) the step it runs, as that moves on. */
  private track(p: ProfiledJob): void {
    this.jobs.set(p.job.id, p);
    // Before it runs, its first step from now (the holding rule reads a NaN start so).
    p.job.profiledStep = {
      get start() {
        return p.step < 0 ? Number.NaN : p.stepStart;
      },
      get duration() {
        return p.durations[Math.max(0, p.step)] ?? 0;
      },
    };
  }

  /**
   * Fits the waiting profiled jobs again (Algorithm 1 over the plan: each in arrival order on the resource EP that
   * holds the ones before it), and tries the stalled ones' next steps. Bounded: FPE_REFIT_LIMIT fits per cluster.
   */
  pass(now: number): void {
    if (this.jobs.size === 0) return;
    const demand = new Map<number, number>();
    const stalledOn = new Set<number>();
    this.settling = true;
    for (const p of this.jobs.values()) {
      if (p.job.state !== 'running') continue;
      if (p.stalled) this.boundary(p, now);
      else this.announce(p, now, demand);
      if (p.stalled) stalledOn.add(p.job.clusterIndex);
    }
    this.settling = false;
    for (const c of stalledOn) this.breakMutualWait(c, now);
    // Decision: profiled jobs and the queue's promised starts go into the plan in arrival order: a profiled job is
    // fitted around the reservations of the queue jobs submitted before it (the easy head's, cbf's), never into
    // processors promised to an earlier job. The promises of jobs submitted after it do not hold it back: the planned
    // pass puts its fit in the plans those jobs are admitted against (profiledHolds), dropping a promise it overlaps.
    // Under koala (no plan ahead) a later job may still start into its processors: its start waits, fitted again.
    const promises = this.promises(now);
    let promised = 0;
    const resources = new Map<number, StepFunction>();
    const resourceOf = (c: number) => {
      let r = resources.get(c);
      if (!r) {
        const rects = this.placedRects(c, now);
        for (let k = 0; k < promised; k++) if (promises[k]!.cluster === c) pushPromise(rects, promises[k]!);
        resources.set(c, (r = profileOfRects(rects)));
      }
      return r;
    };
    let fitted = 0;
    for (const p of this.jobs.values()) {
      if (p.step >= 0 || p.job.state !== 'queued') continue;
      if (fitted++ >= FPE_REFIT_LIMIT) break;
      for (; promised < promises.length && promises[promised]!.seq < p.job.seq; promised++) {
        const q = promises[promised]!;
        const r = resources.get(q.cluster);
        if (r) resources.set(q.cluster, r.plus(profileOfRects(pushPromise([], q))));
      }
      const best = this.bestFit(p, now, this.behindStalled(p, now, resourceOf)) ?? this.bestFit(p, now, resourceOf);
      if (!best) {
        p.schedule = undefined;
        p.cluster = -1;
        continue;
      }
      resources.set(best.cluster, resourceOf(best.cluster).plus(epFunction(best.schedule.steps, best.schedule.start)));
      const changed =
        !p.schedule ||
        p.cluster !== best.cluster ||
        p.schedule.start !== best.schedule.start ||
        !sameSteps(p.schedule.steps, best.schedule.steps);
      p.schedule = best.schedule;
      p.cluster = best.cluster;
      this.setRun(p, best.schedule);
      if (!changed) continue;
      const version = ++p.version;
      const start = best.schedule.start;
      this.host.emit(now, {
        type: 'fpe.scheduled',
        jobId: p.job.id,
        cluster: this.host.clusters[best.cluster]!.cluster.name,
        variant: this.variant,
        start,
        steps: best.schedule.steps.map((s) => ({ durationS: s.duration, processors: s.nodes })),
      });
      this.host.timers.at(start, (t) => {
        if (p.version === version && this.jobs.get(p.job.id) === p) this.startDue(p, t);
      });
    }
  }

  /** The job's local job started: its first step runs from now. */
  started(jobId: string, now: number): void {
    const p = this.jobs.get(jobId);
    if (!p || p.step >= 0) return;
    p.step = 0;
    p.stepStart = now;
    this.host.emit(now, {
      type: 'fpe.step',
      jobId,
      cluster: this.clusterName(p),
      step: 1,
      processors: p.held[0]!,
      expandedS: 0,
      delayedS: now - p.job.transitions[0]!.time,
    });
    this.stepTimer(p, now);
    this.announce(p, now);
  }

  /** Processors of a grow of the job's became active: a step boundary that waited for them goes on. */
  grown(jobId: string, now: number): void {
    const p = this.jobs.get(jobId);
    if (p && p.job.pendingGrow === 0 && p.job.state === 'running') this.growsSettled(p, now);
  }

  /** Whether a grow of the job's step is settled short of the step's processors (judgeGrow is about to see it). */
  shortOfStep(jobId: string): boolean {
    const p = this.jobs.get(jobId);
    return p?.grow !== undefined && p.job.pendingGrow === 0 && p.job.held < p.held[p.step]!;
  }

  /**
   * Processors of a grow of the job's will never be active (its local jobs failed at the batch system, or were
   * withdrawn after the timeout): once nothing of it is on its way, the step it was for did not begin.
   */
  growFailed(jobId: string, reason: string, now: number): void {
    const p = this.jobs.get(jobId);
    if (!p || p.job.state !== 'running') return;
    if (p.grow) p.grow.reason ??= reason;
    if (p.job.pendingGrow === 0) this.growsSettled(p, now);
  }

  /** None of the job's grows is on its way any more: its step's grow is judged, and a boundary that waited goes on. */
  private growsSettled(p: ProfiledJob, now: number): void {
    if (p.grow) this.judgeGrow(p, now);
    if (p.stalled && this.jobs.get(p.job.id) === p) this.boundary(p, now);
  }

  /**
   * The application's own word on its next step (the CooRMv2 NEXT chain: `update` with the next step's processors,
   * announced the current step's duration ahead). The schedule comes from the profile, so an update that matches it
   * is noted and one that does not is refused with the reason.
   * Decision: an update naming the processors of the step it runs or of any later one is its own: the application
   * and the step timer are not in step (on a loaded machine an announcement is read after Concertina began the step
   * it announces, or before the job's start is seen), and a refusal makes the application give up the processors it
   * announced, then wait for them forever.
   */
  update(jobId: string, processors: number): string | undefined {
    const p = this.jobs.get(jobId);
    if (!p) return undefined;
    const current = Math.max(0, p.step);
    for (let k = current; k < p.requested.length; k++) if (p.requested[k]!.nodes === processors) return undefined;
    const next = p.requested[p.step + 1];
    return next
      ? `asks for ${processors} processors, but its profile's step ${p.step + 2} has ${next.nodes}: a profiled job's steps are fixed at submission`
      : `asks for ${processors} processors after its last step: a profiled job's steps are fixed at submission`;
  }

  /**
   * The profiled jobs' steps ahead, by submission, for the queue's plans (core/queue/planned-pass.ts): the queue jobs
   * submitted after one are admitted around it. A waiting job's scheduled EP; a running one's later steps, from its
   * current step's end (holding.ts's currentStepEnd), where the plan's holding of the job (its current processors)
   * ends. Empty, at no cost, when there is no profiled job.
   */
  profiledHolds(now: number): readonly ProfiledHold[] {
    if (this.jobs.size === 0) return NO_HOLDS;
    const out: ProfiledHold[] = [];
    for (const p of this.jobs.values()) {
      // Placed (claiming its first step's processors, or running): its steps after the current one.
      if (p.job.state === 'claiming' || p.job.state === 'running') {
        this.pushLaterSteps(out, p, now);
        continue;
      }
      if (p.step >= 0 || p.job.state !== 'queued' || !p.schedule || p.cluster < 0) continue;
      out.push({ id: p.job.id, seq: p.job.seq, cluster: p.cluster, start: p.schedule.start, steps: p.schedule.steps });
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /**
   * A running profiled job's later steps as a hold, whole: the plan holds its current processors until its current
   * step's end (holding.ts), and its later steps from there.
   */
  private pushLaterSteps(out: ProfiledHold[], p: ProfiledJob, now: number): void {
    // Before its local job starts, its first step is the current one, from now (as pushRemaining counts it).
    const i = Math.max(0, p.step);
    if (i + 1 >= p.held.length || p.job.clusterIndex < 0) return;
    const start = currentStepEnd(Number.isFinite(p.stepStart) ? p.stepStart : now, p.durations[i]!, now);
    const steps: Array<{ duration: number; nodes: number }> = [];
    for (let k = i + 1; k < p.held.length; k++) steps.push({ duration: p.durations[k]!, nodes: p.held[k]! });
    out.push({ id: p.job.id, seq: p.job.seq, cluster: p.job.clusterIndex, start, steps, holding: p.job.preallocation });
  }

  /** The profiled jobs not placed yet, in arrival order (they wait here, not in the queue). */
  *waiting(): Iterable<JobRecord> {
    for (const p of this.jobs.values()) if (p.step < 0 && p.job.state === 'queued') yield p.job;
  }

  /** The scheduled EP and the step a job runs, for the console. */
  describe(jobId: string):
    | {
        variant: FpeVariantName;
        cluster: string | undefined;
        step: number;
        /** When its current step began (NaN before it runs). */
        stepStart: number;
        schedule: ScheduledEp | undefined;
        /** Running: its current step and the ones after it, as long as planned and with what it holds in each. */
        planned: EvolutionProfile;
        /** Failed grows of the step its grows are for, so far (a restart keeps them: adoption.ts). */
        growFailures: number;
        /** After its latest failed grow, when the grow is asked again (a restart keeps it); -Infinity before any. */
        retryAt: number;
      }
    | undefined {
    const p = this.jobs.get(jobId);
    if (!p) return undefined;
    const planned: EpStep[] = [];
    if (p.step >= 0)
      for (let k = p.step; k < p.held.length; k++) planned.push({ duration: p.durations[k]!, nodes: p.held[k]! });
    return {
      variant: this.variant,
      cluster: p.cluster >= 0 ? this.clusterName(p) : undefined,
      step: p.step,
      stepStart: p.stepStart,
      schedule: p.schedule,
      planned,
      growFailures: p.growFailures,
      retryAt: p.retryAt,
    };
  }

  /**
   * Its steps ahead for the plan: a waiting job's fit; a placed one's from its current step's start on (its first
   * step's before it starts), with the lengths and processors it holds them with. undefined for other jobs, and for a
   * waiting one no fit holds.
   */
  plannedSteps(jobId: string): ScheduledSteps | undefined {
    const p = this.jobs.get(jobId);
    if (!p) return undefined;
    const count = p.requested.length;
    if (p.step < 0) {
      const cluster = p.job.clusterIndex >= 0 ? p.job.clusterIndex : p.cluster;
      if (!p.schedule || cluster < 0) return undefined;
      return { cluster, start: p.schedule.start, steps: p.schedule.steps, first: 0, count };
    }
    const steps = [];
    for (let k = p.step; k < p.held.length; k++) steps.push({ duration: p.durations[k]!, nodes: p.held[k]! });
    return { cluster: p.job.clusterIndex, start: p.stepStart, steps, first: p.step, count };
  }

  // ---- fits ------------------------------------------------------------------------------------------------------

  /**
   * `resourceOf` as waiting job `p` sees it where running profiled jobs submitted after it are stalled: each holds what
   * it holds now, without end, and takes its next step after p (boundary leaves p's processors to it).
   * Decision: arrival order decides between a waiting profiled job and a later one's stalled step, so the step it waits
   * for does not push p's start; the caller fits p around the step as well where p cannot fit so (the later job holds
   * processors p needs until it ends).
   */
  private behindStalled(
    p: ProfiledJob,
    now: number,
    resourceOf: (c: number) => StepFunction,
  ): (c: number) => StepFunction {
    const later: ProfiledJob[] = [];
    for (const q of this.jobs.values()) if (q.stalled && q.job.seq > p.job.seq) later.push(q);
    if (later.length === 0) return resourceOf;
    return (c) => {
      const rects: number[] = [];
      for (const q of later) {
        if (q.job.clusterIndex !== c) continue;
        const from = rects.length;
        this.pushRemaining(rects, q, now);
        for (let k = from + 2; k < rects.length; k += 3) rects[k] = -rects[k]!;
        pushSpan(rects, now, Number.POSITIVE_INFINITY, q.job.held);
      }
      return rects.length === 0 ? resourceOf(c) : resourceOf(c).plus(profileOfRects(rects));
    };
  }

  /** The cluster its fit ends earliest on (its pinned one if it names one), or undefined when none fits now. */
  private bestFit(
    p: ProfiledJob,
    now: number,
    resourceOf: (c: number) => StepFunction,
  ): { cluster: number; schedule: ScheduledEp } | undefined {
    const pinned = p.job.spec.components[0]!.cluster;
    let best: { cluster: number; schedule: ScheduledEp; end: number } | undefined;
    for (const state of this.host.clusters) {
      const c = state.cluster.index;
      if (pinned !== undefined && state.cluster.name !== pinned) continue;
      const schedule = this.fitOn(p.requested, resourceOf(c), capacityOf(state), now);
      if (!schedule) continue;
      let end = schedule.start;
      for (const s of schedule.steps) end += s.duration;
      if (!best || end < best.end) best = { cluster: c, schedule, end };
    }
    return best && { cluster: best.cluster, schedule: best.schedule };
  }

  /**
   * The variant's fit, or undefined where it cannot fit: a step larger than the capacity, or the plan never frees
   * enough (a job without a walltime holds its processors without end).
   */
  private fitOn(
    requested: EvolutionProfile,
    resource: StepFunction,
    capacity: number,
    now: number,
  ): ScheduledEp | undefined {
    let peak = 0;
    for (const s of requested) peak = Math.max(peak, s.nodes);
    if (peak > capacity || capacity - resource.finalValue < peak) return undefined;
    return this.variantOption.fit(requested, resource, capacity, now);
  }

  /**
   * Cluster c's resource EP from now, as `p` sees it: what placed jobs other than p hold until their estimated end
   * (core/plan/holding.ts), profiled jobs their remaining scheduled steps, and the queue's promised starts of the jobs
   * submitted before p; nothing before now (the compacting pass fits on its mirror image). Queue jobs without a
   * promised start hold nothing here: they take what is free when placed, and a profiled step they took waits for it.
   */
  private resourceEp(c: number, now: number, p: ProfiledJob): StepFunction {
    const rects = this.placedRects(c, now, p);
    for (const q of this.promises(now)) if (q.cluster === c && q.seq < p.job.seq) pushPromise(rects, q);
    return profileOfRects(rects);
  }

  /** What placed jobs hold on cluster c from now, as rectangles (profileOfRects). */
  private placedRects(c: number, now: number, except?: ProfiledJob): number[] {
    const rects: number[] = [];
    for (const job of this.host.placedJobs()) {
      if (!this.holdsOn(job, c)) continue;
      const p = this.jobs.get(job.id);
      if (p) {
        if (p !== except) this.pushRemaining(rects, p, now);
        continue;
      }
      let n = 0;
      for (const k of job.components) if (this.host.grid.cluster(k.cluster)?.index === c) n += k.processors;
      pushSpan(rects, now, holdingEnd(job, now, this.host.runtimeAt), heldProcessors(job, n));
    }
    return rects;
  }

  /** The queue jobs' promised starts still ahead or under way, by submission. */
  private promises(now: number): PromisedStart[] {
    const out: PromisedStart[] = [];
    for (const job of this.host.queuedJobs()) {
      const p = job.plannedStart;
      if (p === undefined || job.state !== 'queued') continue;
      const to = p.start + (job.spec.walltime ?? Number.POSITIVE_INFINITY);
      if (to > now) out.push({ seq: job.seq, cluster: p.cluster, from: Math.max(now, p.start), to, n: job.need });
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** A placed profiled job's hold from now: its current processors to its step's end, then its later steps as planned. */
  private pushRemaining(rects: number[], p: ProfiledJob, now: number): void {
    const i = Math.max(0, p.step);
    let t = currentStepEnd(Number.isFinite(p.stepStart) ? p.stepStart : now, p.durations[i]!, now);
    pushSpan(rects, now, t, p.job.held);
    for (let k = i + 1; k < p.held.length; k++) {
      pushSpan(rects, t, t + p.durations[k]!, p.held[k]!);
      t += p.durations[k]!;
    }
  }

  /** What the job holds in each requested step, and for how long, under a schedule of the variant. */
  private setRun(p: ProfiledJob, schedule: ScheduledEp): void {
    if (this.variantOption.evolving) {
      p.held = schedule.steps.map((s) => s.nodes);
      p.durations = schedule.steps.map((s) => s.duration);
    } else {
      // The rigid baseline: its peak for its whole run, its steps one after the other.
      const peak = schedule.steps[0]?.nodes ?? 0;
      p.held = p.requested.map(() => peak);
      p.durations = p.requested.map((s) => s.duration);
    }
  }

  // ---- running -----------------------------------------------------------------------------------------------------

  /** Its scheduled start: placed with its first step's processors when they are free, else fitted again at the next pass. */
  private startDue(p: ProfiledJob, now: number): void {
    if (p.job.state !== 'queued' || p.cluster < 0) return;
    const state = this.host.clusters[p.cluster]!;
    const n = p.held[0]!;
    // Not free after all (what the plan does not see: reservations, offers in flight, an earlier job's step that
    // stalled since it was fitted): fitted again at the next pass.
    if (state.availableFor(p.job.id) - this.stalledBefore(p, p.cluster) < n) {
      p.schedule = undefined;
      return;
    }
    this.host.place(p.job, [{ cluster: state.cluster.name, processors: n }], `fpe ${this.variant}`, now);
  }

  private stepTimer(p: ProfiledJob, now: number): void {
    const version = ++p.version;
    const step = p.step;
    if (step + 1 >= p.held.length) return;
    this.host.timers.at(now + Math.max(0, p.stepStart + p.durations[step]! - now), (t) => {
      if (p.version === version && p.step === step && this.jobs.get(p.job.id) === p && p.job.state === 'running')
        this.boundary(p, t);
    });
  }

  /**
   * The end of its current step: it takes its next step's processors — giving back at once what it needs no more,
   * taking more only from what is free — or, when they are not free, waits (stalled) until a pass finds them.
   */
  private boundary(p: ProfiledJob, now: number, yieldToEarlier = true): void {
    const next = p.step + 1;
    if (next >= p.held.length) return;
    // Waiting out a failed grow: tried again at a pass from retryAt (an adopted job's stored wait comes here first by
    // its step timer, not yet stalled).
    if (now < p.retryAt) {
      p.stalled = true;
      return;
    }
    const job = p.job;
    const state = this.host.clusters[job.clusterIndex]!;
    const want = p.held[next]!;
    const have = job.held;
    if (want > have) {
      const more = want - have;
      const free = state.availableFor(job.id);
      if (
        free < more ||
        free - this.dueBefore(p, now) < more ||
        (yieldToEarlier && (this.takesFromEarlier(p, next, free, now) || this.yieldsToLater(p, now)))
      ) {
        // Yielding to earlier jobs, it sets nothing aside: what is free is theirs first.
        if (free < more) this.shrinkForStep(job, state, more, now);
        if (!p.stalled) {
          p.stalled = true;
          // Woken at the earliest time the plan frees enough for the rest of its steps (any pass tries it before).
          const rest = this.fitOn(
            p.requested.slice(next).map((s, k) => ({ duration: s.duration, nodes: p.held[next + k]! })),
            this.resourceEp(job.clusterIndex, now, p),
            capacityOf(state),
            now,
          );
          if (rest && rest.start > now) this.host.wake(rest.start);
        }
        if (!this.settling) this.breakMutualWait(job.clusterIndex, now);
        return;
      }
      // What mandatory shrinks released for it was set aside until now: it is its own from here.
      this.host.ledger.dropReservations(job);
      this.host.ledger.account(job, () => (job.pendingGrow += more));
      this.host.managers[job.clusterIndex]!.grow(job.id, more);
      this.watchGrow(p, next, p.stepStart, now);
    } else {
      // Decision: a step that ends before its own grow runs waits for it (stalled; `grown` ends the wait): shrinking
      // now would take running processors in place of ones still starting, and tell the application too few.
      if (job.pendingGrow > 0) {
        p.stalled = true;
        return;
      }
      const fewer = Math.min(have - want, job.size);
      if (fewer > 0) {
        this.host.ledger.account(job, () => (job.size -= fewer));
        this.host.managers[job.clusterIndex]!.shrink(job.id, fewer);
        job.recordSize(now);
        this.host.freed(state);
      }
      // Decision: every step's start is told to the application, its size changed or not (it runs its steps in turn).
      this.host.applications.resized(job.id, job.size);
    }
    const expandedS = Math.max(0, now - p.stepStart - p.requested[p.step]!.duration);
    p.stalled = false;
    p.step = next;
    p.stepStart = now;
    // Its holding in the plans now ends with this step (holding.ts): they make it again (no counter moves).
    this.host.ledger.account(job, () => undefined);
    this.host.emit(now, {
      type: 'fpe.step',
      jobId: job.id,
      cluster: state.cluster.name,
      step: next + 1,
      processors: want,
      expandedS,
      delayedS: 0,
    });
    this.stepTimer(p, now);
    this.announce(p, now);
  }

  /**
   * Watches the grow just asked for step `step` (`from`: when the step before began): still not all running
   * `growTimeoutS` later, what is not is withdrawn (answered by growFailed), and asked again each `growTimeoutS` while
   * unanswered (a cluster out of reach).
   * Decision: a grow asked while an earlier step's is still under way is watched with it, from the earlier one's
   * time: its step cannot begin before the earlier one has its processors.
   */
  private watchGrow(p: ProfiledJob, step: number, from: number, now: number): void {
    if (p.grow) return;
    const grow: StepGrow = { step, from };
    p.grow = grow;
    const due = (t: number) => {
      const job = p.job;
      if (p.grow !== grow || this.jobs.get(job.id) !== p || job.state !== 'running' || job.pendingGrow === 0) return;
      grow.reason ??= `not all running ${this.growTimeoutS} s after they were asked for`;
      this.host.managers[job.clusterIndex]!.cancelGrow(job.id);
      this.host.timers.at(t + this.growTimeoutS, due);
    };
    this.host.timers.at(now + this.growTimeoutS, due);
  }

  /**
   * The job's grows are settled (none on its way): with all of the step's processors, the step runs; short of them,
   * the step did not begin — the job goes back to the step before, which waits longer (delayed, stalled) until the
   * grow is asked again at a pass from `FPE_GROW_RETRY_S` on, or, at its last attempt, ends, failed.
   * Decision: the application hears of it only then (a refused update: its step's processors will not come), just
   * before the job's end; a grow asked again is no news to it (it waits for the step's processors either way), and a
   * refusal would make it give up processors still to come.
   */
  private judgeGrow(p: ProfiledJob, now: number): void {
    const grow = p.grow!;
    const job = p.job;
    p.grow = undefined;
    // The step it runs is the one of the latest grow (a later step's grow may have been asked meanwhile).
    const want = p.held[p.step]!;
    if (job.held >= want) {
      p.growFailures = 0;
      return;
    }
    const attempt = ++p.growFailures;
    const reason = grow.reason ?? 'its processors did not come';
    const cluster = this.host.clusters[job.clusterIndex]!.cluster.name;
    const failed = {
      type: 'fpe.growFailed',
      jobId: job.id,
      cluster,
      step: grow.step + 1,
      missing: want - job.held,
      reason,
      attempt,
      attempts: this.growAttempts,
    } as const;
    if (attempt >= this.growAttempts) {
      this.host.emit(now, failed);
      const why = `step ${grow.step + 1} grow failed: ${reason}${attempt > 1 ? ` (${attempt} attempts)` : ''}`;
      this.host.applications.updateRefused(job.id, why);
      this.host.fail(job, why, now);
      return;
    }
    p.step = grow.step - 1;
    p.stepStart = grow.from;
    p.stalled = true;
    p.version++;
    p.retryAt = now + FPE_GROW_RETRY_S;
    // Its holding in the plans ends with the step before again (holding.ts): they make it again.
    this.host.ledger.account(job, () => undefined);
    this.host.emit(now, { ...failed, retryAt: p.retryAt });
    this.host.wake(p.retryAt);
  }

  /**
   * Whether p, taking its step `next` now and running its steps from here as planned, would hold processors that
   * running profiled jobs submitted before it need for their later grows (their remaining steps as planned), beyond
   * what is free now; or would come to a step that cannot fit beside what they hold then within the cluster's
   * capacity. Decision: arrival order decides here too, so the later job's step waits (stalled): had it taken them,
   * each job's next step could wait for processors the other holds, and neither would end.
   * Decision: a coming step that cannot fit beside the earlier jobs' holds (earlier ones delayed since p was fitted)
   * would stall there, holding the step before into their later grows: p's step waits now instead, holding less, until
   * its steps from here fit beside theirs (they end at the latest; a mutual wait is still broken, fpe-mutual-wait.ts).
   */
  private takesFromEarlier(p: ProfiledJob, next: number, free: number, now: number): boolean {
    const c = p.job.clusterIndex;
    const capacity = capacityOf(this.host.clusters[c]!);
    const rects: number[] = [];
    let heldNow = 0;
    for (const q of this.jobs.values()) {
      if (q === p || q.job.seq > p.job.seq || q.step < 0 || q.job.state !== 'running' || q.job.clusterIndex !== c)
        continue;
      this.pushRemaining(rects, q, now);
      heldNow += q.job.held;
    }
    if (rects.length === 0) return false;
    const earlier = profileOfRects(rects);
    // Decision: where the earlier jobs' later grows cannot fit beside what p holds now, p waiting would hold them up as
    // much as its steps would, and only its end frees them: it goes on when what is free now runs it to its end (the
    // earlier jobs' steps wait for it meanwhile, as for any job's processors); else it yields, and a mutual wait forms
    // that is broken as any other (fpe-mutual-wait.ts).
    if (p.job.held + earlier.maxOver(now, Number.POSITIVE_INFINITY) > capacity) {
      let peak = 0;
      for (let k = next; k < p.held.length; k++) peak = Math.max(peak, p.held[k]!);
      if (peak - p.job.held <= free) return false;
    }
    let t = now;
    for (let k = next; k < p.held.length; k++) {
      const d = p.durations[k]!;
      // Where they grow, and where p's step cannot fit beside them at all: p's steps beside everyone else's holds are
      // the plan's business, as before.
      const beside = earlier.maxOver(t, t + d);
      const growth = beside - heldNow;
      if (growth > 0 && p.held[k]! - p.job.held + growth > free) return true;
      if (p.held[k]! + beside > capacity) return true;
      t += d;
    }
    return false;
  }

  /**
   * Whether p's step waits for a later profiled job stalled on its cluster that holds processors p's later steps
   * cannot fit beside, and that what is free now runs to its end. Decision: only its end frees them (its application
   * runs on them), so p taking what is free now would leave both waiting; the later job goes on first (takesFromEarlier
   * lets it), and p's step waits for it, at the latest until its end.
   */
  private yieldsToLater(p: ProfiledJob, now: number): boolean {
    const c = p.job.clusterIndex;
    const state = this.host.clusters[c]!;
    const capacity = capacityOf(state);
    let peak = 0;
    for (let k = p.step + 1; k < p.held.length; k++) peak = Math.max(peak, p.held[k]!);
    for (const q of this.jobs.values()) {
      if (q.job.seq <= p.job.seq || !q.stalled || q.job.state !== 'running' || q.job.clusterIndex !== c) continue;
      if (q.grow || q.job.pendingGrow > 0 || now < q.retryAt || q.job.held + peak <= capacity) continue;
      let rest = 0;
      for (let k = q.step + 1; k < q.held.length; k++) rest = Math.max(rest, q.held[k]!);
      if (rest - q.job.held <= state.availableFor(q.job.id)) return true;
    }
    return false;
  }

  /**
   * Processors on p's cluster that jobs submitted before p are due to take now: waiting profiled jobs whose fit starts
   * by now and queue jobs promised a start by now. Decision: arrival order decides between them and p's next step, so
   * the step waits (stalled) rather than take what they start with in this instant.
   */
  private dueBefore(p: ProfiledJob, now: number): number {
    const c = p.job.clusterIndex;
    let n = 0;
    for (const q of this.jobs.values())
      if (q.job.seq < p.job.seq && q.step < 0 && q.job.state === 'queued' && q.cluster === c && q.schedule)
        if (q.schedule.start <= now) n += q.held[0] ?? 0;
    for (const q of this.promises(now)) if (q.seq < p.job.seq && q.cluster === c && q.from <= now) n += q.n;
    return n;
  }

  /**
   * More processors that the stalled steps of running profiled jobs submitted before p need on cluster c, beyond what
   * is set aside for them. Decision: arrival order decides between a waiting profiled job's start and an earlier job's
   * stalled step, as at a boundary (dueBefore, takesFromEarlier): the start waits while the step needs what it would
   * start with. Its fit sees the step from now on (pushRemaining), but a fit made earlier, or one that outlived the
   * step's planned end while it still waits, does not: the check at the start is what holds.
   */
  private stalledBefore(p: ProfiledJob, c: number): number {
    const state = this.host.clusters[c]!;
    let n = 0;
    for (const q of this.jobs.values()) {
      if (q.job.seq > p.job.seq || !q.stalled || q.job.state !== 'running' || q.job.clusterIndex !== c) continue;
      const more = q.held[q.step + 1]! - q.job.held - (state.reservations.get(q.job.id) ?? 0);
      if (more > 0) n += more;
    }
    return n;
  }

  /**
   * Breaks a mutual wait among the stalled profiled jobs on cluster c (fpe-mutual-wait.ts), if they are in one: every
   * job placed there is stalled, none with a grow under way, a retry ahead or a due start of an earlier job to yield
   * to, and none would take its step at its next try. Decision: judged at once when a step stalls and after each
   * pass's tries, so a wait that nothing else would end is broken in the instant it forms.
   */
  private breakMutualWait(c: number, now: number): void {
    const stalled: ProfiledJob[] = [];
    for (const p of this.jobs.values()) {
      if (p.job.state !== 'running' || p.job.clusterIndex !== c) continue;
      if (!p.stalled || p.grow || p.job.pendingGrow > 0 || now < p.retryAt) return;
      stalled.push(p);
    }
    if (stalled.length < 2) return;
    let placed = 0;
    for (const job of this.host.placedJobs()) if (this.holdsOn(job, c)) placed++;
    if (placed !== stalled.length) return;
    const state = this.host.clusters[c]!;
    const steps: StalledStep[] = [];
    for (const p of stalled.sort((x, y) => x.job.seq - y.job.seq)) {
      const next = p.step + 1;
      const free = state.availableFor(p.job.id);
      const more = p.held[next]! - p.job.held;
      if (this.dueBefore(p, now) > 0) return;
      if (more <= free && !this.takesFromEarlier(p, next, free, now) && !this.yieldsToLater(p, now)) return;
      let peak = 0;
      for (let k = next; k < p.held.length; k++) peak = Math.max(peak, p.held[k]!);
      steps.push({ id: p.job.id, seq: p.job.seq, held: p.job.held, more, rest: peak - p.job.held, free });
    }
    const decision = breakMutualWait(steps, state.background);
    if (!decision) return;
    const p = this.jobs.get(decision.job.id)!;
    this.host.emit(now, {
      type: 'fpe.mutualWait',
      jobId: p.job.id,
      cluster: state.cluster.name,
      jobs: steps.map((j) => j.id),
      step: p.step + 2,
      free: decision.job.free,
      action: decision.action,
    });
    if (decision.action === 'stepTaken') {
      this.settling = true;
      this.boundary(p, now, false);
      this.settling = false;
      return;
    }
    const others = steps.filter((j) => j !== decision.job).map((j) => j.id);
    const why = `evolution deadlock: step ${p.step + 2} waited on ${state.cluster.name} for processors held by ${others.join(', ')}, stalled as well`;
    this.host.applications.updateRefused(p.job.id, why);
    this.host.fail(p.job, why, now);
  }

  /** Whether a placed job holds processors on cluster c. */
  private holdsOn(job: JobRecord, c: number): boolean {
    return job.clusterIndex === c || job.components.some((k) => this.host.grid.cluster(k.cluster)?.index === c);
  }

  /**
   * A step that needs `more` processors than are free: where running malleable jobs expanded into them, mandatory
   * shrinks (down to the jobs' minimums, the policy choosing whom) reclaim what is missing, and what is free or being
   * released is set aside for the step meanwhile. Decision: as PWA's shrink-to-place, only when the shrinks would make
   * enough room (otherwise the step waits for jobs to end, and the malleable jobs keep their processors), and not
   * while another operation runs on the cluster (the pass after it ends tries again).
   */
  private shrinkForStep(job: JobRecord, state: ClusterState, more: number, now: number): void {
    if (job.waitingOn.length > 0 || this.host.shrinks.busy(state)) return;
    // What malleable jobs agreed to release by now (announced for this step) is on its way: only the rest is asked.
    const missing = more - state.availableFor(job.id) - releasingBy(state, now);
    if (missing > state.shrinkableForPlacement) return;
    this.host.ledger.reserve(job, state, more);
    if (missing > 0) this.host.shrinks.shrink(state, missing, true, now);
  }

  /**
   * Announces a running job's next step ahead of its boundary, where it needs processors that malleable jobs hold as
   * extras: mandatory shrinks are asked with the boundary as their deadline (as for an evolving job's announced
   * update, evolving.ts), so the jobs work on them until then and let them go by the step's start, not after it by
   * their adaptation time. `demand`: what the profiled jobs announced before it in this pass need, per cluster.
   * Decision: announced from the start of the step before (when its application announces it: the NEXT chain) and
   * again at each pass, as extras grow into what it needs: a deadline costs the malleable jobs nothing before it, and
   * the scheduler does not know how long their applications take to adapt. As at the boundary (shrinkForStep), only
   * when the shrinks would make enough room, and one announcement at a time per cluster (the updates' lane).
   */
  private announce(p: ProfiledJob, now: number, demand?: Map<number, number>): void {
    const job = p.job;
    const next = p.step + 1;
    if (p.step < 0 || next >= p.held.length || job.state !== 'running') return;
    const more = p.held[next]! - job.held;
    const boundary = p.stepStart + p.durations[p.step]!;
    if (more <= 0 || boundary <= now) return;
    const c = job.clusterIndex;
    const before = demand?.get(c) ?? 0;
    demand?.set(c, before + more);
    const state = this.host.clusters[c]!;
    let short = before + more - state.availableFor(job.id);
    if (short <= 0) return;
    short -= releasingBy(state, boundary);
    if (short <= 0 || short > state.shrinkableForPlacement || this.host.shrinks.busyForUpdates(state)) return;
    // Asked again only once extras grew into more of it: what the applications refused stays theirs until the boundary.
    if (p.announced?.step === p.step && short <= p.announced.short) return;
    p.announced = { step: p.step, short };
    this.host.shrinks.shrinkForUpdates(state, short, now, boundary);
  }

  private clusterName(p: ProfiledJob): string {
    const i = p.job.clusterIndex >= 0 ? p.job.clusterIndex : p.cluster;
    return this.host.clusters[i]!.cluster.name;
  }
}

/**
 * What Concertina may hold on a cluster now: within its threshold and what local users leave. Decision: the plan takes
 * the background load as last seen to last (as the queue policies' plans do).
 */
function capacityOf(state: ClusterState): number {
  if (!state.reachable) return 0;
  return Math.max(0, Math.min(state.cluster.processors - state.background, state.cluster.threshold));
}

const NO_HOLDS: readonly ProfiledHold[] = Object.freeze([]);

/** What the cluster's malleable jobs agreed to release by a deadline no later than `by`, and still hold. */
function releasingBy(state: ClusterState, by: number): number {
  let n = 0;
  for (const j of state.malleableJobs) if (j.releasingByDeadline > 0 && j.releaseBy <= by) n += j.releasingByDeadline;
  return n;
}

function pushPromise(rects: number[], q: PromisedStart): number[] {
  pushSpan(rects, q.from, q.to, q.n);
  return rects;
}

function sameSteps(a: readonly EpStep[], b: readonly EpStep[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.duration !== b[i]!.duration || a[i]!.nodes !== b[i]!.nodes) return false;
  return true;
}
