// Evolution profiles (EPs) of fully-predictably evolving applications (Klein & Pérez, Euro-Par 2011 workshops,
// section 3.1): a sequence of steps, each a duration and a node count. A requested EP is what an application asks
// for, a scheduled EP what it is given (the requested one, expanded and/or delayed), and the resource EP the
// occupation of the cluster over time, the sum of the scheduled ones. Requested and scheduled EPs are step lists (two
// adjacent steps with the same node count stay two steps, each with its own expand limit); as functions of time they
// are the core's StepFunction, on which ep(t), max, loc and the sum are computed.
import { StepFunction, type Step } from '../time/step-function.js';

export interface EpStep {
  /** Seconds, > 0. */
  readonly duration: number;
  /** Nodes held during the step, >= 0 (a requested EP's steps hold at least 1). */
  readonly nodes: number;
}

export type EvolutionProfile = readonly EpStep[];

/** An EP placed on the time line: its (possibly expanded) steps, the first one starting at `start`. */
export interface ScheduledEp {
  readonly start: number;
  readonly steps: EvolutionProfile;
}

/** A requested EP from [duration, nodes] pairs; RangeError on a step that is not a positive duration and a whole number of nodes >= 1. */
export function evolutionProfile(pairs: ReadonlyArray<readonly [number, number]>): EvolutionProfile {
  return pairs.map(([duration, nodes], i) => {
    if (!(duration > 0) || !Number.isFinite(duration))
      throw new RangeError(
        `evolution profile: step ${i + 1}: duration must be a finite number of seconds > 0, got ${duration}`,
      );
    if (!Number.isInteger(nodes) || nodes < 1)
      throw new RangeError(`evolution profile: step ${i + 1}: nodes must be a whole number >= 1, got ${nodes}`);
    return { duration, nodes };
  });
}

export function totalDuration(ep: EvolutionProfile): number {
  let d = 0;
  for (const s of ep) d += s.duration;
  return d;
}

/** Node-seconds of the EP: sum of duration × nodes. */
export function area(ep: EvolutionProfile): number {
  let a = 0;
  for (const s of ep) a += s.duration * s.nodes;
  return a;
}

/** The largest node count of any step (0 for the empty EP). */
export function peakNodes(ep: EvolutionProfile): number {
  let m = 0;
  for (const s of ep) if (s.nodes > m) m = s.nodes;
  return m;
}

/** The EP as a function of time, its first step starting at `at`: 0 before it and after its last step. */
export function epFunction(ep: EvolutionProfile, at = 0): StepFunction {
  const steps: Step[] = [];
  let t = at;
  for (const s of ep) {
    steps.push({ t, v: s.nodes });
    t += s.duration;
  }
  if (ep.length > 0) steps.push({ t, v: 0 });
  return StepFunction.fromSteps(0, steps);
}

/** ep(t): the node count at time t of the EP starting at 0 (n_1 on [0, d_1), n_2 on [d_1, d_1 + d_2), ...; 0 outside). */
export function epAt(ep: EvolutionProfile, t: number): number {
  if (t < 0) return 0;
  let end = 0;
  for (const s of ep) {
    end += s.duration;
    if (t < end) return s.nodes;
  }
  return 0;
}

/** delay(ep, t0): the EP preceded by a step of t0 seconds holding no node (the EP itself when t0 is 0). */
export function delay(ep: EvolutionProfile, t0: number): EvolutionProfile {
  if (!(t0 >= 0) || !Number.isFinite(t0)) throw new RangeError(`delay: need a finite t0 >= 0, got ${t0}`);
  return t0 === 0 ? ep : [{ duration: t0, nodes: 0 }, ...ep];
}

/** ep1 + ep2, both starting at 0, as a function of time. */
export function sum(a: EvolutionProfile, b: EvolutionProfile): StepFunction {
  return epFunction(a).plus(epFunction(b));
}

/**
 * Whether `x` is `ep` expanded: the same steps with the same node counts, none shorter. Decision: the paper's strict
 * d'_i > d_i for every step would make a profile with only some steps expanded (what the base fit returns) neither
 * the EP itself nor an expanded one; "at least as long" makes C1 say what section 3.2 means.
 */
export function isExpandedOf(x: EvolutionProfile, ep: EvolutionProfile): boolean {
  if (x.length !== ep.length) return false;
  for (let i = 0; i < ep.length; i++) {
    if (x[i]!.nodes !== ep[i]!.nodes || !(x[i]!.duration >= ep[i]!.duration)) return false;
  }
  return true;
}

/** Whether `x` is `ep` delayed: a first step holding no node for d0 > 0 seconds, then exactly `ep`. */
export function isDelayedOf(x: EvolutionProfile, ep: EvolutionProfile): boolean {
  if (x.length !== ep.length + 1 || x[0]!.nodes !== 0 || !(x[0]!.duration > 0)) return false;
  for (let i = 0; i < ep.length; i++)
    if (x[i + 1]!.nodes !== ep[i]!.nodes || x[i + 1]!.duration !== ep[i]!.duration) return false;
  return true;
}

/**
 * Condition C1 for a scheduled EP given from time `t0` (when the application may start): it is the requested EP,
 * optionally expanded and/or delayed. A placed EP starting later than t0 is the delayed form delay(steps, start - t0).
 */
export function satisfiesC1(scheduled: ScheduledEp, requested: EvolutionProfile, t0 = 0): boolean {
  return scheduled.start >= t0 && isExpandedOf(scheduled.steps, requested);
}

/** The scheduled EP as the paper writes it, from t0: delay(epx, ts - t0). */
export function asDelayedEp(scheduled: ScheduledEp, t0 = 0): EvolutionProfile {
  return delay(scheduled.steps, scheduled.start - t0);
}

/** Seconds by which the scheduled steps are longer than the requested ones, in all. */
export function expansion(scheduled: EvolutionProfile, requested: EvolutionProfile): number {
  return totalDuration(scheduled) - totalDuration(requested);
}

/** Node-seconds held but not computed with: each expanded step holds its nodes while it waits. */
export function wasteArea(scheduled: EvolutionProfile, requested: EvolutionProfile): number {
  return area(scheduled) - area(requested);
}
