// Piecewise-constant, right-continuous functions of time: the single time-profile type of the scheduler
// (availability, claims, utilisation history, reservations), in the spirit of Fluxion's planner.
//
// Representation: strictly increasing breakpoint `times`, the `values` taking effect at them, and the
// `initial` value before the first breakpoint. Instances are always normalised (no breakpoint repeats the
// value before it), so two functions are equal exactly when their representations are equal.

export interface Step {
  t: number;
  v: number;
}

// -0 would leak out of scale(-1) etc. and make Object.is-based comparisons (and test output) surprising.
function clean(v: number): number {
  return v === 0 ? 0 : v;
}

function checkValue(v: number, what: string): void {
  if (v !== v) throw new RangeError(`StepFunction: ${what} is NaN`);
}

function checkFiniteTime(t: number, what: string): void {
  if (!Number.isFinite(t)) throw new RangeError(`StepFunction: ${what} must be a finite time, got ${t}`);
}

function checkTime(t: number, what: string): void {
  if (t !== t) throw new RangeError(`StepFunction: ${what} is NaN`);
}

// Shared validation for [t0, t1) intervals that are turned into breakpoints: t0 must be a real instant,
// t1 may be open-ended.
function checkBreakpointInterval(t0: number, t1: number, where: string): void {
  checkFiniteTime(t0, `${where}: t0`);
  checkTime(t1, `${where}: t1`);
  if (t1 === -Infinity) throw new RangeError(`StepFunction: ${where}: t1 must not be -Infinity`);
  if (!(t1 > t0)) throw new RangeError(`StepFunction: ${where}: need t1 > t0, got [${t0}, ${t1})`);
}

