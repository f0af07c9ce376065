// One DBES iteration on one cluster (the DBES paper, Algorithm 2 and section IV-C), decided on a working copy of the
// cluster: every shrink, expansion and start is applied to the copy at once and listed, in order, as an action the
// scheduler carries out. Line numbers below are Algorithm 2's.
import { levelUp } from '../malleability/equipartition.js';
import type { AvailabilityProfile } from '../plan/availability.js';
import { charge, judge, plannedStarts } from './fairness.js';
import type {
  DbesAction,
  DbesCluster,
  DbesOutcome,
  DbesRunningJob,
  DbesWaitingJob,
  Expansion,
  ExpansionStep,
  ShrinkPhase,
  StartHow,
  StartLater,
} from './model.js';
import { dependenciesOf, endAfterResize, runningPlan, staticSchedule, type StaticSchedule } from './plan.js';

/** Runs the iteration; `state.running` is not changed (the iteration works on a copy), `state.account` is charged. */
export function dbesIteration(state: DbesCluster): DbesOutcome {
  return new Iteration(state).run();
}

/** An expansion of a job, as a candidate for a shrink. */
export interface Held {
  readonly job: DbesRunningJob;
  readonly expansion: Expansion;
}

/**
 * An iteration on a working copy of one cluster: the evolving requests first (lines 9-24, shared with the baselines'
 * iteration, standard.ts), then `body`, DBES's lines 25-46 here.
 */
export class Iteration {
  protected readonly running: DbesRunningJob[];
  protected readonly actions: DbesAction[] = [];
  protected readonly started = new Set<string>();
  private computations = 0;
  /** What the last dependencies were computed from. */
  private readonly depsInputs = new DependencyInputs();
  private lastDeps = new Map<string, string[]>();
  private depsSchedule: StaticSchedule | undefined;
  private depsAt = -1;
  private firstStepRead: StartLater[] = [];
  /** Expansions whose job line 26 cleared, with the job they had been made for. */
  private readonly madeFor = new Map<Expansion, string>();
  protected backfillRead: StartLater[] = [];

  constructor(protected readonly state: DbesCluster) {
    this.running = state.running.map((j) => ({ ...j, expansions: j.expansions.map((e) => ({ ...e })) }));
  }

  run(): DbesOutcome {
    // Line 8: static requests scheduled, StartNow jobs not started yet.
    // Lines 9-24: evolving requests.
    for (const request of this.state.requests)
      this.serveRequest(request.jobId, request.processors, request.user ?? request.jobId);
    return this.body();
  }

  /** What follows the evolving requests. */
  protected body(): DbesOutcome {
    // Line 25: reschedule, StartNow jobs start.
    let schedule = this.schedule();
    for (const job of schedule.startNow) this.start(job, 'startNow');
    // Line 26: dependencies of the new state; expansions made for a job that no longer depends on them are cleared.
    schedule = this.schedule();
    this.clearInvalid(schedule);
    // Lines 27-34: the shrink phase for StartLater jobs.
    this.shrinkPhase(schedule);
    // Lines 35-36: reschedule, recompute dependencies. Lines 37-43: the first expansion step.
    schedule = this.schedule();
    this.firstStep(schedule);
    // Line 44: dependencies updated. Line 45: backfilling.
    schedule = this.schedule();
    let deps = this.dependencies(schedule);
    this.backfillRead = startLaterOf(schedule, deps);
    this.backfill(schedule);
    // Line 46: the second expansion step.
    schedule = this.schedule();
    deps = this.dependencies(schedule);
    this.secondStep(deps);
    const startLater = startLaterOf(schedule, deps);
    return {
      actions: this.actions,
      startLater,
      firstStep: this.firstStepRead,
      backfilledAround: this.backfillRead,
      dependencyComputations: this.computations,
    };
  }

  // ---- the schedule and dependencies ---------------------------------------------------------------------------------

  /** The static schedule of the cluster as it is now; the last one again while no action changed it. */
  protected schedule(): StaticSchedule {
    if (
      this.lastSchedule !== undefined &&
      this.scheduledAt === this.actions.length &&
      this.scheduledSizes === this.sizes()
    )
      return this.lastSchedule;
    this.lastSchedule = staticSchedule(this.state, this.running, this.started);
    this.scheduledAt = this.actions.length;
    this.scheduledSizes = this.sizes();
    return this.lastSchedule;
  }

  private lastSchedule: StaticSchedule | undefined;
  private scheduledAt = -1;
  private scheduledSizes = -1;

