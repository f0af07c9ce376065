// One cluster's holdings (what its placed jobs hold until when, core/plan/holding.ts) kept between passes and made
// again job by job: a pass then builds the cluster's plan without walking its placed jobs. What they hold past now is
// kept as a sum: the holdings whose estimated end has passed are taken out of it as now moves on (a heap by end), and
// the holdings that depend on now (a job not started, a malleable one) are made again at each new now.
import type { Holding } from './availability.js';
import { heldProcessors, holdingEnd, holdingEndMovesWithNow, type HoldingJob, type RuntimeAt } from './holding.js';

/** A placed job as the kept holdings read it: core/plan/holding.ts's fields and its components. */
export interface KeptJob extends HoldingJob {
  readonly components: ReadonlyArray<{ readonly cluster: string; readonly processors: number }>;
}

/** What a plan reads of its running jobs' holdings when a caller keeps them (AvailabilityInput.kept). */
export interface HeldOverTime {
  /** What they hold past t (t >= the plan's now): those ending after t, and those without an end. */
  heldAfter(t: number): number;
  /** The holdings, in the order their jobs were placed. */
  list(): readonly Holding[];
}

/** Not kept (replaced or its job gone): a heap entry of it is skipped. */
const DROPPED = 0;
/** Kept, its end after now (in the heap when finite). */
const AHEAD = 1;
/** Kept, its end at or before now: it holds nothing past now. */
const PAST = 2;

/**
 * A holding as kept here, one object a job for its holdings on this cluster (they live as long as the job, so each
 * object more is one more for the collector to copy): where it is counted is a field of its own rather than
 * membership of sets, its job's other holdings here follow it, and its id is made when asked (a plan asks it only of
 * the jobs a reservation waits for).
 */
class KeptHolding implements Holding {
  state = DROPPED;
  /** The job's next holding on this cluster (a job with two components here), in component order. */
  next: KeptHolding | undefined = undefined;
  #id: string | undefined = undefined;

  constructor(
    private readonly jobId: string,
    private readonly component: number,
    readonly n: number,
    readonly end: number,
    /** The job's components when it was placed: another array means it was placed again (it goes last). */
    readonly components: KeptJob['components'],
  ) {}

  get id(): string {
    return (this.#id ??= `${this.jobId}#${this.component}`);
  }
}

export class KeptHoldings implements HeldOverTime {
  readonly #cluster: string;
  /** Each job's first holding here, in the order the jobs were placed. */
  readonly #byJob = new Map<KeptJob, KeptHolding>();
  /** Jobs whose holdings depend on now. */
  readonly #dependsOnNow = new Set<KeptJob>();
  /** Finite ends after #now not yet passed, as a binary heap on end (entries of holdings since dropped are skipped). */
  readonly #heap: KeptHolding[] = [];
  /** What the holdings whose end is at or before #now hold (nothing past now). */
  #pastHeld = 0;
  #held = 0;
  /** How many holdings are kept. */
  #count = 0;
  #now = Number.NEGATIVE_INFINITY;
  #list: Holding[] | undefined;

  constructor(cluster: string) {
    this.#cluster = cluster;
  }

  /** The now they were last brought to. */
  get now(): number {
    return this.#now;
  }

  /** What they hold in all, ends passed or not. */
  get held(): number {
    return this.#held;
  }

  /** Job `job`'s holdings made again at the kept now (`placed`: it is placed, with components on this cluster). */
  update(job: KeptJob, placed: boolean, runtimeAt: RuntimeAt | undefined): void {
    const first = this.#byJob.get(job);
    const same = first !== undefined && first.components === job.components;
    if (first !== undefined) {
      for (let h: KeptHolding | undefined = first; h !== undefined; h = h.next) this.#drop(h);
      if (!placed || !same) {
        this.#byJob.delete(job);
        this.#dependsOnNow.delete(job);
        this.#list = undefined;
      }
    }
    if (!placed) return;
    const made = this.#made(job, same ? first : undefined, runtimeAt);
    this.#list = undefined;
    if (made === undefined) {
      this.#byJob.delete(job);
      return;
    }
    if (made !== first) this.#byJob.set(job, made);
    for (let h: KeptHolding | undefined = made; h !== undefined; h = h.next) this.#add(h);
  }

