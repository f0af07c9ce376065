// The CooRMv2 paper's simulator (section 5) on core/coorm: an AMR and PSAs in virtual time, on small configurations
// (a short AMR) so that each run takes a fraction of a second. Checks the qualitative observations of Figures 9-11 and
// that a seed fixes a run.
import { describe, expect, it } from 'vitest';
import { amrProfile, clusterNodesFor, runCoormScenario, type CoormScenario } from '../../core/sim/coorm/simulation.js';
import {
  analyseCoorm,
  coormRunMatrix,
  median,
  runCoormCase,
  type CoormExperimentConfig,
} from '../../core/sim/experiments/coorm.js';
import { nodesForEfficiency } from '../../core/sim/coorm/amr.js';
import type { StepFunction } from '../../core/time/step-function.js';

const STEPS = 200;
const base: CoormScenario = {
  seed: 3,
  overcommit: 1,
  amrMode: 'dynamic',
  announceIntervalS: 0,
  psaTaskS: [600],
  sharing: 'coorm',
  steps: STEPS,
};
const run = (o: Partial<CoormScenario>) => runCoormScenario({ ...base, ...o });

describe('one run', () => {
  it('is fixed by its seed, and differs with another seed', () => {
    const a = run({});
    const b = run({});
    expect(b.amrUsedNodeS).toBe(a.amrUsedNodeS);
    expect(b.psaWasteNodeS).toBe(a.psaWasteNodeS);
    expect(b.usedPercent).toBe(a.usedPercent);
    expect(b.amrEndTimeS).toBe(a.amrEndTimeS);
    expect(run({ seed: 4 }).amrUsedNodeS).not.toBe(a.amrUsedNodeS);
  });

  it('sizes the cluster at 1400 φ and pre-allocates ⌈φ n_eq⌉; the RMS never kills a PSA', () => {
    for (const overcommit of [0.5, 1, 2]) {
      const o = run({ overcommit });
      expect(o.clusterNodes).toBe(clusterNodesFor(overcommit));
      expect(o.clusterNodes).toBe(Math.ceil(1400 * overcommit));
      expect(o.preallocation).toBe(Math.ceil(overcommit * amrProfile(base.seed, STEPS).nEq));
      expect(o.psas.every((p) => p.killedByRms === undefined)).toBe(true);
      expect(o.usedPercent).toBeGreaterThan(0);
      expect(o.usedPercent).toBeLessThanOrEqual(100 + 1e-9);
    }
  });

  it('a static AMR holds its whole pre-allocation from its first step to its end, and wastes nothing of the PSA', () => {
    const o = run({ amrMode: 'static', overcommit: 2 });
    // It waits for its first nodes at most a re-scheduling interval.
    expect(o.amrUsedNodeS).toBeGreaterThanOrEqual(o.preallocation * (o.amrEndTimeS - 1));
    expect(o.amrUsedNodeS).toBeLessThanOrEqual(o.preallocation * o.amrEndTimeS);
    expect(o.psaWasteNodeS).toBe(0);
    expect(o.amrUpdates).toBe(0);
  });

  it('a dynamic AMR never holds more than its pre-allocation, nor more than it needs at its peak', () => {
    const { sizesMiB } = amrProfile(base.seed, STEPS);
    const peak = Math.max(...sizesMiB.map((s) => nodesForEfficiency(s)));
    // φ = 0.5: the pre-allocation is below the peak and bounds it; φ = 3: the peak need does.
    for (const overcommit of [0.5, 3]) {
      let most = 0;
      const o = run({
        overcommit,
        // The AMR connects first (session 1); every start notification carries all the node IDs it then holds.
        onMessage: (m) => {
          if (m.type === 'started' && m.session === 1) most = Math.max(most, m.nodeIds.length);
        },
      });
      const bound = Math.min(o.preallocation, peak);
      expect(o.preallocation === bound).toBe(overcommit < 1);
      expect(most, `φ = ${overcommit}`).toBe(bound);
      expect(o.amrUsedNodeS).toBeLessThan(bound * o.amrEndTimeS);
      expect(o.amrUpdates).toBeGreaterThan(10);
    }
  });
});

