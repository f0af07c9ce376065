// The Plan view's Gantt of one cluster: where each running job and reservation is drawn (x: time, y: processors), and
// A plan does not say which processors a job holds, only how many: each item takes the lowest processors that no item
// overlapping it in time has taken (in one band or several), running jobs first (by start; a profiled one's current
// step; malleable ones last), then what is ahead (running profiled jobs' later steps, reservations) by start. Taken in
// that order, every item placed before one and overlapping it holds processors at its start, so an item fits under the
// capacity whenever the plan does. Processors set aside for pending grow offers are drawn from now, as held by the job
// offered them, after the malleable jobs (they are malleable extras to be).
// The plan counts processors twice where a malleable job's extras fill an evolving job's unused pre-allocation (both
// holdings count them), so its capacity can exceed the cluster's processors. The axis is the cluster's processors; the
// capacity beyond them is drawn as shared: malleable boxes take that many of the evolving boxes' unused processors.
import type { MethodOutput } from '../api/types.js';
import { hms } from '../format.js';

export type PlanSnapshotView = MethodOutput<'plan.snapshot'>;
export type ClusterPlanView = PlanSnapshotView['clusters'][number];

export interface GanttBox {
  /**
   * `planned`: a running profiled job's later step, as the plan holds it; `offered`: processors set aside for a grow
   * offer not yet answered (its id the job offered them, or `grow offers` between two offers).
   */
  readonly kind: 'running' | 'backfilled' | 'reserved' | 'planned' | 'offered';
  readonly id: string;
  /** Time span drawn: [x0, x1); x1 is the chart's right edge for a job without an end. */
  readonly x0: number;
  readonly x1: number;
  /** The processors it is drawn on: bands [from, to), lowest first. */
  readonly bands: ReadonlyArray<readonly [number, number]>;
  /** Of its bands, those it shares with an evolving job's unused pre-allocation (drawn in both boxes). */
  readonly shared: ReadonlyArray<readonly [number, number]>;
  /** The lowest and the highest processor drawn. */
  readonly y0: number;
  readonly y1: number;
  /** The hover text. */
  readonly text: string;
}

export interface GanttLayout {
  readonly boxes: GanttBox[];
  /** Steps of running jobs' past sizes inside their band: [t0, t1, y0, y1] with the job's box index. */
  readonly sizes: Array<{ box: number; t0: number; t1: number; v: number }>;
  readonly left: number;
  readonly right: number;
  /** The top of the axis: the cluster's processors (higher only if a box could not be drawn under them). */
  readonly top: number;
  /** What Concertina may use, processors counted once: the plan's capacity less what it counts twice (`shared`). */
  readonly usable: number;
  /** Processors the plan counts twice (its capacity beyond the cluster's processors), drawn as shared. */
  readonly shared: number;
}

/** Past shown left of now at most (seconds). */
export const PAST_S = 3600;
/** Future shown right of now at least (seconds). */
export const FUTURE_S = 600;

function endText(end: number | null): string {
  return end === null ? 'no walltime: no end in the plan' : `ends by ${hms(end)} (walltime)`;
}

/**
 * The plan's capacity split into what Concertina may use (counted once) and what it counts twice.
 * Decision: only the capacity beyond the cluster's processors is known to be counted twice (the snapshot does not say
 * how many processors are shared); where Concertina may use the whole cluster, that is all of them.
 */
export function capacityOf(plan: ClusterPlanView): { usable: number; shared: number } {
  const capacity = plan.capacity[0]?.v ?? plan.processors;
  const shared = Math.max(0, capacity - plan.processors);
  return { usable: capacity - shared, shared };
}

/** Bands [from, to) of `bands` that lie in `within`, lowest first. */
function intersect(
  bands: ReadonlyArray<readonly [number, number]>,
  within: ReadonlyArray<readonly [number, number]>,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [a, b] of bands)
    for (const [c, d] of within) {
      const from = Math.max(a, c);
      const to = Math.min(b, d);
      if (from < to) out.push([from, to]);
    }
  return out.sort((x, y) => x[0] - y[0]);
}

