// The availability profile of one cluster: what Concertina may use there over time (its capacity after the threshold
// and the background load as last seen) minus what running jobs hold until their estimated end, minus reservations.
// It answers when a request of n processors for d seconds can start, which running jobs that start waits for, and
// what is free between two times; reservations are added and removed as spans (Fluxion's planner in spirit).
// Pure: built from plain numbers, on the core's StepFunction and the profile operations of core/time/profile.ts.
import { StepFunction } from '../time/step-function.js';
import { addRect, earliestStart, profileOfRects, pushSpan } from '../time/profile.js';
import type { HeldOverTime } from './kept-holdings.js';

/** A running job as the plan sees it: n processors held from now until `end` (its estimated end). */
export interface Holding {
  readonly id: string;
  readonly n: number;
  /** Estimated end; Infinity for a job without one (it holds its processors with no end in the plan). */
  readonly end: number;
}

/** n processors set aside over [start, start + duration) for a waiting job. */
export interface Reservation {
  readonly id: string;
  readonly n: number;
  readonly start: number;
  /** Seconds; may be Infinity. */
  readonly duration: number;
}

export interface AvailabilityInput {
  /** The plan starts here: times before it are read as now. */
  readonly now: number;
  /** What Concertina may use from now on: a constant (threshold and background as last seen) or a profile. */
  readonly capacity: number | StepFunction;
  /** Read again when the plan is built on first use: the caller leaves the list and its holdings as they are. */
  readonly running?: readonly Holding[];
  /**
   * The running jobs' holdings as a caller keeps them between passes (core/plan/kept-holdings.ts), instead of
   * `running`: the plan is then built in O(1) rather than O(k), and they are taken as already checked. The plan reads
   * them until the caller changes them (a pass's plans, made again at the next pass).
   */
  readonly kept?: HeldOverTime;
  readonly reservations?: readonly Reservation[];
}

/**
 * Where a request can start. `waitsFor`: the running jobs whose release that start needs (see waitsFor). When it
 * never fits, `most` is the most processors free at once from the time asked on, and the reason says whether the
 * request is larger than the capacity itself or the plan never frees enough for long enough.
 */
export type Fit =
  | { readonly fits: true; readonly start: number; readonly waitsFor: readonly string[] }
  | { readonly fits: false; readonly reason: 'exceeds-capacity' | 'never-free'; readonly most: number };

function checkAmount(n: number, what: string): void {
  if (!(n >= 0) || n === Infinity)
    throw new RangeError(`AvailabilityProfile: ${what} must be a finite number >= 0, got ${n}`);
}

function checkDuration(d: number, what: string): void {
  if (!(d >= 0)) throw new RangeError(`AvailabilityProfile: ${what} must be >= 0 (Infinity allowed), got ${d}`);
}

function checkFinite(t: number, what: string): void {
  if (!Number.isFinite(t)) throw new RangeError(`AvailabilityProfile: ${what} must be a finite time, got ${t}`);
}

// Running jobs that end inside the plan, in the order their release is excused when answering waitsFor.
interface Release {
  readonly id: string;
  readonly n: number;
  readonly end: number;
  readonly order: number;
}

const EMPTY = new Float64Array(0);
const EMPTY_INDEX = new Int32Array(0);