  /**
   * The running jobs with `schedule`'s StartLater reservations, as a plan: the schedule's own plan while it is the
   * current one and holds no other reservation (no StartNow job), else built. A caller that reserves in it acts
   * (starts a job) right after, which makes the schedule no longer current.
   */
  protected laterPlan(schedule: StaticSchedule): AvailabilityProfile {
    const current =
      schedule === this.lastSchedule &&
      this.scheduledAt === this.actions.length &&
      this.scheduledSizes === this.sizes();
    if (current && schedule.startNow.length === 0) return schedule.plan;
    const plan = runningPlan(this.state, this.running);
    for (const s of schedule.startLater)
      plan.reserve({ id: s.job.id, n: s.job.need, start: s.start, duration: s.job.walltime });
    return plan;
  }

  /** The running jobs' sizes summed (a grant changes them before its action is listed). */
  private sizes(): number {
    let n = 0;
    for (const j of this.running) n += j.size;
    return n * 4096 + this.running.length;
  }

  /**
   * Each StartLater job's dependencies. Decision: recomputed only when what they are computed from (the running jobs'
   * sizes and ends, the StartLater jobs' starts) changed since the last computation; otherwise the last ones are kept.
   */
  private dependencies(schedule: StaticSchedule): Map<string, string[]> {
    // The same schedule with no action since: nothing they are computed from changed.
    if (schedule === this.depsSchedule && this.depsAt === this.actions.length) return this.lastDeps;
    this.depsSchedule = schedule;
    this.depsAt = this.actions.length;
    if (this.computations > 0 && this.depsInputs.same(this.running, schedule)) return this.lastDeps;
    this.computations++;
    const deps = new Map<string, string[]>();
    for (const { job } of schedule.startLater) deps.set(job.id, dependenciesOf(schedule.plan, job.id, this.running));
    this.depsInputs.record(this.running, schedule);
    this.lastDeps = deps;
    return deps;
  }

  /** Line 26: an expansion for a job that is no longer a StartLater job depending on the expanded job is for no job. */
  private clearInvalid(schedule: StaticSchedule): void {
    const deps = this.dependencies(schedule);
    for (const job of this.running) {
      for (const e of job.expansions) {
        if (e.forJob !== undefined && !(deps.get(e.forJob) ?? []).includes(job.id)) {
          this.madeFor.set(e, e.forJob);
          e.forJob = undefined;
        }
      }
    }
  }

  // ---- lines 9-24: evolving requests ---------------------------------------------------------------------------------

  private serveRequest(jobId: string, processors: number, user: string): void {
    const job = this.running.find((j) => j.id === jobId);
    if (job === undefined) return this.reject(jobId, processors, 'it is not running on this cluster');
    // Decision: a malleable job is resized by the scheduler, never on its own request.
    if (job.malleable)
      return this.reject(jobId, processors, 'it is malleable: only an evolving job asks for processors');
    if (!(processors > 0)) return this.reject(jobId, processors, 'it asks for no processors');
    // Line 10: idle processors (StartNow jobs are not started yet: a grant may take what they were to have).
    let idle = this.idle();
    if (idle < processors) {
      // Lines 11-13: shrink expanded malleable jobs.
      const found = this.shrinksForRequest(processors - idle, job.id);
      // Lines 21-22: not enough even so: rejected, nothing shrunk.
      if (found === undefined)
        return this.reject(
          jobId,
          processors,
          `${processors - idle} more than the ${idle} idle could not be found in expansions`,
        );
      this.take(found, 'evolving', jobId);
      idle = this.idle();
    }
    // Decision: a grant that would take processors a profiled job's step ahead holds is refused (the step would wait
    // for them): the steps were scheduled before the request, as a reservation is.
    if (this.takesProfiledSteps(job, processors))
      return this.reject(jobId, processors, "a profiled job's step ahead holds those processors");
    // Line 15: the fairness budget. Decision: a grant does not move the evolving job's estimated end in the plan
    // (conservative: its speed-up after growth is the application's own).
    const before = this.schedule();
    job.size += processors;
    const after = this.schedule();
    const beforeStarts = plannedStarts(this.state.now, before.startNow, before.startLater);
    const afterStarts = plannedStarts(this.state.now, after.startNow, after.startLater);
    // A job that lost its reservation with the grant is read at its earliest start in the plan with the grant.
    for (const id of beforeStarts.keys()) {
      if (afterStarts.has(id)) continue;
      const w = this.state.waiting.find((x) => x.id === id)!;
      afterStarts.set(id, after.plan.earliestStart(w.need, w.walltime, this.state.now));
    }
    const verdict = judge(beforeStarts, afterStarts, user, this.state.fairness, this.state.account);
    if (!verdict.allowed) {
      job.size -= processors;
      // Decision: processors a shrink freed for a rejected request stay idle: later lines expand or backfill with them.
      return this.reject(jobId, processors, `the fairness budget: ${verdict.reason!}`);
    }
    charge(verdict, user, this.state.account);
    this.actions.push({ kind: 'grant', jobId, processors, delay: verdict.total });
  }

