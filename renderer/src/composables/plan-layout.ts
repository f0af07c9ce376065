// The Plan view's Gantt of one cluster: where each running job and reservation is drawn (x: time, y: processors), and
// A plan does not say which processors a job holds, only how many: each item takes the lowest processors that no item
// overlapping it in time has taken (in one band or several), running jobs first (by start; a profiled one's current
// step), then what is ahead (running profiled jobs' later steps, reservations) by start. Taken in that order, every
// item placed before one and overlapping it holds processors at its start, so an item fits under the capacity
// whenever the plan does.
import type { MethodOutput } from '../api/types.js';
import { hms } from '../format.js';

export type PlanSnapshotView = MethodOutput<'plan.snapshot'>;
export type ClusterPlanView = PlanSnapshotView['clusters'][number];

export interface GanttBox {
  /** `planned`: a running profiled job's later step, as the plan holds it. */
  readonly kind: 'running' | 'backfilled' | 'reserved' | 'planned';
  readonly id: string;
  /** Time span drawn: [x0, x1); x1 is the chart's right edge for a job without an end. */
  readonly x0: number;
  readonly x1: number;
  /** The processors it is drawn on: bands [from, to), lowest first. */
  readonly bands: ReadonlyArray<readonly [number, number]>;
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
  /** The top of the axis: the capacity, or higher where the layout needs it. */
  readonly top: number;
}

/** Past shown left of now at most (seconds). */
export const PAST_S = 3600;
/** Future shown right of now at least (seconds). */
export const FUTURE_S = 600;

function endText(end: number | null): string {
  return end === null ? 'no walltime: no end in the plan' : `ends by ${hms(end)} (walltime)`;
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
  // Decision: a job without an end is drawn to the right edge, a tenth of the window past the last known time.
  const open = right + (right - left) / 10;
  right = open;
  const boxes: GanttBox[] = [];
  const sizes: GanttLayout['sizes'] = [];
  /** The lowest processors free of every box overlapping [x0, x1): `h` of them, in as few bands as that gives. */
  const place = (x0: number, x1: number, h: number): Array<[number, number]> => {
    const taken = boxes
      .filter((b) => b.x0 < x1 && x0 < b.x1)
      .flatMap((b) => b.bands)
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
  const running = [...plan.running].sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1));
  for (const r of running) {
    // Decision: a running job's band is what it holds now (the plan's running jobs hold, together, no more than the
    // capacity now); a larger past size is shaded up to the band's top, the hover text saying the size it had.
    const band = r.processors;
    const x0 = Math.max(r.start, left);
    // A profiled job's box is its current step; its later steps are drawn after the running jobs (below).
    const stepEnd = r.steps?.[1]?.t;
    const x1 = stepEnd ?? r.end ?? open;
    const bands = place(x0, x1, band);
    const step =
      stepEnd !== undefined && r.step !== undefined
        ? ` · step ${r.step} of ${r.stepCount ?? r.step} until ${hms(stepEnd)}`
        : '';
    const peak = Math.max(0, ...r.sizes.map((s) => s.v));
    const past = peak > r.processors ? ` · up to ${peak} earlier` : '';
    const text = `job ${r.id} (${r.kind}) · ${r.processors} processor${r.processors === 1 ? '' : 's'}${r.size !== r.processors ? ` (size ${r.size})` : ''}${past} · started ${hms(r.start)}${step} · ${endText(r.end)}${r.backfilled ? ' · backfilled (started ahead of an earlier job)' : ''}`;
    boxes.push({
      kind: r.backfilled ? 'backfilled' : 'running',
      id: r.id,
      x0,
      x1,
      bands,
      y0: bands[0]![0],
      y1: bands[bands.length - 1]![1],
      text,
    });
    const index = boxes.length - 1;
    r.sizes.forEach((s, i) => {
      const t1 = Math.min(i + 1 < r.sizes.length ? r.sizes[i + 1]!.t : now, now);
      const t0 = Math.max(s.t, left);
      if (t1 > t0 && s.v > 0) sizes.push({ box: index, t0, t1, v: Math.min(s.v, band) });
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
      y0: bands[0]![0],
      y1: bands[bands.length - 1]![1],
      text: a.text,
    });
  }
  let top = plan.capacity[0]?.v ?? plan.processors;
  for (const b of boxes) top = Math.max(top, b.y1);
  return { boxes, sizes, left, right, top };
}

/**
 * The processor axis: ticks that land on its top, so the top label never crowds the one below it. The top is the
 * capacity when a divisor of it gives 2 to 6 steps; otherwise (a prime capacity, say) the next multiple of a step of
 * about a fifth of it.
 */
export function processorAxis(top: number): { max: number; interval: number } {
  const t = Math.max(1, Math.ceil(top));
  if (t <= 6) return { max: t, interval: 1 };
  for (let d = Math.ceil(t / 6); d <= t / 2; d++) if (t % d === 0) return { max: t, interval: d };
  const interval = Math.ceil(t / 5);
  return { max: Math.ceil(t / interval) * interval, interval };
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
