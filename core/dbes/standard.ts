// The baselines' iteration (the DBES paper, section II: the standard approach of earlier malleable schedulers, run in
// the same Maui iteration as DBES for a fair comparison): the static requests scheduled with ReservationDepth
// reservations and StartNow jobs started; when the next reserved job cannot start, expanded malleable jobs are
// shrunk for it; when it cannot start even so, an expand phase hands every idle processor to the running malleable
// jobs; backfilling comes last, with what expansion left. Only the order of expansion and shrinking differs between
// the baselines (an ExpandShrinkOrder); evolving requests are served as under DBES, shrinking in that order.
import { levelUp } from '../malleability/equipartition.js';
import { Iteration, startLaterOf, type Held } from './iteration.js';
import type { DbesCluster, DbesOutcome, DbesRunningJob } from './model.js';

/** How a baseline hands out idle processors and takes processors back; amounts per job, in the jobs' order given. */
export interface ExpandShrinkOrder {
  /** Of `idle`, how many each job gets (each at most max - size). */
  expand(jobs: readonly DbesRunningJob[], idle: number): number[];
  /** Of `needed`, how many each job gives back (each at most size - min), in the order to ask them. */
  shrink(jobs: readonly DbesRunningJob[], needed: number): Array<[DbesRunningJob, number]>;
}

export function standardIteration(state: DbesCluster, order: ExpandShrinkOrder): DbesOutcome {
  return new StandardIteration(state, order).run();
}

class StandardIteration extends Iteration {
  constructor(
    state: DbesCluster,
    private readonly order: ExpandShrinkOrder,
  ) {
    super(state);
  }

  protected override body(): DbesOutcome {
    let schedule = this.schedule();
    for (const job of schedule.startNow) this.start(job, 'startNow');
    // The next reserved jobs, in priority order, started by shrinking expanded jobs while that is enough.
    schedule = this.schedule();
    let blocked = false;
    for (const { job } of schedule.startLater) {
      const needed = this.toFreeFor(job);
      const found = needed === undefined ? undefined : this.shrinks(needed, []);
      if (found === undefined) {
        blocked = true;
        break;
      }
      this.take(found, 'startLater', job.id);
      this.start(job, 'shrinkPhase');
    }
    // Decision: the expand phase runs when a reserved job could not be started even by shrinking, or when none
    // waits with a reservation (nothing to shrink for): every idle processor then goes to the running malleable jobs.
    if (blocked || schedule.startLater.length === 0) {
      const jobs = this.running.filter((j) => j.malleable && j.max > j.size);
      const give = this.order.expand(jobs, Math.max(0, this.idle()));
      jobs.forEach((j, k) => this.expand(j, Math.min(give[k]!, j.max - j.size), 2, undefined));
    }
    // Backfilling last, with what expansion left.
    schedule = this.schedule();
    this.backfillRead = startLaterOf(schedule, new Map());
    this.backfill(schedule);
    schedule = this.schedule();
    return {
      actions: this.actions,
      startLater: startLaterOf(schedule, new Map()),
      firstStep: [],
      backfilledAround: this.backfillRead,
      dependencyComputations: 0,
    };
  }

  protected override shrinksForRequest(needed: number, requester: string): Array<[Held, number]> | undefined {
    return this.shrinks(needed, [requester]);
  }

  /** What to take, in the baseline's order, to free `needed`; undefined when the expansions hold too few. */
  private shrinks(needed: number, exclude: readonly string[]): Array<[Held, number]> | undefined {
    if (needed <= 0) return [];
    const jobs = this.running.filter((j) => j.malleable && j.size > j.min && !exclude.includes(j.id));
    if (jobs.reduce((s, j) => s + (j.size - j.min), 0) < needed) return undefined;
    const out: Array<[Held, number]> = [];
    const asked = this.order.shrink(jobs, needed);
    // An order that gives back less than needed (rigid's, which gives nothing) frees nothing.
    if (asked.reduce((s, [, k]) => s + k, 0) < needed) return undefined;
    for (const [job, k] of asked) {
      // A job's share comes from its latest expansions first.
      const held = this.held((e) => job.expansions.includes(e)).filter((h) => h.job === job);
      out.push(...this.planAtMost(held, k));
    }
    return out;
  }
}

// ---- the baselines' orders -----------------------------------------------------------------------------------------

/** Each job in `sorted` order takes all it can before the next; shrinks ask the reverse order, each giving all it can. */
export function inOrder(key: (job: DbesRunningJob) => number): ExpandShrinkOrder {
  const sorted = (jobs: readonly DbesRunningJob[]) =>
    jobs
      .map((job, i) => ({ job, i, k: key(job) }))
      .sort((a, b) => a.k - b.k || a.i - b.i)
      .map((x) => x.job);
  return {
    expand(jobs, idle) {
      const order = sorted(jobs);
      const give = new Map<DbesRunningJob, number>();
      let left = idle;
      for (const j of order) {
        const k = Math.max(0, Math.min(left, j.max - j.size));
        give.set(j, k);
        left -= k;
      }
      return jobs.map((j) => give.get(j) ?? 0);
    },
    shrink(jobs, needed) {
      const out: Array<[DbesRunningJob, number]> = [];
      let left = needed;
      for (const j of sorted(jobs).reverse()) {
        if (left <= 0) break;
        const k = Math.min(left, j.size - j.min);
        if (k > 0) out.push([j, k]);
        left -= k;
      }
      return out;
    },
  };
}

/** EP: sizes evened out — idle to the smallest jobs, shrinks from the largest. */
export const evenSizes: ExpandShrinkOrder = {
  expand: (jobs, idle) =>
    levelUp(
      jobs.map((j) => j.size),
      jobs.map((j) => Math.max(0, j.max - j.size)),
      idle,
    ),
  shrink(jobs, needed) {
    const take = jobs.map(() => 0);
    for (let left = needed; left > 0; left--) {
      let pick = -1;
      for (let i = 0; i < jobs.length; i++) {
        const j = jobs[i]!;
        if (take[i]! < j.size - j.min && (pick < 0 || j.size - take[i]! >= jobs[pick]!.size - take[pick]!)) pick = i;
      }
      if (pick < 0) break;
      take[pick]!++;
    }
    return jobs.map((j, i): [DbesRunningJob, number] => [j, take[i]!]).filter(([, k]) => k > 0);
  },
};

/** Rigid: nothing is ever expanded or shrunk. */
export const never: ExpandShrinkOrder = {
  expand: (jobs) => jobs.map(() => 0),
  shrink: () => [],
};

/** ESF: earliest started first. */
export const earliestStarted = inOrder((j) => j.started ?? 0);
/** EDF: earliest deadline first. */
export const earliestDeadline = inOrder((j) => j.deadline ?? Number.POSITIVE_INFINITY);
/** LDF: latest deadline first. */
export const latestDeadline = inOrder((j) => -(j.deadline ?? Number.POSITIVE_INFINITY));
