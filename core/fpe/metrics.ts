// What one schedule of one test measures (section 5.1's metrics before they are made relative to rigid): areas in
// node-seconds, the makespan, and per application its completion, wait, expansion and waste. Every application may
// start at t0 (offline: all are queued at t0).
import { area, totalDuration, type EvolutionProfile, type ScheduledEp } from './evolution-profile.js';

export interface ScheduleFigures {
  /** Node-seconds the applications compute with: their requested area. */
  readonly usedArea: number;
  /** Node-seconds allocated to them: their scheduled area (used + waste). */
  readonly allocatedArea: number;
  /** Latest completion, from t0. */
  readonly makespan: number;
  readonly completions: readonly number[];
  readonly waits: readonly number[];
  /** Applications whose steps last longer in all than requested. */
  readonly expandedApps: number;
  /** Per application: extra duration as a percentage of its requested duration. */
  readonly appExpansionPercent: readonly number[];
  /** Per application: wasted node-seconds as a percentage of those it computes with. */
  readonly appWastePercent: readonly number[];
}

export function scheduleFigures(
  requested: readonly EvolutionProfile[],
  scheduled: readonly ScheduledEp[],
  t0 = 0,
): ScheduleFigures {
  let usedArea = 0;
  let allocatedArea = 0;
  let makespan = 0;
  let expandedApps = 0;
  const completions: number[] = [];
  const waits: number[] = [];
  const appExpansionPercent: number[] = [];
  const appWastePercent: number[] = [];
  requested.forEach((req, i) => {
    const s = scheduled[i]!;
    const used = area(req);
    const allocated = area(s.steps);
    const d = totalDuration(req);
    const dx = totalDuration(s.steps);
    usedArea += used;
    allocatedArea += allocated;
    const end = s.start + dx - t0;
    completions.push(end);
    waits.push(s.start - t0);
    if (end > makespan) makespan = end;
    if (dx > d) expandedApps++;
    appExpansionPercent.push(((dx - d) / d) * 100);
    appWastePercent.push(((allocated - used) / used) * 100);
  });
  return { usedArea, allocatedArea, makespan, completions, waits, expandedApps, appExpansionPercent, appWastePercent };
}