// Index of the last breakpoint at or before t, or -1.
function lastIndexAtOrBefore(ts: readonly number[], t: number): number {
  const n = ts.length;
  // Simulators mostly ask about "now", which is at or after the last breakpoint of a history.
  if (n === 0 || t >= ts[n - 1]!) return n - 1;
  let lo = 0;
  let hi = n - 1; // ts[n-1] > t is known
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function checkIntegralWindow(t0: number, t1: number): void {
  checkFiniteTime(t0, 'integral: t0');
  checkFiniteTime(t1, 'integral: t1');
  if (t1 < t0) throw new RangeError(`StepFunction: integral: need t1 >= t0, got [${t0}, ${t1})`);
}

// `area` plus the area under the function (initial, times, values) over [t0, t1), summed in time order:
// StepFunction's integral, and StepRecorder's chunk by chunk, which carries `area` on so that its sums are the very
// additions of one pass.
function integralOf(
  initial: number,
  ts: readonly number[],
  vs: readonly number[],
  t0: number,
  t1: number,
  area = 0,
): number {
  checkIntegralWindow(t0, t1);
  if (t1 === t0) return area;
  let i = lastIndexAtOrBefore(ts, t0);
  let v = i < 0 ? initial : vs[i]!;
  let from = t0;
  for (i++; i < ts.length && ts[i]! < t1; i++) {
    area += v * (ts[i]! - from);
    from = ts[i]!;
    v = vs[i]!;
  }
  return area + v * (t1 - from);
}

// Trusted constructor for StepRecorder, which keeps its own arrays normalised; bound in a static block because
// the class constructor is private.
let fromNormalised: (initial: number, times: number[], values: number[]) => StepFunction;

const add = (a: number, b: number): number => a + b;
const sub = (a: number, b: number): number => a - b;

export class StepFunction {
  /** Breakpoint times, strictly increasing. Read-only view for allocation-free iteration in hot loops. */
  readonly times: readonly number[];
  /** values[i] holds on [times[i], times[i+1]). Never equal to the value before it. */
  readonly values: readonly number[];
  private readonly init: number;

  // Callers guarantee the arrays are normalised, NaN-free and not shared with anything mutable.
  private constructor(initial: number, times: number[], values: number[]) {
    this.init = initial;
    this.times = times;
    this.values = values;
  }

  static {
    fromNormalised = (initial, times, values) => new StepFunction(initial, times, values);
  }

  // ---- construction ------------------------------------------------------------------------------------

  static constant(value: number): StepFunction {
    checkValue(value, 'constant value');
    return new StepFunction(clean(value), [], []);
  }

  /** Steps at the same time: the last one given wins. Input order does not matter otherwise. */
  static fromSteps(initial: number, steps: ReadonlyArray<Step>): StepFunction {
    checkValue(initial, 'initial value');
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i]!;
      checkFiniteTime(s.t, `fromSteps: step ${i} time`);
      checkValue(s.v, `fromSteps: step ${i} value`);
    }
    let ordered: ReadonlyArray<Step> = steps;
    for (let i = 1; i < steps.length; i++) {
      if (steps[i]!.t < steps[i - 1]!.t) {
        // Array.prototype.sort is stable, which keeps "last wins" for equal times.
        ordered = [...steps].sort((a, b) => a.t - b.t);
        break;
      }
    }
    const times: number[] = [];
    const values: number[] = [];
    const init = clean(initial);
    for (let i = 0; i < ordered.length; i++) {
      const s = ordered[i]!;
      // Collapse equal times to the last of the run.
      const next = ordered[i + 1];
      if (next !== undefined && next.t === s.t) continue;
      pushNormalised(times, values, init, s.t, clean(s.v));
    }
    return new StepFunction(init, times, values);
  }

  /** `value` on [t0, t1), 0 elsewhere. t0 finite; t1 > t0, possibly Infinity. */
  static interval(t0: number, t1: number, value: number): StepFunction {
    checkBreakpointInterval(t0, t1, 'interval');
    checkValue(value, 'interval value');
    const v = clean(value);
    if (v === 0) return ZERO;
    if (t1 === Infinity) return new StepFunction(0, [t0], [v]);
    return new StepFunction(0, [t0, t1], [v, 0]);
  }

  /** Pointwise sum of many functions; an empty list gives the constant 0. */
  static sum(list: ReadonlyArray<StepFunction>): StepFunction {
    if (list.length === 0) return ZERO;
    // Balanced pairwise merging: O(N log k) for N breakpoints over k functions, and each value is a plain
    // sum of the operands' values (no running deltas, so no floating-point drift).
    let level: StepFunction[] = [...list];
    while (level.length > 1) {
      const next: StepFunction[] = [];
      for (let i = 0; i < level.length; i += 2) {
        const a = level[i]!;
        const b = level[i + 1];
        next.push(b === undefined ? a : a.plus(b));
      }
      level = next;
    }
    return level[0]!;
  }

  // ---- inspection --------------------------------------------------------------------------------------

  /** Value before the first breakpoint (i.e. at -Infinity). */
  get initial(): number {
    return this.init;
  }

  /** Value after the last breakpoint (i.e. at +Infinity). */
  get finalValue(): number {
    const n = this.values.length;
    return n === 0 ? this.init : this.values[n - 1]!;
  }

  /** Number of breakpoints. */
  get breakpoints(): number {
    return this.times.length;
  }

  steps(): Step[] {
    const out: Step[] = new Array<Step>(this.times.length);
    for (let i = 0; i < this.times.length; i++) out[i] = { t: this.times[i]!, v: this.values[i]! };
    return out;
  }

  /** O(log n). valueAt(±Infinity) is the limit at that end: `initial` / `finalValue`. */
  valueAt(t: number): number {
    checkTime(t, 'valueAt: t');
    const i = this.lastIndexAtOrBefore(t);
    return i < 0 ? this.init : this.values[i]!;
  }

  // Index of the last breakpoint with time <= t, or -1.
  private lastIndexAtOrBefore(t: number): number {
    return lastIndexAtOrBefore(this.times, t);
  }

  // ---- algebra -----------------------------------------------------------------------------------------

  /** Merge of both breakpoint sets, O(n + m). Throws RangeError if `fn` yields NaN. */
  combine(other: StepFunction, fn: (a: number, b: number) => number): StepFunction {
    const at = this.times;
    const av = this.values;
    const bt = other.times;
    const bv = other.values;
    const n = at.length;
    const m = bt.length;
    let a = this.init;
    let b = other.init;
    const init = clean(fn(a, b));
    checkValue(init, 'combine result');
    const times: number[] = [];
    const values: number[] = [];
    let last = init;
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      const ta = i < n ? at[i]! : Infinity;
      const tb = j < m ? bt[j]! : Infinity;
      let t: number;
      if (ta < tb) {
        t = ta;
        a = av[i++]!;
      } else if (tb < ta) {
        t = tb;
        b = bv[j++]!;
      } else {
        t = ta;
        a = av[i++]!;
        b = bv[j++]!;
      }
      const v = clean(fn(a, b));
      if (v !== last) {
        checkValue(v, 'combine result');
        times.push(t);
        values.push(v);
        last = v;
      }
    }
    return new StepFunction(init, times, values);
  }

  plus(other: StepFunction): StepFunction {
    if (other.times.length === 0 && other.init === 0) return this;
    if (this.times.length === 0 && this.init === 0) return other;
    return this.combine(other, add);
  }

  minus(other: StepFunction): StepFunction {
    if (other.times.length === 0 && other.init === 0) return this;
    return this.combine(other, sub);
  }

  pointwiseMin(other: StepFunction): StepFunction {
    return this.combine(other, Math.min);
  }

  pointwiseMax(other: StepFunction): StepFunction {
    return this.combine(other, Math.max);
  }

  /** Throws RangeError if `fn` yields NaN (e.g. 0 * Infinity). */
  map(fn: (v: number) => number): StepFunction {
    const init = clean(fn(this.init));
    checkValue(init, 'map result');
    const times: number[] = [];
    const values: number[] = [];
    for (let i = 0; i < this.times.length; i++) {
      const v = clean(fn(this.values[i]!));
      checkValue(v, 'map result');
      pushNormalised(times, values, init, this.times[i]!, v);
    }
    return new StepFunction(init, times, values);
  }

  /** Throws RangeError where k * v is NaN (k = ±Infinity on a zero value). */
  scale(k: number): StepFunction {
    checkValue(k, 'scale factor');
    if (k === 1) return this;
    return this.map((v) => v * k);
  }

  /**
   * A new function with `delta` added on [t0, t1); t0 finite, t1 > t0 (possibly Infinity). O(n) copying (the parts
   * before t0 and after t1 are copied whole) plus O(k) for the k breakpoints inside [t0, t1).
   */
  addInterval(t0: number, t1: number, delta: number): StepFunction {
    checkBreakpointInterval(t0, t1, 'addInterval');
    checkValue(delta, 'addInterval delta');
    if (delta === 0) return this;
    const ts = this.times;
    const vs = this.values;
    const n = ts.length;
    // First breakpoint at or after t0.
    const k = this.lastIndexAtOrBefore(t0);
    const lo = k >= 0 && ts[k] === t0 ? k : k + 1;
    // The prefix before t0 is kept; the breakpoints in [t0, t1] are rebuilt, then the rest is appended unchanged.
    // Decision: arrays of 64 or more are copied natively (slice/concat), shorter ones element by element, which is
    // cheaper for the few-step profiles CooRMv2 works on.
    let times: number[];
    let values: number[];
    if (lo < 64) {
      times = [];
      values = [];
      for (let j = 0; j < lo; j++) {
        times.push(ts[j]!);
        values.push(vs[j]!);
      }
    } else {
      times = ts.slice(0, lo);
      values = vs.slice(0, lo);
    }
    let i = lo;
    let before = i > 0 ? vs[i - 1]! : this.init;
    // At t0: shift whatever holds there (an existing breakpoint at t0 or the carried-over value).
    if (i < n && ts[i] === t0) before = vs[i++]!;
    pushChecked(times, values, this.init, t0, before + delta);
    for (; i < n && ts[i]! < t1; i++) {
      before = vs[i]!;
      pushChecked(times, values, this.init, ts[i]!, before + delta);
    }
    // At t1 the original value resumes; an original breakpoint at t1 already says what that is.
    if (t1 !== Infinity) pushNormalised(times, values, this.init, t1, i < n && ts[i] === t1 ? vs[i++]! : before);
    // The rest is normalised already; only its first breakpoint may repeat the value now in force.
    if (i < n) pushNormalised(times, values, this.init, ts[i]!, vs[i++]!);
    if (n - i < 64) {
      for (; i < n; i++) {
        times.push(ts[i]!);
        values.push(vs[i]!);
      }
      return new StepFunction(this.init, times, values);
    }
    return new StepFunction(this.init, times.concat(ts.slice(i)), values.concat(vs.slice(i)));
  }

  /**
   * A new function with `delta` added before t1 (on (-Infinity, t1)); t1 > -Infinity, possibly Infinity. One O(n)
   * pass: the same function as map(x => x + delta) followed by addInterval(t1, Infinity, -delta), with two fewer
   * arrays made.
   */
  addBefore(t1: number, delta: number): StepFunction {
    checkValue(delta, 'addBefore delta');
    checkTime(t1, 'addBefore: t1');
    if (t1 === -Infinity) throw new RangeError('StepFunction: addBefore: t1 must not be -Infinity');
    if (delta === 0) return this;
    // An infinite delta cannot be taken back after t1 (Infinity - Infinity): the two steps say why.
    if (!Number.isFinite(delta)) {
      const shifted = this.map((x) => x + delta);
      return t1 === Infinity ? shifted : shifted.addInterval(t1, Infinity, -delta);
    }
    const ts = this.times;
    const vs = this.values;
    const n = ts.length;
    const init = clean(this.init + delta);
    const times: number[] = [];
    const values: number[] = [];
    let i = 0;
    for (; i < n && ts[i]! < t1; i++) pushNormalised(times, values, init, ts[i]!, clean(vs[i]! + delta));
    if (t1 === Infinity) return new StepFunction(init, times, values);
    // From t1 on the value is (x + delta) - delta rather than x: bit for bit what shifting and shifting back gave.
    const atT1 = i < n && ts[i] === t1 ? vs[i++]! : i > 0 ? vs[i - 1]! : this.init;
    pushNormalised(times, values, init, t1, clean(clean(atT1 + delta) - delta));
    for (; i < n; i++) pushNormalised(times, values, init, ts[i]!, clean(clean(vs[i]! + delta) - delta));
    return new StepFunction(init, times, values);
  }

  /** Drops history strictly before t; the value at t is extended backwards as the new initial value. */
  truncateBefore(t: number): StepFunction {
    checkTime(t, 'truncateBefore: t');
    const i = this.lastIndexAtOrBefore(t);
    if (i < 0) return this;
    const init = this.values[i]!;
    return new StepFunction(init, this.times.slice(i + 1), this.values.slice(i + 1));
  }

  // ---- queries -----------------------------------------------------------------------------------------

  /** Largest value on [t0, t1). t1 may be Infinity; t1 <= t0 is a RangeError. */
  maxOver(t0: number, t1: number): number {
    checkQueryInterval(t0, t1, 'maxOver');
    let i = this.lastIndexAtOrBefore(t0);
    let best = i < 0 ? this.init : this.values[i]!;
    const ts = this.times;
    const vs = this.values;
    for (i++; i < ts.length && ts[i]! < t1; i++) if (vs[i]! > best) best = vs[i]!;
    return best;
  }

  /** Smallest value on [t0, t1). t1 may be Infinity; t1 <= t0 is a RangeError. */
  minOver(t0: number, t1: number): number {
    checkQueryInterval(t0, t1, 'minOver');
    let i = this.lastIndexAtOrBefore(t0);
    let best = i < 0 ? this.init : this.values[i]!;
    const ts = this.times;
    const vs = this.values;
    for (i++; i < ts.length && ts[i]! < t1; i++) if (vs[i]! < best) best = vs[i]!;
    return best;
  }

  /** Area under the function over [t0, t1). Both bounds finite; t1 >= t0 (t1 === t0 gives 0). */
  integral(t0: number, t1: number): number {
    return integralOf(this.init, this.times, this.values, t0, t1);
  }

  /**
   * Earliest t >= from such that value >= need throughout [t, t + duration), or Infinity if none: when can a
   * job needing `need` processors for `duration` seconds start on this availability profile. duration may be
   * Infinity (the value must then stay >= need forever). duration 0 is an empty window, so it fits at `from`.
   * One forward scan from `from`, O(n).
   */
  earliestFit(from: number, duration: number, need: number): number {
    checkFiniteTime(from, 'earliestFit: from');
    checkTime(duration, 'earliestFit: duration');
    if (duration < 0) throw new RangeError(`StepFunction: earliestFit: duration must be >= 0, got ${duration}`);
    checkValue(need, 'earliestFit: need');
    if (duration === 0) return from;
    const ts = this.times;
    const vs = this.values;
    const n = ts.length;
    let i = this.lastIndexAtOrBefore(from);
    let start = from;
    if ((i < 0 ? this.init : vs[i]!) < need) {
      // Start too low: the first candidate is the next step back up to `need`.
      for (i++; i < n && vs[i]! < need; i++);
      if (i === n) return Infinity;
      start = ts[i]!;
    }
    // Invariant: the value is >= need on [start, ts[i+1]). Slide the window past every dip it contains.
    for (i++; i < n && ts[i]! < start + duration; i++) {
      if (vs[i]! < need) {
        for (i++; i < n && vs[i]! < need; i++);
        if (i === n) return Infinity;
        start = ts[i]!;
      }
    }
    return start;
  }

  /** Earliest t >= from with value < threshold, or Infinity: until when a reservation holds. */
  firstTimeBelow(from: number, threshold: number): number {
    checkTime(from, 'firstTimeBelow: from');
    checkValue(threshold, 'firstTimeBelow: threshold');
    let i = this.lastIndexAtOrBefore(from);
    if ((i < 0 ? this.init : this.values[i]!) < threshold) return from;
    const ts = this.times;
    const vs = this.values;
    for (i++; i < ts.length; i++) if (vs[i]! < threshold) return ts[i]!;
    return Infinity;
  }

  /** Earliest t >= from with value >= threshold, or Infinity: when a request of `threshold` for an instant fits. */
  firstTimeAtLeast(from: number, threshold: number): number {
    checkTime(from, 'firstTimeAtLeast: from');
    checkValue(threshold, 'firstTimeAtLeast: threshold');
    let i = this.lastIndexAtOrBefore(from);
    if ((i < 0 ? this.init : this.values[i]!) >= threshold) return from;
    const ts = this.times;
    const vs = this.values;
    for (i++; i < ts.length; i++) if (vs[i]! >= threshold) return ts[i]!;
    return Infinity;
  }

  /** Pointwise equality within `eps` (absolute), everywhere on the time line. */
  equals(other: StepFunction, eps = 0): boolean {
    if (!(eps >= 0)) throw new RangeError(`StepFunction: equals: eps must be >= 0, got ${eps}`);
    if (this === other) return true;
    const close = (a: number, b: number): boolean => a === b || Math.abs(a - b) <= eps;
    if (eps === 0) {
      // Normalised forms are canonical, so exact equality is structural.
      if (this.init !== other.init || this.times.length !== other.times.length) return false;
      for (let k = 0; k < this.times.length; k++) {
        if (this.times[k] !== other.times[k] || this.values[k] !== other.values[k]) return false;
      }
      return true;
    }
    const at = this.times;
    const av = this.values;
    const bt = other.times;
    const bv = other.values;
    let a = this.init;
    let b = other.init;
    if (!close(a, b)) return false;
    let i = 0;
    let j = 0;
    while (i < at.length || j < bt.length) {
      const ta = i < at.length ? at[i]! : Infinity;
      const tb = j < bt.length ? bt[j]! : Infinity;
      if (ta <= tb) a = av[i++]!;
      if (tb <= ta) b = bv[j++]!;
      if (!close(a, b)) return false;
    }
    return true;
  }

  toString(): string {
    const parts: string[] = [];
    for (let i = 0; i < this.times.length; i++) parts.push(`${this.times[i]}→${this.values[i]}`);
    return parts.length === 0 ? `StepFunction(${this.init})` : `StepFunction(${this.init}; ${parts.join(', ')})`;
  }
}

