// The scheduling variants of the paper's evaluation (section 5.1). `rigid` is the baseline that ignores evolution:
// each application becomes one rigid job (its largest node count for its whole duration) scheduled conservatively
// (CBF): in order, each at the earliest time it fits without moving those before it. The five others are Algorithm 1
// with the base fit: no expansion, expand limit 2 or unlimited, with or without compacting.
import { peakNodes, totalDuration, type EvolutionProfile } from './evolution-profile.js';
import { baseFit, baseFitWith } from './base-fit.js';
import { compactingFitWith } from './compact.js';
import type { Fit } from './fit.js';

export const FPE_VARIANTS = ['rigid', 'noX', '2X', '2X+c', 'infX', 'infX+c'] as const;
export type FpeVariantName = (typeof FPE_VARIANTS)[number];

export interface FpeVariant {
  readonly name: FpeVariantName;
  readonly description: string;
  /** Whether the application's steps are seen (false: rigid, one step of its peak for its whole duration). */
  readonly evolving: boolean;
  /** The expand limit l of the base fit (1: no step expanded). */
  readonly expandLimit: number;
  readonly compacting: boolean;
  readonly fit: Fit;
}

/** The rigid job an evolving application is seen as when its evolution is ignored: its peak for its whole duration. */
export function rigidProfile(ep: EvolutionProfile): EvolutionProfile {
  return ep.length === 0 ? [] : [{ duration: totalDuration(ep), nodes: peakNodes(ep) }];
}

// A one-step EP is never expanded, so the base fit on it is the earliest start where the job fits: CBF's reservation.
const rigidFit: Fit = (requested, resource, nnodes, t0) =>
  baseFit(rigidProfile(requested), resource, nnodes, t0, { expandLimit: 1 });

export const rigid: FpeVariant = {
  name: 'rigid',
  description:
    'evolution ignored: each application a rigid job of its peak node count for its whole duration, scheduled CBF-like',
  evolving: false,
  expandLimit: 1,
  compacting: false,
  fit: rigidFit,
};

function expanding(name: FpeVariantName, expandLimit: number, compacting: boolean, description: string): FpeVariant {
  return {
    name,
    description,
    evolving: true,
    expandLimit,
    compacting,
    fit: compacting ? compactingFitWith(expandLimit) : baseFitWith(expandLimit),
  };
}

// Decision: the paper's noX is expand limit 1 ("an expand limit of 1 means applications will not be expanded";
// Algorithm 2 requires l >= 1); a limit of 0 would fail every step after the first.
export const noX = expanding('noX', 1, false, 'base fit, no step expanded (expand limit 1)');
export const twoX = expanding('2X', 2, false, 'base fit, a step expanded to at most twice its duration');
export const twoXc = expanding('2X+c', 2, true, 'base fit with expand limit 2, then compacting');
export const infX = expanding('infX', Infinity, false, 'base fit, steps expanded without limit');
export const infXc = expanding('infX+c', Infinity, true, 'base fit without expand limit, then compacting');
