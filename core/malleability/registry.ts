// Malleability policies by name. A new policy is a new file and one line here.
import { egs } from './egs.js';
import { equipartition } from './equipartition.js';
import { fpsma } from './fpsma.js';
import type { MalleabilityPolicy } from './policy.js';

export const malleabilityPolicies: Readonly<Record<string, MalleabilityPolicy>> = { fpsma, egs, equipartition };

export function malleabilityPolicy(name: string): MalleabilityPolicy | undefined {
  return Object.hasOwn(malleabilityPolicies, name) ? malleabilityPolicies[name] : undefined;
}