/** The top `n` processors of `bands` (lowest first). */
function topOf(bands: ReadonlyArray<readonly [number, number]>, n: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = bands.length - 1; i >= 0 && n > 0; i--) {
    const [from, to] = bands[i]!;
    const k = Math.min(n, to - from);
    out.unshift([to - k, to]);
    n -= k;
  }
  return out;
}

/** Lays out one cluster's plan (see the header). */
export function layoutPlan(plan: ClusterPlanView, now: number): GanttLayout {
  let left = now;
  for (const r of plan.running) left = Math.min(left, r.start);
  left = Math.max(left, now - PAST_S);
  // Decision: the plan ahead is what the view is for: at least as much future as past is shown (and 10 minutes).
  let right = now + Math.max(FUTURE_S, now - left);
  for (const r of plan.running) if (r.end !== null) right = Math.max(right, r.end);
  for (const r of plan.reservations) right = Math.max(right, r.end ?? r.start + FUTURE_S);
  if (plan.offers?.end != null) right = Math.max(right, plan.offers.end);
  // Decision: a job without an end is drawn to the right edge, a tenth of the window past the last known time.
  const open = right + (right - left) / 10;
  right = open;
  const boxes: GanttBox[] = [];
  const sizes: GanttLayout['sizes'] = [];
  const { usable, shared } = capacityOf(plan);
  /** Per evolving box (by index): its unused pre-allocation not yet shared, the top of its bands. */
  const unused = new Map<number, Array<[number, number]>>();
  let shareLeft = shared;
  /**
   * The lowest processors free of every box overlapping [x0, x1): `h` of them, in as few bands as that gives; the
   * processors in `shareable` count as free.
   */
  const place = (
    x0: number,
    x1: number,
    h: number,
    shareable: ReadonlyArray<readonly [number, number]> = [],
  ): Array<[number, number]> => {
    const taken = boxes
      .filter((b) => b.x0 < x1 && x0 < b.x1)
      .flatMap((b) => b.bands)
      .flatMap(([from, to]) => {
        // A band less its shareable part: what is left below and above it.
        const parts: Array<[number, number]> = [];
        let y = from;
        for (const [c, d] of intersect([[from, to]], shareable)) {
          if (c > y) parts.push([y, c]);
          y = d;
        }
        if (y < to) parts.push([y, to]);
        return parts;
      })
      .sort((a, b) => a[0] - b[0]);
    const bands: Array<[number, number]> = [];
    let need = h;
    let y = 0;
    for (const [from, to] of taken) {
      if (need <= 0) break;
      if (from > y) {
        const k = Math.min(need, from - y);
        bands.push([y, y + k]);
        need -= k;
      }
      y = Math.max(y, to);
    }
    if (need > 0) bands.push([y, y + need]);
    return h > 0 ? bands : [[y, y]];
  };
  /**
   * Where a box held from x0 to x1 on `h` processors is drawn (place); `extras`: malleable extras, which may share the
   * evolving boxes' unused processors overlapping it in time, as many as are counted twice (those it takes are
   * shared no more).
   */
  const placeHeld = (x0: number, x1: number, h: number, extras: boolean) => {
    let shareable: Array<[number, number]> = [];
    if (extras && shareLeft > 0) {
      const overlapping = [...unused].filter(([i]) => boxes[i]!.x0 < x1 && x0 < boxes[i]!.x1).flatMap(([, b]) => b);
      shareable = topOf(
        overlapping.sort((a, b) => a[0] - b[0]),
        Math.min(shareLeft, h),
      );
    }
    const bands = place(x0, x1, h, shareable);
    const sharedBands = intersect(bands, shareable);
    const sharedCount = sharedBands.reduce((n, [from, to]) => n + to - from, 0);
    if (sharedCount > 0) {
      shareLeft -= sharedCount;
      for (const [i, b] of unused) {
        const left: Array<[number, number]> = [];
        for (const [from, to] of b) {
          let y = from;
          for (const [c, d] of intersect([[from, to]], sharedBands)) {
            if (c > y) left.push([y, c]);
            y = d;
          }
          if (y < to) left.push([y, to]);
        }
        unused.set(i, left);
      }
    }
    return { bands, sharedBands, sharedCount };
  };
  // Decision: malleable jobs are placed after the other running jobs, so that their extras can be drawn inside the
  // evolving jobs' unused pre-allocations they fill.
  const malleableLast = (r: ClusterPlanView['running'][number]) => (r.kind === 'malleable' ? 1 : 0);
  const running = [...plan.running].sort(
    (a, b) => malleableLast(a) - malleableLast(b) || a.start - b.start || (a.id < b.id ? -1 : 1),
  );
  for (const r of running) {
    // Decision: a running job's band is what it holds now (the plan's running jobs hold, together, no more than the
    // capacity now); a larger past size is shaded up to the band's top, the hover text saying the size it had.
    const band = r.processors;
    const x0 = Math.max(r.start, left);
    // A profiled job's box is its current step; its later steps are drawn after the running jobs (below).
    const stepEnd = r.steps?.[1]?.t;
    const x1 = stepEnd ?? r.end ?? open;
    const { bands, sharedBands, sharedCount } = placeHeld(x0, x1, band, r.kind === 'malleable');
    const step =
      stepEnd !== undefined && r.step !== undefined
        ? ` · step ${r.step} of ${r.stepCount ?? r.step} until ${hms(stepEnd)}`
        : '';
    const peak = Math.max(0, ...r.sizes.map((s) => s.v));
    const past = peak > r.processors ? ` · up to ${peak} earlier` : '';
    const sharing = sharedCount > 0 ? ` · ${sharedCount} of them inside an evolving job's unused pre-allocation` : '';
    const text = `job ${r.id} (${r.kind}) · ${r.processors} processor${r.processors === 1 ? '' : 's'}${r.size !== r.processors ? ` (size ${r.size})` : ''}${past}${sharing} · started ${hms(r.start)}${step} · ${endText(r.end)}${r.backfilled ? ' · backfilled (started ahead of an earlier job)' : ''}`;
    boxes.push({
      kind: r.backfilled ? 'backfilled' : 'running',
      id: r.id,
      x0,
      x1,
      bands,
      shared: sharedBands,
      y0: bands[0]![0],
      y1: bands[bands.length - 1]![1],
      text,
    });
    const index = boxes.length - 1;
    // An evolving job's pre-allocation beyond its size is unused: malleable extras may fill it (drawn as shared).
    if (r.kind === 'evolving' && r.size < r.processors) unused.set(index, topOf(bands, r.processors - r.size));
    r.sizes.forEach((s, i) => {
      const t1 = Math.min(i + 1 < r.sizes.length ? r.sizes[i + 1]!.t : now, now);
      const t0 = Math.max(s.t, left);
      if (t1 > t0 && s.v > 0) sizes.push({ box: index, t0, t1, v: Math.min(s.v, band) });
    });
  }
  // Decision: pending grow offers are drawn from now until the end the plans hold them to, as the job offered them
  // holds its extras (after the malleable jobs, sharing what they leave of the unused pre-allocations), so that no
  // processor they hold is drawn as free.
  const offers = plan.offers;
  const offersEnd = offers === undefined ? now : (offers.end ?? open);
  if (offers !== undefined && offers.processors > 0 && offersEnd > Math.max(offers.start, left)) {
    const x0 = Math.max(offers.start, left);
    const { bands, sharedBands, sharedCount } = placeHeld(x0, offersEnd, offers.processors, true);
    const to = offers.jobId === undefined ? 'set aside between two offers' : `offered to job ${offers.jobId}`;
    const sharing = sharedCount > 0 ? ` · ${sharedCount} of them inside an evolving job's unused pre-allocation` : '';
    const until = offers.end === null ? 'held with no end in the plan' : `held until ${hms(offers.end)}`;
    boxes.push({
      kind: 'offered',
      id: offers.jobId ?? 'grow offers',
      x0,
      x1: offersEnd,
      bands,
      shared: sharedBands,
      y0: bands[0]![0],
      y1: bands[bands.length - 1]![1],
      text: `${offers.processors} processor${offers.processors === 1 ? '' : 's'} ${to}${sharing} · a grow offer awaiting its answer, ${until}`,
    });
  }
  // What is ahead, placed by start (queue order among equal starts: a stable sort): running profiled jobs' later
  // steps as the plan holds them, and the reservations (a profiled job's a box per scheduled step, its own size).
  const ahead: Array<{ kind: 'reserved' | 'planned'; id: string; x0: number; x1: number; h: number; text: string }> =
    [];
  for (const r of running) {
    const steps = r.steps ?? [];
    for (let k = 1; k + 1 < steps.length; k++) {
      const s = steps[k]!;
      const x1 = steps[k + 1]!.t;
      if (s.v <= 0 || x1 <= s.t) continue;
      const n = (r.step ?? 1) + k;
      const text = `job ${r.id} (${r.kind}) planned · step ${n} of ${r.stepCount ?? n}: ${s.v} processor${s.v === 1 ? '' : 's'} · ${hms(s.t)}–${hms(x1)}`;
      ahead.push({ kind: 'planned', id: r.id, x0: s.t, x1, h: s.v, text });
    }
  }
  for (const r of plan.reservations) {
    const waits = r.waitsFor.length
      ? `waits for ${r.waitsFor.map((id) => `job ${id}`).join(', ')}`
      : 'waits for no running job';
    if (r.steps?.length) {
      const count = r.steps.filter((s) => s.v > 0).length;
      r.steps.forEach((s, k) => {
        const x1 = r.steps![k + 1]?.t ?? open;
        if (s.v <= 0 || x1 <= s.t) return;
        const text = `job ${r.id} reserved · step ${k + 1} of ${count}: ${s.v} processor${s.v === 1 ? '' : 's'} · ${hms(s.t)}–${hms(x1)} · ${waits}`;
        ahead.push({ kind: 'reserved', id: r.id, x0: s.t, x1, h: s.v, text });
      });
      continue;
    }
    const text = `job ${r.id} reserved · ${r.processors} processor${r.processors === 1 ? '' : 's'} · starts ${hms(r.start)} · ${endText(r.end)} · ${waits}`;
    ahead.push({ kind: 'reserved', id: r.id, x0: r.start, x1: r.end ?? open, h: r.processors, text });
  }
  ahead.sort((a, b) => a.x0 - b.x0);
  for (const a of ahead) {
    const bands = place(a.x0, a.x1, a.h);
    boxes.push({
      kind: a.kind,
      id: a.id,
      x0: a.x0,
      x1: a.x1,
      bands,
      shared: [],
      y0: bands[0]![0],
      y1: bands[bands.length - 1]![1],
      text: a.text,
    });
  }
  let top = plan.processors;
  for (const b of boxes) top = Math.max(top, b.y1);
  return { boxes, sizes, left, right, top, usable, shared };
}

/**
 * The processor axis, up to `top` (the cluster's processors) exactly: ticks at a divisor of it when one gives 2 to 6
 * steps; otherwise (a prime, say) at a step whose last tick is at least half a step below the top, so that the top's
 * own label (the chart labels the axis's end too) never crowds the one below it.
 */
export function processorAxis(top: number): { max: number; interval: number } {
  const t = Math.max(1, Math.ceil(top));
  if (t <= 6) return { max: t, interval: 1 };
  for (let d = Math.ceil(t / 6); d <= t / 2; d++) if (t % d === 0) return { max: t, interval: d };
  for (let d = Math.ceil(t / 6); d <= t / 2; d++) if (t % d >= d / 2) return { max: t, interval: d };
  return { max: t, interval: Math.ceil(t / 5) };
}

/**
 * A profiled job's steps as their processors in order ("2→16→4"): its sizes over time, steps of no length and the
 * closing 0 left out.
 */
export function stepSizes(steps: ReadonlyArray<{ readonly t: number; readonly v: number }>): string {
  return steps
    .filter((s, k) => k + 1 < steps.length && steps[k + 1]!.t > s.t)
    .map((s) => s.v)
    .join('→');
}
