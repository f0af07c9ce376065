// Malleability policies by name. A new policy is a new file and one line here.
import { dbes } from './dbes.js';
import { edf } from './edf.js';
import { egs } from './egs.js';
import { ep } from './ep.js';
import { equipartition } from './equipartition.js';
import { esf } from './esf.js';
import { fpsma } from './fpsma.js';
import { ldf } from './ldf.js';
import type { MalleabilityPolicy } from './policy.js';
import { rigid } from './rigid.js';

// rigid, esf, edf, ldf, ep: the DBES paper's baselines; dbes brings its own scheduling iteration (dbes.ts).
export const malleabilityPolicies: Readonly<Record<string, MalleabilityPolicy>> = {
  fpsma,
  egs,
  equipartition,
  rigid,
  esf,
  edf,
  ldf,
  ep,
  dbes,
};

export function malleabilityPolicy(name: string): MalleabilityPolicy | undefined {
  return Object.hasOwn(malleabilityPolicies, name) ? malleabilityPolicies[name] : undefined;
}