function checkQueryInterval(t0: number, t1: number, where: string): void {
  checkTime(t0, `${where}: t0`);
  checkTime(t1, `${where}: t1`);
  if (!(t1 > t0)) throw new RangeError(`StepFunction: ${where}: need t1 > t0, got [${t0}, ${t1})`);
}

// Appends (t, v) unless v equals the value already in force; times must arrive increasing.
function pushNormalised(times: number[], values: number[], initial: number, t: number, v: number): void {
  const n = values.length;
  const prev = n === 0 ? initial : values[n - 1]!;
  if (v !== prev) {
    times.push(t);
    values.push(v);
  }
}

// As pushNormalised, for values computed by arithmetic that could produce NaN or -0 (Infinity - Infinity).
function pushChecked(times: number[], values: number[], initial: number, t: number, v: number): void {
  checkValue(v, 'addInterval result');
  pushNormalised(times, values, initial, t, clean(v));
}

const ZERO = StepFunction.constant(0);

/**
 * For core/time's own builders (profileOfRects): a StepFunction that takes the given arrays over, unchecked and
 * uncopied. The caller guarantees them normalised (times strictly increasing and finite, no value NaN, -0 or equal to
 * the one before it) and keeps no other reference to them.
 */
export function adoptNormalised(initial: number, times: number[], values: number[]): StepFunction {
  return fromNormalised(initial, times, values);
}

