// Algorithm 2 of the paper (section 4.2), the base fit, line by line: each step of the requested EP is placed at the
// earliest time it fits, the previous step being expanded up to it; a placement that would expand the previous step
// beyond the expand limit, or over a time where its nodes are not free, fails back to the previous step with the time
// from which to try it again. The first step is delayed rather than expanded.
import type { EvolutionProfile, EpStep, ScheduledEp } from './evolution-profile.js';
import { checkFitInput, type Fit } from './fit.js';
import { locOfMax, maxNodes } from './resource-profile.js';
import type { StepFunction } from '../time/step-function.js';

/** Why a try failed and where the search jumps (the three failures of section 4.2), for tests and tracing. */
export interface BaseFitJump {
  /** 1-based index of the step being placed. */
  readonly step: number;
  /** placement: too few free nodes for the step itself (line 7); limit: the previous step would be expanded beyond the
   * expand limit (line 11); resources: too few free nodes to expand the previous step (line 13). */
  readonly failure: 'placement' | 'limit' | 'resources';
  readonly from: number;
  /** The time tried next: by this step (placement) or by the previous step (limit, resources). */
  readonly to: number;
}

export interface BaseFitOptions {
  /** Expand limit l >= 1: a step may last at most l times its duration (1: never expanded; Infinity: no limit). */
  readonly expandLimit: number;
  readonly onJump?: (jump: BaseFitJump) => void;
}

/**
 * Algorithm 2: where `requested` starts (ts, the first step delayed) and its expanded steps (epx). The search starts
 * at t0.
 */
export function baseFit(
  requested: EvolutionProfile,
  resource: StepFunction,
  nnodes: number,
  t0: number,
  options: BaseFitOptions,
): ScheduledEp {
  checkFitInput(requested, resource, nnodes, t0);
  const l = options.expandLimit;
  if (!(l >= 1)) throw new RangeError(`base fit: the expand limit must be >= 1, got ${l}`);
  if (requested.length === 0) return { start: t0, steps: [] };
  const out: EpStep[] = new Array<EpStep>(requested.length);
  const r = fitFrom(requested, resource, nnodes, l, 1, t0, out, options.onJump);
  if (!r.ok) throw new Error('base fit: the first step failed, which the algorithm never does');
  return { start: r.ts, steps: out };
}

/** Fit functions of the base algorithm with a given expand limit. */
export function baseFitWith(expandLimit: number): Fit {
  return (requested, resource, nnodes, t0) => baseFit(requested, resource, nnodes, t0, { expandLimit });
}

/** ok: steps i.. are placed (written into out) and ts is where step i starts; otherwise ts is the time returned on failure. */
interface Attempt {
  ok: boolean;
  ts: number;
}

// One level of the recursion, for step i (1-based) from t0. The comments give the lines of Algorithm 2.
function fitFrom(
  req: EvolutionProfile,
  res: StepFunction,
  nnodes: number,
  l: number,
  i: number,
  t0: number,
  out: EpStep[],
  onJump: ((jump: BaseFitJump) => void) | undefined,
): Attempt {
  // 1-2: every step placed; the next one would start at t0.
  if (i > req.length) return { ok: true, ts: t0 };
  // 3: the current step.
  const { duration: d, nodes: n } = req[i - 1]!;
  // 4
  let ts = t0;
  // 5
  for (;;) {
    // 6-7: not enough free nodes for the step at ts: jump past the last peak in the way.
    if (nnodes - maxNodes(res, ts, ts + d) < n) {
      const to = locOfMax(res, ts, ts + d);
      onJump?.({ step: i, failure: 'placement', from: ts, to });
      ts = to;
      continue;
    }
    // 8
    if (i > 1) {
      const prev = req[i - 2]!;
      // 9: the earliest start the previous step may have if it is to last until ts.
      const teas = ts - l * prev.duration;
      // 10-11: the previous step (started at t0 - d_prev) would be expanded beyond the limit.
      if (teas > t0 - prev.duration) {
        onJump?.({ step: i, failure: 'limit', from: ts, to: teas });
        return { ok: false, ts: teas };
      }
      // 12-13: the previous step's nodes are not free all the way from t0 to ts.
      if (nnodes - maxNodes(res, t0, ts) < prev.nodes) {
        const to = locOfMax(res, t0, ts);
        onJump?.({ step: i, failure: 'resources', from: ts, to });
        return { ok: false, ts: to };
      }
    }
    // 14: the following steps, from the end of this one.
    const tail = fitFrom(req, res, nnodes, l, i + 1, ts + d, out, onJump);
    // 15-16: they failed; try this step again from the time they gave.
    if (!tail.ok) {
      ts = tail.ts;
      continue;
    }
    // 17-20. Decision: line 17 reads "if i > 0", which holds for every step of a 1-based index; the text (the first
    // step is delayed instead of expanded, line 20) makes it i > 1.
    // Decision: a step the tail did not push keeps its start and its requested duration exactly. On wall-clock times
    // (ts + d) - ts is not d to the last bit, and a step a rounding error shorter or earlier than asked breaks C1.
    const pushed = tail.ts !== ts + d;
    if (i > 1) {
      out[i - 1] = { duration: pushed ? Math.max(d, tail.ts - ts) : d, nodes: n };
    } else {
      out[i - 1] = { duration: d, nodes: n };
      if (pushed) ts = tail.ts - d;
    }
    // 21
    return { ok: true, ts };
  }
}