describe("the paper's observations on a small configuration", () => {
  const config: CoormExperimentConfig = {
    seeds: 2,
    overcommitFactors: [0.5, 1, 2, 3],
    announceIntervalsS: [0, 300, 600, 900],
    twoPsaIntervalsS: [300, 900],
    steps: STEPS,
    psa1TaskS: 600,
    psa2TaskS: 60,
  };
  const runs = coormRunMatrix(config).map((spec) => runCoormCase(spec));
  const a = analyseCoorm(runs, config);
  const over = (mode: string, factor: number) => a.overcommit.find((p) => p.mode === mode && p.factor === factor)!;

  it('runs a repeated simulation once: Figure 10 at 0 s is Figure 9 dynamic at φ = 1', () => {
    const cache = new Map();
    const fig9 = runCoormCase(
      {
        figure: 'overcommit',
        seed: 1,
        factor: 1,
        mode: 'dynamic',
        intervalS: 0,
        sharing: 'coorm',
        psaTaskS: [600],
        steps: 50,
      },
      cache,
    );
    const fig10 = runCoormCase(
      {
        figure: 'announce',
        seed: 1,
        factor: 1,
        mode: 'dynamic',
        intervalS: 0,
        sharing: 'coorm',
        psaTaskS: [600],
        steps: 50,
      },
      cache,
    );
    expect(cache.size).toBe(1);
    expect(fig10.figure).toBe('announce');
    expect(fig10.psaWasteNodeS).toBe(fig9.psaWasteNodeS);
    expect(fig10.amrUsedNodeS).toBe(fig9.amrUsedNodeS);
  });

  it('medians are taken per point over the seeds', () => {
    expect(runs).toHaveLength(2 * (4 * 2 + 4 + 2 * 2));
    const points = runs.filter((r) => r.figure === 'overcommit' && r.mode === 'static' && r.factor === 2);
    expect(over('static', 2).amr_used_node_s).toBe(median(points.map((r) => r.amrUsedNodeS)));
  });

  it('Figure 9: static use grows with φ, dynamic use stays flat and below it', () => {
    expect(over('static', 3).amr_used_node_s).toBeGreaterThan(over('static', 2).amr_used_node_s);
    expect(over('static', 2).amr_used_node_s).toBeGreaterThan(over('static', 1).amr_used_node_s);
    for (const f of [2, 3]) {
      expect(over('dynamic', f).amr_used_node_s).toBeLessThan(over('static', f).amr_used_node_s);
      expect(Math.abs(over('dynamic', f).amr_used_node_s / over('dynamic', 1).amr_used_node_s - 1)).toBeLessThan(0.1);
    }
  });

  it('Figure 9: PSA waste with a dynamic AMR rises up to φ = 1 and is then flat; none with a static AMR', () => {
    expect(over('dynamic', 0.5).psa_waste_node_s).toBeLessThan(over('dynamic', 1).psa_waste_node_s);
    expect(over('dynamic', 3).psa_waste_node_s).toBeCloseTo(over('dynamic', 2).psa_waste_node_s, -3);
    for (const f of config.overcommitFactors) expect(over('static', f).psa_waste_node_s).toBe(0);
  });

  it('Figure 10: waste falls with the announce interval and is zero once it reaches the task duration; the AMR ends later', () => {
    const ann = (i: number) => a.announce.find((p) => p.interval_s === i)!;
    expect(ann(300).psa_waste_node_s).toBeLessThan(ann(0).psa_waste_node_s);
    expect(ann(600).psa_waste_node_s).toBe(0);
    expect(ann(900).psa_waste_node_s).toBe(0);
    expect(ann(900).amr_end_time_s).toBeGreaterThan(ann(0).amr_end_time_s);
  });

  it("Figure 11: strict equi-partitioning is the RMS's: both PSAs are always offered the same view, unlike with filling", () => {
    const differing = (sharing: 'coorm' | 'strict') => {
      const latest = new Map<number, StepFunction>();
      let at = -1;
      let count = 0;
      let compared = 0;
      // Compared between batches of messages (a pass's views all come at one time); the PSAs are sessions 2 and 3.
      const compare = () => {
        const [a, b] = [latest.get(2), latest.get(3)];
        if (a === undefined || b === undefined) return;
        compared++;
        if (a.valueAt(at) !== b.valueAt(at)) count++;
      };
      run({
        announceIntervalS: 300,
        psaTaskS: [600, 60],
        sharing,
        onMessage: (m, now) => {
          if (now !== at) compare();
          at = now;
          if (m.type === 'views') latest.set(m.session, m.preemptive.get('cluster')!);
        },
      });
      expect(compared).toBeGreaterThan(20);
      return count;
    };
    expect(differing('strict')).toBe(0);
    expect(differing('coorm')).toBeGreaterThan(10);
  });

  it('Figure 11: CooRMv2 filling uses more than strict equi-partitioning with two PSAs', () => {
    for (const i of config.twoPsaIntervalsS) {
      const coorm = a.two_psa.find((p) => p.interval_s === i && p.mode === 'coorm')!.used_percent;
      const strict = a.two_psa.find((p) => p.interval_s === i && p.mode === 'strict')!.used_percent;
      expect(coorm, `interval ${i}`).toBeGreaterThan(strict);
    }
  });

  it('reports each observation with its verdict and the figures it rests on', () => {
    expect(a.observations.length).toBeGreaterThanOrEqual(8);
    for (const o of a.observations) {
      expect(Object.values(o.figures).every((v) => typeof v === 'number')).toBe(true);
      expect(a.report).toContain(o.text);
    }
    expect(a.report).toMatch(/\d+ of \d+ hold here/);
  });
});