export class AvailabilityProfile {
  readonly now: number;
  /** What Concertina may use from now on; made on first use for a constant capacity (see #flat). */
  #capacityProfile: StepFunction | undefined;
  /**
   * Free processors over time; undefined while the plan is lazy: its capacity a constant and every reservation
   * starting by now, so that the free processors only rise from now on and the questions a pass asks most (what is
   * free from now over a walltime) are answered from the holdings without building the profile.
   */
  #free: StepFunction | undefined;
  /** The free processors before any reservation (capacity less holdings), kept when the profile is made. */
  #base: StepFunction | undefined;
  /** The constant capacity of a lazy plan (NaN for a capacity profile). */
  readonly #flat: number;
  /** The running jobs' holdings; read from #kept on first use when the caller keeps them. */
  #running: readonly Holding[] | undefined;
  readonly #kept: HeldOverTime | undefined;
  /** Lazy plan: what running jobs and reservations hold at now. */
  #heldNow = 0;
  /** Running jobs with now < end < Infinity, by end, then size, then input order (sorted on first use). */
  #releasesSorted: Release[] | undefined;
  readonly #reservations = new Map<string, Reservation>();
  /**
   * An index over #free's breakpoint values, made on first use after each change: the running maximum (#runMax[i]:
   * the most free at any breakpoint up to i), and for each breakpoint the next one with less free (#nextLess) and
   * with more free (#nextMore), `count` when there is none. A search jumps along these instead of walking every step:
   * from a breakpoint with at least n free, following #nextLess until one has less than n skips only breakpoints
   * with at least n (each skipped has at least as much as the one jumped from), and #nextMore likewise below n.
   */
  #runMax: Float64Array = EMPTY;
  #nextLess: Int32Array = EMPTY_INDEX;
  #nextMore: Int32Array = EMPTY_INDEX;
  /** The least free processors from now on. */
  #least = 0;
  /** Where the running maximum rises (#recordIndex[j], in order) and to what (#recordValue[j]); #records of them. */
  #recordIndex: Int32Array = EMPTY_INDEX;
  #recordValue: Float64Array = EMPTY;
  #records = 0;
  #indexOf: StepFunction | undefined;
  /** The free processors the last search walked without the index (see #search). */
  #walkedOn: StepFunction | undefined;
  /** Scratch steps for earliestStartWithout. */
  #scratchTimes: Float64Array = EMPTY;
  #scratchValues: Float64Array = EMPTY;

  private constructor(
    now: number,
    capacity: StepFunction | undefined,
    flat: number,
    running: readonly Holding[] | undefined,
    kept: HeldOverTime | undefined,
    heldNow: number,
  ) {
    this.now = now;
    this.#capacityProfile = capacity;
    this.#flat = flat;
    this.#running = running;
    this.#kept = kept;
    this.#heldNow = heldNow;
  }

  /**
   * O(k) for k running jobs and reservations starting by now; the profile itself (O(k log k)) is built on the first
   * question that needs it.
   */
  static build(input: AvailabilityInput): AvailabilityProfile {
    const now = input.now;
    checkFinite(now, 'now');
    if (typeof input.capacity === 'number') checkAmount(input.capacity, 'capacity');
    // Decision: the plan has no past: a capacity profile is read from now on, and every query or reservation time
    // before now is read as now.
    const flat = typeof input.capacity === 'number' ? input.capacity : Number.NaN;
    const capacity = typeof input.capacity === 'number' ? undefined : input.capacity.truncateBefore(now);
    const kept = input.kept;
    const running = kept !== undefined ? undefined : (input.running ?? []);
    let heldNow = 0;
    if (running === undefined) heldNow = kept!.heldAfter(now);
    else {
      for (let i = 0; i < running.length; i++) {
        const j = running[i]!;
        checkAmount(j.n, `running job '${j.id}': n`);
        if (j.end !== j.end) throw new RangeError(`AvailabilityProfile: running job '${j.id}': end is NaN`);
        // Decision: a job whose estimated end has passed holds nothing from now on: its release is due now (the
        // scheduler kills a job past its walltime), and it is never one that a later start waits for.
        if (j.end > now) heldNow += j.n;
      }
    }
    const plan = new AvailabilityProfile(now, capacity, flat, running, kept, heldNow);
    if (flat !== flat) plan.#materialise();
    for (const r of input.reservations ?? []) plan.reserve(r);
    return plan;
  }

  #runningHoldings(): readonly Holding[] {
    return (this.#running ??= this.#kept!.list());
  }

  #capacity(): StepFunction {
    return (this.#capacityProfile ??= StepFunction.constant(this.#flat));
  }

