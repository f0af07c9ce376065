// Where each cluster's plan freed processors, and when each promised job was last checked against every cluster: what
// lets a compression pass (conservative backfilling, core/queue/cbf.ts) skip a search that cannot find an earlier start,
// so that the same reservations come out without searching every cluster for every waiting job at every job's end.
//
// Why a skip is exact: a job checked at tick T had no start earlier than its reservation on any cluster then (its own
// reservation given back). A window that fits now and did not then has a point whose free processors rose since T, to
// n or more; every rise is logged here, with the most free anywhere in its region just after it (what is free there
// later only falls, until a later rise is logged in turn). So when no region logged on a cluster since T reaches n,
// no window on that cluster starts the job earlier than before, and its search would find nothing; when some do, only
// windows that cross one of them (starting after its beginning less the job's walltime, before its end) are searched.
// Pure: plain numbers and arrays, kept by the planned pass (core/queue/planned-pass.ts) from pass to pass.

export class FreedRegions {
  /** Moves at every log and check: a region logged after a job's check has a larger tick. */
  #tick = 0;
  /** Regions at or before it are forgotten; a job checked before it is taken as never checked. */
  #horizon = 0;
  /** The tick at which the last pass that compressed began (see beginPass). */
  #lastCompressing = 0;
  /** Per cluster, the regions' ticks (ascending), where each begins and ends, and the most free in it. */
  #ticks: number[][] = [];
  #from: number[][] = [];
  #to: number[][] = [];
  #most: number[][] = [];
  /** What the last `narrow` that returned true found: the starts worth searching lie in [from, until]. */
  from = Number.NEGATIVE_INFINITY;
  until = Number.POSITIVE_INFINITY;
  /** The tick of each promised job's last check against every cluster it may run on. */
  readonly #checked = new Map<string, number>();

  /** Forgets everything: every job is searched everywhere until checked again (a plan not kept from the last pass). */
  reset(clusterCount: number): void {
    this.#ticks = Array.from({ length: clusterCount }, () => []);
    this.#from = Array.from({ length: clusterCount }, () => []);
    this.#to = Array.from({ length: clusterCount }, () => []);
    this.#most = Array.from({ length: clusterCount }, () => []);
    this.#checked.clear();
    this.#horizon = ++this.#tick;
    this.#lastCompressing = this.#horizon;
  }

  get clusterCount(): number {
    return this.#ticks.length;
  }

  /**
   * A pass begins (`compressing`: it searches promised jobs again). Decision: regions are kept from the start of the
   * last pass that compressed on, since every job it visited was checked then; a job checked earlier is searched.
   */
  beginPass(compressing: boolean): void {
    if (!compressing) return;
    this.#horizon = this.#lastCompressing;
    this.#lastCompressing = ++this.#tick;
    for (let c = 0; c < this.#ticks.length; c++) {
      const ticks = this.#ticks[c]!;
      let k = 0;
      while (k < ticks.length && ticks[k]! <= this.#horizon) k++;
      if (k === 0) continue;
      ticks.splice(0, k);
      this.#from[c]!.splice(0, k);
      this.#to[c]!.splice(0, k);
      this.#most[c]!.splice(0, k);
    }
  }

  /** Cluster c's plan rose somewhere in [from, to), where it now has at most `most` free. */
  freed(c: number, from: number, to: number, most: number): void {
    this.#ticks[c]!.push(++this.#tick);
    this.#from[c]!.push(from);
    this.#to[c]!.push(to);
    this.#most[c]!.push(most);
  }

  /** Job `id` was searched on every cluster it may run on (or reserved at its earliest start over them all). */
  checked(id: string): void {
    this.#checked.set(id, ++this.#tick);
  }

  /** Job `id` holds no reservation any more. */
  forget(id: string): void {
    this.#checked.delete(id);
  }

  /**
   * Whether a search of cluster c may start job `id` (n processors for `duration`) earlier than its reservation's
   * `start`; when it may, `from` and `until` bound the starts worth trying. O(log r + r') for the r regions logged on
   * c, r' of them since the job's check.
   */
  narrow(id: string, c: number, n: number, duration: number, start: number): boolean {
    this.from = Number.NEGATIVE_INFINITY;
    this.until = Number.POSITIVE_INFINITY;
    const since = this.#checked.get(id);
    if (since === undefined || since < this.#horizon || !(n > 0)) return true;
    const ticks = this.#ticks[c]!;
    // The first region logged after the check (by binary search: ticks ascend).
    let lo = 0;
    let hi = ticks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ticks[mid]! <= since) lo = mid + 1;
      else hi = mid;
    }
    const most = this.#most[c]!;
    const froms = this.#from[c]!;
    const tos = this.#to[c]!;
    let from = Number.POSITIVE_INFINITY;
    let until = Number.NEGATIVE_INFINITY;
    for (let k = lo; k < ticks.length; k++) {
      // A window [x, x + duration) crosses [a, b) when a - duration < x < b.
      const a = froms[k]! - duration;
      if (most[k]! < n || !(a < start)) continue;
      if (a < from) from = a;
      if (tos[k]! > until) until = tos[k]!;
    }
    this.from = from;
    this.until = until;
    return from < start && from <= until;
  }
}