// Breakpoints per chunk of a StepRecorder: 32 KB of numbers, under the 128 KB past which V8 puts an array in its
// large-object space.
const RECORDER_CHUNK = 4096;

/**
 * Mutable recorder for history appended in time order (utilisation, claims): amortised O(1) per set, then
 * snapshotted into an immutable StepFunction.
 * The breakpoints are kept in chunks of RECORDER_CHUNK, each a normalised piece of the history that starts with the
 * value the chunk before it ends on: one array grown by pushes left each of its old copies behind, and past 128 KB
 * those sit in the large-object space until a full collection, which a replay may never run (NASA's 35,000
 * utilisation breakpoints: 1.7 MB there, issue 17; core/sim/columns.ts keeps a run's tables so for the same reason).
 */
export class StepRecorder {
  private readonly times: number[][] = [[]];
  private readonly values: number[][] = [[]];
  private readonly init: number;
  private cur: number;
  private last = -Infinity;
  // Snapshot reused while nothing has been appended since it was taken.
  private snapshot: StepFunction | undefined;

  constructor(initial = 0) {
    checkValue(initial, 'StepRecorder initial value');
    this.init = clean(initial);
    this.cur = this.init;
  }

  /** The value in force after everything recorded so far. */
  get current(): number {
    return this.cur;
  }