  /** The free processors as a profile: the capacity minus the running jobs' spans, then each reservation in order. */
  #materialise(): StepFunction {
    if (this.#free !== undefined) return this.#free;
    const now = this.now;
    const rects: number[] = [];
    const running = this.#runningHoldings();
    for (let i = 0; i < running.length; i++) {
      const j = running[i]!;
      pushSpan(rects, now, j.end, j.n, now);
    }
    let free = this.#capacity().minus(profileOfRects(rects));
    this.#base = free;
    for (const r of this.#reservations.values()) free = addRect(free, r.start, r.start + r.duration, -r.n, now);
    this.#free = free;
    return free;
  }

  /** Running jobs ending inside the plan, in the order their release is excused when answering waitsFor. */
  #releases(): readonly Release[] {
    if (this.#releasesSorted !== undefined) return this.#releasesSorted;
    const now = this.now;
    const releases: Release[] = [];
    const running = this.#runningHoldings();
    for (let i = 0; i < running.length; i++) {
      const j = running[i]!;
      if (j.n > 0 && j.end > now && j.end < Infinity) releases.push({ id: j.id, n: j.n, end: j.end, order: i });
    }
    // Decision: "waits for" excuses the earliest releases first; at equal ends the smaller job first, then the one
    // listed first, so the jobs named are the latest (and at a tie the largest, then the last listed) needed.
    releases.sort((a, b) => a.end - b.end || a.n - b.n || a.order - b.order);
    this.#releasesSorted = releases;
    return releases;
  }

  /**
   * What a lazy plan has free at t >= now: the capacity minus what is held past t (nothing starts after now); at
   * t = Infinity what is held for ever, as a profile's last value.
   */
  #lazyFreeAt(t: number): number {
    if (t === this.now) return this.#flat - this.#heldNow;
    let held = 0;
    if (this.#kept !== undefined) held = this.#kept.heldAfter(t);
    else {
      const running = this.#runningHoldings();
      for (let i = 0; i < running.length; i++) {
        const end = running[i]!.end;
        if (end > t || end === Infinity) held += running[i]!.n;
      }
    }
    for (const r of this.#reservations.values())
      if (holdsAt(r, this.now) && (r.start + r.duration > t || r.duration === Infinity)) held += r.n;
    return this.#flat - held;
  }

  /** Free processors over time (negative where the plan is overbooked, e.g. jobs hold more than the capacity). */
  get free(): StepFunction {
    return this.#materialise();
  }

  /** Free processors at t (t before now is read as now). */
  freeAt(t: number): number {
    if (t !== t) throw new RangeError('AvailabilityProfile: freeAt: t is NaN');
    const at = Math.max(t, this.now);
    return this.#free === undefined ? this.#lazyFreeAt(at) : this.#free.valueAt(at);
  }

  /**
   * The least free during [t1, t2): what a request over that window can have. t2 may be Infinity; t2 === t1 is the
   * instant t1 (as for a zero-length request); times before now are read as now.
   */
  freeBetween(t1: number, t2: number): number {
    checkFinite(t1, 'freeBetween: t1');
    if (t2 !== t2 || t2 < t1)
      throw new RangeError(`AvailabilityProfile: freeBetween: need t2 >= t1, got [${t1}, ${t2})`);
    const from = Math.max(t1, this.now);
    const to = Math.max(t2, this.now);
    // A lazy plan's free processors only rise from now on: the least over the window is at its start.
    if (this.#free === undefined) return this.#lazyFreeAt(from);
    return to > from ? this.#free.minOver(from, to) : this.#free.valueAt(from);
  }

  /** The most free at any time during [t1, t2) (t2 > t1; may be Infinity); times before now are read as now. */
  mostFreeBetween(t1: number, t2: number): number {
    checkFinite(t1, 'mostFreeBetween: t1');
    if (!(t2 > t1)) throw new RangeError(`AvailabilityProfile: mostFreeBetween: need t2 > t1, got [${t1}, ${t2})`);
    const from = Math.max(t1, this.now);
    const to = Math.max(t2, this.now);
    if (!(to > from)) return this.freeAt(from);
    return this.#materialise().maxOver(from, to);
  }

  /**
   * The earliest start >= max(from, now) at which n processors are free throughout [start, start + duration), and
   * the running jobs that start waits for. O(log s + s) over the s steps scanned, plus O(r) for the r running jobs
   * that end before the start.
   */
  earliestFit(n: number, duration: number, from = this.now): Fit {
    checkAmount(n, 'earliestFit: n');
    checkDuration(duration, 'earliestFit: duration');
    checkFinite(from, 'earliestFit: from');
    const t = Math.max(from, this.now);
    // Decision: a request for no processors starts at once, even on an overbooked plan.
    if (n === 0) return { fits: true, start: t, waitsFor: [] };
    // Decision: a request larger than all Concertina may use never fits, whatever its duration (zero included).
    const capacity = this.#capacity().maxOver(t, Infinity);
    const free = this.#materialise();
    if (n > capacity) return { fits: false, reason: 'exceeds-capacity', most: Math.max(0, free.maxOver(t, Infinity)) };
    const start = earliestStart(free, t, duration, n);
    if (start === Infinity) return { fits: false, reason: 'never-free', most: Math.max(0, free.maxOver(t, Infinity)) };
    return { fits: true, start, waitsFor: this.#waitsFor(start, this.freeBetween(start, start + duration) - n) };
  }

  /**
   * The earliest start in [max(from, now), until] at which n processors are free throughout [start, start +
   * duration), or Infinity when there is none by `until`: earliestFit's start, without the jobs it waits for, and
   * stopping at `until` (a planner comparing clusters stops at the best start found so far). O(log s + the steps
   * scanned).
   */
  earliestStart(n: number, duration: number, from: number, until = Infinity): number {
    const t = Math.max(from, this.now);
    if (n <= 0) return t <= until ? t : Infinity;
    // A lazy plan's free processors only rise from now on: n free at t are free over any window from t, so a
    // request that fits at t starts there without the profile being built (a backfilling pass's new job that fits now
    // on a plan holding no promise: most of a lightly loaded replay's passes). Tested against the built profile's
    // search (availability-lazy-start.property.test.ts).
    if (this.#free === undefined && this.#lazyFreeAt(t) >= n) return t <= until ? t : Infinity;
    return this.#search(n, duration, t, until, Infinity);
  }

  /**
   * earliestStart from t (>= now) for n > 0, with each window cut at `clip`: a window [x, x + duration) needs n free
   * only on [x, min(x + duration, clip)).
   */
  #search(n: number, duration: number, t: number, until: number, clip: number): number {
    const free = this.#materialise();
    if (this.#indexOf !== free && clip === Infinity && this.#walkedOn !== free) {
      // Decision: the first search on these free processors walks them, as earliestFit does (O(the steps scanned));
      // the index (O(s) to make) is made at the second: a plan searched once between changes (EASY's head, a
      // backfilling pass's next job after a reservation) never pays for it.
      this.#walkedOn = free;
      const start = earliestStart(free, t, duration, n);
      return start <= until ? start : Infinity;
    }
    if (this.#indexOf !== free) this.#index();
    const ts = free.times;
    const vs = free.values;
    const count = ts.length;
    // The last breakpoint at or before t, -1 when t is before them all (always so when searching from now: a plan
    // has no breakpoint at or before now); by binary search otherwise.
    let i = -1;
    if (count > 0 && ts[0]! <= t) {
      let lo = 0;
      let hi = count - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (ts[mid]! <= t) {
          i = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
    }
    let start = t;
    if ((i < 0 ? free.initial : vs[i]!) < n) {
      // Nothing up to i reaches n (the usual case when searching from now): the first breakpoint that does is found by
      // binary search on the running maximum, not by walking every step before it.
      if (i < 0 || this.#runMax[i]! < n) {
        // The first breakpoint where the running maximum reaches n is the first of its records (where it rises)
        // that does: a binary search over those few.
        const recordValue = this.#recordValue;
        let lo2 = 0;
        let hi2 = this.#records;
        while (lo2 < hi2) {
          const mid = (lo2 + hi2) >> 1;
          if (recordValue[mid]! >= n) hi2 = mid;
          else lo2 = mid + 1;
        }
        i = lo2 === this.#records ? count : this.#recordIndex[lo2]!;
      } else {
        const nextMore = this.#nextMore;
        while (i < count && vs[i]! < n) i = nextMore[i]!;
      }
      if (i === count) return Infinity;
      start = ts[i]!;
    }
    return jumpWindow(ts, vs, this.#nextLess, this.#nextMore, count, i, start, n, duration, until, clip);
  }

  /**
   * earliestStart as if reservation `id` were given back, the plan left as it is (a compression pass searches a
   * job's own cluster without taking its reservation out and putting it back where it was). O(s): one walk over the
   * free processors with that reservation's processors added over its span (breakpoints need not be normalised: a
   * search stops where the free processors cross n, wherever the steps are cut).
   */
  earliestStartWithout(id: string, n: number, duration: number, from: number, until = Infinity): number {
    const r = this.#reservations.get(id);
    const end = r === undefined ? 0 : r.start + r.duration;
    // A reservation that holds nothing from now on (see reserve) changes nothing.
    if (r === undefined || r.n === 0 || !(r.duration > 0) || !(end > this.now))
      return this.earliestStart(n, duration, from, until);
    const t = Math.max(from, this.now);
    if (n <= 0) return t <= until ? t : Infinity;
    const free = this.#materialise();
    if (this.#indexOf !== free) this.#index();
    if (n === r.n && duration === r.duration && r.start > t && until <= r.start && this.#least >= 0) {
      // The job's own reservation searched for an earlier start (what compression asks), on a plan nowhere
      // overbooked: a window starting before r.start ends inside r's span, where r's processors given back leave at
      // least n free; so it needs n free only until r.start, and r.start itself always fits.
      const x = this.#search(n, duration, t, until, r.start);
      return x < r.start ? x : r.start <= until ? r.start : Infinity;
    }
    // The free processors with r's given back, as breakpoints in the scratch arrays (r's span clipped at now).
    const fts = free.times;
    const fvs = free.values;
    const bonusFrom = r.start <= this.now ? -Infinity : r.start;
    const size = fts.length + 2;
    if (this.#scratchTimes.length < size) {
      this.#scratchTimes = new Float64Array(2 * size);
      this.#scratchValues = new Float64Array(2 * size);
    }
    const ts = this.#scratchTimes;
    const vs = this.#scratchValues;
    const bonusAt = (time: number): number => (time >= bonusFrom && time < end ? r.n : 0);
    const initial = free.initial + (bonusFrom === -Infinity ? r.n : 0);
    let count = 0;
    let j = 0;
    let value = free.initial;
    const cuts = [bonusFrom, end];
    let k = bonusFrom === -Infinity ? 1 : 0;
    while (j < fts.length || (k < 2 && cuts[k]! < Infinity)) {
      const tf = j < fts.length ? fts[j]! : Infinity;
      const tc = k < 2 ? cuts[k]! : Infinity;
      const time = Math.min(tf, tc);
      if (tf === time) value = fvs[j++]!;
      if (tc === time) k++;
      ts[count] = time;
      vs[count++] = value + bonusAt(time);
    }
    // The same search as earliestStart's, on these steps, walking them one by one.
    let lo = 0;
    let hi = count - 1;
    let i = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid]! <= t) {
        i = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    let start = t;
    if ((i < 0 ? initial : vs[i]!) < n) {
      for (i++; i < count && vs[i]! < n; i++) if (ts[i]! > until) return Infinity;
      if (i === count) return Infinity;
      start = ts[i]!;
    }
    return slideWindow(ts, vs, count, i, start, n, duration, until);
  }

  /** Makes the index over the free processors' breakpoints (see #runMax), when the plan has changed. O(s). */
  #index(): void {
    const free = this.#materialise();
    if (this.#indexOf === free) return;
    const vs = free.values;
    const count = vs.length;
    if (this.#runMax.length < count) {
      const size = Math.max(count, 2 * this.#runMax.length);
      this.#runMax = new Float64Array(size);
      this.#nextLess = new Int32Array(size);
      this.#nextMore = new Int32Array(size);
      this.#recordIndex = new Int32Array(size);
      this.#recordValue = new Float64Array(size);
    }
    const runMax = this.#runMax;
    const nextLess = this.#nextLess;
    const nextMore = this.#nextMore;
    const recordIndex = this.#recordIndex;
    const recordValue = this.#recordValue;
    let records = 0;
    let most = free.initial;
    let least = free.initial;
    for (let k = 0; k < count; k++) {
      const v = vs[k]!;
      if (v > most) {
        most = v;
        recordIndex[records] = k;
        recordValue[records++] = v;
      }
      if (v < least) least = v;
      runMax[k] = most;
    }
    this.#records = records;
    this.#least = least;
    // From the last breakpoint back: the next lower (higher) one is found by following the chain of next lower
    // (higher) ones from the breakpoint after it, each link skipping what it already passed over.
    for (let k = count - 1; k >= 0; k--) {
      const v = vs[k]!;
      let j = k + 1;
      while (j < count && vs[j]! >= v) j = nextLess[j]!;
      nextLess[k] = j;
      j = k + 1;
      while (j < count && vs[j]! <= v) j = nextMore[j]!;
      nextMore[k] = j;
    }
    this.#indexOf = free;
  }

  /**
   * The running jobs whose release a request of n processors for `duration` starting at `start` needs: were they to
   * hold their processors past `start`, it could not start then. Jobs ending by `start` are excused (taken as free
   * of need) in order of end while what they release fits in the slack (what is free over the window beyond n);
   * the others are named, by end. Each job named is needed given the excused ones; on an overbooked window (no
   * slack at all) every job ending by `start` is named.
   */
  waitsFor(start: number, n: number, duration: number): string[] {
    checkFinite(start, 'waitsFor: start');
    checkAmount(n, 'waitsFor: n');
    checkDuration(duration, 'waitsFor: duration');
    return this.#waitsFor(start, this.freeBetween(start, start + duration) - n);
  }

  /** What a reservation in this plan waits for (as waitsFor, its own processors given back to it). */
  reservationWaitsFor(id: string): string[] {
    const r = this.#reservations.get(id);
    if (r === undefined) return [];
    // Without r the window has r.n more free, which r then takes: the slack is what is free with r in the plan.
    return this.#waitsFor(r.start, this.freeBetween(r.start, r.start + r.duration));
  }

  #waitsFor(start: number, slack: number): string[] {
    const out: string[] = [];
    let excused = 0;
    const rs = this.#releases();
    for (let i = 0; i < rs.length && rs[i]!.end <= start; i++) {
      const j = rs[i]!;
      if (excused + j.n <= slack) excused += j.n;
      else out.push(j.id);
    }
    return out;
  }

  /**
   * Sets n processors aside over [start, start + duration), the part before now ignored. It need not fit: a plan may
   * be overbooked, e.g. when jobs overrun their estimates. Decision: a zero-length reservation holds nothing.
   * O(s) for the plan's s steps.
   */
  reserve(r: Reservation): void {
    if (this.#reservations.has(r.id)) throw new RangeError(`AvailabilityProfile: reservation '${r.id}' already exists`);
    checkAmount(r.n, `reservation '${r.id}': n`);
    checkFinite(r.start, `reservation '${r.id}': start`);
    checkDuration(r.duration, `reservation '${r.id}': duration`);
    const kept: Reservation = { id: r.id, n: r.n, start: r.start, duration: r.duration };
    this.#reservations.set(r.id, kept);
    if (this.#free === undefined) {
      // A reservation starting by now keeps a plan lazy (what it holds only falls from now on); a later one does not.
      if (r.start <= this.now) {
        if (holdsAt(r, this.now)) this.#heldNow += r.n;
        return;
      }
      this.#materialise();
      return;
    }
    this.#free = addRect(this.#free, r.start, r.start + r.duration, -r.n, this.now);
  }

  /**
   * Sets all of `rs` aside at once when together they fit (the plan stays at or above zero free from now on), in one
   * sweep: O((s + k) log k) for k reservations rather than O(k s). False, and nothing changed, when they do not.
   * The plan keeps the objects given (no copy: a pass puts thousands back at once): the caller leaves them as they are.
   */
  reserveAll(rs: readonly Reservation[]): boolean {
    const rects: number[] = [];
    for (const r of rs) {
      if (this.#reservations.has(r.id))
        throw new RangeError(`AvailabilityProfile: reservation '${r.id}' already exists`);
      checkAmount(r.n, `reservation '${r.id}': n`);
      checkFinite(r.start, `reservation '${r.id}': start`);
      checkDuration(r.duration, `reservation '${r.id}': duration`);
      pushSpan(rects, r.start, r.start + r.duration, r.n, this.now);
    }
    const current = this.#materialise();
    const free = rects.length === 0 ? current : current.minus(profileOfRects(rects));
    if (free.minOver(this.now, Infinity) < 0) return false;
    for (const r of rs) this.#reservations.set(r.id, r);
    this.#free = free;
    return true;
  }

  /**
   * What the reservations hold over time from now on (the profile without them less the one with them), or undefined
   * while the plan is lazy. O(s).
   */
  reserved(): StepFunction | undefined {
    if (this.#free === undefined || this.#base === undefined) return undefined;
    return this.#base.minus(this.#free);
  }

  /**
   * reserveAll given what `rs` hold over time already summed (`held`, e.g. an earlier plan's reserved() less what
   * left it): O(s) instead of a sweep over them. The caller vouches that `held` is their sum from now on.
   */
  reserveAllHeld(rs: readonly Reservation[], held: StepFunction): boolean {
    for (const r of rs)
      if (this.#reservations.has(r.id))
        throw new RangeError(`AvailabilityProfile: reservation '${r.id}' already exists`);
    const free = this.#materialise().minus(held.truncateBefore(this.now));
    if (free.minOver(this.now, Infinity) < 0) return false;
    for (const r of rs) this.#reservations.set(r.id, r);
    this.#free = free;
    return true;
  }

  /** Gives a reservation's processors back; false if there is none by that id. O(s). */
  unreserve(id: string): boolean {
    const r = this.#reservations.get(id);
    if (r === undefined) return false;
    this.#reservations.delete(id);
    if (this.#free === undefined) {
      if (holdsAt(r, this.now)) this.#heldNow -= r.n;
      return true;
    }
    this.#free = addRect(this.#free, r.start, r.start + r.duration, r.n, this.now);
    return true;
  }

  /**
   * Gives reservation `id` the id `to`, its processors and span unchanged (a job that starts as it was reserved holds
   * what its reservation held): O(1), the profile untouched. False if there is none by `id`.
   */
  renameReservation(id: string, to: string): boolean {
    const r = this.#reservations.get(id);
    if (r === undefined) return false;
    if (this.#reservations.has(to)) throw new RangeError(`AvailabilityProfile: reservation '${to}' already exists`);
    this.#reservations.delete(id);
    this.#reservations.set(to, { id: to, n: r.n, start: r.start, duration: r.duration });
    return true;
  }

  reservation(id: string): Reservation | undefined {
    return this.#reservations.get(id);
  }

  /** Reservations in the order they were made, without a copy (the caller leaves the iterator's source as it is). */
  reservationList(): Iterable<Reservation> {
    return this.#reservations.values();
  }

  /** Reservations in the order they were made. */
  reservations(): Reservation[] {
    return [...this.#reservations.values()];
  }
}

/**
 * slideWindow on an indexed profile (see AvailabilityProfile.#index): the same start, found by jumping over runs of
 * breakpoints at or above n (to the first dip below n) and below n (to the next breakpoint back at n or more).
 */
function jumpWindow(
  ts: readonly number[],
  vs: readonly number[],
  nextLess: Int32Array,
  nextMore: Int32Array,
  count: number,
  i: number,
  start: number,
  n: number,
  duration: number,
  until: number,
  clip: number,
): number {
  if (start > until) return Infinity;
  if (duration === 0) return start;
  for (;;) {
    // The first breakpoint after i with less than n free: the window fits if it comes at or after its end.
    // (i is -1 when the start is before every breakpoint.)
    let k = i < 0 ? 0 : nextLess[i]!;
    while (k < count && vs[k]! >= n) k = nextLess[k]!;
    if (k === count || ts[k]! >= Math.min(start + duration, clip)) return start;
    // The next breakpoint with n free again is the next start to try.
    while (k < count && vs[k]! < n) k = nextMore[k]!;
    if (k === count) return Infinity;
    start = ts[k]!;
    if (start > until) return Infinity;
    i = k;
  }
}

/** Whether a reservation starting by `now` holds its processors at `now` (as addRect reads its span). */
export function holdsAt(r: Reservation, now: number): boolean {
  const end = r.start + r.duration;
  return end > r.start && end > now;
}

/**
 * From a start at step i where n processors are free, the earliest start whose window of `duration` holds n all
 * along: the window slides past every dip it contains; Infinity past `until` or the last step.
 */
function slideWindow(
  ts: ArrayLike<number>,
  vs: ArrayLike<number>,
  count: number,
  i: number,
  start: number,
  n: number,
  duration: number,
  until: number,
): number {
  if (start > until) return Infinity;
  // A zero-length request needs its n at its start instant only.
  if (duration === 0) return start;
  for (i++; i < count && ts[i]! < start + duration; i++) {
    if (vs[i]! < n) {
      for (i++; i < count && vs[i]! < n; i++) if (ts[i]! > until) return Infinity;
      if (i === count) return Infinity;
      start = ts[i]!;
      if (start > until) return Infinity;
    }
  }
  return start;
}
