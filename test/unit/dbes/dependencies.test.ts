// The paper's example of the dependency analysis (section IV-C): four nodes, A on one node for an hour, B on one node
// for half an hour; a waiting job C of 3 nodes depends on B, one of 4 nodes on A.
import { describe, expect, it } from 'vitest';
import { dbesIteration } from '../../../core/dbes/iteration.js';
import { dependenciesOf, staticSchedule } from '../../../core/dbes/plan.js';
import { cluster, malleable, rigid, waiting } from './builders.js';

describe('the paper example: which running job a StartLater job depends on', () => {
  it.each([
    // C of 3: 2 nodes idle now, B's end (1800 s) makes 3 → C starts at 1800, after B.
    [3, 1800, ['B']],
    // C of 4: only A's end (3600 s) frees all four → C starts at 3600, after A.
    [4, 3600, ['A']],
  ])('C of %i nodes starts at %i and depends on %j', (need, start, deps) => {
    const state = cluster(4, [rigid('A', 1, 3600), rigid('B', 1, 1800)], [waiting('C', need, 600)]);
    const s = staticSchedule(state, state.running);
    expect(s.startNow).toEqual([]);
    expect(s.startLater.map((x) => [x.job.id, x.start])).toEqual([['C', start]]);
    expect(dependenciesOf(s.plan, 'C', state.running)).toEqual(deps);
    // The iteration reports the same.
    expect(dbesIteration(state).startLater).toEqual([{ id: 'C', start, dependsOn: deps }]);
  });

  it('two jobs ending together are both dependencies', () => {
    const state = cluster(4, [rigid('A', 2, 3600), rigid('B', 2, 3600)], [waiting('C', 4, 600)]);
    expect(dbesIteration(state).startLater).toEqual([{ id: 'C', start: 3600, dependsOn: ['A', 'B'] }]);
  });

  it('a reservation that waits for another reservation depends on no running job', () => {
    // C1 (4 nodes) is reserved at 1800 until 2400; C2 (4 nodes) can only start at 2400, when no running job ends.
    const state = cluster(4, [rigid('A', 4, 1800)], [waiting('C1', 4, 600), waiting('C2', 4, 600)]);
    expect(dbesIteration(state).startLater).toEqual([
      { id: 'C1', start: 1800, dependsOn: ['A'] },
      { id: 'C2', start: 2400, dependsOn: [] },
    ]);
  });

  it('with A and B malleable, C of 3 has B expanded for it; C of 4 has A expanded for it', () => {
    // Linear speed-up: B with 1 node has 1800 s left; with 3 nodes, 600 s.
    const three = dbesIteration(
      cluster(4, [malleable('A', 1, 4, 3600), malleable('B', 1, 4, 1800)], [waiting('C', 3, 600)]),
    );
    expect(three.actions).toEqual([{ kind: 'expand', jobId: 'B', processors: 2, step: 1, forJob: 'C' }]);
    expect(three.startLater).toEqual([{ id: 'C', start: 600, dependsOn: ['B'] }]);
    // A with 3 nodes: 1200 s left; C now waits for B's end at 1800, so C depends on B (no room left for B).
    const four = dbesIteration(
      cluster(4, [malleable('A', 1, 4, 3600), malleable('B', 1, 4, 1800)], [waiting('C', 4, 600)]),
    );
    expect(four.actions).toEqual([{ kind: 'expand', jobId: 'A', processors: 2, step: 1, forJob: 'C' }]);
    expect(four.startLater).toEqual([{ id: 'C', start: 1800, dependsOn: ['B'] }]);
  });
});