  /** Brings them to `now` (>= the kept now): holdings depending on now made again, ends passed taken out. */
  advance(now: number, runtimeAt: RuntimeAt | undefined): void {
    if (now === this.#now) return;
    if (now < this.#now) throw new RangeError(`KeptHoldings: now went back from ${this.#now} to ${now}`);
    this.#now = now;
    if (this.#dependsOnNow.size > 0) for (const job of this.#dependsOnNow) this.update(job, true, runtimeAt);
    const heap = this.#heap;
    while (heap.length > 0 && heap[0]!.end <= now) {
      const h = popHeap(heap);
      if (h.state === AHEAD) {
        h.state = PAST;
        this.#pastHeld += h.n;
      }
    }
  }

  /**
   * The earliest time at which bringing them there (advance) may change what they hold past now: the first finite end
   * kept (perhaps of a holding since replaced), -Infinity while a holding depends on now, Infinity when none.
   */
  get nextChange(): number {
    if (this.#dependsOnNow.size > 0) return Number.NEGATIVE_INFINITY;
    return this.#heap.length > 0 ? this.#heap[0]!.end : Number.POSITIVE_INFINITY;
  }

  heldAfter(t: number): number {
    if (t === this.#now) return this.#held - this.#pastHeld;
    // Another time (rare: a plan read ahead while lazy): counted from the holdings.
    let held = 0;
    for (const h of this.list()) if (h.end > t || h.end === Infinity) held += h.n;
    return held;
  }

  list(): readonly Holding[] {
    if (this.#list !== undefined) return this.#list;
    const out: Holding[] = [];
    for (const first of this.#byJob.values()) for (let h: KeptHolding | undefined = first; h; h = h.next) out.push(h);
    this.#list = out;
    return out;
  }

  /** The job's holdings here at the kept now, chained from the first; those of `before` that are the same kept. */
  #made(job: KeptJob, before: KeptHolding | undefined, runtimeAt: RuntimeAt | undefined): KeptHolding | undefined {
    const now = this.#now;
    if (holdingEndMovesWithNow(job)) this.#dependsOnNow.add(job);
    else this.#dependsOnNow.delete(job);
    const end = holdingEnd(job, now, runtimeAt);
    const components = job.components;
    let first: KeptHolding | undefined;
    let last: KeptHolding | undefined;
    let was = before;
    for (let k = 0; k < components.length; k++) {
      const c = components[k]!;
      if (c.cluster !== this.#cluster) continue;
      const n = heldProcessors(job, c.processors);
      const wasNext = was?.next;
      const h =
        was !== undefined && was.n === n && was.end === end ? was : new KeptHolding(job.id, k, n, end, components);
      h.next = undefined;
      if (last === undefined) first = h;
      else last.next = h;
      last = h;
      was = wasNext;
    }
    return first;
  }

  #add(h: KeptHolding): void {
    this.#count++;
    this.#held += h.n;
    if (h.end <= this.#now) {
      h.state = PAST;
      this.#pastHeld += h.n;
      return;
    }
    h.state = AHEAD;
    if (h.end < Infinity) {
      pushHeap(this.#heap, h);
      // Entries of dropped holdings wait in the heap until their end passes: past twice the live ones, it is made again.
      if (this.#heap.length > 2 * this.#count + 64) this.#reheap();
    }
  }

  #reheap(): void {
    const heap = this.#heap;
    heap.length = 0;
    for (const first of this.#byJob.values())
      for (let h: KeptHolding | undefined = first; h; h = h.next)
        if (h.state === AHEAD && h.end < Infinity) pushHeap(heap, h);
  }

  #drop(h: KeptHolding): void {
    this.#count--;
    this.#held -= h.n;
    if (h.state === PAST) this.#pastHeld -= h.n;
    // A heap entry left behind is skipped when it comes up (dropped), or counts again if the holding is kept again.
    h.state = DROPPED;
  }
}

function pushHeap(heap: KeptHolding[], h: KeptHolding): void {
  let i = heap.length;
  heap.push(h);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]!.end <= h.end) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = h;
}

function popHeap(heap: KeptHolding[]): KeptHolding {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length === 0) return top;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= heap.length) break;
    const r = l + 1;
    const c = r < heap.length && heap[r]!.end < heap[l]!.end ? r : l;
    if (heap[c]!.end >= last.end) break;
    heap[i] = heap[c]!;
    i = c;
  }
  heap[i] = last;
  return top;
}