  /** DBES: the expansions of the second step (or for no job) first, then the first step's. */
  protected shrinksForRequest(needed: number, requester: string): Array<[Held, number]> | undefined {
    const candidates = [...this.held((e) => e.forJob === undefined), ...this.held((e) => e.forJob !== undefined)];
    return this.plan(candidates, needed, [requester]);
  }

  private reject(jobId: string, processors: number, reason: string): void {
    this.actions.push({ kind: 'reject', jobId, processors, reason });
  }

  // ---- lines 27-34: the shrink phase ---------------------------------------------------------------------------------

  private shrinkPhase(schedule: StaticSchedule): void {
    const order = schedule.startLater.map((s) => s.job.id);
    for (let i = 0; i < schedule.startLater.length; i++) {
      const job = schedule.startLater[i]!.job;
      const lower = new Set(order.slice(i + 1));
      // Line 28: (i) expanded for this job, (ii) for no job, (iii) for lower-priority StartLater jobs.
      const candidates = [
        ...this.held((e) => e.forJob === job.id),
        ...this.held((e) => e.forJob === undefined),
        ...this.held((e) => e.forJob !== undefined && lower.has(e.forJob)),
      ];
      const needed = this.toFreeFor(job);
      const found = needed === undefined ? undefined : this.plan(candidates, needed, []);
      // Decision: the phase stops at the first StartLater job it cannot start, so that no lower-priority job gets
      // processors shrunk from others before a higher-priority one.
      if (found === undefined) return;
      this.take(found, 'startLater', job.id);
      this.start(job, 'shrinkPhase');
    }
  }

  // ---- lines 37-43: the first expansion step -------------------------------------------------------------------------

  private firstStep(schedule: StaticSchedule): void {
    const deps = this.dependencies(schedule);
    this.firstStepRead = startLaterOf(schedule, deps);
    const order = schedule.startLater.map((s) => s.job.id);
    let plan: AvailabilityProfile | undefined;
    let plannedAt = -1;
    for (let i = 0; i < schedule.startLater.length; i++) {
      const { job: waiting, start } = schedule.startLater[i]!;
      const ids = deps.get(waiting.id) ?? [];
      const targets = ids.map((id) => this.running.find((j) => j.id === id)!);
      // Decision: only when every job it depends on is malleable (a rigid one ending at the same time would keep the
      // start where it is, whatever the others do).
      if (targets.length === 0 || targets.some((t) => !t.malleable)) continue;
      const room = targets.reduce((sum, t) => sum + Math.max(0, t.max - t.size), 0);
      if (room <= 0) continue;
      // Decision: idle processors are taken only where they are free from now until the dependency's end with every
      // StartLater reservation in place (at their starts of line 35), so an expansion never delays a StartLater job.
      // The plan is built again only once an action changed the running jobs.
      if (plan === undefined || plannedAt !== this.actions.length) {
        plan = this.laterPlan(schedule);
        plannedAt = this.actions.length;
      }
      const fromIdle = Math.max(0, Math.min(room, plan.freeBetween(this.state.now, start), this.idle()));
      let total = fromIdle;
      if (fromIdle < room) {
        // Stealing: from expansions for no job (second step), then for lower-priority StartLater jobs; never from the
        // jobs being expanded. Decision: as in the paper, nothing checks that a job shrunk by a steal (its end moves
        // later) delays no other reservation; the next iterations plan from the new ends.
        // Decision: never an expansion made for this same waiting job (cleared at line 26 because its dependencies
        // moved): taking it back for the job it was given for undoes the last pass, and passes cycle (expand, steal).
        const lower = new Set(order.slice(i + 1));
        const own = new Set(ids);
        const candidates = [
          ...this.held((e) => e.forJob === undefined),
          ...this.held((e) => e.forJob !== undefined && lower.has(e.forJob)),
        ].filter((h) => !own.has(h.job.id) && this.madeFor.get(h.expansion) !== waiting.id);
        const stolen = this.planAtMost(candidates, room - fromIdle);
        total += this.take(stolen, 'steal', waiting.id);
      }
      if (total <= 0) continue;
      // Line 39 / 41: one dependency is expanded up to its max; several ending together share equally.
      const give = levelUp(
        targets.map((t) => t.size - t.min),
        targets.map((t) => Math.max(0, t.max - t.size)),
        total,
      );
      targets.forEach((t, k) => this.expand(t, give[k]!, 1, waiting.id));
    }
  }

