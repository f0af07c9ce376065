// Properties of the section-4 application types on the real RMS, over random mixes of rigid, moldable, fully- and
// non-predictably evolving applications: all finish, none is killed; NEXT chains run back to back and hand their
// node IDs on; moldable choices stay in bounds; no node ID is held twice. Malleable fillers are left to the scripted
// tests: with them the RMS can leave a non-preemptible start waiting for IDs for good (see coorm-apps.test.ts,
// "known RMS gaps").
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCoormApps, type ClientSpec, type CoormClient } from '../../core/sim/coorm/app-driver.js';
import { RigidApp } from '../../core/sim/coorm/rigid-app.js';
import { MoldableApp } from '../../core/sim/coorm/moldable-app.js';
import { PredictableApp } from '../../core/sim/coorm/predictable-app.js';
import { ProbableNeaApp } from '../../core/sim/coorm/probable-nea-app.js';

const CLUSTER = 12;
const at = fc.integer({ min: 0, max: 150 });
const nodes = fc.integer({ min: 1, max: CLUSTER });
const seconds = fc.integer({ min: 1, max: 200 });
const phases = fc.array(fc.record({ nodes, durationS: seconds }), { minLength: 1, maxLength: 4 });

const app = fc.oneof(
  fc.record({ kind: fc.constant('rigid' as const), at, nodes, durationS: seconds }),
  fc.record({
    kind: fc.constant('moldable' as const),
    at,
    min: nodes,
    span: fc.integer({ min: 0, max: CLUSTER }),
    work: fc.integer({ min: 10, max: 3000 }),
  }),
  fc.record({ kind: fc.constant('predictable' as const), at, phases }),
  fc.record({ kind: fc.constant('nea' as const), at, phases, preallocation: nodes }),
);

type AppSpec = typeof app extends fc.Arbitrary<infer T> ? T : never;

function clientSpec(a: AppSpec): ClientSpec {
  switch (a.kind) {
    case 'rigid':
      return { connectAt: a.at, make: (p) => new RigidApp(p, { nodes: a.nodes, durationS: a.durationS }) };
    case 'moldable': {
      const maxNodes = Math.min(CLUSTER, a.min + a.span);
      return {
        connectAt: a.at,
        make: (p) => new MoldableApp(p, { minNodes: a.min, maxNodes, runtimeS: (n) => a.work / n + 5 }),
      };
    }
    case 'predictable':
      return { connectAt: a.at, make: (p) => new PredictableApp(p, a.phases) };
    case 'nea':
      return {
        connectAt: a.at,
        make: (p) =>
          new ProbableNeaApp(p, {
            phases: a.phases,
            preallocation: a.preallocation,
            checkpointS: 5,
            restartS: 5,
            clusterNodes: CLUSTER,
          }),
      };
  }
}

const killedOf = (c: CoormClient | undefined): string | undefined => {
  if (c instanceof RigidApp) return c.cancelled ? 'killed' : undefined;
  if (c instanceof MoldableApp) return c.killedReason;
  if (c instanceof PredictableApp) return c.killedReason;
  if (c instanceof ProbableNeaApp) return c.failure;
  return undefined;
};

describe('section-4 applications on the RMS', () => {
  it('all finish, nobody is killed, NEXT chains run back to back keeping their IDs, holdings fit the cluster', () => {
    fc.assert(
      fc.property(fc.array(app, { minLength: 1, maxLength: 6 }), (apps) => {
        const specs = apps.map(clientSpec);
        let killed = 0;
        let clash: string | undefined;
        const run = runCoormApps({
          clusterNodes: CLUSTER,
          apps: specs,
          onMessage: (m, _now, rms) => {
            if (m.type === 'killed') killed++;
            // No node ID is held by two requests at once, so never more than the cluster.
            const seen = new Set<number>();
            for (const id of rms.sessionIds()) {
              for (const r of rms.sessionSnapshot(id)!.requests) {
                for (const n of r.nodeIds) {
                  if (seen.has(n)) clash ??= `node ${n} held twice`;
                  seen.add(n);
                }
              }
            }
          },
        });
        expect(killed).toBe(0);
        expect(clash).toBeUndefined();
        run.clients.forEach((c, i) => {
          expect(killedOf(c), `client ${i}`).toBeUndefined();
          expect(c?.finished, `client ${i}`).toBe(true);
        });
        apps.forEach((a, i) => {
          const c = run.clients[i];
          if (a.kind === 'moldable' && c instanceof MoldableApp) {
            expect(c.nodeIds.length).toBe(c.chosenNodes);
            expect(c.chosenNodes).toBeGreaterThanOrEqual(a.min);
            expect(c.chosenNodes).toBeLessThanOrEqual(Math.min(CLUSTER, a.min + a.span));
          }
          if (a.kind === 'predictable' && c instanceof PredictableApp) {
            for (let k = 1; k < a.phases.length; k++) {
              const before = c.phases[k - 1]!;
              const after = c.phases[k]!;
              expect(after.startTime).toBe(before.startTime! + a.phases[k - 1]!.durationS);
              const kept = new Set(after.nodeIds);
              // Growth keeps every ID; a shrink keeps exactly those not freed.
              const expected = before.nodeIds.filter((id) => !before.freed.includes(id));
              expect(expected.every((id) => kept.has(id))).toBe(true);
              expect(after.nodeIds).toHaveLength(a.phases[k]!.nodes);
            }
          }
          if (a.kind === 'nea' && c instanceof ProbableNeaApp) {
            const peak = Math.max(...a.phases.map((p) => p.nodes));
            expect(c.checkpoints.length === 0).toBe(Math.max(a.preallocation, a.phases[0]!.nodes) >= peak);
            expect(c.phaseStarts).toHaveLength(a.phases.length);
          }
        });
      }),
      { numRuns: 400 },
    );
  });
});
