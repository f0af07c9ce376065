// The ECharts option of a utilization chart (UsageChart.vue): background load and Concertina's processors
// (non-preemptible, pre-allocated, preemptible) as filled, stacked areas; idle processors on top of them as an
// unfilled band, outlined up to the processors, so that what is busy is what the eye sees first; the threshold.
import type { UsagePoint } from '../stores/grid.js';
import { hms } from '../format.js';

export interface UsagePart {
  readonly key: 'background' | 'nonPreemptible' | 'preallocated' | 'preemptible' | 'idle';
  readonly name: string;
  readonly color: string;
  /** Drawn filled (busy) or as an outline only (idle). */
  readonly filled: boolean;
}

export const USAGE_PARTS: readonly UsagePart[] = [
  { key: 'background', name: 'background', color: '#9e9e9e', filled: true },
  { key: 'nonPreemptible', name: 'non-preemptible', color: '#d03050', filled: true },
  { key: 'preallocated', name: 'pre-allocated', color: '#8a2be2', filled: true },
  { key: 'preemptible', name: 'preemptible', color: '#2080f0', filled: true },
  // Decision: idle is an unfilled band (no area, a thin dashed outline at the processors' count): a filled green
  // area, the largest part of a quiet grid, drew the eye away from the jobs and the background load.
  { key: 'idle', name: 'idle', color: '#8c8c8c', filled: false },
];

/** What a series' name means, under its value in the tooltip. */
const MEANING: Record<string, string> = {
  'pre-allocated': "held for evolving jobs' growth, unused now (lent only preemptibly)",
  idle: 'free processors (the unfilled band up to the processors)',
};

interface TooltipItem {
  seriesName?: string;
  marker?: string;
  value?: unknown;
  axisValue?: unknown;
}

/** The tooltip: the time, then each series with its value, and what a less obvious one means. */
function tooltip(items: TooltipItem | TooltipItem[]): string {
  const list = Array.isArray(items) ? items : [items];
  const time = Number(list[0]?.axisValue ?? 0);
  const lines = list.map((item) => {
    const value = Array.isArray(item.value) ? item.value[1] : item.value;
    const meaning = MEANING[item.seriesName ?? ''];
    return `${item.marker ?? ''}${item.seriesName}: <b>${String(value)}</b>${meaning ? `<br/><span style="opacity:.7;font-size:11px">${meaning}</span>` : ''}`;
  });
  return [hms(time), ...lines].join('<br/>');
}

export function usageOption(points: readonly UsagePoint[], showProcessors: boolean) {
  const series: Record<string, unknown>[] = USAGE_PARTS.map((p) => ({
    name: p.name,
    type: 'line',
    stack: 'usage',
    showSymbol: false,
    color: p.color,
    animation: false,
    ...(p.filled
      ? { areaStyle: {}, lineStyle: { width: 0 } }
      : { areaStyle: { opacity: 0 }, lineStyle: { width: 1, type: 'dashed', opacity: 0.8 } }),
    data: points.map((pt) => [pt.t, pt[p.key]]),
  }));
  series.push({
    name: 'threshold',
    type: 'line',
    showSymbol: false,
    color: '#f0a020',
    lineStyle: { type: 'dashed', width: 1.5 },
    animation: false,
    data: points.map((pt) => [pt.t, pt.threshold]),
  });
  if (showProcessors) {
    series.push({
      name: 'processors',
      type: 'line',
      showSymbol: false,
      color: '#606060',
      lineStyle: { width: 1 },
      animation: false,
      data: points.map((pt) => [pt.t, pt.processors]),
    });
  }
  return {
    backgroundColor: 'transparent',
    // Redrawn at every snapshot: an animated axis would show its old labels fading over the new ones.
    animation: false,
    tooltip: { trigger: 'axis', formatter: tooltip },
    // Compact, so that the six entries of a cluster card's legend stay on one line.
    legend: { top: 0, itemGap: 6, itemWidth: 14, textStyle: { fontSize: 10 } },
    grid: { left: 44, right: 12, top: 28, bottom: 24 },
    xAxis: {
      type: 'value',
      min: 'dataMin',
      max: 'dataMax',
      // The data's ends are labelled beside the round ticks: one that would overlap its neighbour is left out.
      axisLabel: { formatter: (v: number) => hms(v), fontSize: 10, hideOverlap: true },
    },
    yAxis: { type: 'value', min: 0, axisLabel: { fontSize: 10 } },
    series,
  };
}
