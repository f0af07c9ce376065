// The queue policies by name. A new policy is one file exporting a QueuePolicy plus one line here (and its name in
// QUEUE_POLICIES, which this Record's type enforces).
import { backfilling, cbf } from './cbf.js';
import { easy } from './easy.js';
import { fcfs } from './fcfs.js';
import { koala } from './koala.js';
import type { QueuePolicy, QueuePolicyName } from './policy.js';

export const queuePolicies: Readonly<Record<QueuePolicyName, QueuePolicy>> = Object.freeze({ koala, fcfs, easy, cbf });

/** The policy with this name, or undefined for a name no policy has. */
export function queuePolicy(name: string): QueuePolicy | undefined {
  return Object.hasOwn(queuePolicies, name) ? queuePolicies[name as QueuePolicyName] : undefined;
}

/** The queue policies a reservation depth applies to. */
export const BACKFILLING_POLICIES: readonly QueuePolicyName[] = ['easy', 'cbf'];

/**
 * `policy` with Maui's ReservationDepth: at most `depth` waiting jobs hold reservations at once. Decision: the depth
 * overrides the backfilling policies' own (easy: 1, cbf: every job), both then run as backfilling with that depth and
 * persistent reservations; fcfs and koala plan no reservations and ignore it. undefined: the policy as it is.
 */
export function withReservationDepth(policy: QueuePolicy, depth: number | undefined): QueuePolicy {
  if (depth === undefined || !BACKFILLING_POLICIES.includes(policy.name)) return policy;
  return backfilling(policy.name, depth, `${policy.description} Reservation depth ${depth}.`);
}
