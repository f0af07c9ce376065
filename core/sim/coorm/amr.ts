// The AMR application model of the CooRMv2 paper (section 2): a working-set profile drawn by the
// acceleration–deceleration model, the step-duration model t(n, S), the node count that keeps a target efficiency
// from the current working set alone, and the equivalent static allocation n_eq known only a posteriori.
import type { Random } from '../../random.js';

/** The speed-up model's constants, data sizes in MiB, durations in seconds. */
export interface SpeedupModel {
  /** Perfectly parallel work, s·node/MiB. */
  readonly a: number;
  /** Parallelisation overhead, s/node. */
  readonly b: number;
  /** Per-node cost per unit of data, s/MiB. */
  readonly c: number;
  /** Constant term, s. */
  readonly d: number;
  /** Largest working set, MiB. */
  readonly sMaxMiB: number;
}

// Decision: TiB and MiB are binary units, so S_max = 3.16 × 2^20 MiB.
export const PAPER_SPEEDUP: SpeedupModel = { a: 7.26e-3, b: 1.23e-4, c: 1.13e-6, d: 1.38, sMaxMiB: 3.16 * 1024 * 1024 };

export const AMR_STEPS = 1000;
/** The normalised profile's maximum. */
export const NORMALISED_MAX = 1000;
export const TARGET_EFFICIENCY = 0.75;
const MAX_PHASE_STEPS = 200;
const ACCELERATION = 0.01;
const DECELERATION = 0.95;
const NOISE_SD = 2;

/**
 * A normalised working-set profile s_0..s_{steps-1} in [0, 1000] with a maximum of exactly 1000. Phases of 1..200
 * steps alternate, starting with an accelerating one.
 */
export function workingSetProfile(random: Random, steps = AMR_STEPS): number[] {
  if (!Number.isInteger(steps) || steps < 1) throw new RangeError(`steps must be a whole number >= 1, not ${steps}`);
  const raw: number[] = [];
  let velocity = 0;
  let size = 0;
  let phase = 0;
  let left = random.int(1, MAX_PHASE_STEPS);
  for (let i = 0; i < steps; i++) {
    if (left === 0) {
      phase++;
      left = random.int(1, MAX_PHASE_STEPS);
    }
    left--;
    velocity = phase % 2 === 0 ? velocity + ACCELERATION : velocity * DECELERATION;
    size += velocity;
    // Decision: the noise is added to each step's size (not carried into the velocity), and a size never goes below 0.
    raw.push(Math.max(0, size + random.normal(0, NOISE_SD)));
  }
  const max = Math.max(...raw);
  // A profile of only noise clamped to 0 cannot be normalised; it is then flat at the maximum.
  return raw.map((s) => (max > 0 ? (s / max) * NORMALISED_MAX : NORMALISED_MAX));
}

/** S_i in MiB from the normalised s_i (the paper's formula reads s_i as a fraction of its maximum 1000). */
export function dataSizeMiB(normalised: number, model: SpeedupModel = PAPER_SPEEDUP): number {
  return (normalised / NORMALISED_MAX) * model.sMaxMiB;
}

/** t(n, S): seconds for one step on n nodes with S MiB of data. */
export function stepDuration(n: number, sMiB: number, model: SpeedupModel = PAPER_SPEEDUP): number {
  if (!(n > 0)) throw new RangeError(`node count must be positive, not ${n}`);
  return (model.a * sMiB) / n + model.b * n + model.c * sMiB + model.d;
}

/** Speed-up over one node divided by the node count: t(1, S) / (n · t(n, S)). */
export function efficiency(n: number, sMiB: number, model: SpeedupModel = PAPER_SPEEDUP): number {
  return stepDuration(1, sMiB, model) / (n * stepDuration(n, sMiB, model));
}

/**
 * The most nodes that still run at `target` efficiency or better (at least 1). Efficiency falls as n grows, since
 * n · t(n, S) = A·S + B·n² + (C·S + D)·n rises, so this is the floor of the root of B·n² + (C·S + D)·n = t(1,S)/e − A·S.
 */
export function nodesForEfficiency(
  sMiB: number,
  target = TARGET_EFFICIENCY,
  model: SpeedupModel = PAPER_SPEEDUP,
): number {
  if (!(target > 0 && target <= 1)) throw new RangeError(`target efficiency must be in (0, 1], not ${target}`);
  const rhs = stepDuration(1, sMiB, model) / target - model.a * sMiB;
  const linear = model.c * sMiB + model.d;
  const root = (-linear + Math.sqrt(linear * linear + 4 * model.b * rhs)) / (2 * model.b);
  let n = Math.max(1, Math.floor(root));
  // The closed form can land one off by rounding: settle on the exact integer.
  while (n > 1 && efficiency(n, sMiB, model) < target) n--;
  while (efficiency(n + 1, sMiB, model) >= target) n++;
  return n;
}

/** Node-seconds of running every step on the node count the target efficiency gives it: A(e_t). */
export function dynamicArea(
  sizesMiB: readonly number[],
  target = TARGET_EFFICIENCY,
  model: SpeedupModel = PAPER_SPEEDUP,
): number {
  let area = 0;
  for (const s of sizesMiB) {
    const n = nodesForEfficiency(s, target, model);
    area += n * stepDuration(n, s, model);
  }
  return area;
}

/** Node-seconds of running every step on n nodes. */
export function staticArea(n: number, sizesMiB: readonly number[], model: SpeedupModel = PAPER_SPEEDUP): number {
  let area = 0;
  for (const s of sizesMiB) area += n * stepDuration(n, s, model);
  return area;
}

/**
 * n_eq: the static node count whose area equals A(e_t). Σ n·t(n, S_i) = B·k·n² + (C·ΣS + D·k)·n + A·ΣS is
 * increasing in n, so the root is unique.
 */
// Decision: n_eq is kept real-valued; the user's guess rounds φ·n_eq up to whole nodes.
export function equivalentStaticNodes(
  sizesMiB: readonly number[],
  target = TARGET_EFFICIENCY,
  model: SpeedupModel = PAPER_SPEEDUP,
): number {
  if (sizesMiB.length === 0) throw new RangeError('no steps');
  const k = sizesMiB.length;
  const total = sizesMiB.reduce((s, x) => s + x, 0);
  const qa = model.b * k;
  const qb = model.c * total + model.d * k;
  const qc = model.a * total - dynamicArea(sizesMiB, target, model);
  return (-qb + Math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa);
}
