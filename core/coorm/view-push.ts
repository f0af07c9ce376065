// Pushing views: only to the applications whose views changed since the last ones they were sent. Views are
// compared from now on; profiles and whole views shared between applications are trimmed and compared once.
import type { StepFunction } from '../time/step-function.js';
import type { PassResult } from './schedule.js';
import type { RmsMessage, View } from './types.js';

export interface ViewHolder {
  readonly id: number;
  lastNonPreemptive: View | undefined;
  lastPreemptive: View | undefined;
}

/**
 * Appends a views message for every open holder (same order as the pass's applications) whose views changed, and
 * records what it was sent.
 */
export function pushChangedViews(
  holders: readonly ViewHolder[],
  result: PassResult,
  now: number,
  messages: RmsMessage[],
  isOpen: (id: number) => boolean,
): void {
  const trimmedProfiles = new Map<StepFunction, StepFunction>();
  const trimmed = (f: StepFunction): StepFunction => {
    if (f.times.length === 0 || f.times[0]! > now) return f;
    let g = trimmedProfiles.get(f);
    if (g === undefined) trimmedProfiles.set(f, (g = f.truncateBefore(now)));
    return g;
  };
  const trimmedViews = new Map<View, View>();
  const trimView = (v: View): View => {
    let out = trimmedViews.get(v);
    if (out !== undefined) return out;
    out = v;
    for (const f of v.values()) {
      if (trimmed(f) !== f) {
        out = new Map([...v].map(([cid, g]) => [cid, trimmed(g)]));
        break;
      }
    }
    trimmedViews.set(v, out);
    return out;
  };
  const equal = new Map<StepFunction, Map<StepFunction, boolean>>();
  const sameProfile = (f: StepFunction, g: StepFunction): boolean => {
    if (f === g) return true;
    let row = equal.get(f);
    if (row === undefined) equal.set(f, (row = new Map()));
    let eq = row.get(g);
    if (eq === undefined) row.set(g, (eq = f.equals(g)));
    return eq;
  };
  const unchanged = (previous: View | undefined, next: View): boolean => {
    if (previous === undefined || previous.size !== next.size) return false;
    if (previous === next) return true;
    for (const [cid, g] of next) {
      const f = previous.get(cid);
      if (f === undefined || !sameProfile(trimmed(f), g)) return false;
    }
    return true;
  };
  holders.forEach((s, i) => {
    if (!isOpen(s.id)) return;
    const np = trimView(result.nonPreemptive[i]!);
    const p = trimView(result.preemptive[i]!);
    if (unchanged(s.lastNonPreemptive, np) && unchanged(s.lastPreemptive, p)) return;
    s.lastNonPreemptive = np;
    s.lastPreemptive = p;
    messages.push({ type: 'views', session: s.id, nonPreemptive: np, preemptive: p });
  });
}