  /** Time of the latest set/add call (-Infinity before any). */
  get lastTime(): number {
    return this.last;
  }

  /** From t on the value is v. t must not precede the last recorded time; the same time overwrites. */
  set(t: number, v: number): void {
    checkFiniteTime(t, 'StepRecorder.set: t');
    checkValue(v, 'StepRecorder.set: v');
    if (t < this.last) {
      throw new RangeError(`StepRecorder.set: time ${t} is before the last recorded time ${this.last}`);
    }
    const value = clean(v);
    this.last = t;
    if (value === this.cur) return;
    this.snapshot = undefined;
    const k = this.times.length - 1;
    const times = this.times[k]!;
    const values = this.values[k]!;
    const n = times.length;
    if (n > 0 && times[n - 1] === t) {
      // Overwrite; if that restores the value before t the breakpoint is redundant.
      const before = n > 1 ? values[n - 2]! : this.valueBeforeChunk(k);
      if (value === before) {
        times.pop();
        values.pop();
        // No chunk but the first is left empty, so that the last breakpoint is always the last chunk's last.
        if (n === 1 && k > 0) {
          this.times.pop();
          this.values.pop();
        }
      } else {
        values[n - 1] = value;
      }
    } else if (n === RECORDER_CHUNK) {
      this.times.push([t]);
      this.values.push([value]);
    } else {
      times.push(t);
      values.push(value);
    }
    this.cur = value;
  }

