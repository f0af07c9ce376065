// The placement policies by name. A new policy is one file exporting a PlacementPolicy plus one line here (and its
// name in PLACEMENT_POLICIES, which this Record's type enforces).
import type { PlacementPolicyName } from '../model/schemas.js';
import { closeToFiles } from './close-to-files.js';
import { clusterMinimization } from './cluster-minimization.js';
import { flexibleClusterMinimization } from './flexible-cluster-minimization.js';
import type { PlacementPolicy } from './policy.js';
import { worstFit } from './worst-fit.js';

export const placementPolicies: Readonly<Record<PlacementPolicyName, PlacementPolicy>> = Object.freeze({
  wf: worstFit,
  cf: closeToFiles,
  cm: clusterMinimization,
  fcm: flexibleClusterMinimization,
});

/** The policy with this name, or undefined for a name no policy has. */
export function placementPolicy(name: string): PlacementPolicy | undefined {
  return Object.hasOwn(placementPolicies, name) ? placementPolicies[name as PlacementPolicyName] : undefined;
}
