// LeanMD, the Charm++ molecular-dynamics mini-application the DBES paper ran as its malleable jobs (section V-A,
// Table I's cell counts). It takes any size it is given (Charm++ migrates its objects), and its run time follows the
// decomposition of its work into objects: a box of x·y·z cells, and one compute object per pair of neighbouring
// cells (a cell and each of its 26 neighbours, every pair counted once, plus the cell with itself: 14 per cell).
//
// Sources, as read through the search tool: the structure (cells as the cutoff-sized boxes of the 3D space, computes
// doing the force calculation of one pair of cells, `leanmd dimX dimY dimZ steps ...`) is the UIUC-PPL/leanmd README
// and charmplusplus.org/miniApps (LeanMD). Neither page's text gives the scaling figures it plots (Blue Gene/P and /Q),
// so the efficiency below is a decision, not a measured fit.
import { anySizeApp, type AppModel } from './model.js';

/** Compute objects per cell: 26 neighbour pairs shared by two cells each, plus the cell's own pair. */
export const COMPUTES_PER_CELL = 14;

// Decision: 1 % of a step does not parallelise (the reductions and the integration barrier between steps), which
// keeps a LeanMD job at about 90 % efficiency when it grows to four times its size (4 → 16 cores: speed-up 3.58),
// the "near-linear strong scaling at small scale" the Charm++ pages describe without giving numbers.
export const LEANMD_SERIAL_FRACTION = 0.01;

export interface LeanMdParameters {
  /** Cells of the box along x, y and z (Table I: 6x6x6 … 15x15x15). */
  readonly cells: readonly [number, number, number];
  /** Seconds the run takes on `size` cores (the ESP job type's static execution time at its ESP size). */
  readonly runtimeS: number;
  readonly size: number;
}

/** Compute objects of a box of cells: the unit of load balance, so nothing runs faster on more cores than these. */
export function computeObjects(cells: readonly [number, number, number]): number {
  return cells[0] * cells[1] * cells[2] * COMPUTES_PER_CELL;
}

/**
 * Relative time of one step on `n` cores: an Amdahl serial share plus the parallel part, whose per-core load is the
 * most objects one core holds (⌈W/n⌉ of W objects, perfectly balanced otherwise, as Charm++'s load balancers aim at).
 */
function stepTime(n: number, objects: number, serial: number): number {
  const cores = Math.max(1, Math.min(n, objects));
  return serial + (1 - serial) * (Math.ceil(objects / cores) / objects);
}

/** Run time on `n` cores, scaled so that it is exactly `runtimeS` on `size` cores. Never rises with n. */
export function leanmdRuntime(p: LeanMdParameters, serial = LEANMD_SERIAL_FRACTION): (n: number) => number {
  const objects = computeObjects(p.cells);
  const at = stepTime(p.size, objects, serial);
  return (n) => (p.runtimeS * stepTime(n, objects, serial)) / at;
}

export function leanmd(p: LeanMdParameters): AppModel {
  return anySizeApp('leanmd', leanmdRuntime(p));
}
