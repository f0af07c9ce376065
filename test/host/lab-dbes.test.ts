// The DBES experiment in the Lab (electron/lab/experiments/dbes.ts): offered with the command line's parameters, the
// same configuration as the command line, its parameters refused at their field, and an analysis shown as charts,
// tables and checked observations that the Lab's result schema accepts.
import { describe, expect, it } from 'vitest';
import { malleabilityPolicies } from '../../core/malleability/registry.js';
import {
  DBES_DEFAULT_CONFIG,
  DBES_STRATEGIES,
  analyseDbes,
  dbesRunMatrix,
  runDbesCase,
} from '../../core/sim/experiments/dbes.js';
import { dbesConfigFromFlags } from '../../electron/cli/experiment-dbes.js';
import { dbesConfigOf, dbesOutcome } from '../../electron/lab/experiments/dbes.js';
import { labResultSchema } from '../../electron/lab/schemas.js';
import { labHosts } from '../support/lab-host.js';

const newHost = labHosts();

describe('lab: dbes experiment', () => {
  it('is offered with its seeds and the choice of strategies', () => {
    const answer = newHost().call('lab.experiments', {});
    if (!answer.ok) throw new Error('lab.experiments failed');
    const dbes = answer.value.experiments.find((e) => e.name === 'dbes')!;
    expect(dbes.params.map((p) => [p.name, p.type, p.required, p.initial])).toEqual([
      ['seeds', 'whole', true, DBES_DEFAULT_CONFIG.seeds],
      ['strategies', 'choice', false, 'paper'],
    ]);
    expect(dbes.params[1]!.options).toEqual(['paper', 'registered']);
  });

  it("runs the command line's configuration: the paper's strategies, or every registered policy", () => {
    expect(dbesConfigOf({ kind: 'dbes', seeds: 2 })).toEqual(dbesConfigFromFlags({ seeds: 2 }));
    expect(dbesConfigOf({ kind: 'dbes', seeds: 1, strategies: 'paper' }).strategies).toEqual(DBES_STRATEGIES);
    expect(dbesConfigOf({ kind: 'dbes', seeds: 1, strategies: 'registered' }).strategies).toEqual(
      Object.keys(malleabilityPolicies),
    );
  });

  it('refuses bad parameters at their field', () => {
    const host = newHost();
    const errorsOf = (spec: unknown) => {
      const r = host.call('lab.start', spec);
      return r.ok ? [] : r.errors;
    };
    expect(errorsOf({ kind: 'dbes', seeds: 0 })).toEqual([{ path: 'seeds', message: 'must be at least 1' }]);
    expect(errorsOf({ kind: 'dbes', seeds: 1, strategies: 'some' })).toEqual([
      { path: 'strategies', message: 'must be one of paper, registered' },
    ]);
  });

  it('shows an analysis as Figures 4 and 6, Figure 5 and Table II, and the observations it could check', () => {
    const config = { ...DBES_DEFAULT_CONFIG, seeds: 1, strategies: ['egs', 'no-such-policy'], percents: [50 as const] };
    const runs = dbesRunMatrix(config).map((s) => runDbesCase(s, config));
    const outcome = dbesOutcome('test', analyseDbes(runs, config));
    const parsed = labResultSchema.parse({ runId: 'lab-1', ...outcome });
    expect(parsed.panels.map((p) => p.id)).toEqual(['dbes-fig4', 'dbes-fig6']);
    expect(parsed.panels[0]!.series).toEqual([
      { name: 'egs', points: [[50, runs.find((r) => r.scenario === 50)!.completion_s]] },
    ]);
    expect(parsed.tables!.map((t) => t.id)).toEqual(['dbes-fig5', 'dbes-table2', 'dbes-not-run']);
    expect(parsed.tables!.find((t) => t.id === 'dbes-not-run')!.rows[0]!.cells[0]).toBe('strategy no-such-policy');
    expect(parsed.metrics.map((m) => m.series)).toEqual(['egs']);
    for (const o of parsed.observations) expect(typeof o.holds).toBe('boolean');
  });
});