  // ---- line 45: backfilling ------------------------------------------------------------------------------------------

  /** Decision: backfilled jobs are the waiting jobs without a reservation, started only where they fit now over their walltime with every StartLater reservation in place. */
  protected backfill(schedule: StaticSchedule): void {
    const plan = this.laterPlan(schedule);
    const later = new Set(schedule.startLater.map((s) => s.job.id));
    const now = this.state.now;
    // What is free over a walltime from now is at most what is free now: a job larger than that is passed over
    // without a search (on a full cluster, nearly every job).
    let freeNow = plan.freeAt(now);
    for (const job of this.state.waiting) {
      if (job.need > freeNow || this.started.has(job.id) || later.has(job.id)) continue;
      if (plan.freeBetween(now, now + job.walltime) < job.need) continue;
      plan.reserve({ id: job.id, n: job.need, start: now, duration: job.walltime });
      freeNow = plan.freeAt(now);
      this.start(job, 'backfill');
    }
  }

  // ---- line 46: the second expansion step ----------------------------------------------------------------------------

  /** Decision: the idle processors are shared to even out the extras (levelUp) of the malleable jobs no StartLater job depends on. */
  private secondStep(deps: ReadonlyMap<string, readonly string[]>): void {
    const dependedOn = new Set<string>();
    for (const ids of deps.values()) for (const id of ids) dependedOn.add(id);
    const targets = this.running.filter((j) => j.malleable && !dependedOn.has(j.id) && j.max > j.size);
    const idle = this.idle();
    if (idle <= 0 || targets.length === 0) return;
    const give = levelUp(
      targets.map((t) => t.size - t.min),
      targets.map((t) => Math.max(0, t.max - t.size)),
      idle,
    );
    targets.forEach((t, k) => this.expand(t, give[k]!, 2, undefined));
  }

  // ---- the working copy ----------------------------------------------------------------------------------------------

  /**
   * Processors shrinks must free for a StartLater job to start now: its need less the idle ones; undefined when the
   * profiled steps ahead leave it too few over its walltime.
   * Decision: a StartLater job that a profiled step ahead keeps from fitting over its walltime is not started by
   * shrinks (they free processors now, not those the step takes later): it waits for its reservation.
   */
  protected toFreeFor(job: DbesWaitingJob): number | undefined {
    const idle = this.idle();
    if (this.state.profiledSteps !== undefined && this.state.profiledSteps.length > 0) {
      const now = this.state.now;
      const room = runningPlan(this.state, this.running).freeBetween(now, now + job.walltime);
      if (room < job.need && room < idle) return undefined;
    }
    return job.need - idle;
  }

  /**
   * Whether `processors` more for a running job now (its end kept) overbook the plan of the running jobs and the
   * profiled steps ahead where it was not: the grant would take processors a profiled job's later step holds.
   */
  private takesProfiledSteps(job: DbesRunningJob, processors: number): boolean {
    if (this.state.profiledSteps === undefined || this.state.profiledSteps.length === 0) return false;
    const now = this.state.now;
    const before = runningPlan(this.state, this.running).free.minOver(now, Number.POSITIVE_INFINITY);
    job.size += processors;
    const after = runningPlan(this.state, this.running).free.minOver(now, Number.POSITIVE_INFINITY);
    job.size -= processors;
    return after < 0 && after < before;
  }

  protected idle(): number {
    let used = 0;
    for (const j of this.running) used += j.size;
    return this.state.capacity - used;
  }

  protected start(job: DbesWaitingJob, how: StartHow): void {
    this.started.add(job.id);
    this.running.push({
      id: job.id,
      size: job.need,
      min: job.need,
      max: job.malleable ? job.max : job.need,
      malleable: job.malleable,
      end: this.state.now + job.walltime,
      user: job.user,
      expansions: [],
    });
    this.actions.push({ kind: 'start', jobId: job.id, processors: job.need, how });
  }

