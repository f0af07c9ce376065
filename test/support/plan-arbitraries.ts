// Random cluster plans for properties of the queue policies: a cluster's capacity, running jobs with and without an
// end (overbooked ones too: more running than capacity), and reservations ahead, all seen at PLAN_NOW; and the plain
// QueueView a pass reads them through.
import fc from 'fast-check';
import { AvailabilityProfile } from '../../core/plan/availability.js';
import type { QueueView } from '../../core/queue/policy.js';

export const PLAN_NOW = 10;

/** A walltime or a duration: mostly a few seconds, sometimes none (Infinity). */
export const walltimeArb = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 60 }), weight: 5 }, fc.constant(Infinity));

const endArb = fc.oneof(fc.integer({ min: PLAN_NOW + 1, max: PLAN_NOW + 60 }), fc.constant(Infinity));

export const planClusterArb = fc.record({
  capacity: fc.integer({ min: 0, max: 16 }),
  running: fc.array(fc.record({ n: fc.integer({ min: 0, max: 8 }), end: endArb }), { maxLength: 6 }),
  reservations: fc.array(
    fc.record({
      n: fc.integer({ min: 1, max: 8 }),
      start: fc.integer({ min: PLAN_NOW + 1, max: PLAN_NOW + 60 }),
      duration: walltimeArb,
    }),
    { maxLength: 2 },
  ),
});
export type PlanCluster = typeof planClusterArb extends fc.Arbitrary<infer T> ? T : never;

/** Each cluster's plan at PLAN_NOW. */
export function plansOf(clusters: readonly PlanCluster[]): AvailabilityProfile[] {
  return clusters.map((c, i) =>
    AvailabilityProfile.build({
      now: PLAN_NOW,
      capacity: c.capacity,
      running: c.running.map((r, k) => ({ id: `c${i}r${k}`, ...r })),
      reservations: c.reservations.map((r, k) => ({ id: `c${i}s${k}`, ...r })),
    }),
  );
}

/** The view a pass reads `plans` through, with none of the optional shortcuts. */
export function plainView(plans: readonly AvailabilityProfile[]): QueueView {
  return { now: PLAN_NOW, clusterCount: plans.length, plan: (i) => plans[i]!, freed: () => true, promised: 0 };
}
