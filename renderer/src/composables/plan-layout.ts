// The Plan view's Gantt of one cluster: where each running job and reservation is drawn (x: time, y: processors), and
// A plan does not say which processors a job holds, only how many: each item takes the lowest processors that no item
// overlapping it in time has taken (in one band or several), running jobs first (by start; a profiled one's current
// step), then running profiled jobs' later steps, then reservations in queue order.
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
    const band = Math.max(r.processors, ...r.sizes.map((s) => s.v));
    const x0 = Math.max(r.start, left);
    // A profiled job's box is its current step; its later steps are drawn after the running jobs (below).
    const stepEnd = r.steps?.[1]?.t;
    const x1 = stepEnd ?? r.end ?? open;
    const bands = place(x0, x1, band);
    const step =
      stepEnd !== undefined && r.step !== undefined
        ? ` · step ${r.step} of ${r.stepCount ?? r.step} until ${hms(stepEnd)}`
        : '';
    const text = `job ${r.id} (${r.kind}) · ${r.processors} processor${r.processors === 1 ? '' : 's'}${r.size !== r.processors ? ` (size ${r.size})` : ''} · started ${hms(r.start)}${step} · ${endText(r.end)}${r.backfilled ? ' · backfilled (started ahead of an earlier job)' : ''}`;
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
      if (t1 > t0 && s.v > 0) sizes.push({ box: index, t0, t1, v: s.v });
    });
  }
  // Running profiled jobs' later steps, as the plan holds them (before the reservations, which were planned around them).
  for (const r of running) {
    const steps = r.steps ?? [];
    for (let k = 1; k + 1 < steps.length; k++) {
      const s = steps[k]!;
      const x1 = steps[k + 1]!.t;
      if (s.v <= 0 || x1 <= s.t) continue;
      const bands = place(s.t, x1, s.v);
      const n = (r.step ?? 1) + k;
      const text = `job ${r.id} (${r.kind}) planned · step ${n} of ${r.stepCount ?? n}: ${s.v} processor${s.v === 1 ? '' : 's'} · ${hms(s.t)}–${hms(x1)}`;
      boxes.push({
        kind: 'planned',
        id: r.id,
        x0: s.t,
        x1,
        bands,
        y0: bands[0]![0],
        y1: bands[bands.length - 1]![1],
        text,
      });
    }
  }
  for (const r of plan.reservations) {
    const waits = r.waitsFor.length
      ? `waits for ${r.waitsFor.map((id) => `job ${id}`).join(', ')}`
      : 'waits for no running job';
    if (r.steps?.length) {
      // A profiled job's scheduled steps: a box per step, its own size.
      const count = r.steps.filter((s) => s.v > 0).length;
      r.steps.forEach((s, k) => {
        const x1 = r.steps![k + 1]?.t ?? open;
        if (s.v <= 0 || x1 <= s.t) return;
        const bands = place(s.t, x1, s.v);
        const text = `job ${r.id} reserved · step ${k + 1} of ${count}: ${s.v} processor${s.v === 1 ? '' : 's'} · ${hms(s.t)}–${hms(x1)} · ${waits}`;
        boxes.push({
          kind: 'reserved',
          id: r.id,
          x0: s.t,
          x1,
          bands,
          y0: bands[0]![0],
          y1: bands[bands.length - 1]![1],
          text,
        });
      });
      continue;
    }
    const x1 = r.end ?? open;
    const bands = place(r.start, x1, r.processors);
    const text = `job ${r.id} reserved · ${r.processors} processor${r.processors === 1 ? '' : 's'} · starts ${hms(r.start)} · ${endText(r.end)} · ${waits}`;
    boxes.push({
      kind: 'reserved',
      id: r.id,
      x0: r.start,
      x1,
      bands,
      y0: bands[0]![0],
      y1: bands[bands.length - 1]![1],
      text,
    });
  }
  let top = plan.capacity[0]?.v ?? plan.processors;
  for (const b of boxes) top = Math.max(top, b.y1);
  return { boxes, sizes, left, right, top };
}