  add(t: number, delta: number): void {
    checkValue(delta, 'StepRecorder.add: delta');
    this.set(t, this.cur + delta);
  }

  /**
   * The area under what has been recorded over [t0, t1), as toStepFunction().integral(t0, t1) gives it, without the
   * snapshot's copy: a run's summary reads its utilisation so at its memory peak (issue 17). Each chunk adds its area
   * over the part of [t0, t1) it spans.
   */
  integral(t0: number, t1: number): number {
    checkIntegralWindow(t0, t1);
    let area = 0;
    const chunks = this.times.length;
    for (let k = 0; k < chunks; k++) {
      const from = k === 0 ? t0 : Math.max(t0, this.times[k]![0]!);
      const to = k === chunks - 1 ? t1 : Math.min(t1, this.times[k + 1]![0]!);
      if (to > from) area = integralOf(this.valueBeforeChunk(k), this.times[k]!, this.values[k]!, from, to, area);
    }
    return area;
  }

  /** An immutable snapshot; later appends do not affect it. */
  toStepFunction(): StepFunction {
    // Copies, so that later appends cannot reach into the immutable function.
    this.snapshot ??= fromNormalised(this.init, this.times.flat(), this.values.flat());
    return this.snapshot;
  }

  // The value in force before chunk k's first breakpoint.
  private valueBeforeChunk(k: number): number {
    return k === 0 ? this.init : this.values[k - 1]![RECORDER_CHUNK - 1]!;
  }
}
