// clusterNames (job-sizes.ts) names a job's clusters with a loop rather than map and join, for V8's sake: it must
// answer as `map` and `join` do, for any components.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusterNames } from '../../core/scheduler/job-sizes.js';

describe('clusterNames', () => {
  it('is the components’ clusters joined by ", ", in order', () => {
    const component = fc.record({ cluster: fc.string(), processors: fc.nat() });
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 6 }), (components) => {
        expect(clusterNames(components)).toBe(components.map((c) => c.cluster).join(', '));
      }),
    );
  });

  it('names one cluster alone and several in order', () => {
    expect(clusterNames([{ cluster: 'a', processors: 2 }])).toBe('a');
    expect(
      clusterNames([
        { cluster: 'b', processors: 1 },
        { cluster: 'a', processors: 3 },
      ]),
    ).toBe('b, a');
  });
});