  protected expand(job: DbesRunningJob, processors: number, step: ExpansionStep, forJob: string | undefined): void {
    if (processors <= 0) return;
    job.end = endAfterResize(this.state, job, job.size + processors);
    job.size += processors;
    const last = job.expansions[job.expansions.length - 1];
    if (last !== undefined && last.step === step && last.forJob === forJob) last.processors += processors;
    else job.expansions.push({ processors, step, forJob });
    this.actions.push({ kind: 'expand', jobId: job.id, processors, step, forJob });
  }

  /**
   * Expansions matching `which`, as shrink candidates. Decision: within a group, the latest expansion first (of the
   * jobs listed last, then their latest expansion), so the oldest expansions last longest.
   */
  protected held(which: (e: Expansion) => boolean): Held[] {
    const out: Held[] = [];
    for (let i = this.running.length - 1; i >= 0; i--) {
      const job = this.running[i]!;
      for (let k = job.expansions.length - 1; k >= 0; k--) {
        const e = job.expansions[k]!;
        if (e.processors > 0 && which(e)) out.push({ job, expansion: e });
      }
    }
    return out;
  }

  private sum(candidates: readonly Held[]): number {
    return candidates.reduce((s, h) => s + h.expansion.processors, 0);
  }

  /** What to take from `candidates`, in order, to find `needed` processors; undefined when they hold too few. */
  protected plan(
    candidates: readonly Held[],
    needed: number,
    exclude: readonly string[],
  ): Array<[Held, number]> | undefined {
    if (needed <= 0) return [];
    const usable = candidates.filter((h) => !exclude.includes(h.job.id));
    if (this.sum(usable) < needed) return undefined;
    return this.planAtMost(usable, needed);
  }

  /** Up to `most` processors from `candidates`, in order. */
  protected planAtMost(candidates: readonly Held[], most: number): Array<[Held, number]> {
    const out: Array<[Held, number]> = [];
    let left = most;
    for (const h of candidates) {
      if (left <= 0) break;
      const k = Math.min(left, h.expansion.processors);
      out.push([h, k]);
      left -= k;
    }
    return out;
  }

  /** Shrinks what `plan` says (merged per job into one action per expansion group); returns the processors freed. */
  protected take(plan: ReadonlyArray<[Held, number]>, phase: ShrinkPhase, forJob: string): number {
    let freed = 0;
    for (const [{ job, expansion }, k] of plan) {
      if (k <= 0) continue;
      const fromStep = expansion.step;
      const fromFor = expansion.forJob;
      expansion.processors -= k;
      job.expansions = job.expansions.filter((e) => e.processors > 0);
      job.end = endAfterResize(this.state, job, job.size - k);
      job.size -= k;
      freed += k;
      this.actions.push({ kind: 'shrink', jobId: job.id, processors: k, phase, forJob, fromStep, fromFor });
    }
    return freed;
  }
}

export function startLaterOf(schedule: StaticSchedule, deps: ReadonlyMap<string, readonly string[]>): StartLater[] {
  return schedule.startLater.map(({ job, start }) => ({ id: job.id, start, dependsOn: deps.get(job.id) ?? [] }));
}

/**
 * What dependencies were last computed from: the running jobs' sizes and ends, and the StartLater jobs' starts, in
 * order; kept in arrays reused from one computation to the next.
 */
class DependencyInputs {
  private readonly ids: string[] = [];
  private readonly values: number[] = [];
  private running = -1;

  same(running: readonly DbesRunningJob[], schedule: StaticSchedule): boolean {
    const later = schedule.startLater;
    if (this.running !== running.length || this.ids.length !== running.length + later.length) return false;
    for (let i = 0; i < running.length; i++) {
      const j = running[i]!;
      if (this.ids[i] !== j.id || this.values[2 * i] !== j.size || this.values[2 * i + 1] !== j.end) return false;
    }
    const k = running.length;
    for (let i = 0; i < later.length; i++)
      if (this.ids[k + i] !== later[i]!.job.id || this.values[2 * (k + i)] !== later[i]!.start) return false;
    return true;
  }

  record(running: readonly DbesRunningJob[], schedule: StaticSchedule): void {
    const later = schedule.startLater;
    this.running = running.length;
    this.ids.length = running.length + later.length;
    this.values.length = 2 * this.ids.length;
    for (let i = 0; i < running.length; i++) {
      const j = running[i]!;
      this.ids[i] = j.id;
      this.values[2 * i] = j.size;
      this.values[2 * i + 1] = j.end;
    }
    const k = running.length;
    for (let i = 0; i < later.length; i++) {
      this.ids[k + i] = later[i]!.job.id;
      this.values[2 * (k + i)] = later[i]!.start;
      this.values[2 * (k + i) + 1] = 0;
    }
  }
}
