// A job's views (CooRMv2) for the drawer: fetched from the host (jobs.views) when the job is opened and again when
// one of its events changes what it holds or may hold, and turned into an ECharts option of three step lines.
import { computed, ref, shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import type { JobViews, SchedulerEvent, ViewStep } from '../api/types.js';
import { hms } from '../format.js';

/** The job's own events after which its views are asked for again. */
export const VIEW_EVENTS: ReadonlySet<string> = new Set([
  'job.started',
  'evolve.requested',
  'job.evolved',
  'evolve.refused',
  'job.grown',
  'job.growFailed',
  'job.shrunk',
  'job.ended',
]);

/** The three lines, in the order they are drawn (the allocation last, on top). */
export const VIEW_SERIES = [
  { key: 'nonPreemptive', name: 'non-preemptive view', color: '#d03050', meaning: 'what it may hold with a guarantee' },
  { key: 'preemptive', name: 'preemptive view', color: '#2080f0', meaning: 'what it could hold, until taken back' },
  { key: 'allocated', name: 'allocated', color: '#18a058', meaning: 'what it holds' },
] as const;

/** Least span shown past the last change, in seconds: a view's last step holds on, and that must be visible. */
const MIN_TAIL_S = 60;

/** The time span the chart shows: from the first step to a while after `now` and the last announced change. */
export function horizon(views: JobViews): { from: number; until: number } {
  const times = [views.nonPreemptive, views.preemptive, views.allocated]
    .flatMap((steps) => steps.map((s) => s.t))
    .filter(Number.isFinite);
  const from = Math.min(views.now, ...times);
  const last = Math.max(views.now, ...times);
  // Decision: a quarter of the span shown so far (at least a minute) is drawn past the latest change.
  return { from, until: last + Math.max(MIN_TAIL_S, (last - from) / 4) };
}

/** Points of a `step: 'end'` line: each value from its time on, the last one held until `until`. */
export function stepPoints(steps: readonly ViewStep[], until: number): Array<[number, number]> {
  const points: Array<[number, number]> = steps
    .filter((s) => Number.isFinite(s.t) && s.t <= until)
    .map((s) => [s.t, s.v]);
  const last = points[points.length - 1];
  if (last && last[0] < until) points.push([until, last[1]]);
  return points;
}

interface TooltipItem {
  seriesName?: string;
  marker?: string;
  value?: unknown;
  axisValue?: unknown;
}

/** The chart of a job's views: one step line per view and its allocation, a marker at `now`. */
export function viewsChartOption(views: JobViews) {
  const { from, until } = horizon(views);
  const series = VIEW_SERIES.map((s) => ({
    name: s.name,
    type: 'line',
    step: 'end',
    showSymbol: false,
    color: s.color,
    animation: false,
    lineStyle:
      s.key === 'allocated' ? { width: 2.5 } : { width: 1.5, type: s.key === 'preemptive' ? 'dashed' : 'solid' },
    ...(s.key === 'allocated' ? { areaStyle: { opacity: 0.15 } } : {}),
    data: stepPoints(views[s.key], until),
    ...(s.key === 'allocated'
      ? {
          markLine: {
            symbol: 'none',
            silent: true,
            animation: false,
            lineStyle: { color: '#808080', type: 'dotted' },
            label: { formatter: 'now', fontSize: 10 },
            data: [{ xAxis: views.now }],
          },
        }
      : {}),
  }));
  return {
    backgroundColor: 'transparent',
    tooltip: {
      trigger: 'axis',
      formatter: (items: TooltipItem | TooltipItem[]) => {
        const list = Array.isArray(items) ? items : [items];
        const lines = list.map((item) => {
          const value = Array.isArray(item.value) ? item.value[1] : item.value;
          const meaning = VIEW_SERIES.find((s) => s.name === item.seriesName)?.meaning ?? '';
          return `${item.marker ?? ''}${item.seriesName}: <b>${String(value)}</b> <span style="opacity:.7">${meaning}</span>`;
        });
        return [hms(Number(list[0]?.axisValue ?? 0)), ...lines].join('<br/>');
      },
    },
    legend: { top: 0, textStyle: { fontSize: 11 } },
    grid: { left: 40, right: 16, top: 28, bottom: 24 },
    xAxis: { type: 'value', min: from, max: until, axisLabel: { formatter: (v: number) => hms(v), fontSize: 10 } },
    yAxis: { type: 'value', min: 0, minInterval: 1, axisLabel: { fontSize: 10 } },
    series,
  };
}

export type ViewsFetch = (jobId: string) => Promise<{ ok: true; value: JobViews } | { ok: false; text: string }>;

export interface JobViewsState {
  data: ShallowRef<JobViews | undefined>;
  loaded: Ref<boolean>;
  error: Ref<string>;
  refresh(): Promise<void>;
}

/**
 * The views of the job `jobId()` names while `enabled()`: asked for when it changes and after each of its events in
 * VIEW_EVENTS (`events()`, oldest first). One request at a time; events meanwhile cause one more when it returns.
 */
export function useJobViews(
  jobId: () => string | null,
  events: () => readonly SchedulerEvent[],
  enabled: () => boolean,
  fetch: ViewsFetch,
): JobViewsState {
  const data = shallowRef<JobViews | undefined>();
  const loaded = ref(false);
  const error = ref('');
  let inFlight = false;
  let again = false;

  async function refresh(): Promise<void> {
    const id = jobId();
    if (id === null || !enabled()) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    try {
      const answer = await fetch(id);
      if (jobId() !== id) return; // another job was opened meanwhile: its own request follows
      if (answer.ok) {
        data.value = answer.value;
        error.value = '';
      } else error.value = answer.text;
      loaded.value = true;
    } finally {
      inFlight = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  }

  /** Changes whenever an event that may change the views arrives (or the history is loaded). */
  const trigger = computed(() => {
    let count = 0;
    let last = Number.NEGATIVE_INFINITY;
    for (const e of events())
      if (VIEW_EVENTS.has(e.type)) {
        count++;
        last = e.t;
      }
    return `${count}@${last}`;
  });

  watch(
    [jobId, enabled],
    () => {
      data.value = undefined;
      loaded.value = false;
      error.value = '';
      void refresh();
    },
    { immediate: true },
  );
  watch(trigger, () => void refresh());

  return { data, loaded, error, refresh };
}
