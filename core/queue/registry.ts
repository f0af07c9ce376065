// The queue policies by name. A new policy is one file exporting a QueuePolicy plus one line here (and its name in
// QUEUE_POLICIES, which this Record's type enforces).
import { easy } from './easy.js';
import { fcfs } from './fcfs.js';
import { koala } from './koala.js';
import type { QueuePolicy, QueuePolicyName } from './policy.js';

export const queuePolicies: Readonly<Record<QueuePolicyName, QueuePolicy>> = Object.freeze({ koala, fcfs, easy });

/** The policy with this name, or undefined for a name no policy has. */
export function queuePolicy(name: string): QueuePolicy | undefined {
  return Object.hasOwn(queuePolicies, name) ? queuePolicies[name as QueuePolicyName] : undefined;
}
